package umps

import (
	"math"
	"math/rand/v2"

	"github.com/pkg/errors"
	G "gorgonia.org/gorgonia"

	"github.com/rtnlab/rtn/graph"
	"github.com/rtnlab/rtn/params"
)

// Parameter names of a u-MPS in a params.Params set.
const (
	ParamA     = "A"     // core [D, d, D]
	ParamAlpha = "alpha" // left boundary [D]
	ParamOmega = "omega" // right boundary [D]
)

// NewParams returns a parameter set holding a freshly initialised u-MPS
// (see New) under ParamA, ParamAlpha and ParamOmega.
func NewParams(bond, symbols int, init Init, rng *rand.Rand) (*params.Params, error) {
	m, err := New(bond, symbols, init, rng)
	if err != nil {
		return nil, err
	}
	return NewParamsFrom(m)
}

// NewParamsFrom returns a parameter set holding a copy of m under ParamA,
// ParamAlpha and ParamOmega.
func NewParamsFrom(m *MPS) (*params.Params, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	bond, symbols := m.Bond, m.Symbols
	p := params.New()
	for _, t := range []struct {
		name  string
		shape []int
		v     []float64
	}{{ParamA, []int{bond, symbols, bond}, m.A}, {ParamAlpha, []int{bond}, m.Alpha}, {ParamOmega, []int{bond}, m.Omega}} {
		if _, err := p.Add(t.name, t.shape...); err != nil {
			return nil, err
		}
		if err := p.Set(t.name, t.v); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// FromParams returns the u-MPS held in p; it shares p's memory, so an
// optimizer step on p is seen by the model.
func FromParams(p *params.Params) (*MPS, error) {
	s := p.Shape(ParamA)
	if len(s) != 3 || s[0] != s[2] || !p.Has(ParamAlpha) || !p.Has(ParamOmega) {
		return nil, errors.Errorf("umps: parameters %v are not a u-MPS (want %s [D, d, D], %s [D], %s [D])", p, ParamA, ParamAlpha, ParamOmega)
	}
	m := &MPS{Bond: s[0], Symbols: s[1], A: p.Data(ParamA), Alpha: p.Data(ParamAlpha), Omega: p.Data(ParamOmega)}
	return m, m.Validate()
}

// NLL is a compiled graph for the mean negative log-likelihood of a batch
// of B strings of length <= T, under P_n (PerLength, what the paper's code
// trains) or P_* (AllLengths):
//
//	loss = -(1/B) sum_b [2 log|f(s_b)| - log Z_{|s_b|}]   (PerLength),
//	loss = -(1/B) sum_b [2 log|f(s_b)| - log Z_*]         (AllLengths),
//
// in nats per string, built from the fused ops LogAmp2 and LogZn or
// LogZStar. Under P_*, a parameter set holding ParamGamma trains the
// contracted core ContractCore(A, gamma), whose Z_* always exists.
type NLL struct {
	m             *graph.Machine
	seqs, lengths *G.Node // lengths is nil for AllLengths
	B, T          int
}

// NewNLL builds and compiles the NLL graph over the u-MPS in p.
func NewNLL(p *params.Params, B, T int, norm Norm) (*NLL, error) {
	if _, err := FromParams(p); err != nil {
		return nil, err
	}
	if B < 1 || T < 0 {
		return nil, errors.Errorf("umps: batch %d and length %d, want >= 1 and >= 0", B, T)
	}
	b := graph.NewBuilder()
	A, alpha, omega := b.Param(p, ParamA), b.Param(p, ParamAlpha), b.Param(p, ParamOmega)
	if norm == AllLengths && p.Has(ParamGamma) {
		A = ContractCore(b, A, b.Param(p, ParamGamma))
	}
	tcols := max(T, 1) // a zero-width input is not allowed
	seqs := b.Input("seqs", B, tcols)
	y := LogAmp2(b, A, alpha, omega, seqs)
	var lengths, loss *G.Node
	switch norm {
	case PerLength:
		lengths = b.Input("length_counts", T+1)
		z := LogZn(b, A, alpha, omega, T)
		loss = b.Scale(b.Sub(b.Sum(b.Hadamard(lengths, z)), b.Sum(y)), 1/float64(B))
	case AllLengths:
		loss = b.Sub(b.Sum(LogZStar(b, A, alpha, omega)), b.Scale(b.Sum(y), 1/float64(B)))
	default:
		return nil, errors.Errorf("umps: unknown normalisation %d", norm)
	}
	m, err := graph.Compile(b, loss, p)
	if err != nil {
		return nil, err
	}
	return &NLL{m: m, seqs: seqs, lengths: lengths, B: B, T: tcols}, nil
}

// Run evaluates the loss on seqs (exactly B strings of length <= T); with
// grads non-nil it adds the gradient into grads.
func (n *NLL) Run(seqs [][]int, grads *params.Params) (float64, error) {
	if len(seqs) != n.B {
		return 0, errors.Errorf("umps: NLL graph takes %d strings, got %d", n.B, len(seqs))
	}
	x, err := EncodeBatch(seqs, n.T)
	if err != nil {
		return 0, err
	}
	if err := n.m.Let(n.seqs, x); err != nil {
		return 0, err
	}
	if n.lengths != nil {
		counts := make([]float64, n.lengths.Shape()[0])
		for _, s := range seqs {
			if len(s) >= len(counts) {
				return 0, errors.Errorf("umps: string of length %d in a graph for lengths <= %d", len(s), len(counts)-1)
			}
			counts[len(s)]++
		}
		if err := n.m.Let(n.lengths, counts); err != nil {
			return 0, err
		}
	}
	if err := n.m.Run(); err != nil {
		return 0, err
	}
	if grads != nil {
		if err := n.m.AddGrads(grads); err != nil {
			return 0, err
		}
	}
	return n.m.Loss(), nil
}

// Problem is the mean NLL (nats per string, under P_n or P_*) of a u-MPS
// on a training set, as an optim.Problem for optim.Trainer, with a
// validation set (optim.Validator) and loss-only evaluation
// (optim.Evaluator). One NLL graph is compiled per batch size and length
// bound in use.
type Problem struct {
	p            *params.Params
	train, valid [][]int
	maxLen       int
	norm         Norm
	graphs       map[[2]int]*NLL // by batch size and length bound
}

// lengthBucket is the step of the length bounds of a Problem's P_n graphs.
const lengthBucket = 16

// NewProblem checks that every string uses the model's symbols and
// returns the problem. valid may be empty (no validation loss then).
func NewProblem(p *params.Params, train, valid [][]int, norm Norm) (*Problem, error) {
	m, err := FromParams(p)
	if err != nil {
		return nil, err
	}
	if len(train) == 0 {
		return nil, errors.New("umps: empty training set")
	}
	maxLen := 0
	for i, s := range append(append([][]int(nil), train...), valid...) {
		if err := m.checkSeq(s); err != nil {
			return nil, errors.Wrapf(err, "string %d", i)
		}
		maxLen = max(maxLen, len(s))
	}
	return &Problem{p: p, train: train, valid: valid, maxLen: maxLen, norm: norm, graphs: map[[2]int]*NLL{}}, nil
}

// Params returns the model's parameters (updated in place by the trainer).
func (pr *Problem) Params() *params.Params { return pr.p }

// NumExamples is the number of training strings.
func (pr *Problem) NumExamples() int { return len(pr.train) }

func (pr *Problem) batch(idx []int) ([][]int, *NLL, error) {
	seqs := make([][]int, len(idx))
	for i, k := range idx {
		if k < 0 || k >= len(pr.train) {
			return nil, nil, errors.Errorf("umps: example %d out of range", k)
		}
		seqs[i] = pr.train[k]
	}
	// Under P_n the graph's Z_n sweep runs up to its length bound, so a
	// batch of short strings gets a graph bounded by a multiple of
	// lengthBucket above its longest string; Z_n of the lengths in the
	// batch, and so the loss and its gradient, do not depend on it.
	T := pr.maxLen
	if pr.norm == PerLength {
		n := 0
		for _, s := range seqs {
			n = max(n, len(s))
		}
		T = min(T, (n/lengthBucket+1)*lengthBucket)
	}
	key := [2]int{len(idx), T}
	g, ok := pr.graphs[key]
	if !ok {
		var err error
		if g, err = NewNLL(pr.p, len(idx), T, pr.norm); err != nil {
			return nil, nil, err
		}
		pr.graphs[key] = g
	}
	return seqs, g, nil
}

// LossGrad returns the mean NLL of the batch and overwrites grads with its
// gradient.
func (pr *Problem) LossGrad(idx []int, grads *params.Params) (float64, error) {
	seqs, g, err := pr.batch(idx)
	if err != nil {
		return 0, err
	}
	grads.Zero()
	return g.Run(seqs, grads)
}

// Loss returns the mean NLL of the batch.
func (pr *Problem) Loss(idx []int) (float64, error) {
	seqs, g, err := pr.batch(idx)
	if err != nil {
		return 0, err
	}
	return g.Run(seqs, nil)
}

// ValidationLoss is the mean NLL per string on the validation set, from
// the plain kernels (no graph); NaN without a validation set.
func (pr *Problem) ValidationLoss() (float64, error) {
	return MeanNLL(pr.p, pr.valid, pr.norm)
}

// MeanNLL is -(1/N) sum log P(s) over seqs, nats per string, with P = P_|s|
// or P_* as norm says (P_* of the contracted core when p has ParamGamma).
func MeanNLL(p *params.Params, seqs [][]int, norm Norm) (float64, error) {
	if len(seqs) == 0 {
		return math.NaN(), nil
	}
	m, err := Contracted(p)
	if err != nil {
		return 0, err
	}
	var lp []float64
	if norm == AllLengths {
		lp, err = m.LogProbsStar(seqs)
	} else {
		lp, err = m.LogProbsN(seqs)
	}
	if err != nil {
		return 0, err
	}
	s := 0.0
	for _, v := range lp {
		s -= v
	}
	return s / float64(len(seqs)), nil
}
