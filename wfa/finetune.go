package wfa

import (
	"math"
	"math/rand/v2"
	"slices"

	"github.com/pkg/errors"
	"gonum.org/v1/gonum/mat"

	"github.com/rtnlab/rtn/datasets"
	"github.com/rtnlab/rtn/internal/vec"
	"github.com/rtnlab/rtn/optim"
	"github.com/rtnlab/rtn/params"
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
// log-likelihood of strings under the WFA read as a distribution through
// its next-symbol probabilities (see loss), which equals
//
//	-(1/B) sum_x [log f(x) - log Z],  Z = alpha^T (I - S)^-1 omega,  S = sum_s A_s,
//
// wherever the automaton gives no negative next-symbol weight, Z being the
// exact normaliser (the sum of f over all strings) while the spectral
// radius of S is below 1. Elsewhere each next-symbol weight counts by its
// absolute value, so the loss is that of a proper distribution, bounded
// below by 0 and differentiable wherever no weight is 0 and no step is
// floored (see condFloor): the plain form -log f + log Z is not bounded,
// since a signed automaton can push Z to 0 by giving negative values to
// unseen strings.
// Outside the normalisable region (radius >= 1) the loss is +Inf and the
// Trainer stops, keeping the best validated parameters. It implements
// optim.Problem, optim.Evaluator and optim.Validator.
type Likelihood struct {
	n, d   int
	params *params.Params
	train  [][]int
	valid  *EvalSet
	// best holds the parameters of the lowest validation loss seen.
	best     *params.Params
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
	p := params.New()
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
func (l *Likelihood) Params() *params.Params { return l.params }

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
func (l *Likelihood) LossGrad(batch []int, grads *params.Params) (float64, error) {
	grads.Zero()
	return l.loss(batch, grads)
}

// Loss is the mean loss over the batch.
func (l *Likelihood) Loss(batch []int) (float64, error) { return l.loss(batch, nil) }

// ValidationLoss is the loss (nats per string) on the validation strings,
// each distinct string weighted by its frequency: the training objective,
// a proper likelihood that cannot be lowered by moving mass onto negative
// values. It records the best parameters.
func (l *Likelihood) ValidationLoss() (float64, error) {
	loss := l.lossOn(l.valid.Seqs, l.valid.Weights, nil)
	if loss < l.bestLoss {
		l.bestLoss = loss
		l.best = l.params.Clone()
	}
	return loss, nil
}

// NLL is the mean negative log-likelihood (nats per string) of the
// strings of e under w read as a distribution by its next-symbol
// probabilities (the loss of Likelihood), +Inf when the spectral radius of
// sum_s A_s is >= 1 or the mass is <= 0.
func NLL(w spectral.WFA, e *EvalSet) float64 {
	l, err := NewLikelihood(w, e.Seqs, e.Seqs)
	if err != nil {
		return math.Inf(1)
	}
	return l.lossOn(e.Seqs, e.Weights, nil)
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

// condFloor is the smallest next-symbol probability a term of the loss
// takes: a symbol whose probability is below it costs -log(condFloor) and
// passes no gradient.
const condFloor = 1e-12

// loss computes the mean loss over the batch and, when grads is not nil,
// adds its gradient. Each string x_1..x_k costs -sum_t log q_t(x_t) - log
// q_{k+1}(end), with q_t the next-symbol distribution after x_1..x_(t-1):
// g_s = h A_s beta, g_end = h omega, q = |g| / sum |g|, h = alpha^T
// A_x1..A_x(t-1). As sum_s A_s beta + omega = beta, the product of the q_t
// telescopes to f(x) / Z wherever no g is negative. A negative weight is
// the sign noise of a spectral estimate around a small probability, and
// its absolute value keeps that string likely and its gradient alive,
// where clipping it to 0 would cost -log(condFloor) and pass no gradient.
func (l *Likelihood) loss(batch []int, grads *params.Params) (float64, error) {
	seqs := make([][]int, len(batch))
	weights := make([]float64, len(batch))
	for i, b := range batch {
		seqs[i], weights[i] = l.train[b], 1/float64(len(batch))
	}
	return l.lossOn(seqs, weights, grads), nil
}

// lossOn is the weighted sum of the strings' losses (+Inf outside the
// normalisable region), adding its gradient to grads when not nil.
func (l *Likelihood) lossOn(seqs [][]int, weights []float64, grads *params.Params) float64 {
	_, beta, _, ok := l.normaliser()
	if !ok {
		return math.Inf(1)
	}
	n, d := l.n, l.d
	alpha, a, omega := l.params.Data(ParamAlpha), l.params.Data(ParamA), l.params.Data(ParamOmega)
	// m[:, s] = A_s beta (s < d), m[:, d] = omega; stored row-major n x (d+1).
	m := make([]float64, n*(d+1))
	for i := range n {
		for s := range d {
			m[i*(d+1)+s] = dot(a[(i*d+s)*n:(i*d+s+1)*n], beta)
		}
		m[i*(d+1)+d] = omega[i]
	}
	var gm []float64
	if grads != nil {
		gm = make([]float64, n*(d+1))
	}
	var st strState
	nll := 0.0
	for i, x := range seqs {
		nll += weights[i] * st.run(x, alpha, a, m, n, d, grads, gm, weights[i])
	}
	if grads != nil {
		l.backNormaliser(beta, gm, grads)
	}
	return nll
}

// strState holds the per-string buffers of loss.
type strState struct {
	h, direct [][]float64
	c         []float64
	g, dg     []float64
	delta     []float64
	scaled    []float64
}

// run returns the loss of one string and, when grads is not nil, adds
// inv (the string's weight) times its gradient to grads (alpha, A) and gm (d loss / d m).
func (st *strState) run(x []int, alpha, a, m []float64, n, d int, grads *params.Params, gm []float64, inv float64) float64 {
	k := len(x)
	st.h, st.direct = grow(st.h, k+1, n), grow(st.direct, k+1, n)
	st.c = append(st.c[:0], make([]float64, k+1)...)
	st.g, st.dg = grow1(st.g, d+1), grow1(st.dg, d+1)
	copy(st.h[0], alpha)
	st.c[0] = math.Exp(rescale(st.h[0]))
	loss := 0.0
	for t := 0; t <= k; t++ {
		if t > 0 {
			clear(st.h[t])
			s := x[t-1]
			for i, v := range st.h[t-1] {
				vec.Axpy(v, a[(i*d+s)*n:(i*d+s+1)*n], st.h[t])
			}
			st.c[t] = math.Exp(rescale(st.h[t]))
		}
		y := d
		if t < k {
			y = x[t]
		}
		clear(st.g)
		for i, v := range st.h[t] {
			for j, w := range m[i*(d+1) : (i+1)*(d+1)] {
				st.g[j] += v * w
			}
		}
		pos := 0.0
		for _, v := range st.g {
			pos += math.Abs(v)
		}
		clear(st.direct[t])
		if !(pos > 0) || !(math.Abs(st.g[y]) > condFloor*pos) {
			loss -= math.Log(condFloor)
			continue
		}
		loss -= math.Log(math.Abs(st.g[y]) / pos)
		if grads == nil {
			continue
		}
		for j, v := range st.g {
			st.dg[j] = 0
			switch {
			case v > 0:
				st.dg[j] = inv / pos
			case v < 0:
				st.dg[j] = -inv / pos
			}
		}
		st.dg[y] -= inv / st.g[y]
		for i, v := range st.h[t] {
			row := m[i*(d+1) : (i+1)*(d+1)]
			st.direct[t][i] = dot(row, st.dg)
			for j, w := range st.dg {
				gm[i*(d+1)+j] += v * w
			}
		}
	}
	if grads != nil {
		st.back(x, a, n, d, grads)
	}
	return loss
}

// back propagates the direct state gradients through the rescaled forward
// chain h_t = h_(t-1) A_(x_t) / c_t (the loss is invariant to the scale of
// each state, so the scales are constants of the chain).
func (st *strState) back(x []int, a []float64, n, d int, grads *params.Params) {
	gA, ga := grads.Data(ParamA), grads.Data(ParamAlpha)
	k := len(x)
	st.delta, st.scaled = grow1(st.delta, n), grow1(st.scaled, n)
	clear(st.delta)
	for t := k; t >= 0; t-- {
		for i, v := range st.direct[t] {
			st.delta[i] += v
		}
		// scaled is the gradient with respect to the unscaled h_(t-1) A_(x_t).
		ct := st.c[t]
		for i, v := range st.delta {
			st.scaled[i] = v / ct
		}
		if t == 0 {
			for i, v := range st.scaled {
				ga[i] += v
			}
			break
		}
		s := x[t-1]
		for i, v := range st.h[t-1] {
			off := (i*d + s) * n
			vec.Axpy(v, st.scaled, gA[off:off+n])
			st.delta[i] = vec.Dot(a[off:off+n], st.scaled)
		}
	}
}

// backNormaliser adds the gradient that flows through m: m[:, s] = A_s beta
// and m[:, d] = omega, with beta = (I - S)^-1 omega.
func (l *Likelihood) backNormaliser(beta, gm []float64, grads *params.Params) {
	n, d := l.n, l.d
	a := l.params.Data(ParamA)
	gA, gw := grads.Data(ParamA), grads.Data(ParamOmega)
	gbeta := make([]float64, n)
	for i := range n {
		for s := range d {
			c := gm[i*(d+1)+s]
			g := gA[(i*d+s)*n : (i*d+s+1)*n]
			row := a[(i*d+s)*n : (i*d+s+1)*n]
			for j := range n {
				g[j] += c * beta[j]
				gbeta[j] += c * row[j]
			}
		}
		gw[i] += gm[i*(d+1)+d]
	}
	// lambda = (I - S)^-T gbeta; d beta = (I - S)^-1 (dS beta + d omega).
	ims := mat.NewDense(n, n, nil)
	for i := range n {
		for s := range d {
			for j, v := range a[(i*d+s)*n : (i*d+s+1)*n] {
				ims.Set(i, j, ims.At(i, j)-v)
			}
		}
		ims.Set(i, i, ims.At(i, i)+1)
	}
	var lam mat.VecDense
	if err := lam.SolveVec(ims.T(), mat.NewVecDense(n, gbeta)); err != nil {
		return
	}
	lv := lam.RawVector().Data
	for i := range n {
		gw[i] += lv[i]
		for s := range d {
			g := gA[(i*d+s)*n : (i*d+s+1)*n]
			for j := range n {
				g[j] += lv[i] * beta[j]
			}
		}
	}
}

func grow1(v []float64, n int) []float64 {
	if cap(v) < n {
		return make([]float64, n)
	}
	return v[:n]
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

// FinetuneConfig sets Finetune. The zero value trains with Adam at rate
// 3e-5, batches of 64 strings, for at most 20 epochs on a 90/10 split with
// seed 1; at each epoch without validation improvement the best
// parameters are restored and the rate divided by 10, and the third such
// epoch ends training.
type FinetuneConfig struct {
	// Optimizer is a name from the optim registry. If empty, it will be
	// defaulted to "adam".
	Optimizer string
	// Optim holds its hyperparameters. If Optim.LR is 0, it will be
	// defaulted to 3e-5 (the spectral automaton's parameters are badly
	// scaled, and larger steps leave the normalisable region).
	Optim optim.Config
	// Epochs is the most epochs run. If 0, it will be defaulted to 20.
	Epochs int
	// BatchSize is the number of strings per step. If 0, it will be
	// defaulted to 64.
	BatchSize int
	// Patience is the number of epochs without validation improvement
	// before a drop of the rate. If 0, it will be defaulted to 1.
	Patience int
	// ValidFraction is the share of strings held out for early stopping.
	// If 0, it will be defaulted to 0.1.
	ValidFraction float64
	// Seed draws the split and the batches. If 0, it will be defaulted to 1.
	Seed uint64
	// Check is the final comparison with the start: "zll" returns the
	// start when the fine-tuned automaton is worse on validation under the
	// floor rule (EvalSet.ZLL); "none" returns the automaton of the best
	// validation loss whatever its figures (to compare optimizers by what
	// they reach). If empty, it will be defaulted to "zll".
	Check string
	// Train is passed to the Trainer (checkpoints, metrics, progress,
	// hooks); its Epochs, BatchSize, Seed and Patience are set from the
	// fields above, and MaxDrops = 3 with RestoreOnDrop and ResetOnDrop.
	Train optim.TrainConfig
}

// FinetuneValidFraction is Finetune's default share of validation strings.
const FinetuneValidFraction = 0.1

// FinetuneSplit splits seqs into training and validation strings as
// Finetune does: a share validFraction of them, drawn from seed, held out.
// It fails when either part is empty.
func FinetuneSplit(seqs [][]int, validFraction float64, seed uint64) (train, valid [][]int, err error) {
	tr, va, _, err := datasets.Split(len(seqs), validFraction, 0, rand.New(rand.NewPCG(seed, 1)))
	if err != nil {
		return nil, nil, err
	}
	if len(tr) == 0 || len(va) == 0 {
		return nil, nil, errors.Errorf("wfa: %d strings are too few for a validation share of %g", len(seqs), validFraction)
	}
	return pick(seqs, tr), pick(seqs, va), nil
}

// Values of FinetuneConfig.Check.
const (
	CheckZLL  = "zll"
	CheckNone = "none"
)

// FinetuneReport describes a Finetune run.
type FinetuneReport struct {
	// Result is the Trainer's summary (nil when training stopped at once).
	Result *optim.Result
	// InitialValid and BestValid are the validation losses
	// (Likelihood.ValidationLoss, nats per string) of the start and of the
	// best parameters training reached, which are returned unless the
	// check keeps the start.
	InitialValid, BestValid float64
	// StartZLL and BestZLL are EvalSet.ZLL on the validation strings (the
	// floor rule's log-loss over the mass) of the start and of the best
	// parameters; the start is returned when BestZLL is the larger.
	// StartLOO and BestLOO are EvalSet.LOO of the same (floored values
	// normalised over the distinct validation strings, each weighted by
	// its count minus one: the frequent strings), reported only.
	StartZLL, BestZLL, StartLOO, BestLOO float64
	// Stopped explains an early end other than patience, or why the start
	// was kept ("" otherwise).
	Stopped string
}

// Finetune trains the model's WFA, as a linear 2-RNN, on the
// log-likelihood of the strings of s (see Likelihood), with the
// validation split used for early stopping, and returns the automaton of
// the best validation loss, or the start when that automaton is worse on
// validation under the floor rule the model is scored by (EvalSet.ZLL):
// never worse than the start on validation under that figure (unless
// cfg.Check is CheckNone).
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
		cfg.Patience = 1
	}
	if cfg.Optim.LR == 0 {
		cfg.Optim.LR = 3e-5
	}
	if cfg.ValidFraction == 0 {
		cfg.ValidFraction = FinetuneValidFraction
	}
	if cfg.Seed == 0 {
		cfg.Seed = 1
	}
	if cfg.Check == "" {
		cfg.Check = CheckZLL
	}
	if cfg.Check != CheckZLL && cfg.Check != CheckNone {
		return nil, nil, errors.Errorf("wfa: fine-tuning check %q, want %q or %q", cfg.Check, CheckZLL, CheckNone)
	}
	if len(s.Alphabet) > len(m.Alphabet) {
		return nil, nil, errors.Errorf("wfa: the strings use %d symbols, the model knows %d", len(s.Alphabet), len(m.Alphabet))
	}
	opt, err := optim.New(cfg.Optimizer, cfg.Optim)
	if err != nil {
		return nil, nil, err
	}
	train, valid, err := FinetuneSplit(s.Seqs, cfg.ValidFraction, cfg.Seed)
	if err != nil {
		return nil, nil, err
	}
	p, err := NewLikelihood(m.WFA, train, valid)
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
	tc.Epochs, tc.BatchSize, tc.Seed, tc.Patience = cfg.Epochs, cfg.BatchSize, cfg.Seed, cfg.Patience
	tc.MaxDrops, tc.RestoreOnDrop, tc.ResetOnDrop = 3, true, true
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
	best := p.Best()
	// The model is scored by its floored values; the likelihood trained
	// above reads negative next-symbol weights by their absolute values,
	// so it can improve while more strings fall to the floor. Keep the
	// start unless the best parameters also do at least as well under the
	// floor rule (EvalSet.ZLL) on validation.
	rep.StartZLL, rep.BestZLL = p.valid.ZLL(m.WFA), p.valid.ZLL(best)
	rep.StartLOO, rep.BestLOO = p.valid.LOO(m.WFA), p.valid.LOO(best)
	if cfg.Check == CheckZLL && !(rep.BestZLL <= rep.StartZLL) {
		kept := "fine-tuned automaton worse on validation under the floor rule; the start is kept"
		if rep.Stopped != "" {
			kept = rep.Stopped + "; " + kept
		}
		rep.Stopped = kept
		best = m.WFA
	}
	out := &Model{WFA: best, Alphabet: slices.Clone(m.Alphabet), Spec: m.Spec, Components: slices.Clone(m.Components), Finetuned: true}
	return out, rep, nil
}
