package umps

import (
	"os"
	"path/filepath"

	"github.com/pkg/errors"

	"github.com/rtnlab/rtn/params"
)

// ModelMeta is stored in a u-MPS model file: what a later sample, prob,
// complete or eval command needs to read strings over the right alphabet.
type ModelMeta struct {
	Kind     string   `json:"kind"` // always "umps"
	Data     string   `json:"data"`
	Alphabet []string `json:"alphabet"`
	Bond     int      `json:"bond"`
	Norm     string   `json:"norm"` // "n" (P_n) or "star" (P_*), as Norm.String
	// Lengths is the length model of a per-length model (nil for P_*
	// models and for files written before length models existed).
	Lengths *LengthModel `json:"length_model,omitempty"`
}

// Distribution returns the distribution over all strings a model file
// defines for m: its fitted length model, or P_* when it has none.
func (meta ModelMeta) Distribution(m *MPS) Distribution {
	return Distribution{M: m, Lengths: meta.Lengths}
}

// LengthModelName says which length model a model file's queries use:
// "fitted" (trained per length, with a length model), "star" (trained on
// P_*, its own) or "none" (trained per length by an older version, read
// as P_*, which diverges for most such models).
func (meta ModelMeta) LengthModelName() string {
	switch {
	case meta.Lengths != nil:
		return "fitted"
	case meta.Norm == AllLengths.String():
		return "star"
	}
	return "none"
}

// SaveModel writes a u-MPS model file: an .npz holding the parameters p
// (ParamA, ParamAlpha, ParamOmega) and meta, written atomically.
func SaveModel(path string, meta ModelMeta, p *params.Params) error {
	return params.SaveNPZ(path, meta, map[string]*params.Params{"params": p})
}

// LoadModel reads a model file written by SaveModel (path may be the run
// directory holding model.npz) and checks that it is a u-MPS over its
// alphabet.
func LoadModel(path string) (*MPS, ModelMeta, error) {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		path = filepath.Join(path, "model.npz")
	}
	var meta ModelMeta
	sets, err := params.LoadNPZ(path, &meta)
	if err != nil {
		return nil, meta, err
	}
	if meta.Kind != "umps" || sets["params"] == nil {
		return nil, meta, errors.Errorf("%s is not a u-MPS model file", path)
	}
	m, err := FromParams(sets["params"])
	if err != nil {
		return nil, meta, err
	}
	if m.Symbols != len(meta.Alphabet) {
		return nil, meta, errors.Errorf("%s: the core has %d symbols but the alphabet %v has %d", path, m.Symbols, meta.Alphabet, len(meta.Alphabet))
	}
	return m, meta, nil
}
