package layers_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/rtnlab/rtn/datasets"
	"github.com/rtnlab/rtn/graph"
	"github.com/rtnlab/rtn/layers"
	"github.com/rtnlab/rtn/params"
)

// float32Tol bounds the distance of a float32 run's loss and gradients
// from float64's, relative to max(1, |float64 value|): a few thousand
// float32 roundings of order 6e-8 over a batch of 9 steps.
const float32Tol = 2e-4

// TestFloat32MatchesFloat64 runs every cell (each built-in one on its
// kernel and on the tape, the cells without a kernel on the tape) with
// every target kind in float32 and compares loss and gradients with the
// float64 run, with full BPTT, truncation and checkpoints. The float32
// results must differ from float64's (the run is float32) and checkpoints
// change no bit of them.
func TestFloat32MatchesFloat64(t *testing.T) {
	const in, hidden, out = 3, 4, 3
	cfgs := []layers.ProblemConfig{{}, {Chunk: 3}, {Checkpoint: 3}, {Chunk: 3, Checkpoint: 2}}
	nFused := len(fusedCells())
	for ci, c := range tapeCells() {
		execs := []string{layers.ExecTape}
		if ci < nFused {
			execs = append(execs, layers.ExecFused)
		}
		for _, exec := range execs {
			for _, kind := range []datasets.TargetKind{datasets.Categorical, datasets.Binary, datasets.Real} {
				t.Run(fmt.Sprintf("%s/%s/%s", c.name, exec, kind), func(t *testing.T) {
					task := fusedTask(kind, in, out, rand.New(rand.NewPCG(3, uint64(kind))))
					seq := anyModel(t, c, task, hidden, 7)
					var ref [2]*params.Params
					var refL [2]float64
					for _, cfg := range cfgs {
						cfg.Executor = exec
						wantL, want := lossGrad(t, seq, task, cfg)
						cfg.DType = graph.Float32
						gotL, got := lossGrad(t, seq, task, cfg)
						if gotL == wantL {
							t.Errorf("%+v: float32 loss is float64's to the bit: not a float32 run", cfg)
						}
						if math.Abs(gotL-wantL) > float32Tol*math.Max(1, math.Abs(wantL)) {
							t.Errorf("%+v: loss %.9g, float64 %.9g", cfg, gotL, wantL)
						}
						compareGrads(t, fmt.Sprintf("%+v", cfg), seq.Params, got, want, float32Tol)
						i := min(cfg.Chunk, 1)
						if cfg.Checkpoint == 0 {
							ref[i], refL[i] = got, gotL
							continue
						}
						if gotL != refL[i] {
							t.Errorf("%+v: loss %v, without checkpoints %v", cfg, gotL, refL[i])
						}
						compareGrads(t, fmt.Sprintf("%+v against no checkpoints", cfg), seq.Params, got, ref[i], 0)
					}
				})
			}
		}
	}
}

// TestFloat32HeadExtremeLogits runs the float32 head at logits from -1000
// to 1000 for every target kind: finite, and float64's values to float32
// precision.
func TestFloat32HeadExtremeLogits(t *testing.T) {
	for _, kind := range []datasets.TargetKind{datasets.Categorical, datasets.Binary, datasets.Real} {
		t.Run(kind.String(), func(t *testing.T) {
			seq, task := extremeLogitsModel(t, kind)
			wantL, want := lossGrad(t, seq, task, layers.ProblemConfig{})
			gotL, got := lossGrad(t, seq, task, layers.ProblemConfig{DType: graph.Float32})
			if math.IsNaN(gotL) || math.IsInf(gotL, 0) || math.Abs(gotL-wantL) > float32Tol*math.Max(1, math.Abs(wantL)) {
				t.Errorf("loss %.9g, float64 %.9g", gotL, wantL)
			}
			compareGrads(t, "extreme logits", seq.Params, got, want, float32Tol)
		})
	}
}

// TestFloat32NoAllocations checks that the float32 executors, on every
// kernel and on the tape, allocate nothing once their buffers have grown.
func TestFloat32NoAllocations(t *testing.T) {
	const in, hidden, out = 5, 70, 4 // 70 > 64: products are cut into tiles
	nFused := len(fusedCells())
	for ci, c := range tapeCells() {
		for _, exec := range []string{layers.ExecFused, layers.ExecTape} {
			if exec == layers.ExecFused && ci >= nFused {
				continue
			}
			t.Run(fmt.Sprintf("%s/%s", c.name, exec), func(t *testing.T) {
				task := fusedTask(datasets.Binary, in, out, rand.New(rand.NewPCG(5, 1)))
				seq := anyModel(t, c, task, hidden, 3)
				bt, err := datasets.MakeBatch(task, task.Train, []int{0, 1, 2})
				if err != nil {
					t.Fatal(err)
				}
				var r *graph.FusedRecurrence
				if exec == layers.ExecFused {
					r, _, err = seq.FusedRecurrence32(bt.B, graph.RecurrenceConfig{Checkpoint: 4})
				} else {
					r, err = seq.TapeRecurrence32(bt.B, graph.RecurrenceConfig{})
				}
				if err != nil {
					t.Fatal(err)
				}
				if r.DType() != graph.Float32 {
					t.Fatalf("executor runs %s", r.DType())
				}
				checkNoAllocations(t, r, seq, bt)
			})
		}
	}
}

// TestFloat32Refusals checks the one-line errors of an unknown dtype, of
// float32 on the graph executor, and of a cell the tape cannot run.
func TestFloat32Refusals(t *testing.T) {
	task := fusedTask(datasets.Real, 3, 2, rand.New(rand.NewPCG(1, 1)))
	seq := fusedModel(t, fusedCells()[0], task, 4, 1)
	for _, tc := range []struct {
		cfg  layers.ProblemConfig
		want string
	}{
		{layers.ProblemConfig{DType: "float16"}, `unknown dtype "float16"`},
		{layers.ProblemConfig{DType: graph.Float32, Executor: layers.ExecGraph}, "runs float64 only"},
	} {
		_, err := layers.NewProblem(seq, task, tc.cfg)
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%+v: error %v, want one line with %q", tc.cfg, err, tc.want)
		}
	}
	p := params.New()
	p.Add("W", 3, 4)
	p.Add("d", 4)
	p.Add("b", 4)
	raw, err := layers.NewSequence(p, &rawCell{DiagCell{P: p, In: 3, Hidden: 4}}, 2, datasets.Real)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := layers.NewProblem(raw, task, layers.ProblemConfig{DType: graph.Float32}); err == nil || !strings.Contains(err.Error(), "float32") {
		t.Errorf("a cell off the tape in float32: error %v, want one naming float32", err)
	}
}
