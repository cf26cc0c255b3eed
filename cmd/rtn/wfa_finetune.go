package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"

	jreport "github.com/rtnlab/rtn/internal/report"
	"github.com/rtnlab/rtn/optim"
	"github.com/rtnlab/rtn/wfa"
)

// checkWFAFinetuneFlags is the usage error of wfa finetune's numeric and
// named flags, or nil, and sets cfg.CheckSE from -check-se. Every value
// is taken as given: 0 is not read as a default.
func checkWFAFinetuneFlags(cfg *wfa.FinetuneConfig, train string, checkSE float64) error {
	switch {
	case train == "":
		return usagef("-train is required")
	case !contains(optim.Names(), cfg.Optimizer):
		return usagef("-optimizer: unknown optimizer %q (known: %s)", cfg.Optimizer, joinNames(optim.Names()))
	case !(cfg.Optim.LR > 0) || math.IsInf(cfg.Optim.LR, 0):
		return usagef("-lr must be a finite number > 0, got %g", cfg.Optim.LR)
	case !(cfg.Optim.ClipNorm >= 0) || math.IsInf(cfg.Optim.ClipNorm, 0):
		return usagef("-clip must be a finite number >= 0 (0: off), got %g", cfg.Optim.ClipNorm)
	case cfg.Epochs < 1:
		return usagef("-epochs must be >= 1, got %d", cfg.Epochs)
	case cfg.BatchSize < 1:
		return usagef("-batch must be >= 1, got %d", cfg.BatchSize)
	case cfg.Patience < 1:
		return usagef("-patience must be >= 1, got %d", cfg.Patience)
	case !(cfg.ValidFraction > 0 && cfg.ValidFraction < 1):
		return usagef("-valid must be in (0, 1), got %g", cfg.ValidFraction)
	case cfg.Seed == 0:
		return usagef("-seed must be >= 1")
	case cfg.Check != wfa.CheckZLL && cfg.Check != wfa.CheckNone:
		return usagef("-check must be zll or none, got %q", cfg.Check)
	case math.IsNaN(checkSE) || math.IsInf(checkSE, 0):
		return usagef("-check-se must be a finite number, got %g", checkSE)
	}
	cfg.CheckSE = checkSE
	if cfg.CheckSE == 0 {
		cfg.CheckSE = -1 // any gain: FinetuneConfig reads 0 as its default
	}
	return nil
}

// checkWFAFinetuneOutputs checks, before any work, that -resume is a
// file, that -out, -checkpoint and -metrics can be written, that none of
// them is an input (-model, -train, or -resume but for -checkpoint) and
// that they are three different files. With -resume and no -checkpoint,
// the checkpoints go on to the -resume file.
func checkWFAFinetuneOutputs(cfg *wfa.FinetuneConfig, out, model, train string) error {
	if cfg.Resume != "" {
		st, err := os.Stat(cfg.Resume)
		switch {
		case os.IsNotExist(err):
			return fmt.Errorf("-resume %s: no such file", cfg.Resume)
		case err != nil:
			return fmt.Errorf("-resume %v", err)
		case st.IsDir():
			return fmt.Errorf("-resume %s: is a directory, want a checkpoint file", cfg.Resume)
		}
	}
	ckFlag := "-checkpoint"
	if cfg.Resume != "" && cfg.Train.CheckpointPath == "" {
		cfg.Train.CheckpointPath, ckFlag = cfg.Resume, "-resume (checkpoints go on to it)"
	}
	outs := []struct{ flag, path string }{{"-out", out}, {ckFlag, cfg.Train.CheckpointPath}, {"-metrics", cfg.Train.MetricsPath}}
	for i, o := range outs {
		inputs := []string{model, train}
		if o.flag != ckFlag {
			inputs = append(inputs, cfg.Resume)
		}
		if err := checkOutput(o.flag, o.path, inputs...); err != nil {
			return err
		}
		for _, p := range outs[:i] {
			if sameFile(p.path, o.path) {
				return usagef("%s and %s name the same file %s", p.flag, o.flag, o.path)
			}
		}
	}
	return nil
}

// finetuneFailure is the error of wfa finetune for err from
// wfa.Finetune: a divergence before any improvement suggests a lower
// -lr than lr.
func finetuneFailure(err error, lr float64) error {
	var de *wfa.DivergedError
	if errors.As(err, &de) {
		return fmt.Errorf("%v; no model written: try a -lr below %g", err, lr)
	}
	return err
}

// printFinetuneReport writes the report of wfa finetune, as text or as
// one JSON object; out is the model file written ("" for none).
func printFinetuneReport(w io.Writer, rep *wfa.FinetuneReport, out string, asJSON bool) error {
	result, desc := "fine-tuned", fmt.Sprintf("the fine-tuned automaton (epoch %d)", rep.Result.BestEpoch)
	switch {
	case rep.KeptStart && !(rep.BestValid < rep.InitialValid):
		result, desc = "start", "the start (no epoch improved on its validation loss)"
	case rep.KeptStart:
		result, desc = "start", "the start (kept by the check)"
	}
	if asJSON {
		type F = jreport.Float
		res := map[string]any{"initial_valid_nll": F(rep.InitialValid), "best_valid_nll": F(rep.BestValid),
			"start_valid_zll": F(rep.StartZLL), "best_valid_zll": F(rep.BestZLL),
			"start_valid_loo": F(rep.StartLOO), "best_valid_loo": F(rep.BestLOO),
			"start_all_zll": F(rep.StartAllZLL), "best_all_zll": F(rep.BestAllZLL), "all_zll_z": F(rep.AllZ),
			"epochs": rep.Result.Epochs, "best_epoch": rep.Result.BestEpoch, "seconds": rep.Result.Seconds,
			"result": result, "diverged": rep.Diverged, "model": out}
		if rep.Stopped != "" {
			res["stopped"] = rep.Stopped
		}
		return json.NewEncoder(w).Encode(res)
	}
	fmt.Fprintf(w, "validation NLL (nats per string): %.6f -> %.6f\n", rep.InitialValid, rep.BestValid)
	if rep.Stopped != "" {
		fmt.Fprintf(w, "stopped: %s\n", rep.Stopped)
	}
	if out != "" {
		desc += ", written to " + out
	}
	_, err := fmt.Fprintf(w, "result: %s\n", desc)
	return err
}
