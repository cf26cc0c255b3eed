package layers

import (
	"math"
	"unsafe"

	"github.com/rtnlab/rtn/datasets"
	"github.com/rtnlab/rtn/graph"
	"github.com/rtnlab/rtn/internal/fastmath"
)

// HeadKernel is Head in plain Go for a batch size (graph.HeadKernel): the
// output layer and the masked loss of one step, the same function as the
// graph Head, for FusedRecurrence.
func (s *Sequence) HeadKernel(batch int) graph.HeadKernel {
	return &headKernel[float64]{s: s, batch: batch, h: s.Cell.StateSizes()[0]}
}

// HeadKernel32 is HeadKernel in float32, reading the output layer through
// w; the losses are summed in float64.
func (s *Sequence) HeadKernel32(batch int, w graph.Weights[float32]) graph.HeadKernelOf[float32] {
	return &headKernel[float32]{s: s, batch: batch, h: s.Cell.StateSizes()[0], w: w}
}

// FusedRecurrence sets up the plain-Go executor for a batch size when the
// cell has a kernel (graph.FusedCell); ok is false when it has none.
func (s *Sequence) FusedRecurrence(batch int, cfg graph.RecurrenceConfig) (r *graph.FusedRecurrence, ok bool, err error) {
	c, ok := s.Cell.(graph.FusedCell)
	if !ok {
		return nil, false, nil
	}
	r, err = graph.NewFusedRecurrence(c, s.Params, batch, s.HeadKernel(batch), cfg)
	return r, true, err
}

// TapeRecurrence sets up the plain-Go executor for a batch size with the
// cell's recorded step compiled into a kernel (graph.CompileTape); the
// error wraps graph.ErrNotRecorded when the cell uses an op the tape cannot
// run.
func (s *Sequence) TapeRecurrence(batch int, cfg graph.RecurrenceConfig) (*graph.FusedRecurrence, error) {
	return graph.NewTapeRecurrence(s.Cell, s.Params, batch, s.HeadKernel(batch), cfg)
}

// FusedRecurrence32 is FusedRecurrence in float32
// (graph.NewFusedRecurrence32); ok is false when the cell has no float32
// kernel (graph.FusedCell32).
func (s *Sequence) FusedRecurrence32(batch int, cfg graph.RecurrenceConfig) (r *graph.FusedRecurrence, ok bool, err error) {
	c, ok := s.Cell.(graph.FusedCell32)
	if !ok {
		return nil, false, nil
	}
	r, err = graph.NewFusedRecurrence32(c, s.Params, batch, s.headKernel32(batch), cfg)
	return r, true, err
}

// TapeRecurrence32 is TapeRecurrence in float32
// (graph.NewTapeRecurrence32).
func (s *Sequence) TapeRecurrence32(batch int, cfg graph.RecurrenceConfig) (*graph.FusedRecurrence, error) {
	return graph.NewTapeRecurrence32(s.Cell, s.Params, batch, s.headKernel32(batch), cfg)
}

func (s *Sequence) headKernel32(batch int) func(graph.Weights[float32]) graph.HeadKernelOf[float32] {
	return func(w graph.Weights[float32]) graph.HeadKernelOf[float32] { return s.HeadKernel32(batch, w) }
}

// headKernel caches the gradient of a step's loss with respect to the
// logits, [batch, Out], computed with the loss.
type headKernel[F graph.Float] struct {
	s        *Sequence
	batch, h int
	w        graph.Weights[F]
}

var _ graph.HeadKernel = (*headKernel[float64])(nil)

func (k *headKernel[F]) Params() []string { return []string{OutW, OutB} }

func (k *headKernel[F]) CacheSize() int { return k.batch * k.s.Out }

// Forward computes logits = h W + b for the block into cache, the masked
// loss of each step and, in place of the logits, its gradient with respect
// to them.
func (k *headKernel[F]) Forward(h []F, aux [][][]float64, cache []F, loss []float64) {
	out := k.s.Out
	graph.GemmOf(false, false, len(aux)*k.batch, out, k.h, 1, h, k.h, k.w.Data(k.s.Params, OutW), out, 0, cache, out)
	bias := k.w.Data(k.s.Params, OutB)
	for t, in := range aux {
		y, mask := in[0], in[1]
		var total float64
		for r := range k.batch {
			z := cache[(t*k.batch+r)*out : (t*k.batch+r+1)*out]
			for j, b := range bias {
				z[j] += b
			}
			var l float64
			switch k.s.Kind {
			case datasets.Categorical:
				l = softmaxNLL(z, y[r*out:(r+1)*out], mask[r])
			case datasets.Binary:
				l = bernoulliNLL(z, y[r*out:(r+1)*out], mask[r])
			default:
				l = meanSquare(z, y[r*out:(r+1)*out], mask[r])
			}
			total += l * mask[r]
		}
		loss[t] = total
	}
}

// InputGrad: dz W^T for the block.
func (k *headKernel[F]) InputGrad(cache []F, gh []F) {
	out := k.s.Out
	graph.GemmOf(false, true, len(cache)/out, k.h, out, 1, cache, out, k.w.Data(k.s.Params, OutW), out, 0, gh, k.h)
}

// ParamGrad adds h^T dz and the column sums of dz into the output layer's
// gradients.
func (k *headKernel[F]) ParamGrad(h []F, cache []F, grads graph.Grads[F]) {
	out := k.s.Out
	graph.GemmOf(true, false, k.h, out, k.batch, 1, h, k.h, cache, out, 1, grads.Data(OutW), out)
	gb := grads.Data(OutB)
	for r := range k.batch {
		for j, d := range cache[r*out : (r+1)*out] {
			gb[j] += d
		}
	}
}

// The losses are computed in float64 from logits z of either type, and
// the gradients rounded to z's type.

// softmaxNLL returns -sum_j y_j log softmax(z)_j and replaces z by its
// gradient times m: each exp(z_j - max z) once, from fastmath's polynomial
// four at a time (the long one in float64, the short one in float32),
// kept in z until the gradient is written; the loss is
// sum_j y_j (lse - z_j) summed as lse sum_j y_j - sum_j y_j z_j.
func softmaxNLL[F graph.Float](z []F, y []float64, m float64) float64 {
	short := is32[F]()
	zmax := math.Inf(-1)
	for _, v := range z {
		zmax = max(zmax, float64(v))
	}
	var s, yz, ysum float64
	n := len(z) &^ 3
	for j := 0; j < n; j += 4 {
		zz, yy := z[j:j+4:j+4], y[j:j+4:j+4]
		v0, v1, v2, v3 := float64(zz[0]), float64(zz[1]), float64(zz[2]), float64(zz[3])
		e0, e1, e2, e3 := fastmath.ExpNeg4(zmax-v0, zmax-v1, zmax-v2, zmax-v3, short)
		s += (e0 + e1) + (e2 + e3)
		yz += (yy[0]*v0 + yy[1]*v1) + (yy[2]*v2 + yy[3]*v3)
		ysum += (yy[0] + yy[1]) + (yy[2] + yy[3])
		zz[0], zz[1], zz[2], zz[3] = F(e0), F(e1), F(e2), F(e3)
	}
	for j := n; j < len(z); j++ {
		v := float64(z[j])
		e, _, _, _ := fastmath.ExpNeg4(zmax-v, 0, 0, 0, short)
		s += e
		yz += y[j] * v
		ysum += y[j]
		z[j] = F(e)
	}
	lse := zmax + math.Log(s)
	for j, e := range z {
		z[j] = F(m * (float64(e)/s*ysum - y[j]))
	}
	return lse*ysum - yz
}

// is32 says whether F is float32.
func is32[F graph.Float]() bool {
	var zero F
	return unsafe.Sizeof(zero) == 4
}

// bernoulliNLL returns sum_j softplus(z_j) - y_j z_j and replaces z by its
// gradient, (sigmoid(z) - y) m, with one exponential per entry. With
// e = exp(-|z|), softplus(z) = max(z, 0) + log(1 + e); the logarithms of a
// row are taken as the logarithm of the product of the 1 + e, each in
// (1, 2], in runs short enough not to overflow: one logarithm per 512
// entries instead of one per entry, at the cost of a rounding error of
// order 1e-16 per entry. e comes from fastmath's polynomial,
// fastmath.ExpNegAbs of bernoulliChunk entries at a time (the long one in float64, within a few ulps of math.Exp; the
// short one in float32, within one float32 ulp), and no branch on the
// sign of z: sigmoid(z) is s (e n + 1 - n) with s = 1 / (1 + e) and n = 1
// for a negative z, 0 otherwise (one of the two terms exactly 0), and
// max(z, 0) is (z + |z|) / 2.
func bernoulliNLL[F graph.Float](z []F, y []float64, m float64) float64 {
	short := is32[F]()
	var loss float64
	prod := 1.0
	n := len(z) &^ 3
	var eb [bernoulliChunk]float64
	for j := 0; j < n; j += 4 {
		if j%bernoulliChunk == 0 {
			fastmath.ExpNegAbs(eb[:], z[j:min(j+bernoulliChunk, n)])
		}
		zz, yy, ee := z[j:j+4:j+4], y[j:j+4:j+4], eb[j%bernoulliChunk:][:4:4]
		v0, v1, v2, v3 := float64(zz[0]), float64(zz[1]), float64(zz[2]), float64(zz[3])
		e0, e1, e2, e3 := ee[0], ee[1], ee[2], ee[3]
		l0, g0 := bernoulliEntry(v0, e0, yy[0], m)
		l1, g1 := bernoulliEntry(v1, e1, yy[1], m)
		l2, g2 := bernoulliEntry(v2, e2, yy[2], m)
		l3, g3 := bernoulliEntry(v3, e3, yy[3], m)
		zz[0], zz[1], zz[2], zz[3] = F(g0), F(g1), F(g2), F(g3)
		loss += (l0 + l1) + (l2 + l3)
		prod *= ((1 + e0) * (1 + e1)) * ((1 + e2) * (1 + e3))
		if j%bernoulliRun == bernoulliRun-4 {
			loss += math.Log(prod)
			prod = 1
		}
	}
	for j := n; j < len(z); j++ {
		v := float64(z[j])
		e, _, _, _ := fastmath.ExpNeg4(math.Abs(v), 0, 0, 0, short)
		l, g := bernoulliEntry(v, e, y[j], m)
		z[j] = F(g)
		loss += l
		prod *= 1 + e
	}
	return loss + math.Log(prod)
}

// bernoulliChunk is how many entries bernoulliNLL passes to
// fastmath.ExpNegAbs at a time (a multiple of 4 that divides
// bernoulliRun).
const bernoulliChunk = 64

// bernoulliRun is how many factors 1 + e, each in (1, 2], bernoulliNLL
// multiplies before it takes their logarithm: 2^512 is far below the
// largest float64.
const bernoulliRun = 512

// bernoulliEntry is one entry of bernoulliNLL given e = exp(-|v|): the
// loss but for log(1 + e), and the gradient.
func bernoulliEntry(v, e, y, m float64) (loss, grad float64) {
	s := 1 / (1 + e)
	neg := float64(math.Float64bits(v) >> 63)
	return (v+math.Abs(v))*0.5 - y*v, m * (s*(e*neg+(1-neg)) - y)
}

// meanSquare returns the mean of (z_j - y_j)^2 and replaces z by its
// gradient times m.
func meanSquare[F graph.Float](z []F, y []float64, m float64) float64 {
	var loss float64
	n := float64(len(z))
	for j, v := range z {
		d := float64(v) - y[j]
		loss += d * d
		z[j] = F(m * 2 * d / n)
	}
	return loss / n
}
