package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/rtnlab/rtn/internal/memlimit"
)

type command struct {
	summary string
	run     func(args []string, stdout, stderr io.Writer) error
}

var commands = map[string]command{
	"compare":   {"compare optimizers on a model: tuned learning rates, seeds, curves, shards", runCompare},
	"train":     {"train a registered cell (rnn, lstm, gru, 2rnn, tensor cells; stacked) on a built-in task or a text file", runTrain},
	"eval":      {"log-likelihood of data under a model trained by rtn train -out", runEval},
	"sample":    {"draw strings from a model trained by rtn train -out", runSample},
	"predict":   {"per-step next-symbol probabilities of a trained model, as CSV", runPredict},
	"reproduce": {"run the papers' headline experiments and write a summary", runReproduce},
	"version":   {"print the version", runVersion},
	"pcnn":      {"train RNN / CNN / PCNN models with Riemannian metrics (Ollivier)", runPCNN},
	"bench":     {"time training steps of the built-in models", runBench},
	"umps":      {"u-MPS Born machines: train, sample, prob, complete, eval, score", runUMPS},
	"pretrain":  {"linear-autoencoder pre-training of RNNs on piano rolls (Pasa and Sperduti)", runPretrain},
	"spectral":  {"learn linear 2-RNNs from Hankel tensors (spectral, IHT, TIHT, +SGD); predict, finetune", runSpectral},
	"wfa":       {"weighted automata from strings: learn, score, finetune, rank, sample, minimize, dot, sweep", runWFA},
	"strings":   {"the default string learner (PFA or HMM from a spectral start, chosen on validation): fit, score, sample, rank", runStrings},
}

// run is the whole program: main only calls it and maps its error to an
// exit status.
func run(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		printUsage(stderr)
		return usagef("no command given")
	}
	name := args[0]
	if name == "-h" || name == "-help" || name == "--help" || name == "help" {
		printUsage(stdout)
		return nil
	}
	c, ok := commands[name]
	if !ok {
		return usagef("unknown command %q (run rtn help)", name)
	}
	// A bad RTN_MEMORY_LIMIT is refused by every command that could
	// check memory, whether or not the run at hand gets to a check.
	if name != "version" {
		if _, _, err := memlimit.FromEnv(); err != nil {
			return specError(err)
		}
	}
	return c.run(args[1:], stdout, stderr)
}

func printUsage(w io.Writer) {
	fmt.Fprintln(w, "usage: rtn <command> [flags]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "commands:")
	var names []string
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-10s %s\n", n, commands[n].summary)
	}
}

// newFlags returns a flag set that prints nothing itself: parse reports
// errors in one line and prints the usage on -h only.
func newFlags(name string) *flag.FlagSet {
	fs := flag.NewFlagSet("rtn "+name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs
}

// parse parses args and turns a flag error into a one-line usage error;
// on -h it prints the flags to stderr.
func parse(fs *flag.FlagSet, args []string, stderr io.Writer) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprintf(stderr, "usage: %s [flags]\n", fs.Name())
			fs.SetOutput(stderr)
			fs.PrintDefaults()
			return err
		}
		return usagef("%s (run %s -h)", firstLine(err.Error()), fs.Name())
	}
	if fs.NArg() > 0 {
		return usagef("%s: unexpected argument %q", fs.Name(), fs.Arg(0))
	}
	return checkIntFlags(fs)
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
