package optim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/pkg/errors"
	"github.com/rtnlab/rtn/params"
)

// trProblem is linear least squares, y ≈ W x + b with x in R^3, loss
// 0.5 (W x + b − y)² averaged over a batch. It implements Problem,
// Evaluator and Validator, records the batches it sees, and can be made to
// return a NaN loss or gradient at a given LossGrad call.
type trProblem struct {
	params     *params.Params
	x, vx      [][]float64
	y, vy      []float64
	calls      int
	batches    [][]int
	seen       []*params.Params // params at each LossGrad call, if record
	record     bool
	nanLossAt  int // LossGrad call (from 1) returning a NaN loss
	nanGradAt  int // LossGrad call (from 1) returning an Inf gradient
	bigLossAt  int // LossGrad call (from 1) returning a loss of 1e9
	validSeq   []float64
	validCalls int
}

// trTrue are the generating weights of trProblem's data.
var trTrue = []float64{1, -2, 0.5, 0.3} // W (3), b

// newTrProblem draws n training and n/2 validation examples (noise 0.01)
// and starts from W = 0, b = 0.
func newTrProblem(t testing.TB, n int, seed uint64) *trProblem {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 99))
	p := &trProblem{params: params.New()}
	if _, err := p.params.Add("W", 1, 3); err != nil {
		t.Fatal(err)
	}
	if _, err := p.params.Add("b", 1); err != nil {
		t.Fatal(err)
	}
	draw := func(m int) ([][]float64, []float64) {
		var xs [][]float64
		var ys []float64
		for i := 0; i < m; i++ {
			x := []float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
			xs = append(xs, x)
			ys = append(ys, trTrue[0]*x[0]+trTrue[1]*x[1]+trTrue[2]*x[2]+trTrue[3]+0.01*rng.NormFloat64())
		}
		return xs, ys
	}
	p.x, p.y = draw(n)
	p.vx, p.vy = draw(n / 2)
	return p
}

func (p *trProblem) Params() *params.Params { return p.params }
func (p *trProblem) NumExamples() int       { return len(p.x) }

func (p *trProblem) residual(x []float64, y float64) float64 {
	w, b := p.params.Data("W"), p.params.Data("b")
	return w[0]*x[0] + w[1]*x[1] + w[2]*x[2] + b[0] - y
}

func (p *trProblem) LossGrad(batch []int, grads *params.Params) (float64, error) {
	p.calls++
	p.batches = append(p.batches, append([]int(nil), batch...))
	if p.record {
		p.seen = append(p.seen, p.params.Clone())
	}
	gw, gb := grads.Data("W"), grads.Data("b")
	loss := 0.0
	for _, i := range batch {
		r := p.residual(p.x[i], p.y[i])
		loss += 0.5 * r * r
		for j := range gw {
			gw[j] += r * p.x[i][j] / float64(len(batch))
		}
		gb[0] += r / float64(len(batch))
	}
	loss /= float64(len(batch))
	if p.calls == p.nanLossAt {
		loss = math.NaN()
	}
	if p.calls == p.bigLossAt {
		loss = 1e9
	}
	if p.calls == p.nanGradAt {
		gw[1] = math.Inf(1)
	}
	return loss, nil
}

func (p *trProblem) Loss(batch []int) (float64, error) {
	g := p.params.Like()
	calls, rec := p.calls, p.record
	p.record = false
	l, err := p.LossGrad(batch, g)
	p.calls, p.record, p.batches = calls, rec, p.batches[:len(p.batches)-1]
	return l, err
}

// ValidationLoss is the mean loss on the validation set, or the next
// value of validSeq when it is set.
func (p *trProblem) ValidationLoss() (float64, error) {
	if p.validSeq != nil {
		v := p.validSeq[min(p.validCalls, len(p.validSeq)-1)]
		p.validCalls++
		return v, nil
	}
	s := 0.0
	for i := range p.vx {
		r := p.residual(p.vx[i], p.vy[i])
		s += 0.5 * r * r
	}
	return s / float64(len(p.vx)), nil
}

// trNoValid hides trProblem's Validator and Evaluator.
type trNoValid struct{ p *trProblem }

func (q trNoValid) Params() *params.Params { return q.p.Params() }
func (q trNoValid) NumExamples() int       { return q.p.NumExamples() }
func (q trNoValid) LossGrad(b []int, g *params.Params) (float64, error) {
	return q.p.LossGrad(b, g)
}

// trBatched adds a Batcher: examples sorted by their first input (length
// bucketing stand-in), cut into batches, the batch order shuffled.
type trBatched struct{ *trProblem }

func (q trBatched) Batches(rng *rand.Rand, size int) [][]int {
	idx := make([]int, q.NumExamples())
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return q.x[idx[a]][0] < q.x[idx[b]][0] })
	var out [][]int
	for i := 0; i < len(idx); i += size {
		out = append(out, idx[i:min(i+size, len(idx))])
	}
	rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

// testSGD is plain gradient descent, so that the trainer's tests do not
// depend on the registered optimizers.
type testSGD struct{ lr float64 }

func (o *testSGD) Name() string               { return "testsgd" }
func (o *testSGD) LearningRate() float64      { return o.lr }
func (o *testSGD) SetLearningRate(lr float64) { o.lr = lr }
func (o *testSGD) State() *params.Params      { return params.New() }
func (o *testSGD) LoadState(s *params.Params) error {
	if s.Len() != 0 {
		return fmt.Errorf("testsgd has no state, got %v", s)
	}
	return nil
}
func (o *testSGD) Step(params, grads *params.Params) error {
	for _, n := range params.Names() {
		p, g := params.Data(n), grads.Data(n)
		for i := range p {
			p[i] -= o.lr * g[i]
		}
	}
	return nil
}

// trInfStep is testSGD whose k-th step (from 1) writes an Inf parameter.
type trInfStep struct {
	testSGD
	k, n int
}

func (o *trInfStep) Step(params, grads *params.Params) error {
	o.n++
	if err := o.testSGD.Step(params, grads); err != nil {
		return err
	}
	if o.n == o.k {
		params.Data("b")[0] = math.Inf(-1)
	}
	return nil
}

// trSameBits returns "" if a and b agree in layout and every bit, or
// names the first difference.
func trSameBits(a, b *params.Params) string {
	if err := a.SameLayout(b); err != nil {
		return err.Error()
	}
	for _, n := range a.Names() {
		x, y := a.Data(n), b.Data(n)
		for i := range x {
			if math.Float64bits(x[i]) != math.Float64bits(y[i]) {
				return fmt.Sprintf("%s[%d]: %v versus %v", n, i, x[i], y[i])
			}
		}
	}
	return ""
}

func mustTrainer(t testing.TB, p Problem, opt Optimizer, cfg TrainConfig) *Trainer {
	t.Helper()
	tr, err := NewTrainer(p, opt, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func TestTrainerConverges(t *testing.T) {
	// Tolerances: the noise std is 0.01, so the validation loss at the
	// optimum is about 0.5e-4 and the weights are within a few 1e-3.
	const lossTol, weightTol = 2e-4, 1e-2
	p := newTrProblem(t, 64, 1)
	res, err := mustTrainer(t, p, &testSGD{lr: 0.1}, TrainConfig{Epochs: 30, BatchSize: 8, Seed: 3}).Run()
	if err != nil {
		t.Fatal(err)
	}
	if res.Epochs != 30 || res.Steps != 30*8 || len(res.History) != 30 || res.StoppedEarly {
		t.Fatalf("result %+v", res)
	}
	if !(res.BestValid < lossTol) || res.BestEpoch == 0 {
		t.Fatalf("best validation loss %v at epoch %d", res.BestValid, res.BestEpoch)
	}
	if res.History[29].TrainLoss >= res.History[0].TrainLoss {
		t.Fatalf("train loss went from %v to %v", res.History[0].TrainLoss, res.History[29].TrainLoss)
	}
	got := append(p.params.Data("W"), p.params.Data("b")...)
	for i, w := range trTrue {
		if math.Abs(got[i]-w) > weightTol {
			t.Fatalf("parameters %v, want %v", got, trTrue)
		}
	}
	// The best parameters are in place: their validation loss is BestValid.
	if v, _ := p.ValidationLoss(); v != res.BestValid {
		t.Fatalf("restored parameters have validation loss %v, BestValid %v", v, res.BestValid)
	}
}

// trResumeCase is one configuration of the resume test.
type trResumeCase struct {
	name    string
	problem func(p *trProblem) Problem
	opt     func(t testing.TB) Optimizer
	sched   func(t testing.TB) Schedule
	cfg     TrainConfig
	drops   bool // the full run must drop the rate at least once
}

func trResumeCases() []trResumeCase {
	plain := func(p *trProblem) Problem { return p }
	sgd := func(testing.TB) Optimizer { return &testSGD{lr: 0.05} }
	adam := func(t testing.TB) Optimizer {
		o, err := New("adam", Config{LR: 0.3})
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
	plateau := func(t testing.TB) Schedule {
		s, err := NewReduceOnPlateau(ReduceOnPlateauConfig{Patience: 1, Factor: 0.5, Threshold: 0.01})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	none := func(testing.TB) Schedule { return nil }
	warmCosine := func(t testing.TB) Schedule {
		s, err := ParseSchedule("warmup:1.5+cosine:3:0.1")
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	scheduleFree := func(t testing.TB) Optimizer {
		o, err := New("schedulefree", Config{LR: 0.3, WarmupSteps: 5})
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
	return []trResumeCase{
		{"adam warm-up cosine drops", plain, adam, warmCosine,
			TrainConfig{BatchSize: 8, Seed: 16, Patience: 1, MinDelta: 0.01, MaxDrops: 20}, true},
		{"schedulefree", plain, scheduleFree, none, TrainConfig{BatchSize: 7, Seed: 17}, false},
		{"sgd minibatches", plain, sgd, none, TrainConfig{BatchSize: 7, Seed: 11}, false},
		{"adam plateau drops", plain, adam, plateau,
			TrainConfig{BatchSize: 8, Seed: 12, Patience: 1, MinDelta: 0.01, MaxDrops: 20, ResetOnDrop: true}, true},
		{"adam restore on drop", plain, adam, none,
			TrainConfig{BatchSize: 5, Seed: 13, Patience: 1, MinDelta: 0.01, MaxDrops: 20, RestoreOnDrop: true}, true},
		{"adam patience 2", plain, adam, none,
			TrainConfig{BatchSize: 6, Seed: 15, Patience: 2, MinDelta: 0.1, MaxDrops: 20}, true},
		{"batcher full batch no validator", func(p *trProblem) Problem { return trBatched{p} }, sgd, none,
			TrainConfig{BatchSize: 16, Seed: 14}, false},
	}
}

func TestTrainerResumeBitExact(t *testing.T) {
	const total = 6 // epochs; the split runs stop after each of 1..total-1, then resume
	for _, tc := range trResumeCases() {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			run := func(epochs int, ck, resume string) (*trProblem, *Result) {
				p := newTrProblem(t, 40, 5)
				if resume != "" { // a different start, which Resume must overwrite
					p.params.Fill("W", 7)
				}
				cfg := tc.cfg
				cfg.Epochs, cfg.CheckpointPath, cfg.Schedule = epochs, ck, tc.sched(t)
				tr := mustTrainer(t, tc.problem(p), tc.opt(t), cfg)
				if resume != "" {
					if err := tr.Resume(resume); err != nil {
						t.Fatal(err)
					}
				}
				res, err := tr.Run()
				if err != nil {
					t.Fatal(err)
				}
				return p, res
			}
			fullPath := filepath.Join(dir, "full.npz")
			full, fullRes := run(total, fullPath, "")
			dropped := false
			for _, h := range fullRes.History {
				dropped = dropped || h.Dropped
			}
			if dropped != tc.drops {
				t.Fatalf("full run dropped the rate: %v, want %v (adjust the case)", dropped, tc.drops)
			}
			for half := 1; half < total; half++ {
				split := filepath.Join(dir, fmt.Sprintf("split%d.npz", half))
				_, firstRes := run(half, split, "")
				resumed, res := run(total, split, split)
				if firstRes.Epochs != half || res.Epochs != total || res.Steps != fullRes.Steps {
					t.Fatalf("split %d: epochs %d then %d, steps %d versus %d", half, firstRes.Epochs, res.Epochs, res.Steps, fullRes.Steps)
				}
				if d := trSameBits(full.params, resumed.params); d != "" {
					t.Fatalf("split %d: best parameters differ: %s", half, d)
				}
				trSameCheckpoints(t, fullPath, split)
				for i, h := range fullRes.History {
					g := res.History[i]
					if math.Float64bits(h.TrainLoss) != math.Float64bits(g.TrainLoss) || math.Float64bits(h.LR) != math.Float64bits(g.LR) ||
						h.Best != g.Best || h.Dropped != g.Dropped || h.Step != g.Step {
						t.Fatalf("split %d, epoch %d: %+v versus %+v", half, i+1, h, g)
					}
				}
				if fullRes.BestEpoch != res.BestEpoch || fullRes.BestValid != res.BestValid || fullRes.LR != res.LR || fullRes.Drops != res.Drops {
					t.Fatalf("split %d: results differ: %+v versus %+v", half, fullRes, res)
				}
			}
		})
	}
}

// trSameCheckpoints fails unless two training checkpoints hold the same
// state bit for bit (times apart).
func trSameCheckpoints(t *testing.T, pathA, pathB string) {
	t.Helper()
	var ma, mb trainerMeta
	a, err := params.LoadNPZ(pathA, &ma)
	if err != nil {
		t.Fatal(err)
	}
	b, err := params.LoadNPZ(pathB, &mb)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(ma, mb) {
		t.Fatalf("checkpoint metadata differs: %+v versus %+v", ma, mb)
	}
	for _, set := range []string{"params", "best", "optim"} {
		if a[set] == nil && b[set] == nil {
			continue
		}
		if d := trSameBits(a[set], b[set]); d != "" {
			t.Fatalf("checkpoint set %s differs: %s", set, d)
		}
	}
	for _, n := range []string{"lr", "best_valid", "schedule"} {
		if x, y := a["trainer"].Data(n), b["trainer"].Data(n); fmt.Sprint(x) != fmt.Sprint(y) {
			t.Fatalf("checkpoint trainer %s: %v versus %v", n, x, y)
		}
	}
}

func TestTrainerNonFinite(t *testing.T) {
	// 24 examples in batches of 8: steps 1-3 are epoch 1, 4-6 epoch 2.
	tests := []struct {
		name    string
		setup   func(p *trProblem) Optimizer
		msg     string
		step    int
		restore int // index in p.seen of the parameters restored
	}{
		{"nan loss", func(p *trProblem) Optimizer { p.nanLossAt = 5; return &testSGD{lr: 0.1} },
			"optim: diverged at step 5 (epoch 2): loss is NaN", 5, 3},
		{"inf gradient", func(p *trProblem) Optimizer { p.nanGradAt = 6; return &testSGD{lr: 0.1} },
			`optim: diverged at step 6 (epoch 2): gradient of "W" is +Inf`, 6, 4},
		{"inf parameter", func(p *trProblem) Optimizer { return &trInfStep{testSGD{lr: 0.1}, 4, 0} },
			`optim: diverged at step 4 (epoch 2): parameter "b" is -Inf`, 4, 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			ck := filepath.Join(dir, "ck.npz")
			p := newTrProblem(t, 24, 2)
			p.record = true
			opt := tc.setup(p)
			tr := mustTrainer(t, p, opt, TrainConfig{Epochs: 3, BatchSize: 8, CheckpointPath: ck, Meta: "m"})
			res, err := tr.Run()
			var nf *NonFiniteError
			if !errors.As(err, &nf) {
				t.Fatalf("got %v, want a *NonFiniteError", err)
			}
			if err.Error() != tc.msg || nf.Step != tc.step || nf.Epoch != 2 {
				t.Fatalf("error %q (%+v), want %q", err, nf, tc.msg)
			}
			if res == nil || res.Epochs != 1 || len(res.History) != 1 {
				t.Fatalf("result %+v, want one completed epoch", res)
			}
			if d := trSameBits(p.params, p.seen[tc.restore]); d != "" {
				t.Fatalf("parameters not restored to the last finite ones: %s", d)
			}
			// The checkpoint of epoch 1 is intact, loads, and resumes.
			var m trainerMeta
			sets, err := params.LoadNPZ(ck, &m)
			if err != nil {
				t.Fatal(err)
			}
			if m.Epoch != 1 || m.Step != 3 || sets["params"].Finite() != nil {
				t.Fatalf("checkpoint at epoch %d step %d", m.Epoch, m.Step)
			}
			if d := trSameBits(sets["params"], p.seen[3]); d != "" {
				t.Fatalf("checkpoint does not hold the parameters after epoch 1: %s", d)
			}
			tr2 := mustTrainer(t, newTrProblem(t, 24, 2), &testSGD{lr: 0.1}, TrainConfig{Epochs: 3, BatchSize: 8, Meta: "m"})
			if err := tr2.Resume(ck); err != nil {
				t.Fatal(err)
			}
			if left, _ := filepath.Glob(filepath.Join(dir, "*tmp*")); len(left) > 0 {
				t.Fatalf("temporary files left: %v", left)
			}
		})
	}
}

func TestTrainerNonFiniteValidation(t *testing.T) {
	p := newTrProblem(t, 16, 2)
	p.validSeq = []float64{1, 0.5, math.NaN()}
	_, err := mustTrainer(t, p, &testSGD{lr: 0.1}, TrainConfig{Epochs: 5, BatchSize: 8}).Run()
	if err == nil || err.Error() != "optim: diverged at step 4 (epoch 2): validation loss is NaN" {
		t.Fatalf("got %v", err)
	}
}

func TestTrainerResumeRefuses(t *testing.T) {
	dir := t.TempDir()
	ck := filepath.Join(dir, "ck.npz")
	type meta struct {
		Model string `json:"model"`
		Rank  int    `json:"rank"`
	}
	p := newTrProblem(t, 16, 4)
	if _, err := mustTrainer(t, p, &testSGD{lr: 0.1}, TrainConfig{Epochs: 2, BatchSize: 8, CheckpointPath: ck, Meta: meta{"lsq", 3}}).Run(); err != nil {
		t.Fatal(err)
	}
	plain := filepath.Join(dir, "plain.npz")
	if err := p.params.Save(plain); err != nil {
		t.Fatal(err)
	}
	garbage := filepath.Join(dir, "garbage.npz")
	if err := os.WriteFile(garbage, []byte("not a zip"), 0o644); err != nil {
		t.Fatal(err)
	}
	wide := newTrProblem(t, 16, 4)
	wide.params = params.New()
	wide.params.Add("W", 1, 4)
	wide.params.Add("b", 1)
	adam, err := New("adam", Config{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		prob *trProblem
		opt  Optimizer
		cfg  TrainConfig
		path string
		want string
	}{
		{"meta", nil, nil, TrainConfig{Meta: meta{"lsq", 4}}, ck,
			"optim: checkpoint " + ck + " is incompatible: meta.rank is 3 in the checkpoint, 4 in this run"},
		{"meta missing", nil, nil, TrainConfig{}, ck,
			"optim: checkpoint " + ck + ` is incompatible: meta is {"model":"lsq","rank":3} in the checkpoint, null in this run`},
		{"optimizer", nil, adam, TrainConfig{Meta: meta{"lsq", 3}}, ck,
			"optim: checkpoint " + ck + ` is incompatible: optimizer is "testsgd" in the checkpoint, "adam" in this run`},
		{"schedule", nil, nil, TrainConfig{Meta: meta{"lsq", 3}, Schedule: &StepDecay{}}, ck,
			"optim: checkpoint " + ck + ` is incompatible: schedule is "constant" in the checkpoint`},
		{"shapes", wide, nil, TrainConfig{Meta: meta{"lsq", 3}}, ck,
			"optim: checkpoint " + ck + ` is incompatible: params set: parameter "W" has shape [1 4] versus [1 3]`},
		{"not a training checkpoint", nil, nil, TrainConfig{}, plain, "is not a training checkpoint"},
		{"garbage", nil, nil, TrainConfig{}, garbage, "params: checkpoint " + garbage + ": not a valid .npz"},
		{"missing", nil, nil, TrainConfig{}, filepath.Join(dir, "none.npz"), "no such file"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			q, opt := tc.prob, tc.opt
			if q == nil {
				q = newTrProblem(t, 16, 4)
			}
			if opt == nil {
				opt = &testSGD{lr: 0.1}
			}
			tc.cfg.Epochs = 4
			tr := mustTrainer(t, q, opt, tc.cfg)
			before := q.params.Clone()
			err := tr.Resume(tc.path)
			if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("got %v, want one line containing %q", err, tc.want)
			}
			if d := trSameBits(before, q.params); d != "" || tr.epoch != 0 {
				t.Fatal("a refused Resume changed the trainer")
			}
		})
	}
}
