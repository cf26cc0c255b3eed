package wfa

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"

	"github.com/pkg/errors"

	"github.com/rtnlab/rtn/datasets"
	"github.com/rtnlab/rtn/params"
	"github.com/rtnlab/rtn/spectral"
)

// Floor is the smallest probability a model gives a string: a WFA value
// below it (zero, negative or tiny) becomes Floor, as in the PAutomaC
// literature and the scikit-splearn reference figures.
const Floor = 1e-12

// Model is a WFA over an alphabet with what produced it.
type Model struct {
	// WFA computes the string function f (one output, classic form).
	WFA spectral.WFA
	// Alphabet names the symbols (ids are positions).
	Alphabet []string
	// Spec is the configuration that produced the automaton (the first
	// component's when it is a mixture).
	Spec Spec
	// Components, when not empty, says that the automaton is the mixture
	// sum_i Weight_i f_i / Z_i of the automata fitted at these
	// configurations, Z_i their masses (as Fit builds it with Mix, one
	// block of states per component in this order; Finetune, and rtn wfa
	// minimize (spectral.Minimize of the WFA), keep the list while changing
	// the states).
	Components []Component
	// Finetuned reports that the parameters were trained by Finetune.
	Finetuned bool
}

// Spec is one learning configuration: a Hankel variant, its basis and a
// rank.
type Spec struct {
	// Variant is the Hankel matrix estimated.
	Variant spectral.HankelVariant
	// Rows and Cols are lrows and lcolumns.
	Rows, Cols int
	// Rank is the number of states.
	Rank int
}

// String writes the spec as "factor lrows=5 lcolumns=5 rank=12".
func (s Spec) String() string {
	return fmt.Sprintf("%v lrows=%d lcolumns=%d rank=%d", s.Variant, s.Rows, s.Cols, s.Rank)
}

// Encode returns the strings of s with their symbols numbered as in the
// model's alphabet, looked up by name (s.Alphabet names the ids of
// s.Seqs): strings read with another alphabet, or in another format, mean
// the same symbols to the model. A symbol the model does not know, an id
// outside s.Alphabet and a model whose alphabet and transition matrices
// differ in number are errors. Strings read with the model's alphabet
// come back as they are.
func (m *Model) Encode(s datasets.Symbols) ([][]int, error) {
	if len(m.Alphabet) != len(m.WFA.Trans) {
		return nil, errors.Errorf("wfa: the model names %d symbols for %d transition matrices", len(m.Alphabet), len(m.WFA.Trans))
	}
	same := slices.Equal(s.Alphabet, m.Alphabet)
	var to []int // the model's id of each of the strings' ids
	if !same {
		index := make(map[string]int, len(m.Alphabet))
		for i, a := range m.Alphabet {
			index[a] = i
		}
		to = make([]int, len(s.Alphabet))
		for i, a := range s.Alphabet {
			id, ok := index[a]
			if !ok {
				id = -1
			}
			to[i] = id
		}
	}
	out := s.Seqs
	if !same {
		out = make([][]int, len(s.Seqs))
	}
	for k, x := range s.Seqs {
		var y []int
		if !same {
			y = make([]int, len(x))
			out[k] = y
		}
		for t, v := range x {
			if v < 0 || v >= len(s.Alphabet) {
				return nil, errors.Errorf("wfa: string %d has symbol id %d, outside its alphabet of %d", k, v, len(s.Alphabet))
			}
			if same {
				continue
			}
			if y[t] = to[v]; y[t] < 0 {
				return nil, errors.Errorf("wfa: string %d has the symbol %q, which the model does not know", k, s.Alphabet[v])
			}
		}
	}
	return out, nil
}

// Predict returns the model's probability of each string under the floor
// rule, max(f(x), Floor). Symbols out of range give Floor.
func (m *Model) Predict(seqs [][]int) []float64 {
	q := make([]float64, len(seqs))
	for i, s := range seqs {
		v, err := m.WFA.ValueChecked(s)
		if err != nil || !(v > Floor) {
			v = Floor
		}
		q[i] = v
	}
	return q
}

// fileModel is the JSON layout of a model file.
type fileModel struct {
	Format     string          `json:"format"`
	Alphabet   []string        `json:"alphabet"`
	Variant    string          `json:"variant"`
	Rows       int             `json:"lrows"`
	Cols       int             `json:"lcolumns"`
	Rank       int             `json:"rank"`
	Finetuned  bool            `json:"finetuned"`
	Components []fileComponent `json:"components,omitempty"`
	States     int             `json:"states"`
	Alpha      []float64       `json:"alpha"`
	Trans      [][]float64     `json:"transitions"`
	Omega      []float64       `json:"omega"`
}

// fileComponent is the JSON layout of a mixture component.
type fileComponent struct {
	Variant string  `json:"variant"`
	Rows    int     `json:"lrows"`
	Cols    int     `json:"lcolumns"`
	Rank    int     `json:"rank"`
	Weight  float64 `json:"weight"`
}

const fileFormat = "rtn-wfa-1"

// Write writes the model as JSON. Floats are written in the shortest form
// that parses back to the same bits, so Read(Write(m)) equals m exactly.
func (m *Model) Write(w io.Writer) error {
	f := fileModel{Format: fileFormat, Alphabet: m.Alphabet, Variant: m.Spec.Variant.String(), Rows: m.Spec.Rows,
		Cols: m.Spec.Cols, Rank: m.Spec.Rank, Finetuned: m.Finetuned, States: m.WFA.States,
		Alpha: m.WFA.Alpha, Trans: m.WFA.Trans, Omega: m.WFA.Omega}
	for _, c := range m.Components {
		f.Components = append(f.Components, fileComponent{Variant: c.Spec.Variant.String(), Rows: c.Spec.Rows, Cols: c.Spec.Cols, Rank: c.Spec.Rank, Weight: c.Weight})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", " ")
	return errors.Wrap(enc.Encode(f), "wfa")
}

// Save writes the model to path atomically.
func (m *Model) Save(path string) error {
	return params.WriteFileAtomic(path, m.Write)
}

// Read reads a model written by Write and validates it.
func Read(r io.Reader) (*Model, error) {
	var f fileModel
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, errors.Wrap(err, "wfa: model file")
	}
	if f.Format != fileFormat {
		return nil, errors.Errorf("wfa: model file format %q, want %q", f.Format, fileFormat)
	}
	v, err := spectral.ParseHankelVariant(f.Variant)
	if err != nil {
		return nil, errors.Wrap(err, "wfa: model file")
	}
	m := &Model{Alphabet: f.Alphabet, Spec: Spec{Variant: v, Rows: f.Rows, Cols: f.Cols, Rank: f.Rank}, Finetuned: f.Finetuned,
		WFA: spectral.WFA{States: f.States, Out: 1, Alpha: f.Alpha, Trans: f.Trans, Omega: f.Omega}}
	for _, c := range f.Components {
		v, err := spectral.ParseHankelVariant(c.Variant)
		if err != nil {
			return nil, errors.Wrap(err, "wfa: model file component")
		}
		m.Components = append(m.Components, Component{Spec: Spec{Variant: v, Rows: c.Rows, Cols: c.Cols, Rank: c.Rank}, Weight: c.Weight})
	}
	if err := m.WFA.Validate(); err != nil {
		return nil, errors.Wrap(err, "wfa: model file")
	}
	if err := checkMagnitude(m.WFA); err != nil {
		return nil, err
	}
	if len(m.Alphabet) != len(m.WFA.Trans) {
		return nil, errors.Errorf("wfa: model file has %d symbol names for %d transition matrices", len(m.Alphabet), len(m.WFA.Trans))
	}
	seen := make(map[string]bool, len(m.Alphabet))
	for _, a := range m.Alphabet {
		if seen[a] {
			return nil, errors.Errorf("wfa: model file names the symbol %q twice", a)
		}
		seen[a] = true
	}
	return m, nil
}

// checkMagnitude refuses weights so large that the sums every use of the
// automaton takes overflow: the magnitudes of the initial weights, of the
// final weights, and of the transitions out of each state over all
// symbols must each add up to a finite float64. A model of weights near
// 1e308 would otherwise give infinite or NaN values and singular systems
// in every command.
func checkMagnitude(w spectral.WFA) error {
	n := w.States
	sum := func(v []float64) float64 {
		t := 0.0
		for _, x := range v {
			t += math.Abs(x)
		}
		return t
	}
	if math.IsInf(sum(w.Alpha), 0) || math.IsInf(sum(w.Omega), 0) {
		return errors.New("wfa: model file: the initial or final weights are too large: their magnitudes add up to more than the largest float64")
	}
	for i := range n {
		t := 0.0
		for _, a := range w.Trans {
			t += sum(a[i*n : (i+1)*n])
		}
		if math.IsInf(t, 0) {
			return errors.Errorf("wfa: model file: the transition weights are too large: those out of state %d add up to more than the largest float64 in magnitude", i)
		}
	}
	return nil
}

// Load reads the model file at path.
func Load(path string) (*Model, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, errors.Wrap(err, "wfa")
	}
	m, err := Read(bytes.NewReader(b))
	return m, errors.Wrap(err, path)
}

// DOT writes the automaton in Graphviz DOT form: one node per state
// labelled with its initial and final weights, one edge per transition
// whose weight's magnitude is at least minWeight, labelled "symbol:weight".
func (m *Model) DOT(w io.Writer, minWeight float64) error {
	var b strings.Builder
	n := m.WFA.States
	b.WriteString("digraph wfa {\n  rankdir=LR;\n  node [shape=circle];\n")
	for i := range n {
		fmt.Fprintf(&b, "  q%d [label=\"q%d\\ni=%.4g\\nf=%.4g\"];\n", i, i, m.WFA.Alpha[i], m.WFA.Omega[i])
	}
	for s, a := range m.WFA.Trans {
		for i := range n {
			for j := range n {
				if v := a[i*n+j]; v >= minWeight || -v >= minWeight {
					fmt.Fprintf(&b, "  q%d -> q%d [label=%q];\n", i, j, fmt.Sprintf("%s:%.4g", m.Alphabet[s], v))
				}
			}
		}
	}
	b.WriteString("}\n")
	_, err := io.WriteString(w, b.String())
	return errors.Wrap(err, "wfa")
}
