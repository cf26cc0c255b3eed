package twornn

import (
	"math/rand/v2"

	"github.com/pkg/errors"
	G "gorgonia.org/gorgonia"

	"github.com/rtnlab/rtn/datasets"
	"github.com/rtnlab/rtn/graph"
	"github.com/rtnlab/rtn/params"
)

// Net is a recurrent model read at its last step: what Regression
// trains. Model implements it; so can any graph.Cell with an output layer
// (the paper's LSTM baseline, baseline.LSTMRegressor, does).
type Net interface {
	// Sizes returns the input and output widths d and p.
	Sizes() (in, out int)
	// Parameters is the trained parameter set.
	Parameters() *params.Params
	// Build unrolls the model over steps steps for a batch and returns
	// the per-step input nodes [batch, d], the target node [batch, p] and
	// the loss summed over the batch (a scalar).
	Build(b *graph.Builder, batch, steps int) (xs []*G.Node, target, loss *G.Node, err error)
}

// Regression trains a Net on final-output examples of several lengths
// (the spectral paper's training sets D_L, D_2L, D_2L+1, or any others):
// the loss of a batch is the mean over its examples of the squared error
// of the final output averaged over the p outputs. It implements
// optim.Problem, optim.Evaluator and the trainer's Batcher; each batch
// holds examples of one length (one graph per length and batch size,
// compiled once and cached).
type Regression struct {
	model Net
	sets  []datasets.TwoRNNData
	// where[k] is (set, example) of global example k.
	where    [][2]int
	machines map[[3]int]*regMachine
}

type regMachine struct {
	m      *graph.Machine
	xs     []*G.Node
	target *G.Node
}

// NewRegression checks that every set matches the model's d and p.
func NewRegression(m Net, sets []datasets.TwoRNNData) (*Regression, error) {
	if len(sets) == 0 {
		return nil, errors.New("twornn: regression with no training set")
	}
	r := &Regression{model: m, sets: sets, machines: map[[3]int]*regMachine{}}
	for k, s := range sets {
		if err := s.Validate(); err != nil {
			return nil, errors.Wrapf(err, "twornn: training set %d", k)
		}
		if in, out := m.Sizes(); s.In != in || s.Out != out {
			return nil, errors.Errorf("twornn: training set %d has d = %d, p = %d, the model d = %d, p = %d", k, s.In, s.Out, in, out)
		}
		for i := range s.N() {
			r.where = append(r.where, [2]int{k, i})
		}
	}
	return r, nil
}

// Params implements optim.Problem.
func (r *Regression) Params() *params.Params { return r.model.Parameters() }

// NumExamples implements optim.Problem: the examples of all sets.
func (r *Regression) NumExamples() int { return len(r.where) }

// LossGrad implements optim.Problem.
func (r *Regression) LossGrad(batch []int, grads *params.Params) (float64, error) {
	grads.Zero()
	return r.run(batch, grads)
}

// Loss implements optim.Evaluator.
func (r *Regression) Loss(batch []int) (float64, error) { return r.run(batch, nil) }

// Batches implements the trainer's Batcher: each set is shuffled and cut
// into batches of at most batchSize examples of one length, and the
// batches of all sets are shuffled together (the paper's round robin over
// lengths, in random order).
func (r *Regression) Batches(rng *rand.Rand, batchSize int) [][]int {
	var out [][]int
	start := 0
	for _, s := range r.sets {
		n := s.N()
		perm := rng.Perm(n)
		for lo := 0; lo < n; lo += batchSize {
			b := make([]int, 0, min(batchSize, n-lo))
			for _, i := range perm[lo:min(lo+batchSize, n)] {
				b = append(b, start+i)
			}
			out = append(out, b)
		}
		start += n
	}
	rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

// run groups the batch by set, runs each group's graph and returns the
// mean loss; with grads non-nil it leaves the gradient of that mean there.
func (r *Regression) run(batch []int, grads *params.Params) (float64, error) {
	if len(batch) == 0 {
		return 0, errors.New("twornn: empty batch")
	}
	groups := map[int][]int{}
	var order []int
	for _, k := range batch {
		if k < 0 || k >= len(r.where) {
			return 0, errors.Errorf("twornn: example %d out of range [0, %d)", k, len(r.where))
		}
		w := r.where[k]
		if _, ok := groups[w[0]]; !ok {
			order = append(order, w[0])
		}
		groups[w[0]] = append(groups[w[0]], w[1])
	}
	total := 0.0
	for _, set := range order {
		idx := groups[set]
		s := r.sets[set]
		rm, err := r.machine(set, s.Len, len(idx), grads != nil)
		if err != nil {
			return 0, err
		}
		xs, y := stepInputs(s, idx)
		for t, x := range xs {
			if err := rm.m.Let(rm.xs[t], x); err != nil {
				return 0, err
			}
		}
		if err := rm.m.Let(rm.target, y); err != nil {
			return 0, err
		}
		if err := rm.m.Run(); err != nil {
			return 0, err
		}
		total += rm.m.Loss()
		if grads != nil {
			if err := rm.m.AddGrads(grads); err != nil {
				return 0, err
			}
		}
	}
	scale := 1 / float64(len(batch))
	if grads != nil {
		for _, name := range grads.Names() {
			g := grads.Data(name)
			for i := range g {
				g[i] *= scale
			}
		}
	}
	return total * scale, nil
}

// machine returns the cached graph for (set, batch size, gradient).
func (r *Regression) machine(set, steps, batch int, grad bool) (*regMachine, error) {
	g := 0
	if grad {
		g = 1
	}
	key := [3]int{set, batch, g}
	if rm, ok := r.machines[key]; ok {
		return rm, nil
	}
	b := graph.NewBuilder()
	xs, target, loss, err := r.model.Build(b, batch, steps)
	if err != nil {
		return nil, err
	}
	var wrt *params.Params
	if grad {
		wrt = r.model.Parameters()
	}
	m, err := graph.Compile(b, loss, wrt)
	if err != nil {
		return nil, err
	}
	rm := &regMachine{m: m, xs: xs, target: target}
	r.machines[key] = rm
	return rm, nil
}

// MSE is the mean over examples and outputs of the squared error of the
// final outputs of m on s (the loss of Regression on one set), evaluated
// in batches of at most 500 examples.
func MSE(m Net, s datasets.TwoRNNData) (float64, error) {
	tmp, err := NewRegression(m, []datasets.TwoRNNData{s})
	if err != nil {
		return 0, err
	}
	total := 0.0
	for lo := 0; lo < s.N(); lo += 500 {
		idx := make([]int, 0, 500)
		for i := lo; i < min(lo+500, s.N()); i++ {
			idx = append(idx, i)
		}
		l, err := tmp.Loss(idx)
		if err != nil {
			return 0, err
		}
		total += l * float64(len(idx))
	}
	return total / float64(s.N()), nil
}
