package layers

import (
	"fmt"
	"io"
	"log"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/pkg/errors"

	"github.com/rtnlab/rtn/datasets"
	"github.com/rtnlab/rtn/graph"
	"github.com/rtnlab/rtn/params"
)

// ProblemConfig sets how a Problem cuts sequences into graphs. The zero
// value is usable.
type ProblemConfig struct {
	// Chunk, when positive, is the truncated-BPTT length: gradients stop
	// every Chunk steps while the state is carried on. If Chunk is 0 (the
	// default), gradients flow through every step (full BPTT). Either way
	// the cell's step is set up once per batch size and run over any
	// length, by the executor Executor names.
	Chunk int
	// Checkpoint, when positive, stores the state of every Checkpoint-th
	// step only and recomputes the rest in the backward pass, for very
	// long sequences (graph.RecurrenceConfig.Checkpoint). Same results.
	Checkpoint int
	// EvalBatch is the batch size used by Loss on more than EvalBatch
	// examples and by ValidationLoss and TestLoss. If EvalBatch is 0, it
	// will be defaulted to 64.
	EvalBatch int
	// Bucket makes training batches out of sequences of similar length
	// (datasets.BucketBatches) instead of a plain shuffle.
	Bucket bool
	// Executor names how the cell's steps run: ExecFused, the cell's
	// hand-written kernel (graph.FusedCell) on graph.FusedRecurrence;
	// ExecTape, the cell's recorded step compiled into a kernel
	// (graph.CompileTape) on the same executor; ExecGraph, the step as
	// gorgonia graphs (graph.Recurrence). Empty (the default) picks the
	// first of the three that the cell allows. All give the same results up
	// to the order of additions. To run a cell without its kernel, as a
	// cell a user writes runs, name ExecTape.
	Executor string
	// DType is the float type the steps run in: graph.Float64 (or "", the
	// default) or graph.Float32. In float32 the plain-Go executors keep
	// states, caches, activations and matrix products in float32 and read
	// float32 copies of the float64 parameters, made once per batch; the
	// gradients stay float64, as do the optimizer and the parameters
	// (mixed precision). The graph executor runs float64 only.
	DType string
	// Log receives the Problem's warning, one line given once by
	// NewProblem: that the cell runs on gorgonia's compiled graphs because
	// the tape cannot run one of its ops (Problem.Executor says which). If
	// Log is nil, the warning goes to the standard library's log (stderr).
	Log io.Writer
}

// Executors of ProblemConfig.Executor.
const (
	ExecFused = "fused"
	ExecTape  = "tape"
	ExecGraph = "graph"
)

// Executors lists the values of ProblemConfig.Executor besides "".
func Executors() []string { return []string{ExecFused, ExecTape, ExecGraph} }

// ExecutorInfo describes the executor that runs a Problem's steps.
type ExecutorInfo struct {
	// Kind is ExecFused (the cell's hand-written kernel), ExecTape (the
	// cell's recorded step compiled into a kernel) or ExecGraph
	// (gorgonia's compiled graphs).
	Kind string `json:"kind"`
	// DType is the float type the steps run in: graph.Float64 or
	// graph.Float32.
	DType string `json:"dtype"`
	// Reason says, for ExecGraph, why the steps run there: the error of
	// the tape naming the call that made the op it cannot run
	// (Builder.Do, Builder.Fused or gorgonia directly), or that
	// ProblemConfig.Executor asks for the graphs. It is empty otherwise.
	Reason string `json:"reason,omitempty"`
}

// String is "kind/dtype", such as "tape/float64": the label of progress
// lines and metrics.
func (e ExecutorInfo) String() string { return e.Kind + "/" + e.DType }

// runner is a recurrence set up for one batch size: graph.Recurrence or
// graph.FusedRecurrence.
type runner interface {
	Run(xs [][]float64, aux [][][]float64, grads *params.Params) (float64, error)
	SetNoise(seed uint64, on bool)
}

// Problem trains a Sequence on a datasets.Task. It implements
// optim.Problem, optim.Evaluator, optim.Validator and optim's Batcher. The loss is the mean per-step loss over the
// unpadded steps of a batch, in nats.
type Problem struct {
	seq  *Sequence
	task *datasets.Task
	cfg  ProblemConfig
	recs map[int]runner
	exec ExecutorInfo  // chosen by NewProblem, for every batch size
	aux  [][][]float64 // the head inputs of a batch's steps, reused
	buf  datasets.BatchBuffer
	seed uint64 // the noise seed of training batches (SetNoiseSeed)
}

// NewProblem checks that the task fits the model and returns the problem,
// with its executor chosen (see ProblemConfig.Executor and
// Problem.Executor) and set up for batches of one example. A cell that
// falls back to gorgonia's compiled graphs is warned about here, once
// (ProblemConfig.Log).
func NewProblem(seq *Sequence, task *datasets.Task, cfg ProblemConfig) (*Problem, error) {
	if err := task.Validate(); err != nil {
		return nil, err
	}
	if task.In != seq.Cell.InputSize() {
		return nil, errors.Errorf("layers: task %q has input width %d, the cell takes %d", task.Name, task.In, seq.Cell.InputSize())
	}
	if task.Out != seq.Out || task.Kind != seq.Kind {
		return nil, errors.Errorf("layers: task %q has %d outputs of kind %d, the model %d of kind %d", task.Name, task.Out, task.Kind, seq.Out, seq.Kind)
	}
	if len(task.Train) == 0 {
		return nil, errors.Errorf("layers: task %q has no training examples", task.Name)
	}
	if cfg.Chunk < 0 || cfg.EvalBatch < 0 || cfg.Checkpoint < 0 {
		return nil, errors.Errorf("layers: chunk, eval batch and checkpoint must not be negative, got %d, %d, %d", cfg.Chunk, cfg.EvalBatch, cfg.Checkpoint)
	}
	if cfg.Executor != "" && !slices.Contains(Executors(), cfg.Executor) {
		return nil, errors.Errorf("layers: unknown executor %q (known: %s)", cfg.Executor, strings.Join(Executors(), ", "))
	}
	if err := graph.CheckDType(cfg.DType); err != nil {
		return nil, errors.Wrap(err, "layers")
	}
	if cfg.EvalBatch == 0 {
		cfg.EvalBatch = 64
	}
	p := &Problem{seq: seq, task: task, cfg: cfg, recs: map[int]runner{}}
	if _, err := p.recurrence(1); err != nil {
		return nil, err
	}
	return p, nil
}

// Executor describes the executor that runs the problem's steps, for
// every batch size: chosen by NewProblem as ProblemConfig.Executor says.
func (p *Problem) Executor() ExecutorInfo { return p.exec }

// Params implements optim.Problem.
func (p *Problem) Params() *params.Params { return p.seq.Params }

// NumExamples implements optim.Problem.
func (p *Problem) NumExamples() int { return len(p.task.Train) }

// LossGrad implements optim.Problem: the mean per-step loss of the
// training examples in batch and its (truncated-BPTT) gradient, with the
// cell's random ops (dropout) on, drawn from the seed of SetNoiseSeed.
func (p *Problem) LossGrad(batch []int, grads *params.Params) (float64, error) {
	grads.Zero()
	return p.run(p.task.Train, batch, grads)
}

// Loss implements optim.Evaluator: the loss LossGrad would return for the
// same batch, computed the same way (one batch, not split, the same
// noise), without the gradient.
func (p *Problem) Loss(batch []int) (float64, error) { return p.run(p.task.Train, batch, nil) }

// SetNoiseSeed implements optim.Noisy: the seed of the random ops of the
// next training batches. Held-out data (Evaluate, ValidationLoss,
// TestLoss) is evaluated without noise.
func (p *Problem) SetNoiseSeed(seed uint64) { p.seed = seed }

// ValidationLoss implements optim.Validator: the mean per-step loss on the
// task's validation set (NaN when it has none).
func (p *Problem) ValidationLoss() (float64, error) { return p.Evaluate(p.task.Valid) }

// HasValidation implements optim.ValidationChecker: whether the task has
// validation examples.
func (p *Problem) HasValidation() bool { return len(p.task.Valid) > 0 }

// TestLoss is the mean per-step loss on the task's test set.
func (p *Problem) TestLoss() (float64, error) { return p.Evaluate(p.task.Test) }

// Batches implements optim's optional Batcher: an epoch's batches of
// training indices, drawn from rng, grouped by length when
// ProblemConfig.Bucket is set and plainly shuffled otherwise.
func (p *Problem) Batches(rng *rand.Rand, batchSize int) [][]int {
	if !p.cfg.Bucket {
		return datasets.ShuffledBatches(len(p.task.Train), batchSize, rng)
	}
	lengths := make([]int, len(p.task.Train))
	for i, e := range p.task.Train {
		lengths[i] = e.T
	}
	return datasets.BucketBatches(lengths, batchSize, rng)
}

// Evaluate returns the mean per-step loss over exs (NaN for none).
func (p *Problem) Evaluate(exs []datasets.Example) (float64, error) {
	idx := make([]int, len(exs))
	for i := range idx {
		idx[i] = i
	}
	return p.evalIdx(exs, idx)
}

// evalIdx evaluates in batches of at most EvalBatch examples.
func (p *Problem) evalIdx(exs []datasets.Example, idx []int) (float64, error) {
	var sum, steps float64
	for lo := 0; lo < len(idx); lo += p.cfg.EvalBatch {
		part := idx[lo:min(lo+p.cfg.EvalBatch, len(idx))]
		bt, err := p.buf.Make(p.task, exs, part)
		if err != nil {
			return 0, err
		}
		s, err := p.sumLoss(bt, nil, false)
		if err != nil {
			return 0, err
		}
		sum += s
		steps += bt.Steps()
	}
	return sum / steps, nil
}

func (p *Problem) run(exs []datasets.Example, idx []int, grads *params.Params) (float64, error) {
	bt, err := p.buf.Make(p.task, exs, idx)
	if err != nil {
		return 0, err
	}
	sum, err := p.sumLoss(bt, grads, true)
	if err != nil {
		return 0, err
	}
	n := bt.Steps()
	if grads != nil {
		for _, name := range grads.Names() {
			d := grads.Data(name)
			for i := range d {
				d[i] /= n
			}
		}
	}
	return sum / n, nil
}

// sumLoss runs a batch through the recurrence and returns the summed
// loss; with grads non-nil it adds the gradient of the sum into grads.
// train switches the cell's random ops on.
func (p *Problem) sumLoss(bt datasets.Batch, grads *params.Params, train bool) (float64, error) {
	r, err := p.recurrence(bt.B)
	if err != nil {
		return 0, err
	}
	r.SetNoise(p.seed, train)
	for len(p.aux) < bt.T {
		p.aux = append(p.aux, make([][]float64, 2))
	}
	aux := p.aux[:bt.T]
	for t := range aux {
		aux[t][0], aux[t][1] = bt.Y[t], bt.Mask[t]
	}
	return r.Run(bt.X, aux, grads)
}

// Compile compiles the model's step for a batch size ahead of the first
// batch of that size (LossGrad compiles it on first use otherwise).
func (p *Problem) Compile(batch int) error {
	_, err := p.recurrence(batch)
	return err
}

// recurrence returns the executor for a batch size (see
// ProblemConfig.Executor), set up on first use.
func (p *Problem) recurrence(batch int) (runner, error) {
	if r, ok := p.recs[batch]; ok {
		return r, nil
	}
	cfg := graph.RecurrenceConfig{Truncate: p.cfg.Chunk, Checkpoint: p.cfg.Checkpoint}
	r, err := p.newRunner(batch, cfg)
	if err != nil {
		return nil, errors.Wrap(err, "layers")
	}
	p.recs[batch] = r
	return r, nil
}

// newRunner sets up the executor for a batch size: the one chosen
// (chooseExecutor) for batch 1 when the Problem was built and recorded in
// p.exec, warning once when it is the graphs by default.
func (p *Problem) newRunner(batch int, cfg graph.RecurrenceConfig) (runner, error) {
	if p.exec.Kind == "" {
		kind, reason, err := p.seq.chooseExecutor(p.cfg)
		if err != nil {
			return nil, err
		}
		p.exec = ExecutorInfo{Kind: kind, DType: p.dtype(), Reason: reason}
		if p.cfg.Executor == "" && kind == ExecGraph {
			p.warn(fmt.Sprintf("layers: warning: the cell %T falls back to gorgonia's compiled graphs, several times slower than the tape: %s", p.seq.Cell, reason))
		}
	}
	return p.build(p.exec.Kind, batch, cfg)
}

// build sets up the executor of a kind for a batch size in the problem's
// dtype.
func (p *Problem) build(kind string, batch int, cfg graph.RecurrenceConfig) (runner, error) {
	switch kind {
	case ExecFused:
		r, ok, err := p.fused(batch, cfg)
		if !ok {
			return nil, errors.Errorf("executor %q: the cell %T has no %s kernel", ExecFused, p.seq.Cell, p.dtype())
		}
		return r, err
	case ExecTape:
		if p.cfg.DType == graph.Float32 {
			return p.seq.TapeRecurrence32(batch, cfg)
		}
		return p.seq.TapeRecurrence(batch, cfg)
	}
	if p.cfg.DType == graph.Float32 {
		return nil, errors.Errorf("executor %q runs float64 only, not dtype %s", ExecGraph, graph.Float32)
	}
	return p.seq.Recurrence(batch, cfg)
}

// fused sets up the cell's kernel in the problem's dtype; ok is false
// when the cell has none.
func (p *Problem) fused(batch int, cfg graph.RecurrenceConfig) (runner, bool, error) {
	var (
		r   *graph.FusedRecurrence
		ok  bool
		err error
	)
	if p.cfg.DType == graph.Float32 {
		r, ok, err = p.seq.FusedRecurrence32(batch, cfg)
	} else {
		r, ok, err = p.seq.FusedRecurrence(batch, cfg)
	}
	if !ok || err != nil {
		return nil, ok, err
	}
	return r, true, nil
}

func (p *Problem) dtype() string {
	if p.cfg.DType == "" {
		return graph.Float64
	}
	return p.cfg.DType
}

// warn writes a warning to ProblemConfig.Log, or to the standard log.
func (p *Problem) warn(msg string) {
	if p.cfg.Log != nil {
		fmt.Fprintln(p.cfg.Log, msg)
		return
	}
	log.Print(msg)
}
