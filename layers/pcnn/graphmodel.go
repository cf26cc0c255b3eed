package pcnn

import (
	"fmt"

	"github.com/pkg/errors"
	G "gorgonia.org/gorgonia"

	"github.com/rtnlab/rtn/datasets"
	"github.com/rtnlab/rtn/graph"
	"github.com/rtnlab/rtn/layers/activation"
)

// GraphModel is a model unrolled as a gorgonia graph over sequences of a
// fixed length T (short sequences: the graph has about 12 T nodes and
// compile time grows quadratically). Its loss is the negative
// log-likelihood -sum_t chi_t log pi_t(x_t) in nats; gradients flow into
// the model's parameter set, so any registered optimizer trains it.
// The sparse network enters through constant selection matrices:
//
//	a^t   = e_0 + Emb s(V^t)                       Emb [N+1, N]
//	V^t+1 = Sum (Gather a^t ⊙ tau x_t)  (+ V^t for PCNN, + rho x_t for RNN)
//
// with Gather [E, N+1] picking the source of each edge and Sum [N, E]
// adding the edges of each target unit.
type GraphModel struct {
	Model *Model
	T     int
	M     *graph.Machine
	// nll is the loss node.
	nll            *G.Node
	onehot, target []*G.Node
	consts         []constInput
}

type constInput struct {
	node   *G.Node
	values []float64
}

// NewGraphModel builds and compiles the graph of m for length T >= 2.
func NewGraphModel(m *Model, T int) (*GraphModel, error) {
	if T < 2 {
		return nil, errors.Errorf("pcnn: graph length must be >= 2, got %d", T)
	}
	N, A, E := m.Net.N, m.A, m.Net.Edges()
	b := graph.NewBuilder()
	g := &GraphModel{Model: m, T: T}
	konst := func(name string, values []float64, shape ...int) *G.Node {
		n := b.Input(name, shape...)
		g.consts = append(g.consts, constInput{n, values})
		return n
	}
	gather, sum := make([]float64, E*(N+1)), make([]float64, N*E)
	for j := 1; j <= N; j++ {
		for k, i := range m.Net.In[j-1] {
			e := m.Off[j-1] + k
			gather[e*(N+1)+i] = 1
			sum[(j-1)*E+e] = 1
		}
	}
	emb, e0 := make([]float64, (N+1)*N), make([]float64, N+1)
	for j := 1; j <= N; j++ {
		emb[j*N+j-1] = 1
	}
	e0[0] = 1
	gatherN := konst("gather", gather, E, N+1)
	sumN := konst("sum", sum, N, E)
	embN := konst("embed", emb, N+1, N)
	e0N := konst("e0", e0, N+1)
	w, tau, v := b.Param(m.P, "W"), b.Param(m.P, "tau"), b.Param(m.P, "V0")
	var rho *G.Node
	if m.Kind == RNN {
		rho = b.Param(m.P, "rho")
	}
	wT := b.Transpose(w)
	act := func(x *G.Node) *G.Node {
		if m.Act == activation.Logistic {
			return b.Sigmoid(x)
		}
		return b.Tanh(x)
	}
	var total *G.Node
	for t := range T {
		a := b.Add(e0N, b.Mul(embN, act(v)))
		oh := b.Input(fmt.Sprintf("x%d", t), A)
		tg := b.Input(fmt.Sprintf("chi%d", t), A)
		g.onehot, g.target = append(g.onehot, oh), append(g.target, tg)
		term := b.Sum(b.Hadamard(b.LogSoftmax(b.Mul(wT, a), 0), tg))
		if total == nil {
			total = term
		} else {
			total = b.Add(total, term)
		}
		if t == T-1 {
			break
		}
		var weights *G.Node
		if m.Kind == RNN {
			weights = tau
		} else {
			weights = b.Mul(tau, oh)
		}
		next := b.Mul(sumN, b.Hadamard(b.Mul(gatherN, a), weights))
		switch m.Kind {
		case RNN:
			next = b.Add(next, b.Mul(rho, oh))
		case PCNN:
			next = b.Add(next, v)
		}
		v = next
	}
	g.nll = b.Neg(total)
	mach, err := graph.Compile(b, g.nll, m.P)
	if err != nil {
		return nil, errors.Wrap(err, "pcnn: compiling the graph")
	}
	g.M = mach
	for _, c := range g.consts {
		if err := mach.Let(c.node, c.values); err != nil {
			return nil, err
		}
	}
	return g, nil
}

// Bind sets the inputs to s, which must have length T.
func (g *GraphModel) Bind(s datasets.Stream) error {
	if err := checkSeq(s, g.Model.A); err != nil {
		return err
	}
	if len(s.X) != g.T {
		return errors.Errorf("pcnn: the graph is built for length %d, the sequence has %d", g.T, len(s.X))
	}
	oh := make([]float64, g.Model.A)
	for t, x := range s.X {
		clear(oh)
		oh[x] = 1
		if err := g.M.Let(g.onehot[t], oh); err != nil {
			return err
		}
		if !chi(s, t) {
			clear(oh)
		}
		if err := g.M.Let(g.target[t], oh); err != nil {
			return err
		}
	}
	return nil
}

// NLL runs the graph on s and returns -log-likelihood in nats; with grad
// not nil it also adds the gradient of the NLL into grad.
func (g *GraphModel) NLL(s datasets.Stream, grad *graph.Params) (float64, error) {
	if err := g.Bind(s); err != nil {
		return 0, err
	}
	if err := g.M.Run(); err != nil {
		return 0, err
	}
	if grad != nil {
		if err := g.M.AddGrads(grad); err != nil {
			return 0, err
		}
	}
	return g.M.Loss(), nil
}

// GraphProblem trains a model's graph on short sequences of one length
// with any registered optimizer (it has the methods of
// optim.Problem and optim.Evaluator). The loss is the NLL in nats per
// predicted symbol over the batch.
type GraphProblem struct {
	G    *GraphModel
	Seqs []datasets.Stream
}

// Params is the model's parameter set.
func (p *GraphProblem) Params() *graph.Params { return p.G.Model.P }

// NumExamples is the number of sequences.
func (p *GraphProblem) NumExamples() int { return len(p.Seqs) }

// Loss is the NLL per predicted symbol over the batch.
func (p *GraphProblem) Loss(batch []int) (float64, error) { return p.run(batch, nil) }

// LossGrad is Loss with its gradient written into grads.
func (p *GraphProblem) LossGrad(batch []int, grads *graph.Params) (float64, error) {
	grads.Zero()
	return p.run(batch, grads)
}

func (p *GraphProblem) run(batch []int, grads *graph.Params) (float64, error) {
	var sum float64
	n := 0
	for _, i := range batch {
		if i < 0 || i >= len(p.Seqs) {
			return 0, errors.Errorf("pcnn: example %d out of [0, %d)", i, len(p.Seqs))
		}
		l, err := p.G.NLL(p.Seqs[i], grads)
		if err != nil {
			return 0, err
		}
		sum += l
		for t := range p.Seqs[i].X {
			if chi(p.Seqs[i], t) {
				n++
			}
		}
	}
	n = max(n, 1)
	if grads != nil {
		for _, name := range grads.Names() {
			d := grads.Data(name)
			for k := range d {
				d[k] /= float64(n)
			}
		}
	}
	return sum / float64(n), nil
}
