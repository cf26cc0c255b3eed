package runs

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"

	"github.com/rtnlab/rtn/optim/compare"
)

// The protocols of CompareSpec.Protocol.
const (
	// ProtocolDeepOBS tunes the rate on the grid with the tuning seeds
	// (default 1), by compare.Results.Summary's criterion (the lowest
	// mean best validation loss among the points with the fewest
	// divergences), then reruns each setting's tuned rate with Rerun
	// seeds (default 10) and reports their mean, sd and range (Schneider
	// et al., 2019).
	ProtocolDeepOBS = "deepobs"
	// ProtocolAlgoPerf scores each setting by the steps and seconds its
	// fastest grid point took to reach a per-problem target (median over
	// the seeds), the target being the best validation loss of a
	// reference run (Adam tuned on the grid, first seed, same budget)
	// unless Target is given; over a suite, the settings are compared by
	// a performance profile (Dahl et al., 2023).
	ProtocolAlgoPerf = "algoperf"
)

// FullBatch is CompareSpec.Batch for full-batch steps. It is Off, far
// from any size, so that a negative batch given by mistake is refused
// rather than read as the full batch.
const FullBatch = Off

// CompareDefaultOptimizers are the optimizers of a CompareSpec without
// Settings, in ParseCompareOptimizers' syntax.
const CompareDefaultOptimizers = "sgd,momentum,adam,rmsprop,adagrad"

// compareErr is the *FieldError of a CompareSpec field, "Field: message".
func compareErr(field, format string, args ...any) error {
	return fieldCause(field, errors.New(fmt.Sprintf(format, args...)))
}

// WithDefaults returns s with each unset field replaced by its default
// (the field's comment gives it); a suite's problems take theirs from the
// suite.
func (s CompareSpec) WithDefaults() CompareSpec {
	s.comparisonDefaults()
	if s.Suite != "" {
		return s
	}
	s.problemDefaults()
	if s.LRGrid == nil && !s.OwnRates {
		s.LRGrid = CompareGrid(s.Model)
	}
	return s
}

// Validate checks every field of s after WithDefaults, without reading
// files; the error is a *FieldError naming the field.
func (s CompareSpec) Validate() error {
	if err := s.comparisonCheck(); err != nil {
		return err
	}
	if s.Suite != "" {
		return s.suiteCheck()
	}
	return firstErr(s.problemCheck(), s.gridCheck())
}

// comparisonDefaults fills in the fields shared by a problem and a
// suite.
func (s *CompareSpec) comparisonDefaults() {
	if s.Settings == nil {
		s.Settings, _ = ParseCompareOptimizers(CompareDefaultOptimizers) // a constant that parses
	}
	if s.Seeds == nil {
		s.Seeds = []uint64{1, 2, 3}
		if s.Protocol == ProtocolDeepOBS {
			s.Seeds = []uint64{1}
		}
	}
	if s.Rerun == 0 && s.Protocol == ProtocolDeepOBS {
		s.Rerun = 10
	}
	if s.Suite == "" && s.Budget == (compare.Budget{}) {
		s.Budget.Epochs = 3
	}
	if s.Suite == "" && s.Batch == 0 {
		s.Batch = 32
	}
	if s.DivergeFactor == 0 {
		s.DivergeFactor = 10
	}
	if s.Jobs == 0 {
		s.Jobs = runtime.NumCPU()
	}
}

// comparisonCheck checks the fields shared by a problem and a suite.
func (s *CompareSpec) comparisonCheck() error {
	if len(s.Settings) == 0 {
		return compareErr("Settings", "is empty")
	}
	for _, st := range s.Settings {
		if !slices.Contains(compare.Names(), st.Optimizer) {
			return compareErr("Settings", "names an unknown optimizer %q (known: %s)", st.Optimizer, knownOptimizers())
		}
		if st.Optimizer == compare.Riemann && s.Suite == "" && !strings.HasPrefix(s.Model, "pcnn") {
			return compareErr("Settings", "riemann needs a model with a metric (pcnn, pcnn-rnn, pcnn-cnn), not %s", s.Model)
		}
	}
	switch s.Protocol {
	case "", ProtocolDeepOBS, ProtocolAlgoPerf:
	default:
		return compareErr("Protocol", "must be %s or %s, got %q", ProtocolDeepOBS, ProtocolAlgoPerf, s.Protocol)
	}
	seen := map[uint64]bool{}
	for _, seed := range s.Seeds {
		if seed == 0 || seen[seed] {
			return compareErr("Seeds", "must be distinct seeds >= 1, got %v", s.Seeds)
		}
		seen[seed] = true
	}
	b := s.Budget
	switch {
	case len(s.Seeds) == 0:
		return compareErr("Seeds", "is empty")
	case b.Epochs < 0:
		return compareErr("Budget.Epochs", "must be >= 0, got %d", b.Epochs)
	case b.Steps < 0:
		return compareErr("Budget.Steps", "must be >= 0, got %d", b.Steps)
	case !(b.Seconds >= 0) || math.IsInf(b.Seconds, 0):
		return compareErr("Budget.Seconds", "must be a finite number >= 0, got %g", b.Seconds)
	case b.Seconds > 0 && (b.Epochs > 0 || b.Steps > 0):
		return fieldErr("Budget.Seconds", b.Seconds, "alone, without {Budget.Epochs} or {Budget.Steps} (which bound stops a run would depend on the machine's speed)")
	case s.Batch != FullBatch && (s.Batch < 0 || (s.Batch == 0 && s.Suite == "")):
		return fieldErr("Batch", s.Batch, ">= 1, or FullBatch (full batch)")
	case s.EvalEvery < 0:
		return compareErr("EvalEvery", "must be >= 0, got %d", s.EvalEvery)
	case !(s.Target >= 0) || math.IsInf(s.Target, 0):
		return compareErr("Target", "must be a finite number >= 0, got %g", s.Target)
	case math.IsNaN(s.DivergeFactor) || math.IsInf(s.DivergeFactor, 0):
		return compareErr("DivergeFactor", "must be a finite number, got %g", s.DivergeFactor)
	case s.ExtendGrid < 0:
		return compareErr("ExtendGrid", "must be >= 0, got %d", s.ExtendGrid)
	case s.Rerun < 0:
		return compareErr("Rerun", "must be >= 0, got %d", s.Rerun)
	case s.Jobs < 1 || s.Jobs > MaxJobs:
		return compareErr("Jobs", "must be in [1, %d], got %d", MaxJobs, s.Jobs)
	case s.Shard.Count < 0 || (s.Shard.Count > 0 && (s.Shard.Index < 1 || s.Shard.Index > s.Shard.Count)):
		return compareErr("Shard", "must be i/n with 1 <= i <= n, got %s", s.Shard)
	case s.Shard.Count > 0 && s.Out == "":
		return fieldErr("Out", nil, "a directory with {Shard} (the shards are joined from their directories)")
	}
	return nil
}

// gridCheck checks the grid against OwnRates and ExtendGrid.
func (s *CompareSpec) gridCheck() error {
	switch {
	case s.OwnRates && len(s.LRGrid) > 0:
		return compareErr("LRGrid", "is set while each optimizer runs at its own rate (OwnRates)")
	case s.ExtendGrid > 0 && len(s.LRGrid) < 2:
		return compareErr("ExtendGrid", "needs a grid of at least 2 rates, got %d", len(s.LRGrid))
	}
	for _, lr := range s.LRGrid {
		if !(lr > 0) || math.IsInf(lr, 0) {
			return compareErr("LRGrid", "holds %v: rates must be positive and finite", lr)
		}
	}
	return nil
}

// suiteCheck refuses the problem's fields with a suite, and an unknown
// suite.
func (s *CompareSpec) suiteCheck() error {
	if _, ok := compareSuites[s.Suite]; !ok {
		return compareErr("Suite", "%q is unknown (known: %s)", s.Suite, strings.Join(CompareSuites(), ", "))
	}
	for _, f := range []struct {
		name string
		set  bool
	}{{"Model", s.Model != ""}, {"Task", s.Task != ""}, {"DataFile", s.DataFile != ""}, {"Hidden", s.Hidden != 0}, {"Size", s.Size != 0},
		{"Noise", s.Noise != 0}, {"Rank", s.Rank != 0}, {"Order", s.Order != 0}, {"Lags", s.Lags != 0}, {"Activation", s.Activation != ""},
		{"Layers", s.Layers != 0}, {"Dropout", s.Dropout != 0}, {"Embed", s.Embed != 0}, {"DType", s.DType != ""}, {"Chunk", s.Chunk != 0},
		{"Target", s.Target != 0}, {"OwnRates", s.OwnRates}, {"DataSeed", s.DataSeed != 0}} {
		if f.set {
			return compareErr(f.name, "cannot be set with a suite: its problems set their own")
		}
	}
	if s.Shard.Count > 0 {
		return compareErr("Shard", "cannot be used with a suite yet: shard each problem's comparison (-model ...) instead")
	}
	return nil
}

// compareConfig is the comparison of the problem s (with its defaults,
// after CompareProblem) on factory f.
func (s CompareSpec) compareConfig(f compare.Factory) compare.Config {
	batch := s.Batch
	if batch == FullBatch {
		batch = 0
	}
	diverge := s.DivergeFactor
	if diverge < 0 {
		diverge = -1 // compare.Config's "NaN/Inf only", one value in plan.json
	}
	return compare.Config{Problem: f, Settings: s.Settings, Seeds: s.Seeds, LRGrid: s.LRGrid, Budget: s.Budget, BatchSize: batch,
		EvalEvery: s.EvalEvery, DivergeFactor: diverge, References: s.References, Target: s.Target, ExtendGrid: s.ExtendGrid,
		Rerun: s.Rerun, Meta: s, Executor: s.Executor, Jobs: s.Jobs, Shard: s.Shard, Dir: s.Out, Log: s.Progress}
}

// EstimateMemory counts the memory of a cell model as TrainSpec does
// (its parameters eight times over and a batch's states), before any data
// are read; the other models and suites count nothing here.
func (s CompareSpec) EstimateMemory() (MemoryEstimate, error) {
	if s.Suite != "" || !CompareCell(s.Model) {
		return MemoryEstimate{}, nil
	}
	ts := TrainSpec{Model: s.Model, Hidden: s.Hidden, Layers: max(s.Layers, 1), Batch: max(s.Batch, 1), Embed: s.Embed, Rank: s.Rank,
		Order: s.Order, Lags: s.Lags, Activation: s.Activation}
	return ts.EstimateMemory()
}
