package runs

import (
	"fmt"
	"math"
	"os"

	"github.com/pkg/errors"

	"github.com/rtnlab/rtn/datasets"
	"github.com/rtnlab/rtn/spectral"
	"github.com/rtnlab/rtn/wfa"
)

// WFALearnReport is the result of LearnWFA.
type WFALearnReport struct {
	// Model is the learned automaton (nil when the fit failed).
	Model *wfa.Model
	// Fit is wfa.Fit's report: the chosen configuration, the mixture's
	// components and every candidate of the selection.
	Fit *wfa.Report
	// Radius is the automaton's spectral radius (0 when it could not be
	// computed).
	Radius float64
}

// LearnWFA learns the spectral WFA of the spec and writes it to Out.
// When the selection fails, the report still lists the candidates.
func LearnWFA(spec WFALearnSpec) (*WFALearnReport, error) {
	spec = spec.WithDefaults()
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	if err := CheckOutput("{Out}", spec.Out, spec.Train); err != nil {
		return nil, err
	}
	cfg, _ := spec.config() // Validate checked it
	if err := checkEstimate(spec.EstimateMemory()); err != nil {
		return nil, err
	}
	lock, err := LockOutputs(nil, []string{spec.Out})
	if err != nil {
		return nil, err
	}
	defer lock.Release()
	s, err := readWFATrain(spec.Train, spec.Format, cfg.Folds)
	if err != nil {
		return nil, err
	}
	stop := startPhase(spec.Progress, "wfa learn: selecting and fitting")
	m, rep, err := wfa.Fit(s, cfg)
	stop()
	res := &WFALearnReport{Model: m, Fit: rep}
	if spec.Candidates != nil && rep != nil {
		for _, c := range rep.Candidates {
			fmt.Fprintf(spec.Candidates, "%-40v loo %-10.6g zll %-10.6g nll %-10.6g perplexity %-12.6g radius %-8.4g floored %.4f %s\n", c.Spec, c.LOO, c.ZLL, c.NLL, c.Perplexity, c.Radius, c.Floored, c.Rejected)
		}
	}
	var re *spectral.HankelRankError
	if errors.As(err, &re) {
		return res, fieldErr("Rank", spec.Rank, "at most the Hankel matrix's largest usable rank %d", re.Max)
	}
	if err != nil {
		return res, err
	}
	if spec.Out != "" {
		if err := m.Save(spec.Out); err != nil {
			return res, err
		}
	}
	if r, err := m.WFA.SpectralRadius(); err == nil {
		res.Radius = r
	}
	return res, nil
}

// readWFATrain reads a training string file and refuses more
// cross-validation folds than half its strings.
func readWFATrain(path string, fm datasets.StringFormat, folds int) (datasets.Symbols, error) {
	s, err := datasets.ReadStringsFile(path, fm, nil)
	if err != nil {
		return s, err
	}
	if n := len(s.Seqs); folds > 1 && n < 2*folds {
		return s, fieldErr("Folds", folds, "at most %d: %s holds %d strings, two a fold at least", n/2, path, n)
	}
	return s, nil
}

// WFASweepReport is the result of SweepWFA.
type WFASweepReport struct {
	// Candidates are the selection's candidates with every criterion's
	// figure.
	Candidates []wfa.Candidate
	// Test is each candidate's test perplexity, by its configuration
	// (Spec.String()), when the spec has Test (NaN when it could not be
	// scored).
	Test map[string]float64
	// Chosen is the configuration the selection chose ("" when it
	// failed).
	Chosen string
}

// SweepWFA runs the selection of the spec and lists its candidates. When
// the selection fails with candidates, it returns their report with the
// error.
func SweepWFA(spec WFASweepSpec) (*WFASweepReport, error) {
	spec = spec.WithDefaults()
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	cfg, _ := spec.config() // Validate checked it
	if err := checkEstimate(spec.EstimateMemory()); err != nil {
		return nil, err
	}
	s, err := readWFATrain(spec.Train, spec.Format, cfg.Folds)
	if err != nil {
		return nil, err
	}
	res := &WFASweepReport{Test: map[string]float64{}}
	if spec.Test != "" {
		// The test strings are read with the training strings' alphabet,
		// so that their symbols are the automata's whatever the format.
		test, err := datasets.ReadStringsFile(spec.Test, spec.Format, s.Alphabet)
		if err != nil {
			return nil, err
		}
		sol, err := readSolution(spec.Solution, spec.Test, len(test.Seqs))
		if err != nil {
			return nil, err
		}
		cfg.OnCandidate = func(c wfa.Candidate, w spectral.WFA) {
			if _, done := res.Test[c.Spec.String()]; done {
				return
			}
			p, err := wfa.Score(&wfa.Model{WFA: w}, test.Seqs, sol)
			if err != nil {
				p = math.NaN()
			}
			res.Test[c.Spec.String()] = p
		}
	}
	stop := startPhase(spec.Progress, "wfa sweep: fitting the grid")
	_, rep, err := wfa.Fit(s, cfg)
	stop()
	var none *wfa.NoCandidateError
	if errors.As(err, &none) && spec.Ranks != nil {
		return nil, fieldCause("Ranks", fmt.Errorf("every rank (smallest %d) is above the largest the Hankel matrices allow (%d)", none.Smallest, none.Usable))
	}
	if rep == nil || len(rep.Candidates) == 0 {
		return nil, err
	}
	res.Candidates = rep.Candidates
	if err == nil {
		res.Chosen = rep.Chosen.String()
	}
	return res, err
}

// readSolution reads a PAutomaC solution file of the n strings of test.
func readSolution(path, test string, n int) ([]float64, error) {
	sol, err := datasets.ReadSolutionFile(path)
	if err != nil {
		return nil, err
	}
	if len(sol) != n {
		return nil, errors.Errorf("%s: %d probabilities for the %d strings of %s", path, len(sol), n, test)
	}
	return sol, nil
}

// FinetuneWFA fine-tunes the spec's model on its strings and writes the
// result to Out. A divergence before any improvement is a
// *wfa.DivergedError, and nothing is written.
func FinetuneWFA(spec WFAFinetuneSpec) (*wfa.FinetuneReport, error) {
	spec = spec.WithDefaults()
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	cfg := spec.Finetune
	if err := checkFinetuneOutputs(spec.Out, spec.Model, spec.Train, &cfg); err != nil {
		return nil, err
	}
	lock, err := LockOutputs(nil, []string{spec.Out, cfg.Train.CheckpointPath, cfg.Train.MetricsPath})
	if err != nil {
		return nil, err
	}
	defer lock.Release()
	m, err := wfa.Load(spec.Model)
	if err != nil {
		return nil, err
	}
	s, err := datasets.ReadStringsFile(spec.Train, spec.Format, m.Alphabet)
	if err != nil {
		return nil, err
	}
	if _, _, err := wfa.FinetuneSplit(s.Seqs, cfg.ValidFraction, cfg.Seed); err != nil {
		return nil, fieldCause("Finetune.ValidFraction", errors.Wrap(err, spec.Train))
	}
	ft, rep, err := wfa.Finetune(m, s, cfg)
	if err != nil {
		return rep, err
	}
	if spec.Out != "" {
		if err := ft.Save(spec.Out); err != nil {
			return rep, err
		}
	}
	return rep, nil
}

// checkFinetuneOutputs checks, before any work, that Resume is a file,
// that Out, the checkpoint and the metrics can be written, that none of
// them is an input (the model, the strings, or Resume but for the
// checkpoint) and that they are three different files. With Resume and no
// checkpoint, the checkpoints go on to the Resume file.
func checkFinetuneOutputs(out, model, train string, cfg *wfa.FinetuneConfig) error {
	if cfg.Resume != "" {
		st, err := os.Stat(cfg.Resume)
		switch {
		case os.IsNotExist(err):
			return pathErr("{Finetune.Resume} %s: no such file", cfg.Resume)
		case err != nil:
			return pathErr("{Finetune.Resume} %v", err)
		case st.IsDir():
			return pathErr("{Finetune.Resume} %s: is a directory, want a checkpoint file", cfg.Resume)
		}
	}
	ck := "{Finetune.Train.CheckpointPath}"
	if cfg.Resume != "" && cfg.Train.CheckpointPath == "" {
		cfg.Train.CheckpointPath, ck = cfg.Resume, "{Finetune.Resume} (checkpoints go on to it)"
	}
	outs := []output{{"{Out}", out}, {ck, cfg.Train.CheckpointPath}, {"{Finetune.Train.MetricsPath}", cfg.Train.MetricsPath}}
	for _, o := range outs {
		inputs := []string{model, train}
		if o.label != ck {
			inputs = append(inputs, cfg.Resume)
		}
		if err := CheckOutput(o.label, o.path, inputs...); err != nil {
			return err
		}
	}
	return checkDistinct(outs...)
}
