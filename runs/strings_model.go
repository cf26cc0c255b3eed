package runs

import (
	"bytes"
	"encoding/json"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"slices"

	"github.com/pkg/errors"

	"github.com/rtnlab/rtn/datasets"
	"github.com/rtnlab/rtn/params"
	"github.com/rtnlab/rtn/pfa"
	"github.com/rtnlab/rtn/wfa"
)

// StringsModelFormat names the JSON model files of rtn strings.
const StringsModelFormat = "rtn-strings-model"

// String model families: a probabilistic automaton or an HMM (package
// pfa), or the spectral WFA alone (package wfa).
const (
	FamilyPFA = "pfa"
	FamilyHMM = "hmm"
	FamilyWFA = "wfa"
)

// StringsModel is what rtn strings fit writes and score, sample and rank
// read: one distribution over strings, of any family, over a named
// alphabet.
type StringsModel struct {
	// Format is StringsModelFormat.
	Format string `json:"format"`
	// Family is FamilyPFA, FamilyHMM or FamilyWFA.
	Family string `json:"family"`
	// Alphabet names the symbols (ids are positions).
	Alphabet []string `json:"alphabet"`
	// PFA holds a pfa or hmm model; WFA a wfa one.
	PFA *pfa.Model `json:"pfa,omitempty"`
	WFA *wfa.Model `json:"wfa,omitempty"`
	// Fit says how the model was chosen and trained (informative).
	Fit *StringsFitSummary `json:"fit,omitempty"`
}

// Validate checks the format, the family and its model, and that the
// alphabet has as many symbols as the model.
func (m *StringsModel) Validate() error {
	if m.Format != StringsModelFormat {
		return errors.Errorf("strings model: format %q, want %q", m.Format, StringsModelFormat)
	}
	d := 0
	switch m.Family {
	case FamilyPFA, FamilyHMM:
		if m.PFA == nil || m.WFA != nil {
			return errors.Errorf("strings model: family %s needs a pfa model and no other", m.Family)
		}
		if err := m.PFA.Validate(); err != nil {
			return errors.Wrap(err, "strings model")
		}
		if string(m.PFA.Kind) != m.Family {
			return errors.Errorf("strings model: family %s holds a %s automaton", m.Family, m.PFA.Kind)
		}
		d = m.PFA.Symbols
	case FamilyWFA:
		if m.WFA == nil || m.PFA != nil {
			return errors.New("strings model: family wfa needs a wfa model and no other")
		}
		if err := m.WFA.WFA.Validate(); err != nil {
			return errors.Wrap(err, "strings model")
		}
		d = len(m.WFA.WFA.Trans)
		if !slices.Equal(m.WFA.Alphabet, m.Alphabet) {
			return errors.New("strings model: the wfa model's alphabet differs from the file's")
		}
	default:
		return errors.Errorf("strings model: family %q, want %s, %s or %s", m.Family, FamilyPFA, FamilyHMM, FamilyWFA)
	}
	if len(m.Alphabet) != d {
		return errors.Errorf("strings model: %d symbol names for a model of %d symbols", len(m.Alphabet), d)
	}
	return nil
}

// Save writes the model as JSON, atomically.
func (m *StringsModel) Save(path string) error {
	if err := m.Validate(); err != nil {
		return err
	}
	return params.WriteFileAtomic(path, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", " ")
		return enc.Encode(m)
	})
}

// LoadStringsModel reads and validates a model file.
func LoadStringsModel(path string) (*StringsModel, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var m StringsModel
	if err := dec.Decode(&m); err != nil {
		return nil, errors.Wrapf(err, "strings model %s", path)
	}
	if err := m.Validate(); err != nil {
		return nil, errors.Wrapf(err, "%s", path)
	}
	return &m, nil
}

// Read reads a string file in the model's alphabet (symbols looked up by
// name).
func (m *StringsModel) Read(path string, format datasets.StringFormat) (datasets.Symbols, error) {
	return datasets.ReadStringsFile(path, format, m.Alphabet)
}

// Probabilities returns the model's probability of each string: exact for
// pfa and hmm (0 only by underflow), the floor rule for wfa (max(f(x),
// wfa.Floor)).
func (m *StringsModel) Probabilities(seqs [][]int, jobs int) ([]float64, error) {
	if m.Family == FamilyWFA {
		return m.WFA.Predict(seqs), nil
	}
	if err := pfa.CheckStrings(seqs, m.PFA.Symbols); err != nil {
		return nil, err
	}
	lp := m.PFA.LogProbs(seqs, jobs)
	out := make([]float64, len(lp))
	for i, v := range lp {
		out[i] = math.Exp(v)
	}
	return out, nil
}

// logProbabilities returns the natural log of each string's
// probability: log P(x) for pfa and hmm, log(max(f(x), wfa.Floor) / Z)
// for wfa, Z its mass (an error when it has none).
func (m *StringsModel) logProbabilities(seqs [][]int, jobs int) ([]float64, error) {
	if m.Family != FamilyWFA {
		if err := pfa.CheckStrings(seqs, m.PFA.Symbols); err != nil {
			return nil, err
		}
		return m.PFA.LogProbs(seqs, jobs), nil
	}
	z := math.NaN()
	if r, err := m.WFA.WFA.SpectralRadius(); err == nil && r < 1 {
		z, _ = m.WFA.WFA.Mass()
	}
	if !(z > 0) || math.IsInf(z, 0) {
		return nil, errors.New("strings model: the wfa has no usable mass (spectral radius >= 1 or a mass <= 0)")
	}
	out := m.WFA.Predict(seqs)
	for i, v := range out {
		out[i] = math.Log(v / z)
	}
	return out, nil
}

// NextSymbol returns the distribution of the symbol after prefix, the end
// of the string last (d+1 values).
func (m *StringsModel) NextSymbol(prefix []int) ([]float64, error) {
	if m.Family == FamilyWFA {
		beta, err := m.WFA.WFA.Stop()
		if err != nil {
			return nil, err
		}
		return m.WFA.WFA.NextSymbol(prefix, beta), nil
	}
	if err := pfa.CheckStrings([][]int{prefix}, m.PFA.Symbols); err != nil {
		return nil, err
	}
	return m.PFA.Probs().NextSymbol(prefix), nil
}

// Sample draws n strings from rng by the samplers' rule for maxLen
// (drawWithin: a draw that does not end within maxLen symbols is redrawn,
// a *MaxLenError when too few do), and returns them with the number of
// draws redrawn.
func (m *StringsModel) Sample(n, maxLen int, rng *rand.Rand) ([][]int, int, error) {
	draw := func(limit int) ([]int, error) { return m.WFA.WFA.Sample(rng, limit) }
	if m.PFA != nil {
		p := m.PFA.Probs()
		draw = func(limit int) ([]int, error) { return p.Sample(rng, limit) }
	}
	return drawWithin(n, maxLen, draw, nil)
}
