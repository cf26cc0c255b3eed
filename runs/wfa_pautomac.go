package runs

import (
	"math"
	"path/filepath"
	"runtime"
	"strconv"
	"time"

	"github.com/pkg/errors"

	"github.com/rtnlab/rtn/datasets"
	"github.com/rtnlab/rtn/losses"
	"github.com/rtnlab/rtn/wfa"
)

// WFAPAutomaCResult is the outcome of RunWFAPAutomaC.
type WFAPAutomaCResult struct {
	Problem int
	// Optimum is the score of the true probabilities.
	Optimum float64
	// Learn and Finetune are the test scores of wfa.Fit with default
	// settings and of wfa.Finetune from it with default settings.
	Learn, Finetune float64
	// Chosen is the selected configuration (the first component's when
	// the model is a mixture); Components the mixture's components (nil
	// for a single automaton).
	Chosen     wfa.Spec
	Components []wfa.Component
	// SelectSeconds is the selection's wall time; FitSeconds and FitCPU
	// the wall and CPU time of the final fit at the chosen configuration
	// (at every component's for a mixture, whose weights come from the
	// selection, through wfa.FitSpecs as wfa.Fit does) on all training
	// strings, run alone on one thread (GOMAXPROCS 1);
	// FinetuneSeconds the wall time of the fine-tuning.
	SelectSeconds, FitSeconds, FitCPU, FinetuneSeconds float64
	// Radius is the spectral radius of the learned automaton's transition
	// sum; FinetuneEpochs the epochs run.
	Radius         float64
	FinetuneEpochs int
	// FinetuneError is why fine-tuning failed ("" when it ran).
	FinetuneError string
	// FinetuneDiverged reports that fine-tuning diverged before any epoch
	// improved on the start (wfa.DivergedError): Finetune scores the
	// start.
	FinetuneDiverged bool
}

// WFAPAutomaCSpec is one PAutomaC problem learned with wfa.Fit's and
// wfa.Finetune's defaults (rtn reproduce's wfa section).
type WFAPAutomaCSpec struct {
	// Dir holds the problem's files: P.pautomac.train, P.pautomac.test
	// and P.pautomac_solution.txt (datasets.PAutomaCDir).
	Dir string
	// Problem is the problem's number, in [1, 48].
	Problem int
	// Seed seeds the fit and the fine-tuning. If 0, it will be defaulted
	// to 1.
	Seed uint64
}

// WithDefaults returns the spec with its unset fields at their defaults.
func (s WFAPAutomaCSpec) WithDefaults() WFAPAutomaCSpec {
	if s.Seed == 0 {
		s.Seed = 1
	}
	return s
}

// Validate checks the spec's values (a *FieldError); it reads no file.
func (s WFAPAutomaCSpec) Validate() error {
	return firstErr(checkRequired("Dir", s.Dir, "the PAutomaC data directory"), checkRange("Problem", s.Problem, 1, 48), checkSeed("Seed", s.Seed))
}

// RunWFAPAutomaC learns the spec's problem with wfa.Fit's and
// wfa.Finetune's defaults (the seed seeds both), times the final fit
// alone on one thread, and scores both automata on the test set.
func RunWFAPAutomaC(spec WFAPAutomaCSpec) (*WFAPAutomaCResult, error) {
	spec = spec.WithDefaults()
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	dir, p, seed := spec.Dir, spec.Problem, spec.Seed
	base := filepath.Join(dir, strconv.Itoa(p)+".pautomac")
	train, err := datasets.ReadStringsFile(base+".train", datasets.PAutomaC, nil)
	if err != nil {
		return nil, err
	}
	test, err := datasets.ReadStringsFile(base+".test", datasets.PAutomaC, nil)
	if err != nil {
		return nil, err
	}
	sol, err := datasets.ReadSolutionFile(filepath.Join(dir, strconv.Itoa(p)+".pautomac_solution.txt"))
	if err != nil {
		return nil, err
	}
	res := &WFAPAutomaCResult{Problem: p}
	if res.Optimum, err = losses.PAutomaCPerplexity(sol, sol); err != nil {
		return nil, err
	}
	m, rep, err := wfa.Fit(train, wfa.Config{Seed: seed})
	if err != nil {
		return nil, err
	}
	res.Chosen, res.Components, res.SelectSeconds = rep.Chosen, rep.Components, rep.SelectSeconds
	res.Radius, _ = m.WFA.SpectralRadius()
	if res.Learn, err = wfa.Score(m, test.Seqs, sol); err != nil {
		return nil, err
	}
	procs := runtime.GOMAXPROCS(1)
	runtime.GC()
	specs := []wfa.Spec{rep.Chosen}
	if len(rep.Components) > 0 {
		specs = specs[:0]
		for _, c := range rep.Components {
			specs = append(specs, c.Spec)
		}
	}
	cpu0, t0 := cpuSeconds(), time.Now()
	_, err = wfa.FitSpecs(train.Seqs, len(train.Alphabet), specs, seed)
	res.FitSeconds, res.FitCPU = time.Since(t0).Seconds(), cpuSeconds()-cpu0
	runtime.GOMAXPROCS(procs)
	if err != nil {
		return nil, err
	}
	t0 = time.Now()
	ft, frep, err := wfa.Finetune(m, train, wfa.FinetuneConfig{Seed: seed})
	var diverged *wfa.DivergedError
	if errors.As(err, &diverged) {
		// No epoch improved on the start before the divergence: there is
		// no fine-tuned automaton (rtn wfa finetune exits 1), and the
		// column scores the start.
		ft, err = m, nil
		res.FinetuneDiverged = true
	}
	if err != nil {
		res.Finetune, res.FinetuneError = math.NaN(), err.Error()
		return res, nil
	}
	res.FinetuneSeconds = time.Since(t0).Seconds()
	if frep.Result != nil {
		res.FinetuneEpochs = frep.Result.Epochs
	}
	if res.Finetune, err = wfa.Score(ft, test.Seqs, sol); err != nil {
		return nil, err
	}
	return res, nil
}
