package wfa

import (
	"math"
	"math/rand/v2"
	"slices"

	"github.com/pkg/errors"
	"gonum.org/v1/gonum/mat"

	"github.com/rtnlab/rtn/datasets"
	"github.com/rtnlab/rtn/graph"
	"github.com/rtnlab/rtn/optim"
	"github.com/rtnlab/rtn/spectral"
)

// Parameter names of the linear 2-RNN a WFA becomes (Theorem 2 of the
// 2-RNN paper): alpha [n], A [n, d, n] with A[i, s, j] = A_s[i, j], and
// omega [n].
const (
	ParamAlpha = "alpha"
	ParamA     = "A"
	ParamOmega = "omega"
)

// Likelihood is the training problem of Finetune: the mean negative
// log-likelihood of strings under the WFA read as a distribution,
//
//	loss = -(1/B) sum_x log max(f(x), Floor) + log Z,  Z = alpha^T (I - S)^-1 omega,
//
// with S = sum_s A_s. Z is the exact normaliser (the sum of f over all
// strings) while the spectral radius of S is below 1; outside that region,
// or when Z <= 0, the loss is +Inf and the Trainer stops, keeping the best
// validated parameters. A string whose value is at the floor contributes
// log Floor and no gradient. It implements optim.Problem, optim.Evaluator
// and optim.Validator.
type Likelihood struct {
	n, d   int
	params *graph.Params
	train  [][]int
	valid  *EvalSet
	// best holds the parameters of the lowest validation loss seen.
	best     *graph.Params
	bestLoss float64
}

// NewLikelihood builds the problem from a WFA (its parameters are copied)
// and the training and validation strings.
func NewLikelihood(w spectral.WFA, train, valid [][]int) (*Likelihood, error) {
	if err := w.Validate(); err != nil {
		return nil, err
	}
	if w.Out != 1 {
		return nil, errors.Errorf("wfa: fine-tuning a WFA with %d outputs, want 1", w.Out)
	}
	if len(train) == 0 || len(valid) == 0 {
		return nil, errors.Errorf("wfa: fine-tuning on %d training and %d validation strings", len(train), len(valid))
	}
	n, d := w.States, len(w.Trans)
	p := graph.NewParams()
	rnn := w.RNN()
	for _, a := range []struct {
		name  string
		shape []int
		v     []float64
	}{{ParamAlpha, []int{n}, rnn.Alpha}, {ParamA, []int{n, d, n}, rnn.A}, {ParamOmega, []int{n}, rnn.Omega}} {
		if _, err := p.Add(a.name, a.shape...); err != nil {
			return nil, err
		}
		if err := p.Set(a.name, a.v); err != nil {
			return nil, err
		}
	}
	return &Likelihood{n: n, d: d, params: p, train: train, valid: NewEvalSet(valid), bestLoss: math.Inf(1)}, nil
}

// Params are alpha, A and omega.
func (l *Likelihood) Params() *graph.Params { return l.params }

// NumExamples is the number of training strings.
func (l *Likelihood) NumExamples() int { return len(l.train) }

// WFA returns the automaton of the current parameters.
func (l *Likelihood) WFA() spectral.WFA {
	r := spectral.RNN{States: l.n, In: l.d, Out: 1, Alpha: slices.Clone(l.params.Data(ParamAlpha)),
		A: slices.Clone(l.params.Data(ParamA)), Omega: slices.Clone(l.params.Data(ParamOmega))}
	return r.WFA()
}

// Best returns the automaton of the lowest validation loss seen (the
// current one before any validation).
func (l *Likelihood) Best() spectral.WFA {
	if l.best == nil {
		return l.WFA()
	}
	cur := l.params.Clone()
	_ = l.params.CopyFrom(l.best)
	w := l.WFA()
	_ = l.params.CopyFrom(cur)
	return w
}

// LossGrad is the mean loss over the batch and its gradient.
func (l *Likelihood) LossGrad(batch []int, grads *graph.Params) (float64, error) {
	grads.Zero()
	return l.loss(batch, grads)
}

// Loss is the mean loss over the batch.
func (l *Likelihood) Loss(batch []int) (float64, error) { return l.loss(batch, nil) }

// ValidationLoss is the loss on the validation strings (each distinct
// string weighted by its frequency); it records the best parameters.
func (l *Likelihood) ValidationLoss() (float64, error) {
	z, _, _, ok := l.normaliser()
	if !ok {
		return math.Inf(1), nil
	}
	w := l.WFA()
	nll := 0.0
	for i, s := range l.valid.Seqs {
		nll -= l.valid.Weights[i] * math.Log(max(w.Value(s), Floor))
	}
	loss := nll + math.Log(z)
	if loss < l.bestLoss {
		l.bestLoss = loss
		l.best = l.params.Clone()
	}
	return loss, nil
}

// normaliser returns Z, beta = (I - S)^-1 omega and gamma^T =
// alpha^T (I - S)^-1, and whether the automaton is normalisable (spectral
// radius of S below 1 and Z > 0).
func (l *Likelihood) normaliser() (z float64, beta, gamma []float64, ok bool) {
	n, d := l.n, l.d
	a := l.params.Data(ParamA)
	ims := mat.NewDense(n, n, nil)
	for i := range n {
		for s := range d {
			row := a[(i*d+s)*n : (i*d+s+1)*n]
			for j, v := range row {
				ims.Set(i, j, ims.At(i, j)-v)
			}
		}
		ims.Set(i, i, ims.At(i, i)+1)
	}
	var e mat.Eigen
	if !e.Factorize(ims, mat.EigenNone) {
		return 0, nil, nil, false
	}
	for _, v := range e.Values(nil) {
		// eigenvalues of I - S are 1 - lambda; |lambda| < 1 is required.
		if lam := complex(1, 0) - v; real(lam)*real(lam)+imag(lam)*imag(lam) >= 1 {
			return 0, nil, nil, false
		}
	}
	var lu mat.LU
	lu.Factorize(ims)
	var bv, gv mat.VecDense
	if err := lu.SolveVecTo(&bv, false, mat.NewVecDense(n, slices.Clone(l.params.Data(ParamOmega)))); err != nil {
		return 0, nil, nil, false
	}
	if err := lu.SolveVecTo(&gv, true, mat.NewVecDense(n, slices.Clone(l.params.Data(ParamAlpha)))); err != nil {
		return 0, nil, nil, false
	}
	beta, gamma = bv.RawVector().Data, gv.RawVector().Data
	z = dot(l.params.Data(ParamAlpha), beta)
	return z, beta, gamma, z > 0 && !math.IsInf(z, 0)
}

// loss computes the batch loss and, when grads is not nil, adds its
// gradient.
func (l *Likelihood) loss(batch []int, grads *graph.Params) (float64, error) {
	z, beta, gamma, ok := l.normaliser()
	if !ok {
		return math.Inf(1), nil
	}
	n, d := l.n, l.d
	alpha, a, omega := l.params.Data(ParamAlpha), l.params.Data(ParamA), l.params.Data(ParamOmega)
	inv := 1 / float64(len(batch))
	var ga, gA, go_ []float64
	if grads != nil {
		ga, gA, go_ = grads.Data(ParamAlpha), grads.Data(ParamA), grads.Data(ParamOmega)
	}
	var fw, bw [][]float64
	nll := 0.0
	for _, b := range batch {
		x := l.train[b]
		k := len(x)
		fw, bw = grow(fw, k+1, n), grow(bw, k+1, n)
		// Forward rows l_t = alpha^T A_x1..A_xt and backward columns
		// r_t = A_x(t+1)..A_xk omega, each rescaled to max-norm 1 with the
		// log scales summed, so long strings neither underflow nor overflow.
		copy(fw[0], alpha)
		logScale := rescale(fw[0])
		for t, s := range x {
			clear(fw[t+1])
			for i, h := range fw[t] {
				row := a[(i*d+s)*n : (i*d+s+1)*n]
				for j, v := range row {
					fw[t+1][j] += h * v
				}
			}
			logScale += rescale(fw[t+1])
		}
		f := dot(fw[k], omega)
		if !(f > 0) || math.Log(f)+logScale < math.Log(Floor) {
			nll -= math.Log(Floor)
			continue
		}
		nll -= math.Log(f) + logScale
		if grads == nil {
			continue
		}
		copy(bw[k], omega)
		rescale(bw[k])
		for t := k - 1; t >= 0; t-- {
			s := x[t]
			for i := range n {
				row := a[(i*d+s)*n : (i*d+s+1)*n]
				bw[t][i] = dot(row, bw[t+1])
			}
			rescale(bw[t])
		}
		// d log f / d A_{x_t}[i, j] = l_{t-1}[i] r_t[j] / (l_{t-1}^T A_{x_t} r_t),
		// a ratio in which the scales cancel.
		for t, s := range x {
			den := 0.0
			for i, h := range fw[t] {
				den += h * dot(a[(i*d+s)*n:(i*d+s+1)*n], bw[t+1])
			}
			c := -inv / den
			for i, h := range fw[t] {
				g := gA[(i*d+s)*n : (i*d+s+1)*n]
				for j, v := range bw[t+1] {
					g[j] += c * h * v
				}
			}
		}
		c0 := -inv / dot(alpha, bw[0])
		for i, v := range bw[0] {
			ga[i] += c0 * v
		}
		ck := -inv / dot(fw[k], omega)
		for i, v := range fw[k] {
			go_[i] += ck * v
		}
	}
	if grads != nil {
		// d log Z: beta / Z for alpha, gamma / Z for omega, gamma beta^T / Z
		// for every A_s.
		for i := range n {
			ga[i] += beta[i] / z
			go_[i] += gamma[i] / z
			for s := range d {
				g := gA[(i*d+s)*n : (i*d+s+1)*n]
				for j := range n {
					g[j] += gamma[i] * beta[j] / z
				}
			}
		}
	}
	return nll*inv + math.Log(z), nil
}

// grow returns m rows of n values, reusing v.
func grow(v [][]float64, m, n int) [][]float64 {
	for len(v) < m {
		v = append(v, make([]float64, n))
	}
	return v
}

// rescale divides v by its largest magnitude and returns the log of that
// magnitude (0 for a zero vector).
func rescale(v []float64) float64 {
	m := 0.0
	for _, x := range v {
		m = max(m, math.Abs(x))
	}
	if m == 0 || math.IsInf(m, 0) {
		return 0
	}
	for i := range v {
		v[i] /= m
	}
	return math.Log(m)
}

func dot(a, b []float64) float64 {
	s := 0.0
	for i, v := range a {
		s += v * b[i]
	}
	return s
}

// FinetuneConfig sets Finetune. The zero value trains with Adam at its
// default rate, 20 epochs of batches of 64 strings, early stopping after 2
// epochs without validation improvement, on a 90/10 split with seed 1.
type FinetuneConfig struct {
	// Optimizer is a name from the optim registry. If empty, it will be
	// defaulted to "adam".
	Optimizer string
	// Optim holds its hyperparameters (zero values take the optimizer's
	// defaults).
	Optim optim.Config
	// Epochs is the most epochs run. If 0, it will be defaulted to 20.
	Epochs int
	// BatchSize is the number of strings per step. If 0, it will be
	// defaulted to 64.
	BatchSize int
	// Patience is the number of epochs without validation improvement
	// that ends training. If 0, it will be defaulted to 2.
	Patience int
	// ValidFraction is the share of strings held out for early stopping.
	// If 0, it will be defaulted to 0.1.
	ValidFraction float64
	// Seed draws the split and the batches. If 0, it will be defaulted to 1.
	Seed uint64
	// Train is passed to the Trainer (checkpoints, metrics, progress,
	// hooks); its Epochs, BatchSize, Seed, Patience and MaxDrops are set
	// from the fields above.
	Train optim.TrainConfig
}

// FinetuneReport describes a Finetune run.
type FinetuneReport struct {
	// Result is the Trainer's summary (nil when training stopped at once).
	Result *optim.Result
	// InitialValid and BestValid are the validation losses (nats per
	// string) of the starting and the returned automaton.
	InitialValid, BestValid float64
	// Stopped explains an early end other than patience ("" otherwise).
	Stopped string
}

// Finetune trains the model's WFA, as a linear 2-RNN, on the
// log-likelihood of the strings of s (see Likelihood), with the
// validation split used for early stopping, and returns the automaton of
// the best validation loss (never worse on validation than the start).
func Finetune(m *Model, s datasets.Symbols, cfg FinetuneConfig) (*Model, *FinetuneReport, error) {
	if cfg.Optimizer == "" {
		cfg.Optimizer = "adam"
	}
	if cfg.Epochs == 0 {
		cfg.Epochs = 20
	}
	if cfg.BatchSize == 0 {
		cfg.BatchSize = 64
	}
	if cfg.Patience == 0 {
		cfg.Patience = 2
	}
	if cfg.ValidFraction == 0 {
		cfg.ValidFraction = 0.1
	}
	if cfg.Seed == 0 {
		cfg.Seed = 1
	}
	if len(s.Alphabet) > len(m.Alphabet) {
		return nil, nil, errors.Errorf("wfa: the strings use %d symbols, the model knows %d", len(s.Alphabet), len(m.Alphabet))
	}
	opt, err := optim.New(cfg.Optimizer, cfg.Optim)
	if err != nil {
		return nil, nil, err
	}
	tr, va, _, err := datasets.Split(len(s.Seqs), cfg.ValidFraction, 0, rand.New(rand.NewPCG(cfg.Seed, 1)))
	if err != nil {
		return nil, nil, err
	}
	p, err := NewLikelihood(m.WFA, pick(s.Seqs, tr), pick(s.Seqs, va))
	if err != nil {
		return nil, nil, err
	}
	rep := &FinetuneReport{}
	if rep.InitialValid, err = p.ValidationLoss(); err != nil {
		return nil, nil, err
	}
	if math.IsInf(rep.InitialValid, 1) {
		return nil, nil, errors.New("wfa: the automaton is not normalisable (spectral radius of sum_s A_s >= 1 or mass <= 0); fine-tuning needs a distribution")
	}
	tc := cfg.Train
	tc.Epochs, tc.BatchSize, tc.Seed, tc.Patience, tc.MaxDrops = cfg.Epochs, cfg.BatchSize, cfg.Seed, cfg.Patience, 1
	t, err := optim.NewTrainer(p, opt, tc)
	if err != nil {
		return nil, nil, err
	}
	rep.Result, err = t.Run()
	var nf *optim.NonFiniteError
	if errors.As(err, &nf) {
		rep.Stopped = nf.Error()
	} else if err != nil {
		return nil, nil, err
	}
	rep.BestValid = p.bestLoss
	out := &Model{WFA: p.Best(), Alphabet: slices.Clone(m.Alphabet), Spec: m.Spec, Finetuned: true}
	return out, rep, nil
}
