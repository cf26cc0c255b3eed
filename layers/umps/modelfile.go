package umps

import (
	"fmt"
	"os"
	"path/filepath"
	"unicode/utf8"

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
// directory holding model.npz) and checks it (ModelMeta.Check): a u-MPS
// whose core, alphabet and metadata agree. Every error names the file.
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
		return nil, meta, errors.WithMessagef(err, "model file %s", path)
	}
	if err := meta.Check(m); err != nil {
		return nil, meta, errors.WithMessagef(err, "model file %s", path)
	}
	return m, meta, nil
}

// Check reports the first way meta does not describe m: an alphabet that
// is not one name per symbol of the core (a name empty, not valid UTF-8
// or given twice), a bond other than the core's, a normalisation other
// than "n" and "star", or a length model that is not a distribution.
func (meta ModelMeta) Check(m *MPS) error {
	if err := m.Validate(); err != nil {
		return err
	}
	if m.Symbols != len(meta.Alphabet) {
		return errors.Errorf("umps: the core has %d symbols but the alphabet %q has %d", m.Symbols, clipNames(meta.Alphabet), len(meta.Alphabet))
	}
	seen := make(map[string]int, len(meta.Alphabet))
	for i, a := range meta.Alphabet {
		if a == "" || !utf8.ValidString(a) {
			return errors.Errorf("umps: alphabet entry %d %q is empty or not valid UTF-8", i, a)
		}
		if j, dup := seen[a]; dup {
			return errors.Errorf("umps: the alphabet names the symbol %q twice (entries %d and %d)", a, j, i)
		}
		seen[a] = i
	}
	if meta.Bond != m.Bond {
		return errors.Errorf("umps: the metadata gives bond %d, the core has bond %d", meta.Bond, m.Bond)
	}
	if _, err := ParseNorm(meta.Norm); err != nil {
		return err
	}
	if meta.Lengths != nil {
		return meta.Lengths.Validate()
	}
	return nil
}

// clipNames is names for a message: the first few, and how many more.
func clipNames(names []string) []string {
	const show = 8
	if len(names) <= show {
		return names
	}
	return append(names[:show:show], fmt.Sprintf("... %d more", len(names)-show))
}
