package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/rtnlab/rtn/runs"
)

// umpsFileFlags turns umps train's -format and -alphabet into spec fields.
func umpsFileFlags(spec *runs.UMPSSpec, format, alphabet string) error {
	if alphabet != "" {
		spec.Alphabet = strings.Split(alphabet, ",")
	}
	if format == "" {
		return nil
	}
	f, err := parseFormat(format)
	if err != nil {
		return err
	}
	spec.Format = &f
	return nil
}

func runUMPSScore(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("umps score")
	var spec runs.UMPSScoreSpec
	fs.StringVar(&spec.Model, "model", "", "model file or run directory")
	fs.StringVar(&spec.Test, "test", "", "test strings (required)")
	format := formatFlag(fs, "format of -test: pautomac, spice or lines")
	fs.StringVar(&spec.Solution, "solution", "", "PAutomaC solution file (true probabilities of the test strings): report the perplexity")
	asJSON := fs.Bool("json", false, "print one JSON object")
	if err := parse(fs, args, stderr); err != nil {
		return err
	}
	f, err := parseFormat(*format)
	if err != nil {
		return err
	}
	spec.Format = f
	sc, err := runs.RunUMPSScore(spec)
	if err != nil {
		return specError(err)
	}
	if *asJSON {
		return writeJSONLine(stdout, sc)
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "test\t%s (%d strings)\nlength model\t%s\n", sc.Test, sc.Strings, sc.LengthModel)
	if sc.Perplexity != nil {
		fmt.Fprintf(tw, "perplexity\t%.4f\n", *sc.Perplexity)
	}
	fmt.Fprintf(tw, "NLL\t%.6f nats/string\nlog-loss\t%.6f nats/symbol (end of string counted)\n", sc.NLL, sc.LogLoss)
	return tw.Flush()
}
