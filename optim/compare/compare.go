package compare

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/pkg/errors"

	"github.com/rtnlab/rtn/optim"
)

// Factory builds the problem of one seed. Two calls with the same seed
// must return problems with the same data and the same initial
// parameters: that is what makes the runs of different optimizers
// comparable. Each call must return a new problem (runs train in
// parallel, each on its own). If the problem implements optim.Validator
// the curves carry a validation loss and the tuning uses it; if it
// implements Tester the test loss is reported.
type Factory func(seed uint64) (optim.Problem, error)

// Tester is implemented by problems with a test set.
type Tester interface {
	TestLoss() (float64, error)
}

// Riemann is the Optimizer name of optim.Riemann, the metric optimizer
// that steps the parameter groups of an optim.RiemannProblem under its own
// accept/reject rate control. It is not in optim's registry because it
// takes a RiemannConfig.
const Riemann = "riemann"

// Names lists the optimizer names a Setting accepts: optim.Names() and
// Riemann, sorted.
func Names() []string {
	n := append(optim.Names(), Riemann)
	slices.Sort(n)
	return n
}

// Setting is one optimizer of a comparison.
type Setting struct {
	// Name labels the setting in tables, files and plots; it must be
	// unique and made of letters, digits and "-_.+". If Name is empty, it
	// will be defaulted to Optimizer (with "+ar" when AcceptReject is set).
	Name string `json:"name"`
	// Optimizer is a registered optimizer name (optim.Names) or Riemann.
	Optimizer string `json:"optimizer"`
	// Config holds the hyperparameters; Config.LR is replaced by each
	// point of the learning-rate grid (without a grid, 0 stands for the
	// optimizer's default rate). For Riemann, Config.LR is the starting
	// rate (0: the problem's RiemannRate) and the other fields are
	// ignored.
	Config optim.Config `json:"config"`
	// Schedule is a learning-rate schedule in optim.ParseSchedule's
	// syntax ("step:10:0.5", "exp:0.95", ...). If Schedule is empty, the
	// rate is constant.
	Schedule string `json:"schedule,omitempty"`
	// AcceptReject wraps the optimizer in optim.AcceptReject (a step that
	// raises the batch loss is undone and the rate halved).
	AcceptReject bool `json:"accept_reject,omitempty"`
}

// SelfTuned reports whether the setting controls its own step size
// (Riemann, or AcceptReject): such settings take part as they are, at
// Config.LR, and the learning-rate grid does not apply to them.
func (s Setting) SelfTuned() bool { return s.Optimizer == Riemann || s.AcceptReject }

// newOptimizer builds the optimizer of s at learning rate lr (0: the
// optimizer's default).
func (s Setting) newOptimizer(lr float64) (optim.Optimizer, error) {
	c := s.Config
	c.LR = lr
	if s.Optimizer == Riemann {
		return optim.NewRiemann(optim.RiemannConfig{LR: lr})
	}
	opt, err := optim.New(s.Optimizer, c)
	if err != nil || !s.AcceptReject {
		return opt, err
	}
	return optim.NewAcceptReject(opt, optim.AcceptRejectConfig{})
}

// Budget bounds each run; training stops at the first bound reached. At
// least one must be set. A Seconds bound makes results depend on the
// machine's speed: use Epochs or Steps for reproducible comparisons.
type Budget struct {
	// Epochs is the number of passes over the training examples.
	Epochs int `json:"epochs,omitempty"`
	// Steps is the number of optimizer steps.
	Steps int `json:"steps,omitempty"`
	// Seconds is the training wall time.
	Seconds float64 `json:"seconds,omitempty"`
}

// Shard selects a deterministic slice of a comparison's runs: run k of
// Plan (counted from 0) belongs to shard k mod Count + 1. The zero value
// selects every run.
type Shard struct {
	// Index is the shard, from 1 to Count.
	Index int
	// Count is the number of shards.
	Count int
}

// String is "i/n", or "all" for the zero value.
func (s Shard) String() string {
	if s.Count == 0 {
		return "all"
	}
	return fmt.Sprintf("%d/%d", s.Index, s.Count)
}

// ParseShard reads "i/n" with 1 <= i <= n.
func ParseShard(s string) (Shard, error) {
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 1 || i > n {
		return Shard{}, errors.Errorf("compare: shard %q must be i/n with 1 <= i <= n", s)
	}
	return Shard{Index: i, Count: n}, nil
}

func (s Shard) has(k int) bool { return s.Count == 0 || k%s.Count == s.Index-1 }

// Config describes a comparison. Problem, Settings and a Budget are
// required; every other field works at its zero value, with the default
// given in its comment.
type Config struct {
	// Problem builds the problem of a seed.
	Problem Factory `json:"-"`
	// Settings are the optimizers compared.
	Settings []Setting `json:"settings"`
	// Seeds are passed to Problem and seed the batch order. If Seeds is
	// empty, it will be defaulted to {1}.
	Seeds []uint64 `json:"seeds"`
	// LRGrid is the learning-rate grid; each setting that is not
	// SelfTuned runs at every point. If LRGrid is empty, each setting
	// runs at its Config.LR (0: the optimizer's default).
	LRGrid []float64 `json:"lr_grid,omitempty"`
	// Budget bounds each run.
	Budget Budget `json:"budget"`
	// BatchSize is the minibatch size (optim.TrainConfig.BatchSize; 0:
	// full batch).
	BatchSize int `json:"batch_size,omitempty"`
	// EvalEvery adds a curve point (mean training loss since the last
	// point, validation loss) every EvalEvery optimizer steps, besides
	// the point at the end of each epoch. If EvalEvery is 0, points are
	// recorded per epoch only.
	EvalEvery int `json:"eval_every,omitempty"`
	// DivergeFactor declares a run diverged at the first step whose
	// training loss is NaN, infinite or above DivergeFactor times the
	// reference loss R, the largest of: the start's validation loss, the
	// largest batch loss of the first epoch up to that step (the first
	// batch's is measured at the start too; the largest, not the first,
	// because batches may differ in kind: the 2-RNN regression batches one
	// sequence length at a time) and the trivial loss of References, when
	// known. A start near the optimum (a spectral estimate to fine-tune)
	// has a loss near zero; the trivial loss keeps its first steps, which
	// may raise a tiny loss many times over while staying far below
	// anything a model learns by chance, from counting as divergence. The
	// Trainer's NaN/Inf checks of gradients, parameters and validation
	// losses count as divergence too. If DivergeFactor is 0, it will be
	// defaulted to 10; a negative value keeps only the NaN/Inf tests.
	DivergeFactor float64 `json:"diverge_factor"`
	// References are losses the problem knows (its optimum, a trivial
	// predictor's), drawn as lines in the plots and reported in the
	// summary; the trivial loss also bounds the divergence rule's
	// reference from below.
	References []Reference `json:"references,omitempty"`
	// Target is a validation loss; the summary reports the steps and
	// seconds each run took to reach it. If Target is 0, there is none.
	Target float64 `json:"target,omitempty"`
	// ExtendGrid widens the learning-rate grid of a setting whose tuned
	// rate is the lowest or highest it tried: a rate one grid step beyond
	// that edge is run (for every seed), and so on until the tuned rate is
	// interior or the setting has ExtendGrid rates beyond LRGrid. The grid
	// step is the ratio of the two outermost rates on that side of
	// LRGrid, which must hold at least 2 rates. If ExtendGrid is 0, the
	// grid is as given.
	ExtendGrid int `json:"extend_grid,omitempty"`
	// Rerun runs each setting's tuned rate again with more seeds, after
	// the tuning (DeepOBS reruns the best setting with 10 seeds): Seeds
	// then the next integers after the largest of them, Rerun seeds in
	// all. The tuning uses Seeds only; the summary's row of a setting
	// reports every seed of its tuned rate. If Rerun is 0 (or not above
	// len(Seeds)), nothing is run again.
	Rerun int `json:"rerun,omitempty"`
	// Meta describes the problem (model, task, sizes) in the comparison's
	// identity: a directory holding runs of a different Meta is refused,
	// and Merge refuses to join such directories. It must be encodable
	// by encoding/json.
	Meta any `json:"meta,omitempty"`
	// Executor describes what runs the problem's steps, as the caller
	// reports it (runs.CompareProblem sets it for every model); it is in
	// the comparison's identity and in the summary. If Executor is zero,
	// the summary names none.
	Executor Executor `json:"executor,omitzero"`

	// Jobs is the number of runs trained at once. If Jobs is 0, it will
	// be defaulted to 1. Results do not depend on it.
	Jobs int `json:"-"`
	// Shard selects the runs this call trains (zero: all).
	Shard Shard `json:"-"`
	// Dir holds one file per finished run (Dir/runs/) and the plan
	// (Dir/plan.json); runs already there are loaded, not trained again.
	// If Dir is empty, nothing is written.
	Dir string `json:"-"`
	// Log receives one line per finished run. If Log is nil, nothing is
	// logged.
	Log io.Writer `json:"-"`
}

// Reference is a loss the problem knows, for the plots and the summary.
type Reference struct {
	// Kind is Optimum (the best achievable loss, e.g. the true model's)
	// or Trivial (a predictor that learns nothing: uniform over the
	// symbols, zero output).
	Kind string `json:"kind"`
	// Label names the line in plots ("true automaton", "uniform").
	Label string `json:"label"`
	// Loss is in the unit of the validation loss.
	Loss float64 `json:"loss"`
}

// The kinds of Reference.
const (
	Optimum = "optimum"
	Trivial = "trivial"
)

// trivial is the trivial loss of References (0 if unknown).
func (c Config) trivial() float64 {
	for _, r := range c.References {
		if r.Kind == Trivial {
			return r.Loss
		}
	}
	return 0
}

// Executor describes what runs a problem's steps: a kind such as "fused"
// (hand-written kernels), "tape" or "graph" (gorgonia's compiled graphs),
// the float type, and why, when the steps run on the graphs. It mirrors
// layers.ExecutorInfo, which converts to it, without compare knowing
// layers.
type Executor struct {
	Kind   string `json:"kind"`
	DType  string `json:"dtype,omitempty"`
	Reason string `json:"reason,omitempty"`
}

// String is "kind/dtype" ("kind" without a dtype, "" for the zero value).
func (e Executor) String() string {
	if e.DType == "" {
		return e.Kind
	}
	return e.Kind + "/" + e.DType
}

// RunSpec identifies one run of a comparison.
type RunSpec struct {
	// Setting is the setting's Name.
	Setting string `json:"setting"`
	// LR is the learning rate (0: the optimizer's default).
	LR float64 `json:"lr"`
	// Seed is the problem's seed.
	Seed uint64 `json:"seed"`

	setting int // index in Config.Settings
}

// Key is a file-name-safe identity of the run, such as
// "adam_lr0.001_seed2".
func (r RunSpec) Key() string {
	return fmt.Sprintf("%s_lr%s_seed%d", r.Setting, fmtLR(r.LR), r.Seed)
}

func fmtLR(lr float64) string {
	if lr == 0 {
		return "default"
	}
	return fmt.Sprintf("%g", lr)
}

// withDefaults validates c and fills in its defaults; errors name the
// field.
func (c Config) withDefaults() (Config, error) {
	if c.Problem == nil {
		return c, errors.New("compare: Config.Problem is nil")
	}
	if len(c.Settings) == 0 {
		return c, errors.New("compare: Config.Settings is empty")
	}
	var err error
	if c.Settings, err = checkSettings(c.Settings); err != nil {
		return c, err
	}
	if len(c.Seeds) == 0 {
		c.Seeds = []uint64{1}
	}
	if len(c.Seeds) != len(dedup(c.Seeds)) {
		return c, errors.Errorf("compare: Config.Seeds has duplicates: %v", c.Seeds)
	}
	for _, lr := range c.LRGrid {
		if !(lr > 0) || math.IsInf(lr, 0) {
			return c, errors.Errorf("compare: Config.LRGrid holds %v: learning rates must be positive and finite", lr)
		}
	}
	if len(c.LRGrid) != len(dedup(c.LRGrid)) {
		return c, errors.Errorf("compare: Config.LRGrid has duplicates: %v", c.LRGrid)
	}
	b := c.Budget
	if b.Epochs < 0 || b.Steps < 0 || !(b.Seconds >= 0) || math.IsInf(b.Seconds, 0) {
		return c, errors.Errorf("compare: Config.Budget must not be negative, got %+v", b)
	}
	if b.Epochs == 0 && b.Steps == 0 && b.Seconds == 0 {
		return c, errors.New("compare: Config.Budget is empty: set Epochs, Steps or Seconds")
	}
	switch {
	case c.BatchSize < 0:
		return c, errors.Errorf("compare: Config.BatchSize must be >= 0, got %d", c.BatchSize)
	case c.EvalEvery < 0:
		return c, errors.Errorf("compare: Config.EvalEvery must be >= 0, got %d", c.EvalEvery)
	case c.Jobs < 0:
		return c, errors.Errorf("compare: Config.Jobs must be >= 0, got %d", c.Jobs)
	case math.IsNaN(c.DivergeFactor) || math.IsInf(c.DivergeFactor, 0):
		return c, errors.Errorf("compare: Config.DivergeFactor must be finite, got %v", c.DivergeFactor)
	case !(c.Target >= 0) || math.IsInf(c.Target, 0):
		return c, errors.Errorf("compare: Config.Target must be >= 0 and finite, got %v", c.Target)
	case c.Shard.Count < 0 || (c.Shard.Count > 0 && (c.Shard.Index < 1 || c.Shard.Index > c.Shard.Count)):
		return c, errors.Errorf("compare: Config.Shard %d/%d must have 1 <= index <= count", c.Shard.Index, c.Shard.Count)
	}
	if c.ExtendGrid < 0 || c.Rerun < 0 {
		return c, errors.Errorf("compare: Config.ExtendGrid and Config.Rerun must be >= 0, got %d and %d", c.ExtendGrid, c.Rerun)
	}
	if c.ExtendGrid > 0 && len(c.LRGrid) < 2 {
		return c, errors.Errorf("compare: Config.ExtendGrid needs an LRGrid of at least 2 rates, got %d", len(c.LRGrid))
	}
	for _, r := range c.References {
		if (r.Kind != Optimum && r.Kind != Trivial) || !finite(r.Loss) {
			return c, errors.Errorf("compare: Config.References holds %+v: want kind %q or %q and a finite loss", r, Optimum, Trivial)
		}
	}
	if c.DivergeFactor == 0 {
		c.DivergeFactor = 10
	}
	if c.Jobs == 0 {
		c.Jobs = 1
	}
	if _, err := json.Marshal(c.Meta); err != nil {
		return c, errors.Errorf("compare: Config.Meta cannot be encoded as JSON: %v", err)
	}
	return c, nil
}

// Validate checks the setting as Run does before any run: a known
// optimizer, a valid name, a schedule that parses and options its
// optimizer accepts (adam's beta1 in [0, 1), ...).
func (s Setting) Validate() error {
	_, err := checkSettings([]Setting{s})
	return err
}

// checkSettings validates settings, names them and makes their default
// learning rates explicit, in a copy.
func checkSettings(in []Setting) ([]Setting, error) {
	out := slices.Clone(in)
	names := map[string]bool{}
	for i := range out {
		s := &out[i]
		if !slices.Contains(Names(), s.Optimizer) {
			return nil, errors.Errorf("compare: unknown optimizer %q (known: %s)", s.Optimizer, strings.Join(Names(), ", "))
		}
		if s.Name == "" {
			s.Name = s.Optimizer
			if s.AcceptReject {
				s.Name += "+ar"
			}
		}
		if !ValidName(s.Name) || names[s.Name] {
			return nil, errors.Errorf("compare: setting name %q is empty, duplicate or not made of letters, digits and -_.+", s.Name)
		}
		names[s.Name] = true
		if s.Schedule != "" {
			if _, err := optim.ParseSchedule(s.Schedule); err != nil {
				return nil, errors.Wrapf(err, "compare: setting %s", s.Name)
			}
		}
		opt, err := s.newOptimizer(s.Config.LR)
		if err != nil {
			return nil, errors.Wrapf(err, "compare: setting %s", s.Name)
		}
		if s.Optimizer != Riemann {
			s.Config.LR = opt.LearningRate() // the default made explicit
		}
	}
	return out, nil
}

// ValidName reports whether s can name a setting: not empty, and made of
// letters, digits and -_.+ (it names files and table rows).
func ValidName(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_.+", r)
		if !ok {
			return false
		}
	}
	return true
}

func dedup[T comparable](v []T) []T {
	seen := map[T]bool{}
	var out []T
	for _, x := range v {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

// Plan lists every run of the comparison in its fixed order: settings in
// order, then learning rates in grid order, then seeds in order. Shards
// and results follow this order.
func (c Config) Plan() ([]RunSpec, error) {
	c, err := c.withDefaults()
	if err != nil {
		return nil, err
	}
	return c.plan(), nil
}

func (c Config) plan() []RunSpec {
	var out []RunSpec
	for i, s := range c.Settings {
		lrs := c.LRGrid
		if len(lrs) == 0 || s.SelfTuned() {
			lrs = []float64{s.Config.LR}
		}
		for _, lr := range lrs {
			for _, seed := range c.Seeds {
				out = append(out, RunSpec{Setting: s.Name, LR: lr, Seed: seed, setting: i})
			}
		}
	}
	return out
}

// identity is the JSON of everything that determines the runs' numbers;
// its hash names the comparison in run files.
func (c Config) identity() ([]byte, string, error) {
	b, err := json.Marshal(c)
	if err != nil {
		return nil, "", errors.Wrap(err, "compare: encoding the configuration")
	}
	h := sha256.Sum256(b)
	return b, hex.EncodeToString(h[:8]), nil
}
