package graph

import (
	"fmt"

	G "gorgonia.org/gorgonia"
)

// Dropout zeroes each entry of x with probability rate and scales the
// others by 1/(1-rate) while training (inverted dropout, as
// torch.nn.Dropout), and is the identity otherwise: in evaluation, in
// Predict, LogProb and Sample, and in any graph whose executor has not
// been switched to training. rate is in [0, 1).
//
// The mask is a function of the training batch's seed, the time step, the
// op and the entry, not of a generator's state: a step recomputed from a
// checkpoint draws the same mask, the float32 and float64 executors and
// every executor (kernel, tape, graphs) draw the same one, and a resumed
// run the same as an uninterrupted one. The trainer seeds each training
// batch (optim.Noisy); layers.Problem switches dropout on for training
// batches only.
func (b *Builder) Dropout(x *G.Node, rate float64) *G.Node {
	if b.nilArg("Dropout", x) {
		return nil
	}
	if !(rate >= 0 && rate < 1) {
		b.Fail(shapeError("Dropout", "rate must be in [0, 1), got %g", rate), "graph")
		return nil
	}
	b.drops++
	return b.applyX(&dropoutOp{shape: x.Shape().Clone(), rate: rate, id: b.drops, ns: b.noise}, x)
}

// noise is the state of a graph's random ops: off (the identity) or on,
// with the training batch's seed and the step being computed.
type noise struct {
	seed uint64
	step int
	on   bool
}

// set switches the random ops on (with the batch's seed) or off.
func (n *noise) set(seed uint64, on bool) { n.seed, n.on = seed, on }

// noisyOp is an xop that reads a noise state.
type noisyOp interface{ noiseState() *noise }

// dropoutOp is Dropout for one shape.
type dropoutOp struct {
	shape []int
	rate  float64
	id    int // the op's number among the graph's dropouts
	ns    *noise
}

func (o *dropoutOp) name() string { return "rtn.Dropout" }

// key holds the op's number and its state's address: two dropouts of one
// graph, or of two graphs, never merge.
func (o *dropoutOp) key() string {
	return fmt.Sprintf("rate=%g,id=%d,state=%p", o.rate, o.id, o.ns)
}
func (o *dropoutOp) out() []int              { return o.shape }
func (o *dropoutOp) diff(int) bool           { return true }
func (o *dropoutOp) needs(int) ([]int, bool) { return nil, false }
func (o *dropoutOp) rowArgs() []bool         { return nil }
func (o *dropoutOp) noiseState() *noise      { return o.ns }
func (o *dropoutOp) impl64() ximpl[float64]  { return dropoutImpl[float64]{o} }
func (o *dropoutOp) impl32() ximpl[float32]  { return dropoutImpl[float32]{o} }

type dropoutImpl[F Float] struct{ *dropoutOp }

// mix is splitmix64's finaliser.
func mix(z uint64) uint64 {
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// mask returns the factor of entry i, 0 or 1/(1-rate), from the step's
// base (see base).
func (o dropoutImpl[F]) mask(base, cut uint64, keep F, i int) F {
	if mix(base+uint64(i)*0xd1b54a32d192ed03)>>11 < cut {
		return 0
	}
	return keep
}

// base mixes the batch's seed, the step and the op's number; ok is false
// when the op is the identity (off, or rate 0).
func (o dropoutImpl[F]) base() (base, cut uint64, keep F, ok bool) {
	ns := o.ns
	if !ns.on || o.rate == 0 {
		return 0, 0, 1, false
	}
	base = mix(ns.seed ^ mix(uint64(ns.step+1)*0x9e3779b97f4a7c15^uint64(o.id)<<40))
	return base, uint64(o.rate * (1 << 53)), F(1 / (1 - o.rate)), true
}

func (o dropoutImpl[F]) forward(rows int, a []xarg[F], y []F, ldy int) {
	_, cols := rowsCols(o.shape)
	x := a[0]
	base, cut, keep, on := o.base()
	for r := range rows {
		yr, xr := y[r*ldy:r*ldy+cols], x.d[r*x.ld:r*x.ld+cols]
		if !on {
			copy(yr, xr)
			continue
		}
		for j, v := range xr {
			yr[j] = v * o.mask(base, cut, keep, r*cols+j)
		}
	}
}

func (o dropoutImpl[F]) vjp(_ int, _ []xarg[F], _ []F, _ int, gy, d []F, acc bool) {
	rows, cols := rowsCols(o.shape)
	base, cut, keep, on := o.base()
	if !on {
		put(d, gy[:rows*cols], acc)
		return
	}
	for i, g := range gy[:rows*cols] {
		set(&d[i], g*o.mask(base, cut, keep, i), acc)
	}
}
