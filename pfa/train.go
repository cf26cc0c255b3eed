package pfa

import (
	"math"
	"math/rand/v2"
	"time"

	"github.com/pkg/errors"

	"github.com/rtnlab/rtn/datasets"
	"github.com/rtnlab/rtn/optim"
	"github.com/rtnlab/rtn/params"
)

// Problem is the training problem of a model on strings: the mean
// negative log-likelihood (nats per string) of the training strings, with
// the validation strings for early stopping. The examples are the
// training strings; a batch runs the kernel once per distinct string in
// it, weighted by its count there. It implements optim.Problem, optim.Evaluator and
// optim.Validator, so any optimizer of the optim registry trains it.
type Problem struct {
	m             *Model
	params        *params.Params
	probs         *Probs
	ev            Evaluator
	st            Stats
	counts, grads [][]float64
	train, valid  [][]int
	tw, vw        []float64
	// occ maps each training string (an example) to its distinct string;
	// bw and bidx are a batch's counts per distinct string and its
	// distinct strings.
	occ []int
	bw  []float64
	// trainTrie and validTrie hold the same strings as prefix trees, for
	// the passes over a whole set.
	trainTrie, validTrie *Trie
	bidx                 []int
	best                 *Model
	bestLoss             float64
}

// NewProblem builds the problem from a start (copied) and the training
// and validation strings, compressed to distinct strings with their
// counts; jobs workers compute the losses (the same bits for any number).
func NewProblem(start *Model, train, valid [][]int, jobs int) (*Problem, error) {
	if err := start.Validate(); err != nil {
		return nil, err
	}
	if len(train) == 0 {
		return nil, errors.New("pfa: no training strings")
	}
	for _, s := range [][][]int{train, valid} {
		if err := CheckStrings(s, start.Symbols); err != nil {
			return nil, err
		}
	}
	m := start.Clone()
	p := &Problem{m: m, params: params.New(), probs: m.Probs(), ev: Evaluator{Jobs: jobs},
		counts: m.newBlockBuffers(), grads: m.newBlockBuffers(), bestLoss: math.Inf(1)}
	for _, b := range m.blocks() {
		if _, err := p.params.Add(b.name, b.rows, b.cols); err != nil {
			return nil, err
		}
		if err := p.params.Set(b.name, *b.data); err != nil {
			return nil, err
		}
	}
	p.train, p.tw, p.occ = compressIndex(train)
	p.valid, p.vw = Compress(valid)
	p.bw = make([]float64, len(p.train))
	p.trainTrie, p.validTrie = NewTrie(p.train, p.tw), NewTrie(p.valid, p.vw)
	return p, nil
}

// Params are the logits, one tensor per block (init, row for a PFA; init,
// stop, emit, trans for an HMM).
func (p *Problem) Params() *params.Params { return p.params }

// NumExamples is the number of training strings.
func (p *Problem) NumExamples() int { return len(p.occ) }

// gather sets p.bidx to the distinct strings of the batch of examples in
// order of first appearance and p.bw to their counts in it; release
// clears p.bw after use.
func (p *Problem) gather(batch []int) {
	p.bidx = p.bidx[:0]
	for _, e := range batch {
		u := p.occ[e]
		if p.bw[u] == 0 {
			p.bidx = append(p.bidx, u)
		}
		p.bw[u]++
	}
}

func (p *Problem) release() {
	for _, u := range p.bidx {
		p.bw[u] = 0
	}
}

// stats computes the statistics of a batch of examples (all of them when
// batch is nil).
func (p *Problem) stats(batch []int, counts bool) {
	if batch == nil {
		p.ev.TrieStats(p.probs, p.trainTrie, counts, &p.st)
		return
	}
	p.gather(batch)
	p.ev.Stats(p.probs, p.train, p.bw, p.bidx, counts, &p.st)
	p.release()
}

// sync copies the parameters into the model and its probabilities.
func (p *Problem) sync() {
	for _, b := range p.m.blocks() {
		copy(*b.data, p.params.Data(b.name))
	}
	p.m.ProbsInto(p.probs)
}

// LossGrad is the weighted mean loss over the batch and its gradient.
func (p *Problem) LossGrad(batch []int, grads *params.Params) (float64, error) {
	p.sync()
	p.stats(batch, true)
	if p.st.Impossible > 0 {
		return math.Inf(1), nil
	}
	p.m.gradInto(p.probs, &p.st, p.counts, p.grads)
	for i, b := range p.m.blocks() {
		copy(grads.Data(b.name), p.grads[i])
	}
	return -p.st.LogLik / p.st.Weight, nil
}

// Loss is the weighted mean loss over the batch.
func (p *Problem) Loss(batch []int) (float64, error) {
	p.sync()
	p.stats(batch, false)
	if p.st.Impossible > 0 {
		return math.Inf(1), nil
	}
	return -p.st.LogLik / p.st.Weight, nil
}

// ValidationLoss is the mean loss (nats per string) on the validation
// strings; it records the best model seen. With no validation strings it
// is the loss on the training strings.
func (p *Problem) ValidationLoss() (float64, error) {
	var l float64
	if len(p.valid) == 0 {
		l, _ = p.Loss(nil)
	} else {
		p.sync()
		var st Stats
		p.ev.TrieStats(p.probs, p.validTrie, false, &st)
		l = math.Inf(1)
		if st.Impossible == 0 {
			l = -st.LogLik / st.Weight
		}
	}
	if l < p.bestLoss {
		p.bestLoss, p.best = l, p.m.Clone()
	}
	return l, nil
}

// SetLoss is the mean loss (nats per string) of the current model on
// strings with weights (nil: 1 each), +Inf when one is impossible.
func (p *Problem) SetLoss(seqs [][]int, weights []float64) float64 {
	p.sync()
	var st Stats
	p.ev.Stats(p.probs, seqs, weights, nil, false, &st)
	if st.Impossible > 0 {
		return math.Inf(1)
	}
	return -st.LogLik / st.Weight
}

// Best returns the model of the lowest validation loss seen and that loss
// (the current model and +Inf before any validation).
func (p *Problem) Best() (*Model, float64) {
	if p.best == nil {
		p.sync()
		return p.m.Clone(), math.Inf(1)
	}
	return p.best.Clone(), p.bestLoss
}

// TrainConfig sets Train and EM. The zero value trains with Adam at rate
// 0.05 on batches of 256 strings for at most 100 epochs; at each
// epoch without validation improvement the best logits are restored and
// the rate divided by 10, and the third such epoch ends training.
type TrainConfig struct {
	// Optimizer is a name from the optim registry. If empty, it will be
	// defaulted to "adam".
	Optimizer string
	// Optim holds its hyperparameters. If Optim.LR is 0, it will be
	// defaulted to 0.05.
	Optim optim.Config
	// Epochs is the most epochs (EM: passes over the training strings)
	// run. If 0, it will be defaulted to 100.
	Epochs int
	// BatchSize is the number of strings per step. If 0, it
	// will be defaulted to 256.
	BatchSize int
	// Patience is the number of epochs without validation improvement
	// before a drop of the rate (EM: before stopping). If 0, it will be
	// defaulted to 1 (EM: 3).
	Patience int
	// Tolerance is EM's relative improvement threshold: an iteration
	// counts as better only when it lowers the best validation loss by
	// more than Tolerance times that loss (the best model is kept
	// whatever the margin). 0 counts any improvement.
	Tolerance float64
	// EMAccel is EM's acceleration: EMPlain or EMSquarem (see EM). If
	// empty, it will be defaulted to EMPlain.
	EMAccel string
	// Seed draws the batches. If 0, it will be defaulted to 1.
	Seed uint64
	// Jobs is the number of workers; the result is the same for any. If
	// 0, it will be defaulted to 1.
	Jobs int
	// Deadline, when not zero, ends training at the first epoch that ends
	// after it, keeping the best model so far (the result then depends on
	// the machine's speed).
	Deadline time.Time
}

// WithDefaults fills in the defaults of c.
func (c TrainConfig) WithDefaults() TrainConfig {
	if c.Optimizer == "" {
		c.Optimizer = "adam"
	}
	if c.Optim.LR == 0 {
		c.Optim.LR = 0.05
	}
	if c.Epochs == 0 {
		c.Epochs = 100
	}
	if c.BatchSize == 0 {
		c.BatchSize = 256
	}
	if c.EMAccel == "" {
		c.EMAccel = EMPlain
	}
	if c.Seed == 0 {
		c.Seed = 1
	}
	if c.Jobs == 0 {
		c.Jobs = 1
	}
	return c
}

// Validate checks c after WithDefaults.
func (c TrainConfig) Validate() error {
	if !(c.Tolerance >= 0 && c.Tolerance < 1) {
		return errors.Errorf("pfa: tolerance %g, want it in [0, 1)", c.Tolerance)
	}
	if c.Epochs < 0 || c.BatchSize < 0 || c.Patience < 0 || c.Jobs < 0 {
		return errors.Errorf("pfa: epochs %d, batch size %d, patience %d and jobs %d must not be negative", c.Epochs, c.BatchSize, c.Patience, c.Jobs)
	}
	if c.EMAccel != EMSquarem && c.EMAccel != EMPlain {
		return errors.Errorf("pfa: EM acceleration %q, want %s or %s", c.EMAccel, EMSquarem, EMPlain)
	}
	if !(c.Optim.LR > 0) || math.IsInf(c.Optim.LR, 0) {
		return errors.Errorf("pfa: learning rate %g, want a positive number", c.Optim.LR)
	}
	return nil
}

// Report describes a training run.
type Report struct {
	// Method is "gradient/<optimizer>" or "em/<acceleration>".
	Method string `json:"method"`
	// StartValid and BestValid are the validation losses (nats per
	// string) of the start and of the returned model.
	StartValid float64 `json:"start_valid"`
	BestValid  float64 `json:"best_valid"`
	// Epochs is the number of epochs (EM: passes over the training
	// strings) run; BestEpoch the one of the returned model (0: the
	// start).
	Epochs    int `json:"epochs"`
	BestEpoch int `json:"best_epoch"`
	// Trace (EM only) is the training loss of each accepted iterate, in
	// order.
	Trace []EMStep `json:"trace,omitempty"`
	// Deadline reports that the deadline ended training.
	Deadline bool `json:"deadline,omitempty"`
	// Seconds is the wall time.
	Seconds float64 `json:"seconds"`
}

// errDeadline ends a training run at its deadline.
var errDeadline = errors.New("pfa: deadline")

// Train fine-tunes start on the strings train by gradient descent on the
// logits, with valid for early stopping, and returns the model of the best
// validation loss (never worse there than the start).
func Train(start *Model, train, valid [][]int, cfg TrainConfig) (*Model, *Report, error) {
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, nil, err
	}
	began := time.Now()
	p, err := NewProblem(start, train, valid, cfg.Jobs)
	if err != nil {
		return nil, nil, err
	}
	opt, err := optim.New(cfg.Optimizer, cfg.Optim)
	if err != nil {
		return nil, nil, err
	}
	tc := optim.TrainConfig{Epochs: cfg.Epochs, BatchSize: cfg.BatchSize, Seed: cfg.Seed, Patience: max(cfg.Patience, 1),
		MaxDrops: 3, RestoreOnDrop: true, ResetOnDrop: true, DivergeFactor: math.Inf(1)}
	if !cfg.Deadline.IsZero() {
		tc.Hooks = []optim.Hook{{Name: "deadline", EveryEpoch: true, Fn: func(*optim.State) error {
			if time.Now().After(cfg.Deadline) {
				return errDeadline
			}
			return nil
		}}}
	}
	t, err := optim.NewTrainer(p, opt, tc)
	if err != nil {
		return nil, nil, err
	}
	rep := &Report{Method: "gradient/" + cfg.Optimizer}
	res, err := t.Run()
	switch {
	case errors.Is(err, errDeadline):
		rep.Deadline = true
	case err != nil && !optim.IsDiverged(err) && !isNonFinite(err):
		return nil, nil, err
	}
	if len(res.History) > 0 || res.Epochs > 0 {
		rep.Epochs, rep.BestEpoch = res.Epochs, res.BestEpoch
	}
	best, loss := p.Best()
	rep.BestValid = loss
	rep.StartValid = startLoss(start, valid, train, cfg.Jobs)
	rep.Seconds = time.Since(began).Seconds()
	return best, rep, nil
}

func isNonFinite(err error) bool {
	var nf *optim.NonFiniteError
	return errors.As(err, &nf)
}

// startLoss is the validation loss of the start (the training loss when
// there are no validation strings).
func startLoss(m *Model, valid, train [][]int, jobs int) float64 {
	seqs := valid
	if len(seqs) == 0 {
		seqs = train
	}
	u, w := Compress(seqs)
	var ev Evaluator
	ev.Jobs = jobs
	var st Stats
	ev.Stats(m.Probs(), u, w, nil, false, &st)
	if st.Impossible > 0 {
		return math.Inf(1)
	}
	return -st.LogLik / st.Weight
}

// Split splits seqs into training and validation strings: a share
// validFraction of them, drawn from seed, held out.
func Split(seqs [][]int, validFraction float64, seed uint64) (train, valid [][]int, err error) {
	tr, va, _, err := datasets.Split(len(seqs), validFraction, 0, rand.New(rand.NewPCG(seed, 1)))
	if err != nil {
		return nil, nil, err
	}
	for _, i := range tr {
		train = append(train, seqs[i])
	}
	for _, i := range va {
		valid = append(valid, seqs[i])
	}
	return train, valid, nil
}
