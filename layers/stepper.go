package layers

import (
	"fmt"

	"github.com/pkg/errors"
	G "gorgonia.org/gorgonia"

	"github.com/rtnlab/rtn/datasets"
	"github.com/rtnlab/rtn/graph"
	"github.com/rtnlab/rtn/losses"
)

// stepper runs a Sequence forward one step at a time for one sequence
// (batch 1), with the arithmetic of the executor training and evaluation
// use, so that its step losses are theirs bit for bit.
type stepper interface {
	// start sets the state to the initial state.
	start() error
	// step runs one step on x ([In]) and the output layer; with a target
	// y ([Out], one-hot for Categorical) it returns the step's loss in
	// nats, as the executor computes it (0 for a nil y).
	step(x, y []float64) (float64, error)
	// logits writes the output layer of the last step into dst ([Out]).
	logits(dst []float64)
}

// newStepper sets up the executor chooseExecutor picks for cfg (the
// one a Problem with cfg trains and evaluates on) for a batch of one. It
// returns the executor's name.
func (s *Sequence) newStepper(cfg ProblemConfig) (stepper, string, error) {
	kind, _, err := s.chooseExecutor(cfg)
	if err != nil {
		return nil, "", err
	}
	if kind == ExecGraph {
		st, err := newGraphStepper(s)
		return st, kind, err
	}
	if cfg.DType == graph.Float32 {
		m := graph.NewMirror()
		w := m.Weights32()
		var k graph.StepKernelOf[float32]
		if kind == ExecFused {
			k = s.Cell.(graph.FusedCell32).StepKernel32(1, w)
		} else if k, err = graph.CompileTape32(s.Cell, s.Params, 1, w); err != nil {
			return nil, "", errors.Wrap(err, "layers")
		}
		return newKernelStepper(s, k, w, m), kind, nil
	}
	var k graph.StepKernel
	if kind == ExecFused {
		k = s.Cell.(graph.FusedCell).StepKernel(1)
	} else if k, err = graph.CompileTape(s.Cell, s.Params, 1); err != nil {
		return nil, "", errors.Wrap(err, "layers")
	}
	return newKernelStepper(s, k, graph.Weights[float64]{}, nil), kind, nil
}

// kernelStepper runs a StepKernelOf[F] and the output layer of
// headKernel for one row, in F: the same bits per row as FusedRecurrence
// (its products give each row the same result whatever the block).
type kernelStepper[F graph.Float] struct {
	s       *Sequence
	k       graph.StepKernelOf[F]
	w       graph.Weights[F]
	mirror  *graph.Mirror // float32: the copies w reads, synced at start
	h       int
	in, out [][]F
	x, proj []F
	cache   []F
	z, dz   []F // the logits, and the scratch the loss overwrites
}

func newKernelStepper[F graph.Float](s *Sequence, k graph.StepKernelOf[F], w graph.Weights[F], m *graph.Mirror) *kernelStepper[F] {
	st := &kernelStepper[F]{s: s, k: k, w: w, mirror: m, h: s.Cell.StateSizes()[0],
		x: make([]F, s.Cell.InputSize()), proj: make([]F, k.ProjectionSize()), cache: make([]F, k.CacheSize()),
		z: make([]F, s.Out), dz: make([]F, s.Out)}
	for _, n := range s.Cell.StateSizes() {
		st.in = append(st.in, make([]F, n))
		st.out = append(st.out, make([]F, n))
	}
	return st
}

func (k *kernelStepper[F]) start() error {
	if k.mirror != nil {
		k.mirror.Sync()
	}
	k.k.InitialState(k.in)
	return nil
}

func (k *kernelStepper[F]) step(x, y []float64) (float64, error) {
	for i, v := range x {
		k.x[i] = F(v)
	}
	k.k.Project(k.x, k.proj)
	k.k.Forward(k.x, k.proj, k.in, k.out, k.cache)
	k.in, k.out = k.out, k.in
	out := k.s.Out
	graph.GemmOf(false, false, 1, out, k.h, 1, k.in[0], k.h, k.w.Data(k.s.Params, OutW), out, 0, k.z, out)
	for j, b := range k.w.Data(k.s.Params, OutB) {
		k.z[j] += b
	}
	if y == nil {
		return 0, nil
	}
	copy(k.dz, k.z)
	switch k.s.Kind {
	case datasets.Categorical:
		return softmaxNLL(k.dz, y, 1), nil
	case datasets.Binary:
		return bernoulliNLL(k.dz, y, 1), nil
	}
	return meanSquare(k.dz, y, 1), nil
}

func (k *kernelStepper[F]) logits(dst []float64) {
	for j, v := range k.z {
		dst[j] = float64(v)
	}
}

// graphStepper runs the step as the compiled graphs of graph.Recurrence
// do (the cell's step and the Sequence's head), with the logits watched.
type graphStepper struct {
	s                *Sequence
	init, fwd        *graph.Machine
	initOut          []*G.Node
	x, y, mask, lgts *G.Node
	hIn, hOut        []*G.Node
	state            [][]float64
	noY, mask0, one  []float64
}

func newGraphStepper(s *Sequence) (*graphStepper, error) {
	st := &graphStepper{s: s, noY: make([]float64, s.Out), mask0: []float64{0}, one: []float64{1}}
	bi := graph.NewBuilder()
	for _, n := range s.Cell.InitialState(bi, 1) {
		st.initOut = append(st.initOut, bi.Watch(n))
	}
	var err error
	if st.init, err = graph.Compile(bi, nil, nil); err != nil {
		return nil, errors.Wrap(err, "layers: initial state")
	}
	b := graph.NewBuilder()
	st.x = b.Input("x", 1, s.Cell.InputSize())
	for i, n := range s.Cell.StateSizes() {
		st.hIn = append(st.hIn, b.Input(fmt.Sprintf("h%d", i), 1, n))
		st.state = append(st.state, make([]float64, n))
	}
	st.hOut = s.Cell.Step(b, st.x, st.hIn)
	if len(st.hOut) != len(st.hIn) || st.hOut[0] == nil {
		return nil, errors.New("layers: the cell's step returned no state")
	}
	for _, h := range st.hOut {
		b.Watch(h)
	}
	st.lgts = b.Watch(s.Logits(b, st.hOut[0]))
	st.y = b.Input("y", 1, s.Out)
	st.mask = b.Input("mask", 1)
	loss := losses.MaskedSum(b, s.StepLoss(b, st.lgts, st.y), st.mask)
	if st.fwd, err = graph.Compile(b, loss, nil); err != nil {
		return nil, errors.Wrap(err, "layers: step")
	}
	return st, nil
}

func (g *graphStepper) start() error {
	if err := g.init.Run(); err != nil {
		return err
	}
	for i, n := range g.initOut {
		v, err := g.init.Value(n)
		if err != nil {
			return err
		}
		copy(g.state[i], v)
	}
	return nil
}

func (g *graphStepper) step(x, y []float64) (float64, error) {
	m := g.one
	if y == nil {
		y, m = g.noY, g.mask0
	}
	lets := []struct {
		n *G.Node
		v []float64
	}{{g.x, x}, {g.y, y}, {g.mask, m}}
	for _, l := range lets {
		if err := g.fwd.Let(l.n, l.v); err != nil {
			return 0, err
		}
	}
	for i, n := range g.hIn {
		if err := g.fwd.Let(n, g.state[i]); err != nil {
			return 0, err
		}
	}
	if err := g.fwd.Run(); err != nil {
		return 0, err
	}
	for i, h := range g.hOut {
		v, err := g.fwd.Value(h)
		if err != nil {
			return 0, err
		}
		copy(g.state[i], v)
	}
	return g.fwd.Loss(), nil
}

func (g *graphStepper) logits(dst []float64) {
	if v, err := g.fwd.Value(g.lgts); err == nil {
		copy(dst, v)
	}
}
