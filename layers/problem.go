package layers

import (
	"math/rand/v2"

	"github.com/pkg/errors"

	"github.com/rtnlab/rtn/datasets"
	"github.com/rtnlab/rtn/graph"
)

// ProblemConfig sets how a Problem cuts sequences into graphs. The zero
// value is usable.
type ProblemConfig struct {
	// Chunk is the truncated-BPTT length: sequences longer than Chunk are
	// processed in chunks of Chunk steps, the state carried from one to
	// the next and gradients stopped at chunk boundaries. If Chunk is 0,
	// it will be defaulted to 100 (about 4k graph nodes for an LSTM:
	// gorgonia's compile time is quadratic in graph size). The chunk graph
	// is min(Chunk, longest sequence of the task) steps long and every
	// batch is padded with masked steps to a whole number of chunks, so a
	// handful of graphs are compiled once and reused.
	Chunk int
	// EvalBatch is the batch size used by Loss on more than EvalBatch
	// examples and by ValidationLoss and TestLoss. If EvalBatch is 0, it
	// will be defaulted to 64.
	EvalBatch int
	// Bucket makes training batches out of sequences of similar length
	// (datasets.BucketBatches) instead of a plain shuffle.
	Bucket bool
}

// Problem trains a Sequence on a datasets.Task. It implements
// optim.Problem, optim.Evaluator, optim.Validator and optim's Batcher. The loss is the mean per-step loss over the
// unpadded steps of a batch, in nats.
type Problem struct {
	seq    *Sequence
	task   *datasets.Task
	cfg    ProblemConfig
	steps  int
	chunks map[chunkKey]*chunk
}

type chunkKey struct {
	batch       int
	carry, grad bool
}

// NewProblem checks that the task fits the model and returns the problem.
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
	if cfg.Chunk < 0 || cfg.EvalBatch < 0 {
		return nil, errors.Errorf("layers: chunk and eval batch must not be negative, got %d, %d", cfg.Chunk, cfg.EvalBatch)
	}
	if cfg.Chunk == 0 {
		cfg.Chunk = 100
	}
	if cfg.EvalBatch == 0 {
		cfg.EvalBatch = 64
	}
	longest := 0
	for _, set := range [][]datasets.Example{task.Train, task.Valid, task.Test} {
		for _, e := range set {
			longest = max(longest, e.T)
		}
	}
	return &Problem{seq: seq, task: task, cfg: cfg, steps: min(cfg.Chunk, longest), chunks: map[chunkKey]*chunk{}}, nil
}

// Params implements optim.Problem.
func (p *Problem) Params() *graph.Params { return p.seq.Params }

// NumExamples implements optim.Problem.
func (p *Problem) NumExamples() int { return len(p.task.Train) }

// LossGrad implements optim.Problem: the mean per-step loss of the
// training examples in batch and its (truncated-BPTT) gradient.
func (p *Problem) LossGrad(batch []int, grads *graph.Params) (float64, error) {
	grads.Zero()
	return p.run(p.task.Train, batch, grads)
}

// Loss implements optim.Evaluator: the loss LossGrad would return for the
// same batch, computed the same way (one batch, not split), without the
// gradient.
func (p *Problem) Loss(batch []int) (float64, error) { return p.run(p.task.Train, batch, nil) }

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
		bt, err := datasets.MakeBatch(p.task, exs, part)
		if err != nil {
			return 0, err
		}
		s, err := p.sumLoss(bt, nil)
		if err != nil {
			return 0, err
		}
		sum += s
		steps += bt.Steps()
	}
	return sum / steps, nil
}

func (p *Problem) run(exs []datasets.Example, idx []int, grads *graph.Params) (float64, error) {
	bt, err := datasets.MakeBatch(p.task, exs, idx)
	if err != nil {
		return 0, err
	}
	sum, err := p.sumLoss(bt, grads)
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

// sumLoss runs a padded batch chunk by chunk, carrying the state, and
// returns the summed loss; with grads non-nil it adds the gradient of the
// sum into grads.
func (p *Problem) sumLoss(bt datasets.Batch, grads *graph.Params) (float64, error) {
	padded := bt
	if r := bt.T % p.steps; r != 0 {
		padded = padSteps(bt, bt.T+p.steps-r)
	}
	var (
		total float64
		state [][]float64
	)
	for k, part := range padded.Chunks(p.steps) {
		c, err := p.chunk(bt.B, k > 0, grads != nil)
		if err != nil {
			return 0, err
		}
		if err := p.bind(c, part, state); err != nil {
			return 0, err
		}
		if err := c.m.Run(); err != nil {
			return 0, err
		}
		total += c.m.Loss()
		if grads != nil {
			if err := c.m.AddGrads(grads); err != nil {
				return 0, err
			}
		}
		state = state[:0]
		for _, n := range c.u.StateOut {
			v, err := c.m.Value(n)
			if err != nil {
				return 0, err
			}
			state = append(state, v)
		}
	}
	return total, nil
}

func (p *Problem) bind(c *chunk, part datasets.Batch, state [][]float64) error {
	for t := 0; t < p.steps; t++ {
		if err := c.m.Let(c.u.Inputs[t], part.X[t]); err != nil {
			return err
		}
		if err := c.m.Let(c.targets[t], part.Y[t]); err != nil {
			return err
		}
		if err := c.m.Let(c.masks[t], part.Mask[t]); err != nil {
			return err
		}
	}
	for i, n := range c.u.StateIn {
		if err := c.m.Let(n, state[i]); err != nil {
			return err
		}
	}
	return nil
}

func (p *Problem) chunk(batch int, carry, grad bool) (*chunk, error) {
	k := chunkKey{batch: batch, carry: carry, grad: grad}
	if c, ok := p.chunks[k]; ok {
		return c, nil
	}
	c, err := p.seq.buildChunk(batch, p.steps, carry, grad)
	if err != nil {
		return nil, err
	}
	p.chunks[k] = c
	return c, nil
}

// padSteps appends masked, all-zero steps to a batch up to T steps.
func padSteps(bt datasets.Batch, T int) datasets.Batch {
	out := bt
	out.X = append([][]float64(nil), bt.X...)
	out.Y = append([][]float64(nil), bt.Y...)
	out.Mask = append([][]float64(nil), bt.Mask...)
	for t := bt.T; t < T; t++ {
		out.X = append(out.X, make([]float64, bt.B*bt.In))
		out.Y = append(out.Y, make([]float64, bt.B*bt.Out))
		out.Mask = append(out.Mask, make([]float64, bt.B))
	}
	out.T = T
	return out
}
