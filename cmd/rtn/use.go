package main

import (
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"

	"github.com/rtnlab/rtn/runs"
)

// The commands that use a model directory written by rtn train -out:
// eval, sample and predict. Each maps its flags to a runs spec, whose
// Validate errors are usage errors.

// dataFormatHelp is the help of -format.
const dataFormatHelp = "format of -data: text (one sequence per line, each character a symbol, as train -data reads), lines (white-space-separated symbols), pautomac or spice"

func runEval(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("eval")
	var spec runs.EvalSpec
	d := runs.EvalSpec{}.WithDefaults()
	fs.StringVar(&spec.Model, "model", "", "model directory written by rtn train -out (required)")
	fs.StringVar(&spec.DataFile, "data", "", "file of sequences (default: the test split of the model's training data)")
	fs.StringVar(&spec.Format, "format", d.Format, dataFormatHelp)
	asJSON := fs.Bool("json", false, "print the result as one JSON object")
	if err := parse(fs, args, stderr); err != nil {
		return err
	}
	if err := spec.Validate(); err != nil {
		return specError(err)
	}
	rep, err := runs.Eval(spec)
	if err != nil {
		return specError(err)
	}
	if *asJSON {
		return writeJSONLine(stdout, rep)
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "model\t%s (%s)\n", rep.Model, rep.Cell)
	fmt.Fprintf(tw, "data\t%s\n", rep.Data)
	fmt.Fprintf(tw, "sequences\t%d (%d symbols predicted)\n", rep.Sequences, rep.Steps)
	if rep.Skipped > 0 {
		fmt.Fprintf(tw, "skipped\t%d empty sequences\n", rep.Skipped)
	}
	fmt.Fprintf(tw, "loss\t%s nats/symbol\n", strconv.FormatFloat(float64(rep.Loss), 'g', -1, 64))
	fmt.Fprintf(tw, "log-likelihood\t%.6f nats\n", rep.LogLikelihood)
	fmt.Fprintf(tw, "perplexity\t%.6f\n", rep.Perplexity)
	return tw.Flush()
}

func runSample(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("sample")
	var spec runs.SampleSpec
	d := runs.SampleSpec{}.WithDefaults()
	fs.StringVar(&spec.Model, "model", "", "model directory written by rtn train -out (required)")
	fs.IntVar(&spec.N, "n", d.N, "number of strings")
	fs.Uint64Var(&spec.Seed, "seed", d.Seed, "random seed")
	fs.Float64Var(&spec.Temperature, "temperature", d.Temperature, "softmax temperature: 1 samples the model, below 1 sharpens, above 1 flattens (> 0)")
	fs.IntVar(&spec.MaxLen, "max-len", d.MaxLen, "longest string, prefix included")
	fs.StringVar(&spec.Stop, "stop", "", "a symbol that ends a string when drawn (default: none)")
	fs.StringVar(&spec.Prefix, "prefix", "", "symbols every string starts with (one per character when every symbol is one character, else separated by spaces)")
	asJSON := fs.Bool("json", false, "print one JSON object (each string with its length and log-probability)")
	if err := parse(fs, args, stderr); err != nil {
		return err
	}
	if err := spec.Validate(); err != nil {
		return specError(err)
	}
	rep, err := runs.Sample(spec)
	if err != nil {
		return specError(err)
	}
	noteRedrawn(stderr, rep.Redrawn, spec.WithDefaults().MaxLen)
	if *asJSON {
		return writeJSONLine(stdout, rep)
	}
	for _, s := range rep.Samples {
		fmt.Fprintln(stdout, s.Text)
	}
	return nil
}

func runPredict(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("predict")
	var spec runs.PredictSpec
	d := runs.PredictSpec{}.WithDefaults()
	fs.StringVar(&spec.Model, "model", "", "model directory written by rtn train -out (required)")
	fs.StringVar(&spec.DataFile, "data", "", "file of sequences (required)")
	fs.StringVar(&spec.Format, "format", d.Format, dataFormatHelp)
	fs.StringVar(&spec.Out, "out", "", "CSV file to write: sequence, step, symbol, then each symbol's probability (required)")
	asJSON := fs.Bool("json", false, "print the result as one JSON object")
	if err := parse(fs, args, stderr); err != nil {
		return err
	}
	if err := spec.Validate(); err != nil {
		return specError(err)
	}
	rep, err := runs.Predict(spec)
	if err != nil {
		return specError(err)
	}
	if *asJSON {
		return writeJSONLine(stdout, rep)
	}
	_, err = fmt.Fprintf(stdout, "wrote %s: %d sequences, %d steps\n", rep.Out, rep.Sequences, rep.Steps)
	return err
}

// noteRedrawn says on stderr how many draws a sampler redrew because they
// did not end within -max-len (runs.MaxLenDraws).
func noteRedrawn(stderr io.Writer, redrawn, maxLen int) {
	if redrawn > 0 {
		fmt.Fprintf(stderr, "rtn: note: %d draws did not end within -max-len %d and were drawn again: the strings are draws conditioned on ending within it\n", redrawn, maxLen)
	}
}
