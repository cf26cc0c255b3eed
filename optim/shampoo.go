package optim

import (
	"math"
	"slices"

	"github.com/pkg/errors"
	"github.com/rtnlab/rtn/params"
)

func init() {
	Register("shampoo", func(c Config) (Optimizer, error) { return NewShampoo(c) })
}

// Defaults of Shampoo's Config fields.
const (
	defaultMaxPreconditionerDim  = 128
	defaultPreconditionFrequency = 20
	defaultMatrixEps             = 1e-12
)

// Shampoo is the blocked Shampoo optimizer (Gupta, Koren and Singer 2018,
// Algorithm 2, with the blocking, exponential averages, bias corrections
// and Adam grafting of Distributed Shampoo, Shi et al. 2023, which won
// AlgoPerf's external-tuning track). A parameter is seen as a matrix and
// cut into blocks of at most B x B (see Config.MaxPreconditionerDim and
// shampooLayout); for each block with gradient G:
//
//	L ← β2 L + (1−β2) G Gᵀ,  R ← β2 R + (1−β2) Gᵀ G
//	m ← β1 m + (1−β1) G,     m̂ = m / (1−β1ᵗ)
//	D = L̃^(−1/4) m̂ R̃^(−1/4)  (a vector block: D = L̃^(−1/2) m̂)
//
// where L̃ = L/(1−β2ᵗ) + εI (ε = Config.MatrixEps) and the inverse roots
// come from the eigendecomposition of L/(1−β2ᵗ) (gonum's EigenSym),
// recomputed every F = Config.PreconditionFrequency steps (at steps 1,
// F+1, ...) and held in between. With Adam grafting (the default) the
// block's step has D's direction and the norm of Adam's step
// A = m̂ / (√(v/(1−β2ᵗ)) + ε'), v ← β2 v + (1−β2) G², ε' = Config.Eps:
//
//	D ← D ‖A‖_F / ‖D‖_F
//
// and finally p ← p − η λ p − η D with λ = Config.DecoupledDecay. Its
// slots are "m/<param>", "v/<param>" (Adam grafting only), the step count
// "t/<param>" and, as flat tensors holding every block's factors as full
// square matrices, "stats/<param>" (L and R) and "roots/<param>" (their
// inverse roots).
type Shampoo struct {
	base
	beta1, beta2, eps, matrixEps, decay float64
	dim, every                          int
	graft                               bool
	work                                map[string]*shampooWork
}

// shampooWork is a parameter's layout and scratch space (not state).
type shampooWork struct {
	shape  []int
	layout shampooLayout
	dir    []float64 // the step, laid out as the parameter
	graft  []float64 // Adam's step, laid out as the parameter
	tmp    []float64 // one block's L m̂
}

var _ Optimizer = (*Shampoo)(nil)

// NewShampoo returns a Shampoo optimizer configured by c; it uses LR
// (default 0.001, as the step takes Adam's norm), Beta1, Beta2, Eps,
// MaxPreconditionerDim (default 128), PreconditionFrequency (default 20),
// MatrixEps (default 1e-12), Grafting (default "adam"), DecoupledDecay,
// WeightDecay and ClipNorm.
func NewShampoo(c Config) (*Shampoo, error) {
	if c.MaxPreconditionerDim == 0 {
		c.MaxPreconditionerDim = defaultMaxPreconditionerDim
	}
	if c.PreconditionFrequency == 0 {
		c.PreconditionFrequency = defaultPreconditionFrequency
	}
	if c.MatrixEps == 0 {
		c.MatrixEps = defaultMatrixEps
	}
	if c.Grafting == "" {
		c.Grafting = "adam"
	}
	c, err := newAdamFamily(c, 0.001)
	if err != nil {
		return nil, err
	}
	if err := checkDecoupled(c); err != nil {
		return nil, err
	}
	switch {
	case c.MaxPreconditionerDim < 1:
		return nil, errors.Errorf("optim: max preconditioner dim must be >= 1, got %d", c.MaxPreconditionerDim)
	case c.PreconditionFrequency < 1:
		return nil, errors.Errorf("optim: precondition frequency must be >= 1, got %d", c.PreconditionFrequency)
	case !(c.MatrixEps > 0) || math.IsInf(c.MatrixEps, 0):
		return nil, errors.Errorf("optim: matrix eps must be positive and finite, got %v", c.MatrixEps)
	case c.Grafting != "adam" && c.Grafting != "none":
		return nil, errors.Errorf("optim: grafting must be adam or none, got %q", c.Grafting)
	}
	o := &Shampoo{beta1: c.Beta1, beta2: c.Beta2, eps: c.Eps, matrixEps: c.MatrixEps, decay: c.DecoupledDecay,
		dim: c.MaxPreconditionerDim, every: c.PreconditionFrequency, graft: c.Grafting == "adam", work: map[string]*shampooWork{}}
	slots := []string{"m"}
	if o.graft {
		slots = append(slots, "v")
	}
	o.base = newBase("shampoo", c, true, slots...).withExtra(o.statsShape, "stats", "roots")
	return o, nil
}

// statsShape is the shape of the "stats" and "roots" tensors of a
// parameter of shape param.
func (o *Shampoo) statsShape(_ string, param []int) []int {
	return []int{newShampooLayout(param, o.dim).size}
}

// Step implements Optimizer. It fails, changing nothing, if grads is not
// laid out like params, a parameter's shape differs from its state, or a
// gradient holds NaN or Inf.
func (o *Shampoo) Step(params, grads *params.Params) error {
	return o.stepViews(params, grads, o.update)
}

// workOf returns the layout and scratch space of parameter name.
func (o *Shampoo) workOf(name string, shape []int) *shampooWork {
	if w, ok := o.work[name]; ok && slices.Equal(w.shape, shape) {
		return w
	}
	l := newShampooLayout(shape, o.dim)
	n := l.rows * l.cols
	w := &shampooWork{shape: append([]int(nil), shape...), layout: l,
		dir: make([]float64, n), graft: make([]float64, n), tmp: make([]float64, min(l.rows, o.dim)*min(l.cols, o.dim))}
	o.work[name] = w
	return w
}

func (o *Shampoo) update(name string, p, g []float64, v *slotViews, t float64) {
	w := o.workOf(name, v.shape)
	l := w.layout
	b1, b2 := o.beta1, o.beta2
	m := v.bufs[0]
	stats, roots := v.bufs[len(v.bufs)-2], v.bufs[len(v.bufs)-1]
	c1, c2 := 1-math.Pow(b1, t), 1-math.Pow(b2, t)
	for i := range m {
		m[i] = b1*m[i] + (1-b1)*g[i]
	}
	if o.graft {
		sq := v.bufs[1]
		for i := range sq {
			sq[i] = b2*sq[i] + (1-b2)*g[i]*g[i]
			w.graft[i] = (m[i] / c1) / (math.Sqrt(sq[i]/c2) + o.eps)
		}
	}
	refresh := int(t-1)%o.every == 0
	p2 := 2 * float64(l.order())
	for _, b := range l.blocks {
		l.accumulate(b, stats, g, b2)
		if refresh {
			o.refreshRoots(l, b, stats, roots, c2, p2)
		}
		l.direction(b, w.dir, m, roots, w.tmp)
		scale := 1 / c1
		if o.graft {
			if dn := l.blockNorm(b, w.dir); dn > 0 {
				scale = l.blockNorm(b, w.graft) / dn
			}
		}
		l.scaleBlock(b, w.dir, scale)
	}
	for i := range p {
		p[i] -= o.lr*o.decay*p[i] + o.lr*w.dir[i]
	}
}

// refreshRoots recomputes the inverse p-th roots of block b's factors; a
// factor whose eigendecomposition fails keeps its previous root.
func (o *Shampoo) refreshRoots(l shampooLayout, b shampooBlock, stats, roots []float64, c2, p float64) {
	m := b.r1 - b.r0
	inverseRoot(roots[b.left:b.left+m*m], stats[b.left:b.left+m*m], m, c2, o.matrixEps, p)
	if l.matrix {
		n := b.c1 - b.c0
		inverseRoot(roots[b.right:b.right+n*n], stats[b.right:b.right+n*n], n, c2, o.matrixEps, p)
	}
}
