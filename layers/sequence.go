package layers

import (
	"math"
	"math/rand/v2"

	"github.com/pkg/errors"
	G "gorgonia.org/gorgonia"

	"github.com/rtnlab/rtn/datasets"
	"github.com/rtnlab/rtn/graph"
	"github.com/rtnlab/rtn/losses"
)

// Sequence is a recurrent cell with a linear output layer on its state 0:
//
//	logits_t = h_t Wout + bout
//
// read as softmax class probabilities (datasets.Categorical), independent
// Bernoulli units (datasets.Binary) or real predictions (datasets.Real),
// with the matching loss (categorical NLL, Bernoulli NLL summed over
// units, MSE averaged over outputs), all in nats per step.
// Its parameters are the cell's plus out/W [H, Out] and out/b [Out].
type Sequence struct {
	Cell   graph.Cell
	Params *graph.Params
	Out    int
	Kind   datasets.TargetKind
}

// Output-layer parameter names.
const (
	OutW = "out/W"
	OutB = "out/b"
)

// NewSequence adds the output layer's parameters to p, the set the cell's
// parameters live in.
func NewSequence(p *graph.Params, cell graph.Cell, out int, kind datasets.TargetKind) (*Sequence, error) {
	if out <= 0 {
		return nil, errors.Errorf("layers: output width must be positive, got %d", out)
	}
	if kind != datasets.Categorical && kind != datasets.Binary && kind != datasets.Real {
		return nil, errors.Errorf("layers: unknown target kind %d", kind)
	}
	if err := graph.CheckCell(cell); err != nil {
		return nil, errors.Wrap(err, "layers")
	}
	h := cell.StateSizes()[0]
	if _, err := p.Add(OutW, h, out); err != nil {
		return nil, err
	}
	if _, err := p.Add(OutB, out); err != nil {
		return nil, err
	}
	return &Sequence{Cell: cell, Params: p, Out: out, Kind: kind}, nil
}

// InitHead draws out/W from U(-1/sqrt(H), 1/sqrt(H)) and zeroes out/b.
func (s *Sequence) InitHead(rng *rand.Rand) error {
	h := s.Cell.StateSizes()[0]
	if err := s.Params.InitUniform(OutW, rng, 1/math.Sqrt(float64(h))); err != nil {
		return err
	}
	return s.Params.Fill(OutB, 0)
}

// Logits applies the output layer to a state h: [batch, H] → [batch, Out].
func (s *Sequence) Logits(b *graph.Builder, h *G.Node) *G.Node {
	return b.AddRow(b.Mul(h, b.Param(s.Params, OutW)), b.Param(s.Params, OutB))
}

// StepLoss is the per-row loss of one step: logits, target: [batch, Out]
// (one-hot for Categorical) → [batch], nats.
func (s *Sequence) StepLoss(b *graph.Builder, logits, target *G.Node) *G.Node {
	switch s.Kind {
	case datasets.Categorical:
		return losses.CategoricalNLL(b, logits, target)
	case datasets.Binary:
		return losses.BernoulliNLL(b, logits, target)
	}
	return losses.MSE(b, logits, target)
}

// Head is the output layer and the masked step loss as a graph.Head: its
// inputs are the step's targets [batch, Out] and mask [batch], and its loss
// the masked sum of the per-row losses (callers divide by the number of
// unmasked steps).
func (s *Sequence) Head(b *graph.Builder, h *G.Node) (*G.Node, []*G.Node) {
	batch := h.Shape()[0]
	y := b.Input("y", batch, s.Out)
	mask := b.Input("mask", batch)
	return losses.MaskedSum(b, s.StepLoss(b, s.Logits(b, h), y), mask), []*G.Node{y, mask}
}

// Recurrence compiles the model's step for a batch size (see
// graph.Recurrence): truncate > 0 stops gradients every truncate steps, 0
// backpropagates through every step.
func (s *Sequence) Recurrence(batch, truncate int) (*graph.Recurrence, error) {
	return graph.NewRecurrence(s.Cell, s.Params, batch, s.Head, graph.RecurrenceConfig{Truncate: truncate})
}
