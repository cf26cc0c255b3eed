package decomp_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	G "gorgonia.org/gorgonia"

	"github.com/rtnlab/rtn/datasets"
	"github.com/rtnlab/rtn/graph"
	"github.com/rtnlab/rtn/layers"
	"github.com/rtnlab/rtn/layers/decomp"
	"github.com/rtnlab/rtn/params"
)

const (
	// applyTol bounds Apply against the full tensor's contraction (sums in
	// another order).
	applyTol = 1e-12
	// execTol bounds the tape against the graphs (loss and gradient).
	execTol = 1e-11
)

// weightCase makes one decomposition of a tensor [modes..., out].
type weightCase struct {
	name string
	make func(p *params.Params, modes []int, out int) (decomp.Weight, error)
}

func weightCases() []weightCase {
	return []weightCase{
		{"cp", func(p *params.Params, m []int, out int) (decomp.Weight, error) {
			return decomp.NewCP(p, "w", m, out, 3)
		}},
		{"tucker", func(p *params.Params, m []int, out int) (decomp.Weight, error) {
			r := make([]int, len(m)+1)
			for i := range r {
				r[i] = 2 + i%2
			}
			return decomp.NewTucker(p, "w", m, out, r)
		}},
		{"tt", func(p *params.Params, m []int, out int) (decomp.Weight, error) {
			r := make([]int, len(m))
			for i := range r {
				r[i] = 3 - i%2
			}
			return decomp.NewTT(p, "w", m, out, r)
		}},
	}
}

// TestApplyMatchesFull checks Apply against the contraction of the full
// tensor with the inputs, for one, two and three input modes.
func TestApplyMatchesFull(t *testing.T) {
	const batch = 3
	for _, wc := range weightCases() {
		for _, modes := range [][]int{{4}, {3, 4}, {2, 3, 2}} {
			t.Run(fmt.Sprintf("%s/%v", wc.name, modes), func(t *testing.T) {
				rng := rand.New(rand.NewPCG(1, uint64(len(modes))))
				p := params.New()
				const out = 5
				w, err := wc.make(p, modes, out)
				if err != nil {
					t.Fatal(err)
				}
				if err := w.Init(rng, 0.5); err != nil {
					t.Fatal(err)
				}
				b := graph.NewBuilder()
				var xs []*G.Node
				var xv [][]float64
				for _, d := range modes {
					v := make([]float64, batch*d)
					for i := range v {
						v[i] = rng.NormFloat64()
					}
					xv = append(xv, v)
					xs = append(xs, b.Constant(v, batch, d))
				}
				y := b.Watch(w.Apply(b, xs...))
				m, err := graph.Compile(b, b.Sum(y), p)
				if err != nil {
					t.Fatal(err)
				}
				defer m.Close()
				if err := m.Run(); err != nil {
					t.Fatal(err)
				}
				got, err := m.Value(y)
				if err != nil {
					t.Fatal(err)
				}
				full := w.Full()
				n := len(full) / out
				idx := make([]int, len(modes))
				for r := range batch {
					for j := range out {
						var want float64
						for i := range n {
							rem := i
							for k := len(modes) - 1; k >= 0; k-- {
								idx[k] = rem % modes[k]
								rem /= modes[k]
							}
							v := full[i*out+j]
							for k, ik := range idx {
								v *= xv[k][r*modes[k]+ik]
							}
							want += v
						}
						if d := math.Abs(got[r*out+j] - want); d > applyTol*math.Max(1, math.Abs(want)) {
							t.Fatalf("y[%d, %d] = %.17g, full tensor %.17g", r, j, got[r*out+j], want)
						}
					}
				}
			})
		}
	}
}

// TestInitVariance checks that Init gives the full tensor's entries the
// variance asked for: the mean of w^2 over 400 draws of 60 entries each
// is within 10% of std^2 (its relative standard error is about 3%).
func TestInitVariance(t *testing.T) {
	const std, draws = 0.3, 400
	for _, wc := range weightCases() {
		for _, modes := range [][]int{{3, 4}, {2, 3, 2}} {
			t.Run(fmt.Sprintf("%s/%v", wc.name, modes), func(t *testing.T) {
				rng := rand.New(rand.NewPCG(2, 2))
				p := params.New()
				w, err := wc.make(p, modes, 5)
				if err != nil {
					t.Fatal(err)
				}
				var sum float64
				var n int
				for range draws {
					if err := w.Init(rng, std); err != nil {
						t.Fatal(err)
					}
					for _, v := range w.Full() {
						sum += v * v
						n++
					}
				}
				if v := sum / float64(n); math.Abs(v/(std*std)-1) > 0.1 {
					t.Errorf("mean squared entry %.4g, want %.4g", v, std*std)
				}
			})
		}
	}
}

// biCell is h' = tanh(W(h, x) + b) for a decomposed W [H, in, H].
type biCell struct {
	w      decomp.Weight
	p      *params.Params
	in, hd int
}

func (c *biCell) InputSize() int    { return c.in }
func (c *biCell) StateSizes() []int { return []int{c.hd} }
func (c *biCell) InitialState(b *graph.Builder, batch int) []*G.Node {
	return []*G.Node{b.LearnedState(c.p, "h0", batch)}
}
func (c *biCell) Step(b *graph.Builder, x *G.Node, h []*G.Node) []*G.Node {
	return []*G.Node{b.Tanh(b.AddRow(c.w.Apply(b, h[0], x), b.Param(c.p, "b")))}
}

// TestWeightsInACell trains nothing but checks, for each decomposition as
// the transition tensor of a second-order cell, that the tape (what
// trains) and the graphs agree, and the tape's gradient against finite
// differences.
func TestWeightsInACell(t *testing.T) {
	const in, hd, out = 3, 4, 3
	for _, wc := range weightCases() {
		t.Run(wc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(3, 3))
			p := params.New()
			w, err := wc.make(p, []int{hd, in}, hd)
			if err != nil {
				t.Fatal(err)
			}
			if err := w.Init(rng, 1); err != nil {
				t.Fatal(err)
			}
			p.Add("h0", hd)
			p.Add("b", hd)
			p.InitNormal("h0", rng, 0.5)
			p.InitNormal("b", rng, 0.5)
			seq, err := layers.NewSequence(p, &biCell{w: w, p: p, in: in, hd: hd}, out, datasets.Categorical)
			if err != nil {
				t.Fatal(err)
			}
			if err := seq.InitHead(rng); err != nil {
				t.Fatal(err)
			}
			task := smallTask(in, out, rng)
			batch := []int{0, 1, 2}
			run := func(exec string) (float64, *params.Params, *layers.Problem) {
				prob, err := layers.NewProblem(seq, task, layers.ProblemConfig{Executor: exec})
				if err != nil {
					t.Fatal(err)
				}
				g := p.Like()
				l, err := prob.LossGrad(batch, g)
				if err != nil {
					t.Fatal(err)
				}
				return l, g, prob
			}
			lt, gt, prob := run(layers.ExecTape)
			lg, gg, _ := run(layers.ExecGraph)
			if math.Abs(lt-lg) > execTol {
				t.Errorf("loss: tape %.17g, graphs %.17g", lt, lg)
			}
			for _, n := range p.Names() {
				for i, v := range gt.Data(n) {
					if u := gg.Data(n)[i]; math.Abs(v-u) > execTol*math.Max(1, math.Abs(u)) {
						t.Fatalf("%s[%d]: tape %.17g, graphs %.17g", n, i, v, u)
					}
				}
			}
			err = graph.CheckGradients(p,
				func() (float64, error) { return prob.Loss(batch) },
				func(g *params.Params) error { _, err := prob.LossGrad(batch, g); return err },
				graph.FDOptions{})
			if err != nil {
				t.Error(err)
			}
		})
	}
}

// smallTask is a task of three random one-hot sequences over in symbols
// with next-symbol targets.
func smallTask(in, out int, rng *rand.Rand) *datasets.Task {
	task := &datasets.Task{Name: "small", In: in, Out: out, Kind: datasets.Categorical}
	for _, T := range []int{5, 8, 6} {
		e := datasets.Example{T: T, X: make([]float64, T*in), Y: make([]float64, T)}
		for s := range T {
			e.X[s*in+rng.IntN(in)] = 1
			e.Y[s] = float64(rng.IntN(out))
		}
		task.Train = append(task.Train, e)
	}
	return task
}

// TestDecompErrors checks that bad sizes and inputs are errors.
func TestDecompErrors(t *testing.T) {
	p := params.New()
	if _, err := decomp.NewCP(p, "a", nil, 3, 2); err == nil {
		t.Error("CP without modes: no error")
	}
	if _, err := decomp.NewTucker(p, "b", []int{2, 3}, 3, []int{2, 2}); err == nil {
		t.Error("Tucker with 2 ranks for 2 modes: no error")
	}
	if _, err := decomp.NewTT(p, "c", []int{2, 3}, 3, []int{2, 0}); err == nil {
		t.Error("TT rank 0: no error")
	}
	w, err := decomp.NewCP(p, "d", []int{2, 3}, 4, 2)
	if err != nil {
		t.Fatal(err)
	}
	b := graph.NewBuilder()
	x := b.Constant(make([]float64, 6), 3, 2)
	if y := w.Apply(b, x, x); y != nil || b.Err() == nil {
		t.Errorf("Apply with a [3 2] input for mode 3: %v, %v", y, b.Err())
	}
}
