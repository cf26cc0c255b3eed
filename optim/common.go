package optim

import (
	"math"
	"slices"
	"strings"

	"github.com/pkg/errors"
	"github.com/rtnlab/rtn/params"
)

// Defaults shared by the registered optimizers (see Config).
const (
	defaultBeta1 = 0.9
	defaultBeta2 = 0.999
	defaultRho   = 0.9
	defaultEps   = 1e-8
)

// stepSlot is the name of the per-parameter step counter ("t/<param>") kept
// by optimizers with bias correction. It is per parameter, not global, so
// that a parameter first seen late (or stepped only every other call, as in
// alternating updates) gets its own correct bias correction.
const stepSlot = "t"

// withDefaults returns c with its zero fields replaced by their defaults;
// lr is the optimizer's customary learning rate.
func (c Config) withDefaults(lr float64) Config {
	if c.LR == 0 {
		c.LR = lr
	}
	if c.Beta1 == 0 {
		c.Beta1 = defaultBeta1
	}
	if c.Beta2 == 0 {
		c.Beta2 = defaultBeta2
	}
	if c.Rho == 0 {
		c.Rho = defaultRho
	}
	if c.Eps == 0 {
		c.Eps = defaultEps
	}
	return c
}

// checkCommon validates the fields every registered optimizer uses.
func (c Config) checkCommon() error {
	switch {
	case !(c.LR > 0) || math.IsInf(c.LR, 0):
		return errors.Errorf("optim: lr must be positive and finite, got %v", c.LR)
	case !(c.Eps > 0) || math.IsInf(c.Eps, 0):
		return errors.Errorf("optim: eps must be positive and finite, got %v", c.Eps)
	case !(c.WeightDecay >= 0) || math.IsInf(c.WeightDecay, 0):
		return errors.Errorf("optim: weight decay must be >= 0 and finite, got %v", c.WeightDecay)
	case !(c.ClipNorm >= 0) || math.IsInf(c.ClipNorm, 0):
		return errors.Errorf("optim: clip norm must be >= 0 and finite, got %v", c.ClipNorm)
	}
	return nil
}

// checkUnit returns an error naming field unless v is in [0, 1).
func checkUnit(field string, v float64) error {
	if !(v >= 0 && v < 1) {
		return errors.Errorf("optim: %s must be in [0, 1), got %v", field, v)
	}
	return nil
}

// kernel updates one parameter p in place from its effective gradient g
// (already clipped and weight-decayed; it must not be written). s holds the
// optimizer's slots for this parameter in declaration order, and t is the
// parameter's step count including this step (0 when not counted).
type kernel func(p, g []float64, s [][]float64, t float64)

// base holds what every registered optimizer shares: the learning rate,
// gradient preprocessing (clipping, weight decay) and the per-parameter
// state, stored as "<slot>/<param>" tensors and created lazily.
type base struct {
	name    string
	lr      float64
	clip    float64
	decay   float64
	slots   []string // per-element slots, e.g. {"m", "v"}
	counted bool     // keep a step counter "t/<param>"
	// extra are slots the optimizer sizes itself (a scalar, Shampoo's
	// statistics), following slots in a kernel's s; extraShape gives the
	// shape of one for a parameter of the given shape.
	extra      []string
	extraShape func(slot string, param []int) []int

	state   *params.Params
	views   map[string]*slotViews // per parameter, into state; rebuilt lazily
	scratch map[string][]float64  // effective gradients when clipping or decaying
}

// slotViews are the backing slices of one parameter's state tensors, so
// that a step does not look them up by name.
type slotViews struct {
	shape []int
	bufs  [][]float64 // one per slot, then one per extra slot, in declaration order
	t     []float64   // step counter, nil when not counted
}

// withExtra returns b with the extra slots names, shaped by shape.
func (b base) withExtra(shape func(slot string, param []int) []int, names ...string) base {
	b.extra, b.extraShape = names, shape
	return b
}

// scalarSlot is an extraShape for slots of one value per parameter.
func scalarSlot(string, []int) []int { return []int{1} }

func newBase(name string, c Config, counted bool, slots ...string) base {
	return base{name: name, lr: c.LR, clip: c.ClipNorm, decay: c.WeightDecay, slots: slots, counted: counted}
}

// Name implements Optimizer.
func (b *base) Name() string { return b.name }

// LearningRate implements Optimizer.
func (b *base) LearningRate() float64 { return b.lr }

// SetLearningRate implements Optimizer.
func (b *base) SetLearningRate(lr float64) { b.lr = lr }

// State implements Optimizer: a deep copy of the slots and step counters.
func (b *base) State() *params.Params {
	if b.state == nil {
		return params.New()
	}
	return b.state.Clone()
}

// step validates params and grads against each other and the state, then
// applies k to every parameter in params.Names() order. On error nothing
// has been modified.
func (b *base) step(params, grads *params.Params, k kernel) error {
	return b.stepViews(params, grads, func(_ string, p, g []float64, v *slotViews, t float64) { k(p, g, v.bufs, t) })
}

// stepViews is step for kernels that need the parameter's name or shape:
// it validates, then calls k for every parameter with its effective
// gradient, its state and its step count.
func (b *base) stepViews(params, grads *params.Params, k func(name string, p, g []float64, v *slotViews, t float64)) error {
	names := params.Names()
	if err := b.check(names, params, grads); err != nil {
		return err
	}
	scale, err := b.clipScale(names, grads)
	if err != nil {
		return err
	}
	for _, n := range names {
		p := params.Data(n)
		v := b.viewsOf(n, params.Shape(n))
		t := 0.0
		if v.t != nil {
			v.t[0]++
			t = v.t[0]
		}
		k(n, p, b.effective(n, p, grads.Data(n), scale), v, t)
	}
	return nil
}

// check returns an error if grads is not laid out like params or if a
// known parameter changed shape.
func (b *base) check(names []string, params, grads *params.Params) error {
	if grads.Len() != params.Len() {
		return errors.Errorf("optim: %s: %d gradients for %d parameters", b.name, grads.Len(), params.Len())
	}
	for _, n := range names {
		ps, gs := params.Shape(n), grads.Shape(n)
		if gs == nil {
			return errors.Errorf("optim: %s: no gradient for parameter %q", b.name, n)
		}
		if !slices.Equal(ps, gs) {
			return errors.Errorf("optim: %s: parameter %q has shape %v but its gradient %v", b.name, n, ps, gs)
		}
		if ss := b.stateShape(n); ss != nil && !slices.Equal(ss, ps) {
			return errors.Errorf("optim: %s: parameter %q has shape %v but the optimizer state holds %v", b.name, n, ps, ss)
		}
	}
	return nil
}

// stateShape is the shape of the state of parameter n, or nil if there is
// none yet.
func (b *base) stateShape(n string) []int {
	if v, ok := b.views[n]; ok {
		return v.shape
	}
	if len(b.slots) == 0 || b.state == nil {
		return nil
	}
	return b.state.Shape(b.slots[0] + "/" + n)
}

// clipScale returns the factor that brings the gradient's global norm down
// to the clipping threshold (1 when it is below or clipping is off), or an
// error naming a non-finite gradient.
func (b *base) clipScale(names []string, grads *params.Params) (float64, error) {
	sum := 0.0
	for _, n := range names {
		for _, g := range grads.Data(n) {
			sum += g * g
		}
	}
	if math.IsNaN(sum) || math.IsInf(sum, 0) {
		for _, n := range names {
			if err := finite(grads.Data(n)); err != nil {
				return 0, errors.Errorf("optim: %s: gradient of %q %v", b.name, n, err)
			}
		}
		// Finite values whose squares overflow: the norm is finite but huge.
		return b.clipScaleLarge(names, grads), nil
	}
	norm := math.Sqrt(sum)
	if b.clip == 0 || norm <= b.clip {
		return 1, nil
	}
	return b.clip / norm, nil
}

// clipScaleLarge is clipScale for gradients whose squared norm overflows;
// without clipping such a step is taken as is.
func (b *base) clipScaleLarge(names []string, grads *params.Params) float64 {
	if b.clip == 0 {
		return 1
	}
	big := 0.0
	for _, n := range names {
		for _, g := range grads.Data(n) {
			big = math.Max(big, math.Abs(g))
		}
	}
	sum := 0.0
	for _, n := range names {
		for _, g := range grads.Data(n) {
			sum += (g / big) * (g / big)
		}
	}
	return b.clip / (big * math.Sqrt(sum))
}

// finite returns an error describing the first NaN or Inf in d.
func finite(d []float64) error {
	for i, x := range d {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return errors.Errorf("holds %v at index %d", x, i)
		}
	}
	return nil
}

// effective returns the gradient the kernel sees: scale*g + decay*p, in a
// scratch buffer when it differs from g, so that g is never written.
func (b *base) effective(name string, p, g []float64, scale float64) []float64 {
	if scale == 1 && b.decay == 0 {
		return g
	}
	if b.scratch == nil {
		b.scratch = map[string][]float64{}
	}
	s := b.scratch[name]
	if len(s) != len(g) {
		s = make([]float64, len(g))
		b.scratch[name] = s
	}
	for i := range g {
		s[i] = scale*g[i] + b.decay*p[i]
	}
	return s
}

// viewsOf returns the state of parameter name, creating it zero-filled on
// first sight.
func (b *base) viewsOf(name string, shape []int) *slotViews {
	if v, ok := b.views[name]; ok {
		return v
	}
	if b.state == nil {
		b.state = params.New()
	}
	if b.views == nil {
		b.views = map[string]*slotViews{}
	}
	v := &slotViews{shape: append([]int(nil), shape...)}
	for _, s := range b.slots {
		v.bufs = append(v.bufs, b.stateData(s+"/"+name, shape...))
	}
	for _, s := range b.extra {
		v.bufs = append(v.bufs, b.stateData(s+"/"+name, b.extraShape(s, shape)...))
	}
	if b.counted {
		v.t = b.stateData(stepSlot+"/"+name, 1)
	}
	b.views[name] = v
	return v
}

// stateData returns the state tensor called key, adding it if absent.
func (b *base) stateData(key string, shape ...int) []float64 {
	if !b.state.Has(key) {
		mustAdd(b.state, key, shape...)
	}
	return b.state.Data(key)
}

// mustAdd adds a tensor whose name and shape are known to be valid.
func mustAdd(p *params.Params, name string, shape ...int) {
	if _, err := p.Add(name, shape...); err != nil {
		panic(err) // shapes come from validated parameters, names are new
	}
}

// LoadState implements Optimizer. It accepts what State returned (or an
// empty set, which resets the optimizer) and rejects foreign state: a
// tensor whose slot this optimizer does not keep, a parameter missing one
// of its slots, mismatched shapes, or a step count that is not a
// non-negative integer.
func (b *base) LoadState(s *params.Params) error {
	if s == nil {
		return errors.Errorf("optim: %s: nil state", b.name)
	}
	params, err := b.stateParams(s)
	if err != nil {
		return err
	}
	for _, p := range params {
		if err := b.checkParamState(s, p); err != nil {
			return err
		}
	}
	b.state, b.views = s.Clone(), nil
	return nil
}

// stateParams splits the names of s into slots and parameters, returning
// the parameters in order of first appearance.
func (b *base) stateParams(s *params.Params) ([]string, error) {
	var params []string
	seen := map[string]bool{}
	for _, n := range s.Names() {
		slot, param, ok := strings.Cut(n, "/")
		if !ok || param == "" {
			return nil, errors.Errorf("optim: %s: state tensor %q is not named <slot>/<param> (foreign state?)", b.name, n)
		}
		if !b.hasSlot(slot) {
			return nil, errors.Errorf("optim: %s: state tensor %q has slot %q, which %s does not keep (state of another optimizer or configuration?)", b.name, n, slot, b.name)
		}
		if !seen[param] {
			seen[param] = true
			params = append(params, param)
		}
	}
	return params, nil
}

func (b *base) hasSlot(slot string) bool {
	if b.counted && slot == stepSlot {
		return true
	}
	return slices.Contains(b.slots, slot) || slices.Contains(b.extra, slot)
}

// checkParamState checks that s holds every slot of parameter p with one
// shape, and a valid step counter when the optimizer counts steps.
func (b *base) checkParamState(s *params.Params, p string) error {
	var shape []int
	for _, slot := range b.slots {
		sh := s.Shape(slot + "/" + p)
		if sh == nil {
			return errors.Errorf("optim: %s: state lacks %q (state of another optimizer or configuration?)", b.name, slot+"/"+p)
		}
		if shape != nil && !slices.Equal(sh, shape) {
			return errors.Errorf("optim: %s: state tensor %q has shape %v, other slots of %q have %v", b.name, slot+"/"+p, sh, p, shape)
		}
		shape = sh
	}
	for _, slot := range b.extra {
		key := slot + "/" + p
		sh, want := s.Shape(key), b.extraShape(slot, shape)
		switch {
		case sh == nil:
			return errors.Errorf("optim: %s: state lacks %q (state of another optimizer or configuration?)", b.name, key)
		case !slices.Equal(sh, want):
			return errors.Errorf("optim: %s: state tensor %q has shape %v, want %v for a parameter of shape %v (state of another configuration?)", b.name, key, sh, want, shape)
		}
	}
	if !b.counted {
		return nil
	}
	key := stepSlot + "/" + p
	d := s.Data(key)
	switch {
	case d == nil:
		return errors.Errorf("optim: %s: state lacks step counter %q", b.name, key)
	case len(d) != 1:
		return errors.Errorf("optim: %s: step counter %q has %d values, want 1", b.name, key, len(d))
	case !(d[0] >= 0) || d[0] != math.Trunc(d[0]) || math.IsInf(d[0], 0):
		return errors.Errorf("optim: %s: step counter %q is %v, want a non-negative integer", b.name, key, d[0])
	}
	return nil
}
