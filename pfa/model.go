package pfa

import (
	"math"
	"slices"

	"github.com/pkg/errors"
)

// Kind is a family of automata: KindPFA or KindHMM.
type Kind string

const (
	// KindPFA is a probabilistic finite automaton: each state's row is a
	// free distribution over stop and the pairs (symbol, next state).
	KindPFA Kind = "pfa"
	// KindHMM is a hidden Markov model with a stop probability per
	// state: M(q, a, q') = (1 - F(q)) E(q, a) T(q, q').
	KindHMM Kind = "hmm"
)

// ParseKind maps a name (pfa, hmm) to its Kind.
func ParseKind(name string) (Kind, error) {
	switch k := Kind(name); k {
	case KindPFA, KindHMM:
		return k, nil
	}
	return "", errors.Errorf("pfa: kind %q, want %q or %q", name, KindPFA, KindHMM)
}

// Model is a probabilistic automaton given by logits: every distribution
// is the softmax of one row of a block. The blocks a Kind uses are
// non-empty and the others are nil.
type Model struct {
	// Kind is the family.
	Kind Kind `json:"kind"`
	// States is n, the number of states; Symbols is d, the alphabet size.
	States  int `json:"states"`
	Symbols int `json:"symbols"`
	// Init [n] is the logits of the initial distribution.
	Init []float64 `json:"init"`
	// Row [n, 1+d*n] (PFA) is the logits of each state's row: column 0
	// stops, column 1 + a*n + q' emits a and moves to q'.
	Row []float64 `json:"row,omitempty"`
	// Stop [n, 2] (HMM) is the logits of (stop, go) per state.
	Stop []float64 `json:"stop,omitempty"`
	// Emit [n, d] (HMM) is the logits of the symbol given that the state
	// does not stop.
	Emit []float64 `json:"emit,omitempty"`
	// Trans [n, n] (HMM) is the logits of the next state.
	Trans []float64 `json:"trans,omitempty"`
}

// block is one set of softmax rows of a model's logits.
type block struct {
	name       string
	rows, cols int
	data       *[]float64
}

// blocks lists the model's blocks in a fixed order: init first.
func (m *Model) blocks() []block {
	n, d := m.States, m.Symbols
	bs := []block{{"init", 1, n, &m.Init}}
	if m.Kind == KindPFA {
		return append(bs, block{"row", n, 1 + d*n, &m.Row})
	}
	return append(bs, block{"stop", n, 2, &m.Stop}, block{"emit", n, d, &m.Emit}, block{"trans", n, n, &m.Trans})
}

// NumParams is the number of logits.
func (m *Model) NumParams() int {
	k := 0
	for _, b := range m.blocks() {
		k += b.rows * b.cols
	}
	return k
}

// Validate checks the kind, the sizes, the blocks' lengths and that every
// logit is finite.
func (m *Model) Validate() error {
	if m == nil {
		return errors.New("pfa: nil model")
	}
	if _, err := ParseKind(string(m.Kind)); err != nil {
		return err
	}
	if m.States < 1 || m.Symbols < 1 {
		return errors.Errorf("pfa: %d states and %d symbols, want at least 1 of each", m.States, m.Symbols)
	}
	if m.States > MaxStates {
		return errors.Errorf("pfa: %d states, more than %d", m.States, MaxStates)
	}
	if m.Kind == KindPFA && (m.Stop != nil || m.Emit != nil || m.Trans != nil) || m.Kind == KindHMM && m.Row != nil {
		return errors.Errorf("pfa: a %s model holds blocks of the other kind", m.Kind)
	}
	for _, b := range m.blocks() {
		if len(*b.data) != b.rows*b.cols {
			return errors.Errorf("pfa: block %s has %d logits, want %d x %d", b.name, len(*b.data), b.rows, b.cols)
		}
		for i, v := range *b.data {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return errors.Errorf("pfa: block %s logit %d is %g", b.name, i, v)
			}
		}
	}
	return nil
}

// MaxStates is the most states a model may have (the kernel holds d*n*n
// values).
const MaxStates = 4096

// Clone returns a deep copy.
func (m *Model) Clone() *Model {
	c := *m
	c.Init, c.Row, c.Stop, c.Emit, c.Trans = slices.Clone(m.Init), slices.Clone(m.Row), slices.Clone(m.Stop), slices.Clone(m.Emit), slices.Clone(m.Trans)
	return &c
}

// New returns a model of the kind with all logits 0 (uniform rows).
func New(kind Kind, states, symbols int) *Model {
	m := &Model{Kind: kind, States: states, Symbols: symbols}
	for _, b := range m.blocks() {
		*b.data = make([]float64, b.rows*b.cols)
	}
	return m
}

// softmaxInto writes the softmax of x into p (same length).
func softmaxInto(p, x []float64) {
	mx := math.Inf(-1)
	for _, v := range x {
		mx = max(mx, v)
	}
	s := 0.0
	for i, v := range x {
		p[i] = math.Exp(v - mx)
		s += p[i]
	}
	for i := range p {
		p[i] /= s
	}
}

// Probs is a model's probabilities in the kernel's layout.
type Probs struct {
	// N and D are the states and symbols.
	N, D int
	// Init [n] and Stop [n] are I and F.
	Init, Stop []float64
	// M [d, n, n] holds M(q, a, q') at a*n*n + q*n + q'.
	M []float64
	// rows [blocks] are the softmaxed blocks in the model's block order.
	rows [][]float64
}

// Probs computes the model's probabilities.
func (m *Model) Probs() *Probs {
	n, d := m.States, m.Symbols
	p := &Probs{N: n, D: d, Init: make([]float64, n), Stop: make([]float64, n), M: make([]float64, d*n*n)}
	m.ProbsInto(p)
	return p
}

// ProbsInto computes the model's probabilities into p, which must come
// from Probs of a model of the same kind and sizes.
func (m *Model) ProbsInto(p *Probs) {
	n, d := m.States, m.Symbols
	bs := m.blocks()
	if p.rows == nil {
		for _, b := range bs {
			p.rows = append(p.rows, make([]float64, b.rows*b.cols))
		}
	}
	for i, b := range bs {
		for r := 0; r < b.rows; r++ {
			softmaxInto(p.rows[i][r*b.cols:(r+1)*b.cols], (*b.data)[r*b.cols:(r+1)*b.cols])
		}
	}
	copy(p.Init, p.rows[0])
	if m.Kind == KindPFA {
		row := p.rows[1]
		w := 1 + d*n
		for q := 0; q < n; q++ {
			p.Stop[q] = row[q*w]
			for a := 0; a < d; a++ {
				copy(p.M[a*n*n+q*n:a*n*n+(q+1)*n], row[q*w+1+a*n:q*w+1+(a+1)*n])
			}
		}
		return
	}
	stop, emit, trans := p.rows[1], p.rows[2], p.rows[3]
	for q := 0; q < n; q++ {
		p.Stop[q] = stop[2*q]
		for a := 0; a < d; a++ {
			c := stop[2*q+1] * emit[q*d+a]
			dst := p.M[a*n*n+q*n : a*n*n+(q+1)*n]
			for j, t := range trans[q*n : (q+1)*n] {
				dst[j] = c * t
			}
		}
	}
}
