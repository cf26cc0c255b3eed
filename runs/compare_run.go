package runs

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"

	"github.com/pkg/errors"

	"github.com/rtnlab/rtn/internal/report"
	"github.com/rtnlab/rtn/optim/compare"
	"github.com/rtnlab/rtn/params"
)

// CompareReport is what RunCompare or MergeCompare did.
type CompareReport struct {
	// Spec is the comparison with its defaults (and, for one problem,
	// its executor, references and target).
	Spec CompareSpec
	// Results are the runs of one problem (nil for a suite).
	Results *compare.Results
	// Summary is their table (nil for a suite, or for a shard).
	Summary *compare.Summary
	// Suite is the suite's table and profile (nil for one problem).
	Suite *SuiteReport
}

// RunCompare runs the comparison spec describes (one problem, or each
// problem of spec.Suite) and, with spec.Out, writes its outputs there:
// the runs (resumable), table.txt, table.tex, runs.csv, grid.csv,
// summary.json and the figures (ComparePlots); under ProtocolAlgoPerf
// without a Target, the reference run (Out/reference) and target.json
// first. A shard writes its runs only (MergeCompare writes the rest).
func RunCompare(spec CompareSpec) (*CompareReport, error) {
	s := spec.WithDefaults()
	if err := s.Validate(); err != nil {
		return nil, err
	}
	if err := CheckOutDir("{Out}", s.Out); err != nil {
		return nil, err
	}
	if err := checkEstimate(s.EstimateMemory()); err != nil {
		return nil, err
	}
	if s.Suite != "" {
		return runSuite(s)
	}
	f, s, err := CompareProblem(s)
	if err != nil {
		return nil, err
	}
	if s.Protocol == ProtocolAlgoPerf && s.Target == 0 {
		if s.Target, s.TargetFrom, err = algoPerfTarget(s, f); err != nil {
			return nil, err
		}
	}
	res, err := compare.Run(s.compareConfig(f))
	if err != nil {
		return nil, err
	}
	rep := &CompareReport{Spec: s, Results: res}
	if s.Shard.Count > 0 || res.Waiting > 0 {
		return rep, nil
	}
	rep.Summary = res.Summary()
	if s.Out != "" {
		if err := writeCompareOutputs(s.Out, rep.Summary, s); err != nil {
			return nil, err
		}
	}
	return rep, nil
}

// AlgoPerfProgress is the share of the reference run's progress that
// the target of ProtocolAlgoPerf asks for: target = L0 - AlgoPerfProgress
// (L0 - Lref), L0 the reference's start loss and Lref the lowest loss on
// its curve. AlgoPerf sets its targets where tuned baselines arrive well
// within the budget; with budgets of a few dozen steps and 3 seeds, the
// reference's own best is reached by about one seed in two, and 90% of
// its progress leaves the seeds that tolerance.
const AlgoPerfProgress = 0.9

// NoProgressError is the error of an AlgoPerf reference run that did not
// lower the loss below its start: the problem has no target to reach.
type NoProgressError struct {
	Start, Best float64
}

func (e *NoProgressError) Error() string {
	return fmt.Sprintf("the AlgoPerf reference run (adam on the grid) did not lower the loss below its start (%.6g, best %.6g): give a target", e.Start, e.Best)
}

// algoPerfTarget runs the reference of an AlgoPerf comparison, Adam on
// the grid with the comparison's seeds and budget (in Out/reference when
// there is an Out, so that it resumes), and returns the target
// AlgoPerfProgress of the way from the first seed's start validation loss
// (training loss without a validation set) to the lowest on the curves of
// its runs, with its description.
func algoPerfTarget(s CompareSpec, f compare.Factory) (float64, string, error) {
	ref := s
	ref.Settings, ref.Rerun, ref.ExtendGrid, ref.Target = []compare.Setting{{Optimizer: "adam"}}, 0, 0, 0
	ref.Shard, ref.Out = compare.Shard{}, ""
	if len(ref.LRGrid) == 0 {
		ref.LRGrid = CompareGrid(s.Model)
	}
	if s.Out != "" {
		ref.Out = filepath.Join(s.Out, "reference")
	}
	res, err := compare.Run(ref.compareConfig(f))
	if err != nil {
		return 0, "", errors.Wrap(err, "the AlgoPerf reference run")
	}
	start, best, bestLR, bestSeed := math.NaN(), math.Inf(1), math.NaN(), uint64(0)
	for _, o := range res.Runs {
		if o.Status != compare.OK {
			continue
		}
		for k, p := range o.Curve {
			v := p.ValidLoss
			if math.IsNaN(v) {
				v = p.TrainLoss
			}
			if o.Seed == ref.Seeds[0] && (k == 0 || (k == 1 && math.IsNaN(start))) {
				start = v // the first seed's start, the same at every rate
			}
			if v < best {
				best, bestLR, bestSeed = v, o.LR, o.Seed
			}
		}
	}
	if !(best < start) {
		return 0, "", &NoProgressError{Start: start, Best: best}
	}
	target := start - AlgoPerfProgress*(start-best)
	from := fmt.Sprintf("%g%% of the way from %.6g to %.6g, the start of seed %d and the lowest loss of adam on the grid (lr %g, seed %d)",
		100*AlgoPerfProgress, start, best, ref.Seeds[0], bestLR, bestSeed)
	if s.Out != "" {
		tf := struct {
			Target float64 `json:"target"`
			From   string  `json:"from"`
			Dir    string  `json:"reference_dir"`
		}{target, from, "reference"}
		if err := report.WriteJSON(filepath.Join(s.Out, "target.json"), tf); err != nil {
			return 0, "", err
		}
	}
	return target, from, nil
}

// MergeCompare joins the directories of a sharded comparison
// (compare.Merge) and writes its outputs into out (if empty, the first
// directory; the report's Spec.Out). It refuses a directory without
// plan.json before any work, and locks out and the shards: a shard still
// running is refused, not merged half done.
func MergeCompare(out string, dirs ...string) (*CompareReport, error) {
	if len(dirs) == 0 {
		return nil, errors.New("runs: MergeCompare needs the shard directories")
	}
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "plan.json")); err != nil {
			return nil, errors.Errorf("%s holds no plan.json (not an rtn compare -out directory)", d)
		}
	}
	if out == "" {
		out = dirs[0]
	}
	lock, err := LockOutputs(append([]string{out}, dirs...), nil)
	if err != nil {
		return nil, err
	}
	defer lock.Release()
	res, err := compare.Merge(dirs...)
	if err != nil {
		return nil, err
	}
	s, err := CompareMeta(res.Config)
	if err != nil {
		return nil, err
	}
	s.Out = out
	rep := &CompareReport{Spec: s, Results: res, Summary: res.Summary()}
	return rep, writeCompareOutputs(out, rep.Summary, s)
}

// CompareMeta reads back the problem of a comparison from its Meta (after
// compare.Merge, Meta is the JSON's generic form).
func CompareMeta(c compare.Config) (CompareSpec, error) {
	var s CompareSpec
	b, err := json.Marshal(c.Meta)
	if err != nil {
		return s, err
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return s, errors.Wrap(err, "the comparison's problem")
	}
	return s, nil
}

// title names a comparison's task and model in figures.
func (s CompareSpec) title() string {
	if s.Model == "" {
		return ""
	}
	task := s.Task
	if s.DataFile != "" {
		task = filepath.Base(s.DataFile)
	}
	return fmt.Sprintf("%s on %s", s.Model, task)
}

// writeCompareOutputs writes a comparison's table (table.txt), LaTeX
// table (table.tex), CSV, JSON and figures into dir.
func writeCompareOutputs(dir string, sum *compare.Summary, s CompareSpec) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := sum.WriteFiles(dir); err != nil {
		return err
	}
	if err := ComparePlots(dir, sum, s.title()); err != nil {
		return err
	}
	err := params.WriteFileAtomic(filepath.Join(dir, "table.txt"), func(w io.Writer) error { return sum.WriteTable(w) })
	if err != nil {
		return err
	}
	return params.WriteFileAtomic(filepath.Join(dir, "table.tex"), func(w io.Writer) error { return sum.WriteLaTeX(w) })
}
