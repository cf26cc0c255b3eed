package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"

	jreport "github.com/rtnlab/rtn/internal/report"
	"github.com/rtnlab/rtn/optim"
	"github.com/rtnlab/rtn/runs"
	"github.com/rtnlab/rtn/wfa"
)

func runWFAFinetune(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("wfa finetune")
	var spec runs.WFAFinetuneSpec
	d := runs.WFAFinetuneSpec{}.WithDefaults().Finetune
	cfg := &spec.Finetune
	format := formatFlag(fs, "string file format: pautomac, spice or lines")
	fs.StringVar(&spec.Model, "model", "", "model file to start from (rtn wfa learn -out)")
	fs.StringVar(&spec.Train, "train", "", "training strings")
	fs.StringVar(&spec.Out, "out", "", "fine-tuned model file to write")
	fs.StringVar(&cfg.Optimizer, "optimizer", d.Optimizer, "optimizer: "+joinNames(optim.Names()))
	fs.Float64Var(&cfg.Optim.LR, "lr", d.Optim.LR, "learning rate (> 0)")
	fs.Float64Var(&cfg.Optim.ClipNorm, "clip", 0, "clip gradients to this global norm (0: off)")
	fs.IntVar(&cfg.Epochs, "epochs", d.Epochs, "most epochs (a resumed run continues up to this total)")
	fs.IntVar(&cfg.BatchSize, "batch", d.BatchSize, "strings per step")
	fs.IntVar(&cfg.Patience, "patience", d.Patience, "epochs without validation improvement before the rate drops (x0.1, twice at most: the third such plateau stops)")
	fs.Float64Var(&cfg.ValidFraction, "valid", d.ValidFraction, "share of the strings held out for early stopping, in (0, 1)")
	fs.Uint64Var(&cfg.Seed, "seed", d.Seed, "random seed (split, batches), >= 1")
	fs.StringVar(&cfg.Train.CheckpointPath, "checkpoint", "", "trainer checkpoint file (.npz), written at the end of every epoch (default with -resume: the -resume file)")
	fs.StringVar(&cfg.Resume, "resume", "", "checkpoint file to continue from, written by -checkpoint with the same -model, -train and training flags")
	fs.StringVar(&cfg.Train.MetricsPath, "metrics", "", "per-epoch metrics (JSON lines)")
	fs.StringVar(&cfg.Check, "check", d.Check, "final comparison with the start: zll (keep the start when the fine-tuned automaton is worse under the floor rule on the validation strings, or better on all the strings by less than -check-se standard errors) or none (return the fine-tuned automaton)")
	fs.Float64Var(&cfg.CheckSE, "check-se", 0, fmt.Sprintf("with -check zll, the gain on all the strings, in standard errors of the per-string gain, below which the start is kept (0 or negative: any gain; default %g)", d.CheckSE))
	quiet := fs.Bool("quiet", false, "no progress bar")
	asJSON := fs.Bool("json", false, "print the result as one JSON object")
	if err := parse(fs, args, stderr); err != nil {
		return err
	}
	var err error
	if spec.Format, err = parseFormat(*format); err != nil {
		return err
	}
	givenZeroIsOff(fs, "check-se", &cfg.CheckSE)
	if err := spec.Validate(); err != nil {
		return wfaError(err) // before WithDefaults: a value given as 0 is refused
	}
	cfg.Train.Progress = progressTo(stderr, *quiet)
	rep, err := runs.FinetuneWFA(spec)
	var de *wfa.DivergedError
	if errors.As(err, &de) {
		return fmt.Errorf("%v; no model written: try a -lr below %g", err, cfg.Optim.LR)
	}
	if err != nil {
		return wfaError(err)
	}
	return printFinetuneReport(stdout, rep, spec.Out, *asJSON)
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
