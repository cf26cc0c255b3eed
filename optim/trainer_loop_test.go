package optim

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/pkg/errors"
	"github.com/rtnlab/rtn/params"
)

// snapshotHook records the parameters at every epoch end.
func snapshotHook(snaps *[]*params.Params) Hook {
	return Hook{Name: "snap", EveryEpoch: true, Fn: func(s *State) error {
		*snaps = append(*snaps, s.Params.Clone())
		return nil
	}}
}

func TestTrainerPatience(t *testing.T) {
	const lr = 0.01
	// Scripted validation losses: the initial one, then one per epoch.
	tests := []struct {
		name      string
		valid     []float64
		cfg       TrainConfig
		epochs    int // run
		bestEpoch int
		drops     []int // epochs after which the rate dropped
		stopped   bool
	}{
		{"stop at second plateau", []float64{10, 5, 3, 4, 4, 3.5, 3.2, 1},
			TrainConfig{Patience: 2, MaxDrops: 2}, 6, 2, []int{4}, true},
		{"default three drops", []float64{10, 5, 6, 7, 8, 9},
			TrainConfig{Patience: 1}, 4, 1, []int{2, 3}, true},
		{"classic early stopping", []float64{10, 5, 6, 7, 1},
			TrainConfig{Patience: 2, MaxDrops: 1}, 3, 1, nil, true},
		{"warmup", []float64{10, 5, 6, 7, 8, 9, 9, 9},
			TrainConfig{Patience: 2, MaxDrops: 1, Warmup: 3}, 5, 1, nil, true},
		{"min delta", []float64{10, 5, 4.95, 4.9, 4.5, 1},
			TrainConfig{Patience: 2, MaxDrops: 1, MinDelta: 0.1}, 3, 1, nil, true},
		{"never improves: initial is best", []float64{1, 2, 3, 4},
			TrainConfig{Patience: 1, MaxDrops: 1}, 1, 0, nil, true},
		{"no patience", []float64{10, 11, 12, 13},
			TrainConfig{}, 3, 0, nil, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := newTrProblem(t, 16, 3)
			p.validSeq = tc.valid
			initial := p.params.Clone()
			var snaps []*params.Params
			cfg := tc.cfg
			cfg.Epochs, cfg.BatchSize = 3, 8
			if tc.stopped {
				cfg.Epochs = 20
			}
			cfg.Hooks = []Hook{snapshotHook(&snaps)}
			res, err := mustTrainer(t, p, &testSGD{lr: lr}, cfg).Run()
			if err != nil {
				t.Fatal(err)
			}
			if res.Epochs != tc.epochs || res.BestEpoch != tc.bestEpoch || res.StoppedEarly != tc.stopped {
				t.Fatalf("epochs %d best %d stopped %v, want %d %d %v", res.Epochs, res.BestEpoch, res.StoppedEarly, tc.epochs, tc.bestEpoch, tc.stopped)
			}
			var drops []int
			wantLR := lr
			for _, h := range res.History {
				if h.LR != wantLR {
					t.Fatalf("epoch %d used rate %v, want %v", h.Epoch, h.LR, wantLR)
				}
				if h.Dropped {
					drops = append(drops, h.Epoch)
					wantLR *= 0.1
				}
			}
			if fmt.Sprint(drops) != fmt.Sprint(tc.drops) {
				t.Fatalf("drops after epochs %v, want %v", drops, tc.drops)
			}
			best := initial
			if tc.bestEpoch > 0 {
				best = snaps[tc.bestEpoch-1]
			}
			if d := trSameBits(p.params, best); d != "" {
				t.Fatalf("best parameters not restored: %s", d)
			}
			if res.BestValid != tc.valid[tc.bestEpoch] {
				t.Fatalf("BestValid %v, want %v", res.BestValid, tc.valid[tc.bestEpoch])
			}
		})
	}
}

func TestTrainerRestoreOnDrop(t *testing.T) {
	p := newTrProblem(t, 16, 3)
	p.validSeq = []float64{10, 5, 6, 7, 8}
	p.record = true
	var snaps []*params.Params
	cfg := TrainConfig{Epochs: 3, BatchSize: 8, Patience: 1, MaxDrops: 5, RestoreOnDrop: true, Hooks: []Hook{snapshotHook(&snaps)}}
	if _, err := mustTrainer(t, p, &testSGD{lr: 0.1}, cfg).Run(); err != nil {
		t.Fatal(err)
	}
	// Epoch 2 did not improve on epoch 1: the drop puts epoch 1's
	// parameters back, and epoch 3's first step starts from them.
	if d := trSameBits(p.seen[4], snaps[0]); d != "" {
		t.Fatalf("epoch 3 did not start from the best parameters: %s", d)
	}
}

// readJSONL decodes every line of a JSON Lines file.
func readJSONL(t *testing.T, path string) []map[string]any {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []map[string]any
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		out = append(out, m)
	}
	return out
}

func TestTrainerMetrics(t *testing.T) {
	dir := t.TempDir()
	metrics, ck := filepath.Join(dir, "m.jsonl"), filepath.Join(dir, "ck.npz")
	p := newTrProblem(t, 16, 6)
	cfg := TrainConfig{Epochs: 2, BatchSize: 8, MetricsPath: metrics, CheckpointPath: ck}
	if _, err := mustTrainer(t, p, &testSGD{lr: 0.1}, cfg).Run(); err != nil {
		t.Fatal(err)
	}
	lines := readJSONL(t, metrics)
	if len(lines) != 2 {
		t.Fatalf("%d lines, want 2", len(lines))
	}
	want := []string{"best", "dropped", "elapsed", "epoch", "lr", "seconds", "step", "train_loss", "valid_loss"}
	var keys []string
	for k := range lines[1] {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if !reflect.DeepEqual(keys, want) || lines[1]["epoch"] != 2.0 || lines[1]["step"] != 4.0 || lines[1]["lr"] != 0.1 {
		t.Fatalf("line %v", lines[1])
	}
	// Resumed, with a problem without validation data: the file is
	// rewritten from the checkpoint's history, then appended to.
	cfg.Epochs = 4
	tr := mustTrainer(t, trNoValid{newTrProblem(t, 16, 6)}, &testSGD{lr: 0.1}, cfg)
	if err := tr.Resume(ck); err != nil {
		t.Fatal(err)
	}
	if _, err := tr.Run(); err != nil {
		t.Fatal(err)
	}
	lines = readJSONL(t, metrics)
	if len(lines) != 4 {
		t.Fatalf("%d lines after resume, want 4", len(lines))
	}
	for i, l := range lines {
		if l["epoch"] != float64(i+1) {
			t.Fatalf("line %d is epoch %v", i, l["epoch"])
		}
	}
	if lines[3]["valid_loss"] != nil || lines[1]["valid_loss"] == nil {
		t.Fatalf("valid_loss %v, %v: want a number, then null", lines[1]["valid_loss"], lines[3]["valid_loss"])
	}
}

func TestTrainerHooks(t *testing.T) {
	var log []string
	hook := func(name string, h Hook) Hook {
		h.Name = name
		h.Fn = func(s *State) error {
			log = append(log, fmt.Sprintf("%s:%v:e%d:s%d:b%d/%d:done=%v:stats=%v", name, s.Event, s.Epoch, s.Step, s.Batch, s.Batches, s.Done, s.Stats != nil))
			return nil
		}
		return h
	}
	p := newTrProblem(t, 16, 7)
	var progress bytes.Buffer
	cfg := TrainConfig{Epochs: 2, BatchSize: 5, Progress: &progress, Hooks: []Hook{
		hook("s3", Hook{EverySteps: 3}),
		hook("ep", Hook{EveryEpoch: true}),
		hook("end", Hook{AtEnd: true}),
	}}
	if _, err := mustTrainer(t, p, &testSGD{lr: 0.1}, cfg).Run(); err != nil {
		t.Fatal(err)
	}
	want := []string{ // 16 examples in batches of 5: 4 steps per epoch
		"s3:step:e1:s3:b3/4:done=false:stats=false",
		"ep:epoch:e1:s4:b4/4:done=false:stats=true",
		"s3:step:e2:s6:b2/4:done=false:stats=false",
		"ep:epoch:e2:s8:b4/4:done=true:stats=true",
		"end:end:e2:s8:b4/4:done=true:stats=false",
	}
	if !reflect.DeepEqual(log, want) {
		t.Fatalf("hook calls\n%s\nwant\n%s", strings.Join(log, "\n"), strings.Join(want, "\n"))
	}
	out := progress.String()
	if !strings.HasPrefix(out, "\repoch 1/2 [") || !strings.HasSuffix(out, "(done)\n") || strings.Count(out, "\n") != 1 {
		t.Fatalf("progress output %q", out)
	}

	// A failing hook stops training, named in the error.
	boom := errors.New("disk full")
	cfg = TrainConfig{Epochs: 3, BatchSize: 8, Progress: &progress, Hooks: []Hook{{Name: "saver", EveryEpoch: true, Fn: func(s *State) error {
		if s.Epoch == 2 {
			return boom
		}
		return nil
	}}}}
	progress.Reset()
	res, err := mustTrainer(t, newTrProblem(t, 16, 7), &testSGD{lr: 0.1}, cfg).Run()
	if err == nil || err.Error() != `optim: hook "saver": disk full` || errors.Cause(err) != boom {
		t.Fatalf("got %v", err)
	}
	if res.Epochs != 2 || !strings.HasSuffix(progress.String(), "\n") {
		t.Fatalf("%d epochs, progress %q", res.Epochs, progress.String())
	}
}

func TestTrainerBatches(t *testing.T) {
	const n = 13
	batches := func(p Problem, inner *trProblem, cfg TrainConfig) [][]int {
		t.Helper()
		cfg.Epochs = 3
		if _, err := mustTrainer(t, p, &testSGD{lr: 0.01}, cfg).Run(); err != nil {
			t.Fatal(err)
		}
		return inner.batches
	}
	run := func(cfg TrainConfig) [][]int {
		p := newTrProblem(t, n, 8)
		return batches(p, p, cfg)
	}
	a, b := run(TrainConfig{BatchSize: 4, Seed: 1}), run(TrainConfig{BatchSize: 4, Seed: 1})
	if !reflect.DeepEqual(a, b) {
		t.Fatal("same seed, different batches")
	}
	if len(a) != 3*4 || len(a[3]) != 1 {
		t.Fatalf("batches %v: want 4 per epoch, the last of one example", a)
	}
	for e := 0; e < 3; e++ { // each epoch is a permutation
		var all []int
		for _, b := range a[4*e : 4*e+4] {
			all = append(all, b...)
		}
		sort.Ints(all)
		for i, v := range all {
			if v != i {
				t.Fatalf("epoch %d covers %v", e+1, all)
			}
		}
	}
	if reflect.DeepEqual(a[:4], a[4:8]) {
		t.Fatal("epochs 1 and 2 have the same order")
	}
	if reflect.DeepEqual(a, run(TrainConfig{BatchSize: 4, Seed: 2})) {
		t.Fatal("different seeds, same batches")
	}
	if got := run(TrainConfig{BatchSize: 5, NoShuffle: true}); fmt.Sprint(got[:3]) != "[[0 1 2 3 4] [5 6 7 8 9] [10 11 12]]" {
		t.Fatalf("unshuffled batches %v", got[:3])
	}
	if got := run(TrainConfig{}); len(got) != 3 || len(got[0]) != n {
		t.Fatalf("full batches %v", got)
	}
	// A Batcher decides; it gets the same generator for the same seed.
	p := newTrProblem(t, n, 8)
	c := batches(trBatched{p}, p, TrainConfig{BatchSize: 4, Seed: 1})
	q := newTrProblem(t, n, 8)
	d := batches(trBatched{q}, q, TrainConfig{BatchSize: 4, Seed: 1})
	if !reflect.DeepEqual(c, d) || reflect.DeepEqual(c, a) {
		t.Fatal("Batcher batches not deterministic or not used")
	}
	x0 := func(b []int) []float64 {
		var v []float64
		for _, i := range b {
			v = append(v, p.x[i][0])
		}
		return v
	}
	if !sort.Float64sAreSorted(x0(c[0])) {
		t.Fatalf("batch %v is not one of the Batcher's", c[0])
	}
}

// trNeedsEvaluator is an optimizer that needs Evaluator, like AcceptReject.
type trNeedsEvaluator struct{ testSGD }

func (o *trNeedsEvaluator) Check(p Problem) error {
	if _, ok := p.(Evaluator); !ok {
		return errors.New("needs an Evaluator")
	}
	return nil
}

func (o *trNeedsEvaluator) StepProblem(p Problem, batch []int, loss float64, grads *params.Params) error {
	return o.Step(p.Params(), grads)
}

// trNoReset is testSGD whose state cannot be reset.
type trNoReset struct{ testSGD }

func (o *trNoReset) LoadState(s *params.Params) error { return errors.New("no reset") }

func TestNewTrainerErrors(t *testing.T) {
	fn := func(*State) error { return nil }
	tests := []struct {
		name string
		prob Problem
		opt  Optimizer
		cfg  TrainConfig
		want string
	}{
		{"epochs", nil, nil, TrainConfig{Epochs: -1}, "TrainConfig.Epochs must be >= 0"},
		{"batch", nil, nil, TrainConfig{BatchSize: -2}, "TrainConfig.BatchSize must be >= 0, got -2"},
		{"patience", nil, nil, TrainConfig{Patience: -1}, "TrainConfig.Patience"},
		{"drop factor", nil, nil, TrainConfig{DropFactor: 2}, "TrainConfig.DropFactor must be in (0, 1], got 2"},
		{"max drops", nil, nil, TrainConfig{MaxDrops: -1}, "TrainConfig.MaxDrops"},
		{"min delta", nil, nil, TrainConfig{MinDelta: math.NaN()}, "TrainConfig.MinDelta"},
		{"checkpoint every", nil, nil, TrainConfig{CheckpointEvery: -1}, "TrainConfig.CheckpointEvery"},
		{"meta", nil, nil, TrainConfig{Meta: math.Inf(1)}, "TrainConfig.Meta cannot be encoded as JSON"},
		{"hook fn", nil, nil, TrainConfig{Hooks: []Hook{{Name: "x", AtEnd: true}}}, `TrainConfig.Hooks[0] ("x") has no Fn`},
		{"hook never", nil, nil, TrainConfig{Hooks: []Hook{{Fn: fn}}}, `TrainConfig.Hooks[0] ("hook 0") never runs`},
		{"hook reserved", nil, nil, TrainConfig{Hooks: []Hook{{Name: "checkpoint", AtEnd: true, Fn: fn}}}, `reserved hook name "checkpoint"`},
		{"stepper check", trNoValid{newTrProblem(t, 4, 1)}, &trNeedsEvaluator{}, TrainConfig{}, "needs an Evaluator"},
		{"no examples", newTrProblem(t, 0, 1), nil, TrainConfig{}, "no training examples"},
		{"reset unsupported", nil, &trNoReset{}, TrainConfig{ResetOnDrop: true}, "TrainConfig.ResetOnDrop"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, opt := tc.prob, tc.opt
			if p == nil {
				p = newTrProblem(t, 4, 1)
			}
			if opt == nil {
				opt = &testSGD{lr: 0.1}
			}
			_, err := NewTrainer(p, opt, tc.cfg)
			if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("got %v, want one line containing %q", err, tc.want)
			}
		})
	}
	// A ProblemStepper's Check passes with the right problem and its
	// StepProblem is used.
	if _, err := mustTrainer(t, newTrProblem(t, 4, 1), &trNeedsEvaluator{testSGD{lr: 0.1}}, TrainConfig{}).Run(); err != nil {
		t.Fatal(err)
	}
}

func TestTrainerCheckpointEvery(t *testing.T) {
	ck := filepath.Join(t.TempDir(), "ck.npz")
	var epochs []int
	hook := Hook{Name: "peek", EveryEpoch: true, Fn: func(s *State) error {
		var m trainerMeta
		if _, err := params.LoadNPZ(ck, &m); err == nil {
			epochs = append(epochs, m.Epoch)
		} else {
			epochs = append(epochs, -1)
		}
		return nil
	}}
	cfg := TrainConfig{Epochs: 5, BatchSize: 8, CheckpointPath: ck, CheckpointEvery: 2, Hooks: []Hook{hook}}
	if _, err := mustTrainer(t, newTrProblem(t, 16, 9), &testSGD{lr: 0.1}, cfg).Run(); err != nil {
		t.Fatal(err)
	}
	// Written after epochs 2 and 4, and after the last one.
	if fmt.Sprint(epochs) != "[-1 2 2 4 5]" {
		t.Fatalf("checkpoint epochs seen %v", epochs)
	}
	// Resuming a finished run trains no more and restores the best.
	p := newTrProblem(t, 16, 9)
	p.params.Fill("b", 3)
	tr := mustTrainer(t, p, &testSGD{lr: 0.1}, TrainConfig{Epochs: 5, BatchSize: 8})
	if err := tr.Resume(ck); err != nil {
		t.Fatal(err)
	}
	res, err := tr.Run()
	if err != nil {
		t.Fatal(err)
	}
	sets, err := params.LoadNPZ(ck, nil)
	if err != nil {
		t.Fatal(err)
	}
	if p.calls != 0 || res.Epochs != 5 || len(res.History) != 5 || trSameBits(p.params, sets["best"]) != "" {
		t.Fatalf("resumed finished run: %d LossGrad calls, result %+v", p.calls, res)
	}
}
