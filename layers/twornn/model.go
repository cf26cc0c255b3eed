package twornn

import (
	"math"
	"math/rand/v2"

	"github.com/pkg/errors"
	G "gorgonia.org/gorgonia"

	"github.com/rtnlab/rtn/datasets"
	"github.com/rtnlab/rtn/graph"
	"github.com/rtnlab/rtn/layers/activation"
	"github.com/rtnlab/rtn/losses"
	"github.com/rtnlab/rtn/spectral"
)

// Model is a 2-RNN cell with its linear output y = Omega h (Eq. (1), no
// bias): the cell's parameters plus <name>/Omega [n, p], which holds
// Omega^T.
type Model struct {
	// Cell is the recurrent step.
	Cell *Cell
	// Params holds A, h0 and Omega.
	Params *graph.Params
	// Out is p.
	Out  int
	name string
}

// NewModel creates a model with zero parameters in a new set.
func NewModel(name string, in, states, out int, act activation.Activation) (*Model, error) {
	if out <= 0 {
		return nil, errors.Errorf("twornn: output width must be positive, got %d", out)
	}
	p := graph.NewParams()
	c, err := NewCell(p, name, in, states, act)
	if err != nil {
		return nil, err
	}
	if _, err := p.Add(name+"/Omega", states, out); err != nil {
		return nil, err
	}
	return &Model{Cell: c, Params: p, Out: out, name: name}, nil
}

var _ Net = (*Model)(nil)

// Sizes implements Net.
func (m *Model) Sizes() (in, out int) { return m.Cell.in, m.Out }

// Parameters implements Net.
func (m *Model) Parameters() *graph.Params { return m.Params }

// MSE is MSE(m, s).
func (m *Model) MSE(s datasets.TwoRNNData) (float64, error) { return MSE(m, s) }

// OmegaName is the parameter name of Omega^T.
func (m *Model) OmegaName() string { return m.name + "/Omega" }

// Init draws the cell (Cell.Init) and Omega from N(0, 1/n).
func (m *Model) Init(rng *rand.Rand) error {
	if err := m.Cell.Init(rng); err != nil {
		return err
	}
	return m.Params.InitNormal(m.OmegaName(), rng, 1/math.Sqrt(float64(m.Cell.n)))
}

// SetFromRNN sets every parameter from a linear 2-RNN (a spectral
// estimate): the model then computes exactly what m computes when the
// activation is the identity or a LeakyReLU of slope 1.
func (m *Model) SetFromRNN(r spectral.RNN) error {
	if r.Out != m.Out {
		return errors.Errorf("twornn: 2-RNN with p = %d for a model with p = %d", r.Out, m.Out)
	}
	if err := m.Cell.SetFromRNN(r); err != nil {
		return err
	}
	n, p := r.States, r.Out
	omegaT := make([]float64, n*p)
	for o := range p {
		for j := range n {
			omegaT[j*p+o] = r.Omega[o*n+j]
		}
	}
	return m.Params.Set(m.OmegaName(), omegaT)
}

// RNN returns the model's parameters as a linear 2-RNN (the function it
// computes when the activation is linear).
func (m *Model) RNN() spectral.RNN {
	n, d, p := m.Cell.n, m.Cell.in, m.Out
	r := spectral.Zero(n, d, p)
	copy(r.Alpha, m.Params.Data(m.Cell.Name("h0")))
	copy(r.A, m.Params.Data(m.Cell.Name("A")))
	omegaT := m.Params.Data(m.OmegaName())
	for o := range p {
		for j := range n {
			r.Omega[o*n+j] = omegaT[j*p+o]
		}
	}
	return r
}

// Build implements Net: it unrolls the model over steps steps for a batch
// and returns the input nodes (one [batch, d] per step), the target node [batch, p] and
// the summed squared-error loss over the batch of the final output,
// sum_b mean_o (y_b - Omega h_l)^2 (losses.MSE summed over rows).
func (m *Model) Build(b *graph.Builder, batch, steps int) (xs []*G.Node, target, loss *G.Node, err error) {
	u, err := graph.Unroll(b, m.Cell, batch, steps, false)
	if err != nil {
		return nil, nil, nil, err
	}
	pred := b.Mul(u.Outputs[steps-1], b.Param(m.Params, m.OmegaName()))
	target = b.Input("y", batch, m.Out)
	loss = b.Sum(losses.MSE(b, pred, target))
	return u.Inputs, target, loss, b.Err()
}

// stepInputs splits the examples idx of s into per-step input matrices
// [batch, d] and the target matrix [batch, p].
func stepInputs(s datasets.TwoRNNData, idx []int) ([][]float64, []float64) {
	d, p := s.In, s.Out
	xs := make([][]float64, s.Len)
	for t := range xs {
		xs[t] = make([]float64, len(idx)*d)
	}
	y := make([]float64, len(idx)*p)
	for r, i := range idx {
		seq := s.Seq(i)
		for t := range s.Len {
			copy(xs[t][r*d:(r+1)*d], seq[t*d:(t+1)*d])
		}
		copy(y[r*p:(r+1)*p], s.Y[i*p:(i+1)*p])
	}
	return xs, y
}
