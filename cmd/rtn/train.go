package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"text/tabwriter"

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
	d := runs.TrainSpec{}.WithDefaults()
	fs.StringVar(&spec.Model, "model", d.Model, "registered cell: "+joinNames(layers.CellNames()))
	fs.StringVar(&spec.Activation, "activation", "", "the cell's activation: tanh, symsigmoid or identity (rnn), tanh or identity (2rnn, cp2rnn); default the cell's (tanh)")
	fs.IntVar(&spec.Hidden, "hidden", d.Hidden, "hidden units of each layer")
	fs.IntVar(&spec.Layers, "layers", d.Layers, "stacked cells (the output layer reads the top one)")
	fs.Float64Var(&spec.Dropout, "dropout", 0, "dropout rate between stacked cells, as torch.nn.LSTM's (needs -layers >= 2; 0: none)")
	fs.IntVar(&spec.Embed, "embed", 0, "width of a learned embedding of the input symbols (0: one-hot inputs)")
	fs.IntVar(&spec.Rank, "rank", 0, "decomposition rank of cp2rnn (0: hidden) and hotrnn (0: 4)")
	fs.IntVar(&spec.Order, "order", 0, "order of hotrnn (0: 2)")
	fs.IntVar(&spec.Lags, "lags", 0, "lagged states of hotrnn (0: 2)")
	fs.StringVar(&spec.Task, "task", d.Task, "built-in task (pfa: next symbol of a random probabilistic automaton)")
	fs.StringVar(&spec.DataFile, "data", "", "text file, one sequence per line (overrides -task)")
	optimizerFlags(fs, &spec.Optimizer, &spec.Optim, &spec.Schedule, d.Optimizer)
	fs.IntVar(&spec.Epochs, "epochs", d.Epochs, "total epochs (a resumed run continues up to it)")
	fs.IntVar(&spec.Batch, "batch", d.Batch, "minibatch size")
	fs.IntVar(&spec.Chunk, "chunk", 0, "truncated-BPTT length (0: full backpropagation through time)")
	fs.IntVar(&spec.Patience, "patience", 0, "epochs without validation improvement before a learning-rate drop (0: off)")
	fs.StringVar(&spec.DType, "dtype", d.DType, "float type of the model's steps: float64 or float32 (parameters, gradients and the optimizer stay float64)")
	fs.Uint64Var(&spec.Seed, "seed", d.Seed, "random seed")
	fs.StringVar(&spec.Out, "out", "", "output directory: checkpoint, metrics, the model (model.json, model.npz: rtn eval, sample and predict read it), result")
	fs.StringVar(&spec.Resume, "resume", "", "directory with a checkpoint to continue from")
	fs.BoolVar(&quiet, "quiet", false, "no progress bar")
	fs.BoolVar(&asJSON, "json", false, "print the result as one JSON object")
	if err := parse(fs, args, stderr); err != nil {
		return err
	}
	if err := spec.Validate(); err != nil {
		return specError(err)
	}
	spec.Progress = progressTo(stderr, quiet)
	spec.Log = stderr
	rep, err := runs.Train(spec)
	if err != nil {
		return specError(err)
	}
	if rep.Batch < spec.Batch {
		fmt.Fprintf(stderr, "rtn: note: -batch %d is above the %d training sequences: every step took all %d (full batch)\n", spec.Batch, rep.TrainSequences, rep.Batch)
	}
	if asJSON {
		enc := json.NewEncoder(stdout)
		return enc.Encode(rep)
	}
	return writeTrainTable(stdout, rep)
}

func writeTrainTable(w io.Writer, r *runs.TrainReport) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "model\t%s (%s%d hidden, %d parameters)\n", r.Model, layersNote(r.Layers), r.Hidden, r.Params)
	fmt.Fprintf(tw, "task\t%s\n", r.Task)
	fmt.Fprintf(tw, "optimizer\t%s\n", r.Optimizer)
	fmt.Fprintf(tw, "executor\t%s\n", executorText(compare.Executor(r.Executor)))
	fmt.Fprintf(tw, "epochs\t%d (best %d)\n", r.Epochs, r.BestEpoch)
	fmt.Fprintf(tw, "batch\t%d of %d training sequences\n", r.Batch, r.TrainSequences)
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
// finetune share: -optimizer (default def), -lr, -momentum, -nesterov,
// -clip, -weight-decay and -schedule.
func optimizerFlags(fs *flag.FlagSet, name *string, c *optim.Config, schedule *string, def string) {
	fs.StringVar(name, "optimizer", def, "optimizer: "+joinNames(optim.Names()))
	fs.Float64Var(&c.LR, "lr", 0, "learning rate (0: the optimizer's default)")
	fs.Float64Var(&c.Momentum, "momentum", 0, "momentum (sgd, rmsprop)")
	fs.BoolVar(&c.Nesterov, "nesterov", false, "Nesterov momentum (sgd)")
	fs.Float64Var(&c.ClipNorm, "clip", 0, "clip gradients to this global norm (0: off)")
	fs.Float64Var(&c.WeightDecay, "weight-decay", 0, "L2 weight decay")
	fs.StringVar(schedule, "schedule", "", "learning-rate schedule: constant, step:N:G, exp:G, plateau:P:F, warmup:W, cosine:T[:F], linear:T[:F], warmup:W+cosine:T[:F] (epochs)")
}
