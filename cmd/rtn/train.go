package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"

	"github.com/rtnlab/rtn/datasets"
	"github.com/rtnlab/rtn/layers"
	"github.com/rtnlab/rtn/optim"
	"github.com/rtnlab/rtn/optim/compare"
	"github.com/rtnlab/rtn/runs"
)

func runTrain(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("train")
	var (
		spec   runs.TrainSpec
		quiet  bool
		asJSON bool
	)
	fs.StringVar(&spec.Model, "model", "lstm", "registered cell: "+joinNames(layers.CellNames()))
	fs.StringVar(&spec.Activation, "activation", "", "the cell's activation: tanh, symsigmoid or identity (rnn), tanh or identity (2rnn, cp2rnn); default the cell's (tanh)")
	fs.IntVar(&spec.Hidden, "hidden", 32, "hidden units of each layer")
	fs.IntVar(&spec.Layers, "layers", 1, "stacked cells (the output layer reads the top one)")
	fs.Float64Var(&spec.Dropout, "dropout", 0, "dropout rate between stacked cells, as torch.nn.LSTM's (needs -layers >= 2; 0: none)")
	fs.IntVar(&spec.Embed, "embed", 0, "width of a learned embedding of the input symbols (0: one-hot inputs)")
	fs.IntVar(&spec.Rank, "rank", 0, "decomposition rank of cp2rnn (0: hidden) and hotrnn (0: 4)")
	fs.IntVar(&spec.Order, "order", 0, "order of hotrnn (0: 2)")
	fs.IntVar(&spec.Lags, "lags", 0, "lagged states of hotrnn (0: 2)")
	fs.StringVar(&spec.Task, "task", "pfa", "built-in task (pfa: next symbol of a random probabilistic automaton)")
	fs.StringVar(&spec.DataFile, "data", "", "text file, one sequence per line (overrides -task)")
	optimizerFlags(fs, &spec.Optimizer, &spec.Optim, &spec.Schedule)
	fs.IntVar(&spec.Epochs, "epochs", 10, "total epochs (a resumed run continues up to it)")
	fs.IntVar(&spec.Batch, "batch", 32, "minibatch size")
	fs.IntVar(&spec.Chunk, "chunk", 0, "truncated-BPTT length (0: full backpropagation through time)")
	fs.IntVar(&spec.Patience, "patience", 0, "epochs without validation improvement before a learning-rate drop (0: off)")
	fs.StringVar(&spec.DType, "dtype", "float64", "float type of the model's steps: float64 or float32 (parameters, gradients and the optimizer stay float64)")
	seed := fs.Uint64("seed", 1, "random seed")
	fs.StringVar(&spec.Out, "out", "", "output directory: checkpoint, metrics, the model (model.json, model.npz: rtn eval, sample and predict read it), result")
	fs.StringVar(&spec.Resume, "resume", "", "directory with a checkpoint to continue from")
	fs.BoolVar(&quiet, "quiet", false, "no progress bar")
	fs.BoolVar(&asJSON, "json", false, "print the result as one JSON object")
	if err := parse(fs, args, stderr); err != nil {
		return err
	}
	spec.Seed = *seed
	if err := checkTrainFlags(&spec); err != nil {
		return err
	}
	spec.Progress = progressTo(stderr, quiet)
	spec.Log = stderr
	if err := checkOutDir("-out", spec.Out); err != nil {
		return err
	}
	pfa := datasets.PFAConfig{}.WithDefaults()
	symbols, maxLen := pfa.Symbols, pfa.MaxLen
	if spec.DataFile != "" {
		var err error
		if symbols, err = trainDataCheck(spec.DataFile, spec.Progress); err != nil {
			return err
		}
		maxLen = 1 // the lengths are not read here: the weights are checked
	}
	if err := trainModelCheck(&spec, symbols, maxLen); err != nil {
		return err
	}
	rep, err := runs.Train(spec)
	if err != nil {
		return err
	}
	if asJSON {
		enc := json.NewEncoder(stdout)
		return enc.Encode(rep)
	}
	return writeTrainTable(stdout, rep)
}

// maxHidden bounds -hidden: an LSTM of that size already holds about 70
// million weights per layer.
const maxHidden = 1 << 12

// maxLayers bounds -layers.
const maxLayers = 64

func checkTrainFlags(s *runs.TrainSpec) error {
	if err := checkOptimizerFlags(s.Optimizer, s.Optim); err != nil {
		return err
	}
	switch {
	case !layers.HasCell(s.Model):
		return usagef("-model must be one of %s, got %q", joinNames(layers.CellNames()), s.Model)
	case s.Hidden <= 0 || s.Hidden > maxHidden:
		return usagef("-hidden must be in [1, %d], got %d", maxHidden, s.Hidden)
	case s.Epochs <= 0:
		return usagef("-epochs must be >= 1, got %d", s.Epochs)
	case s.Batch <= 0:
		return usagef("-batch must be >= 1, got %d", s.Batch)
	case s.Chunk < 0:
		return usagef("-chunk must be >= 0 (0: full BPTT), got %d", s.Chunk)
	case s.Patience < 0:
		return usagef("-patience must be >= 0, got %d", s.Patience)
	case s.Seed == 0:
		return usagef("-seed must be >= 1")
	case s.DataFile == "" && s.Task != "pfa":
		return usagef("-task must be pfa (or give -data FILE), got %q", s.Task)
	case s.DType != "float64" && s.DType != "float32":
		return usagef("-dtype must be float64 or float32, got %q", s.DType)
	}
	if err := checkCompositionFlags(s.Layers, s.Dropout, s.Embed); err != nil {
		return err
	}
	if err := checkCellFlags(s.Model, layers.CellConfig{Activation: s.Activation, Rank: s.Rank, Order: s.Order, Lags: s.Lags}); err != nil {
		return err
	}
	if s.Schedule != "" {
		if _, err := optim.ParseSchedule(s.Schedule); err != nil {
			return usagef("-schedule: %v", err)
		}
	}
	if !contains(optim.Names(), s.Optimizer) {
		return usagef("-optimizer: unknown optimizer %q (known: %s)", s.Optimizer, joinNames(optim.Names()))
	}
	if _, err := optim.New(s.Optimizer, s.Optim); err != nil {
		return usagef("%v", err)
	}
	return nil
}

// checkCompositionFlags is the usage error of -layers, -dropout and
// -embed: the command's bounds (at most maxLayers layers, an embedding at
// most maxHidden wide), then layers.CheckComposition, naming the flag.
func checkCompositionFlags(depth int, dropout float64, embed int) error {
	switch {
	case depth > maxLayers:
		return usagef("-layers must be in [1, %d], got %d", maxLayers, depth)
	case embed > maxHidden:
		return usagef("-embed must be in [0, %d], got %d", maxHidden, embed)
	}
	if err := layers.CheckComposition(depth, dropout, embed); err != nil {
		return usagef("-%v", err)
	}
	return nil
}

// checkCellFlags is the usage error of the cell flags -activation, -rank,
// -order and -lags for a registered cell, naming the flag at fault: each
// is checked alone, then all together.
func checkCellFlags(model string, c layers.CellConfig) error {
	var given []string
	for _, g := range []struct {
		flag string
		set  bool
	}{{"-activation", c.Activation != ""}, {"-rank", c.Rank != 0}, {"-order", c.Order != 0}, {"-lags", c.Lags != 0}} {
		if g.set {
			given = append(given, g.flag)
		}
	}
	for _, f := range []struct {
		flag string
		cfg  layers.CellConfig
	}{
		{"-activation", layers.CellConfig{Activation: c.Activation}},
		{"-rank", layers.CellConfig{Rank: c.Rank}},
		{"-order", layers.CellConfig{Order: c.Order}},
		{"-lags", layers.CellConfig{Lags: c.Lags}},
		{strings.Join(given, ", "), c},
	} {
		if err := layers.CheckCellConfig(model, f.cfg); err != nil {
			return usagef("%s: %v", f.flag, err)
		}
	}
	return nil
}

func writeTrainTable(w io.Writer, r *runs.TrainReport) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "model\t%s (%s%d hidden, %d parameters)\n", r.Model, layersNote(r.Layers), r.Hidden, r.Params)
	fmt.Fprintf(tw, "task\t%s\n", r.Task)
	fmt.Fprintf(tw, "optimizer\t%s\n", r.Optimizer)
	fmt.Fprintf(tw, "executor\t%s\n", executorText(compare.Executor(r.Executor)))
	fmt.Fprintf(tw, "epochs\t%d (best %d)\n", r.Epochs, r.BestEpoch)
	fmt.Fprintf(tw, "train loss\t%.6f nats/step\n", r.TrainLoss)
	fmt.Fprintf(tw, "valid loss\t%.6f nats/step\n", r.ValidLoss)
	fmt.Fprintf(tw, "test loss\t%.6f nats/step\n", r.TestLoss)
	if r.OptimalLoss != nil {
		fmt.Fprintf(tw, "optimal loss\t%.6f nats/step\n", *r.OptimalLoss)
	}
	if r.UniformLoss != nil {
		fmt.Fprintf(tw, "uniform loss\t%.6f nats/step\n", *r.UniformLoss)
	}
	return tw.Flush()
}

// layersNote is "N layers x " for a stack, "" for one layer.
func layersNote(n int) string {
	if n <= 1 {
		return ""
	}
	return fmt.Sprintf("%d layers x ", n)
}

func joinNames(n []string) string {
	s := ""
	for i, x := range n {
		if i > 0 {
			s += ", "
		}
		s += x
	}
	return s
}

// optimizerFlags defines the optimizer flags rtn train and rtn spectral
// finetune share: -optimizer, -lr, -momentum, -nesterov, -clip,
// -weight-decay and -schedule.
func optimizerFlags(fs *flag.FlagSet, name *string, c *optim.Config, schedule *string) {
	fs.StringVar(name, "optimizer", "adam", "optimizer: "+joinNames(optim.Names()))
	fs.Float64Var(&c.LR, "lr", 0, "learning rate (0: the optimizer's default)")
	fs.Float64Var(&c.Momentum, "momentum", 0, "momentum (sgd, rmsprop)")
	fs.BoolVar(&c.Nesterov, "nesterov", false, "Nesterov momentum (sgd)")
	fs.Float64Var(&c.ClipNorm, "clip", 0, "clip gradients to this global norm (0: off)")
	fs.Float64Var(&c.WeightDecay, "weight-decay", 0, "L2 weight decay")
	fs.StringVar(schedule, "schedule", "", "learning-rate schedule: constant, step:N:G, exp:G, plateau:P:F, warmup:W, cosine:T[:F], linear:T[:F], warmup:W+cosine:T[:F] (epochs)")
}

// checkOptimizerFlags is the usage error of the flags optimizerFlags
// defines, or nil: rates, clipping and decay finite and >= 0, momentum only
// for the optimizers that take it.
func checkOptimizerFlags(name string, c optim.Config) error {
	switch {
	case !(c.LR >= 0) || math.IsInf(c.LR, 0):
		return usagef("-lr must be a finite number >= 0, got %g", c.LR)
	case !(c.ClipNorm >= 0) || math.IsInf(c.ClipNorm, 0):
		return usagef("-clip must be a finite number >= 0, got %g", c.ClipNorm)
	case !(c.WeightDecay >= 0) || math.IsInf(c.WeightDecay, 0):
		return usagef("-weight-decay must be a finite number >= 0, got %g", c.WeightDecay)
	case (c.Momentum != 0 || c.Nesterov) && name != "sgd" && name != "rmsprop":
		return usagef("-momentum and -nesterov apply to sgd and rmsprop, not %s", name)
	}
	return nil
}
