package compare

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/rtnlab/rtn/optim"
	"github.com/rtnlab/rtn/params"
)

// linReg is least squares on y = x·w* + noise with d = 3 inputs: loss
// 0.5 (x·w − y)² averaged over a batch; train, validation and test sets
// and the initial w are drawn from the seed.
type linReg struct {
	p                *params.Params
	train, valid, te [][4]float64 // x0, x1, x2, y
}

func newLinReg(seed uint64) (optim.Problem, error) {
	rng := rand.New(rand.NewPCG(seed, 7))
	wStar := []float64{1, -2, 0.5}
	draw := func(n int) [][4]float64 {
		out := make([][4]float64, n)
		for i := range out {
			var y float64
			for j := range 3 {
				out[i][j] = rng.NormFloat64()
				y += out[i][j] * wStar[j]
			}
			out[i][3] = y + 0.1*rng.NormFloat64()
		}
		return out
	}
	p := params.New()
	if _, err := p.Add("w", 3); err != nil {
		return nil, err
	}
	if err := p.InitNormal("w", rng, 1); err != nil {
		return nil, err
	}
	return &linReg{p: p, train: draw(24), valid: draw(16), te: draw(16)}, nil
}

func (l *linReg) Params() *params.Params { return l.p }
func (l *linReg) NumExamples() int       { return len(l.train) }

func (l *linReg) loss(set [][4]float64, idx []int, g []float64) float64 {
	w := l.p.Data("w")
	var sum float64
	for _, i := range idx {
		e := set[i]
		r := e[0]*w[0] + e[1]*w[1] + e[2]*w[2] - e[3]
		sum += 0.5 * r * r
		for j := range g {
			g[j] += r * e[j] / float64(len(idx))
		}
	}
	return sum / float64(len(idx))
}

func (l *linReg) LossGrad(batch []int, grads *params.Params) (float64, error) {
	g := grads.Data("w")
	clear(g)
	return l.loss(l.train, batch, g), nil
}

func (l *linReg) Loss(batch []int) (float64, error) { return l.loss(l.train, batch, nil), nil }

func all(n int) []int {
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	return idx
}

func (l *linReg) ValidationLoss() (float64, error) {
	return l.loss(l.valid, all(len(l.valid)), nil), nil
}
func (l *linReg) TestLoss() (float64, error) { return l.loss(l.te, all(len(l.te)), nil), nil }

// smallConfig compares sgd and adam on a 3-point grid whose top rate
// makes sgd diverge (lr 10 > 2/λmax of the Hessian, about 1 here).
func smallConfig() Config {
	return Config{
		Problem:   newLinReg,
		Settings:  []Setting{{Optimizer: "sgd"}, {Optimizer: "adam"}, {Name: "sgd-ar", Optimizer: "sgd", AcceptReject: true}},
		Seeds:     []uint64{1, 2},
		LRGrid:    []float64{0.01, 0.1, 10},
		Budget:    Budget{Epochs: 3},
		BatchSize: 5,
		EvalEvery: 4,
		Target:    0.5,
	}
}

// fingerprint renders every number of every run except wall times, bit
// for bit.
func fingerprint(r *Results) string {
	var b strings.Builder
	for _, o := range r.Runs {
		fmt.Fprintf(&b, "%s %s %s %d %v %d %d %d %s %s\n", o.Setting, o.Optimizer, ftoa(o.LR), o.Seed, o.Status, o.DivergedStep,
			o.Epochs, o.Steps, ftoa(o.ValidLoss), ftoa(o.TestLoss))
		for _, p := range o.Curve {
			fmt.Fprintf(&b, " %s %d %s %s\n", ftoa(p.Epoch), p.Step, ftoa(p.TrainLoss), ftoa(p.ValidLoss))
		}
	}
	return b.String()
}

func mustRun(t *testing.T, c Config) *Results {
	t.Helper()
	r, err := Run(c)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestParallelEqualsSerial(t *testing.T) {
	serial := mustRun(t, smallConfig())
	c := smallConfig()
	c.Jobs = 3
	par := mustRun(t, c)
	if len(serial.Runs) != len(serial.Plan) || len(serial.Plan) != 2*3*2+2 {
		t.Fatalf("%d runs of a %d-run plan, want 14 (the accept/reject setting runs once per seed)", len(serial.Runs), len(serial.Plan))
	}
	if a, b := fingerprint(serial), fingerprint(par); a != b {
		t.Fatalf("Jobs 3 differs from Jobs 1:\n%s\nvs\n%s", b, a)
	}
}

func TestSameStartPerSeed(t *testing.T) {
	r := mustRun(t, smallConfig())
	v0 := map[uint64]float64{}
	for _, o := range r.Runs {
		if v, ok := v0[o.Seed]; ok && v != o.Curve[0].ValidLoss {
			t.Fatalf("seed %d: initial validation loss %v for %s, %v before", o.Seed, o.Curve[0].ValidLoss, o.Setting, v)
		}
		v0[o.Seed] = o.Curve[0].ValidLoss
	}
	if v0[1] == v0[2] {
		t.Fatal("seeds 1 and 2 start from the same point")
	}
}

func TestDivergenceIsAnOutcome(t *testing.T) {
	r := mustRun(t, smallConfig())
	s := r.Summary()
	var sgd10 *GridPoint
	for i := range s.Grid {
		if s.Grid[i].Setting == "sgd" && s.Grid[i].LR == 10 {
			sgd10 = &s.Grid[i]
		}
	}
	if sgd10 == nil || sgd10.Diverged != 2 || sgd10.FirstDiverged < 1 {
		t.Fatalf("sgd at lr 10: %+v, want 2 divergences", sgd10)
	}
	for _, row := range s.Rows {
		if row.LR == 10 || row.Runs != row.OK {
			t.Errorf("%s tuned to lr %v with %d/%d runs OK", row.Setting, row.LR, row.OK, row.Runs)
		}
	}
	var tab strings.Builder
	if err := s.WriteTable(&tab); err != nil {
		t.Fatal(err)
	}
	if s.Rows[0].GridDiverged != 2 || !strings.Contains(tab.String(), "2/6") {
		t.Errorf("table does not count sgd's 2 divergences over 6 runs:\n%s", tab.String())
	}
	// A setting whose only rate diverges shows as such.
	c := smallConfig()
	c.LRGrid = nil
	c.Settings = []Setting{{Optimizer: "sgd", Config: optim.Config{LR: 10}}, {Optimizer: "adam"}}
	s = mustRun(t, c).Summary()
	tab.Reset()
	if err := s.WriteTable(&tab); err != nil {
		t.Fatal(err)
	}
	if got := s.Rows[0].status(); !strings.HasPrefix(got, "diverged at step ") || !strings.Contains(tab.String(), got) {
		t.Errorf("sgd at lr 10: status %q, table:\n%s", got, tab.String())
	}
	if s.Rows[1].OK != 2 {
		t.Errorf("adam: %d/2 runs OK", s.Rows[1].OK)
	}
}

func TestTuningRule(t *testing.T) {
	ok := func(lr, v float64) *Outcome {
		return &Outcome{RunSpec: RunSpec{Setting: "x", LR: lr}, ValidLoss: v, TestLoss: v + 1, Curve: []Point{{ValidLoss: v}}}
	}
	div := &Outcome{RunSpec: RunSpec{Setting: "x", LR: 3}, Status: Diverged, DivergedStep: 4, Curve: []Point{{}}}
	r := &Results{Config: Config{Settings: []Setting{{Name: "x"}}}, Runs: []*Outcome{
		ok(1, 0.5), ok(1, 0.7), // mean 0.6
		ok(2, 0.4), ok(2, 0.6), // mean 0.5: the best
		ok(3, 0.1), div, // lowest OK loss, but a seed diverged
	}}
	row := r.Summary().Rows[0]
	if row.LR != 2 || row.ValidMean != 0.5 || row.TestMean != 1.5 || row.GridDiverged != 1 || row.Grid != 3 {
		t.Fatalf("tuned row %+v, want lr 2, valid 0.5, test 1.5, 1 divergence over 3 grid points", row)
	}
	if want := math.Sqrt(0.02); math.Abs(row.ValidSD-want) > 1e-12 {
		t.Errorf("valid sd %v, want %v", row.ValidSD, want)
	}
}

func TestStepBudget(t *testing.T) {
	c := smallConfig()
	c.Settings, c.LRGrid, c.EvalEvery = []Setting{{Optimizer: "adam"}}, nil, 0
	c.Budget = Budget{Steps: 7} // 5 steps per epoch: stops in epoch 2
	o := mustRun(t, c).Runs[0]
	last := o.Curve[len(o.Curve)-1]
	if o.Status != OK || o.Steps != 7 || last.Step != 7 || last.Epoch != 1.4 || len(o.Curve) != 3 {
		t.Fatalf("outcome %+v, want OK after 7 steps with points at epochs 0, 1, 1.4", o)
	}
	if o.ValidLoss > last.ValidLoss || o.ValidLoss > o.Curve[1].ValidLoss {
		t.Errorf("kept validation loss %v is not the best of %v", o.ValidLoss, o.Curve)
	}
}

func TestResumeAndShards(t *testing.T) {
	want := fingerprint(mustRun(t, smallConfig()))
	var calls atomic.Int64
	counted := func(seed uint64) (optim.Problem, error) { calls.Add(1); return newLinReg(seed) }
	dir := t.TempDir()
	c := smallConfig()
	c.Problem, c.Dir = counted, dir
	mustRun(t, c)
	// Interrupted: one run file lost. Only it runs again (plus the
	// preflight's problem).
	if err := os.Remove(filepath.Join(dir, "runs", "adam_lr0.1_seed2.json")); err != nil {
		t.Fatal(err)
	}
	calls.Store(0)
	if got := fingerprint(mustRun(t, c)); got != want {
		t.Fatalf("resumed run differs:\n%s\nvs\n%s", got, want)
	}
	if n := calls.Load(); n != 2 {
		t.Errorf("resume built %d problems, want 2 (preflight + the lost run)", n)
	}
	var dirs []string
	for i := 1; i <= 3; i++ {
		c := smallConfig()
		c.Dir, c.Shard = filepath.Join(t.TempDir(), "s"), Shard{Index: i, Count: 3}
		if r := mustRun(t, c); len(r.Runs) == 0 || len(r.Runs) == len(r.Plan) {
			t.Fatalf("shard %d/3 ran %d of %d runs", i, len(r.Runs), len(r.Plan))
		}
		dirs = append(dirs, c.Dir)
	}
	if _, err := Merge(dirs[:2]...); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Errorf("merging 2 of 3 shards: error %v, want runs missing", err)
	}
	m, err := Merge(dirs...)
	if err != nil {
		t.Fatal(err)
	}
	if got := fingerprint(m); got != want {
		t.Fatalf("merged shards differ:\n%s\nvs\n%s", got, want)
	}
	c = smallConfig()
	c.Seeds, c.Dir = []uint64{5}, dirs[0]
	if _, err := Run(c); err == nil || !strings.Contains(err.Error(), "another comparison") {
		t.Errorf("a different comparison in a used directory: error %v", err)
	}
}

func TestWriteFiles(t *testing.T) {
	dir := t.TempDir()
	s := mustRun(t, smallConfig()).Summary()
	if err := s.WriteFiles(dir); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "runs.csv"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if lines[0] != "setting,optimizer,lr,seed,status,diverged_step,epoch,step,train_loss,valid_loss,seconds" {
		t.Errorf("runs.csv header %q", lines[0])
	}
	points := 0
	for _, o := range s.Runs {
		points += len(o.Curve)
	}
	if len(lines) != points+1 {
		t.Errorf("runs.csv has %d rows, want %d curve points", len(lines)-1, points)
	}
	j, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(j), `"status": "diverged"`) || strings.Contains(string(j), "NaN") {
		t.Errorf("summary.json lacks a diverged run or holds NaN:\n%.400s", j)
	}
}

func TestConfigErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*Config)
		want string
	}{
		{"unknown optimizer", func(c *Config) { c.Settings[0].Optimizer = "lbfgs" }, "known: adagrad, adam"},
		{"no budget", func(c *Config) { c.Budget = Budget{} }, "Budget is empty"},
		{"bad rate", func(c *Config) { c.LRGrid = []float64{0.1, -1} }, "LRGrid"},
		{"duplicate name", func(c *Config) { c.Settings[1].Name = "sgd" }, "duplicate"},
		{"bad schedule", func(c *Config) { c.Settings[0].Schedule = "cosine" }, "setting sgd"},
		{"riemann without metric", func(c *Config) { c.Settings[0].Optimizer = Riemann }, "setting riemann"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := smallConfig()
			tc.edit(&c)
			if _, err := Run(c); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func TestParseShard(t *testing.T) {
	if s, err := ParseShard("2/3"); err != nil || s != (Shard{2, 3}) || s.String() != "2/3" {
		t.Errorf("ParseShard(2/3) = %v, %v", s, err)
	}
	for _, bad := range []string{"", "3", "0/3", "4/3", "1/0", "a/b", "1/3x"} {
		if _, err := ParseShard(bad); err == nil {
			t.Errorf("ParseShard(%q) accepted", bad)
		}
	}
}

// sameTest is linReg whose test set is its validation set.
type sameTest struct{ *linReg }

func (s sameTest) TestLoss() (float64, error) { return s.ValidationLoss() }

// TestAveragerEvaluatedAtAverage stops schedule-free runs mid-epoch and
// at epoch ends: the validation loss they report must be that of the
// parameters they leave (the average x, or the best parameters), which
// the test loss measures on the same data.
func TestAveragerEvaluatedAtAverage(t *testing.T) {
	for _, steps := range []int{7, 10} { // 5 steps per epoch: mid-epoch, then an epoch end
		c := Config{
			Problem: func(seed uint64) (optim.Problem, error) {
				p, err := newLinReg(seed)
				return sameTest{p.(*linReg)}, err
			},
			Settings:  []Setting{{Optimizer: "schedulefree"}},
			Seeds:     []uint64{1},
			LRGrid:    []float64{0.1},
			Budget:    Budget{Steps: steps},
			BatchSize: 5,
			EvalEvery: 1,
		}
		o := mustRun(t, c).Runs[0]
		if o.Status != OK || o.ValidLoss != o.TestLoss {
			t.Errorf("%d steps: %v, validation loss %v but the parameters left score %v", steps, o.Status, o.ValidLoss, o.TestLoss)
		}
	}
}
