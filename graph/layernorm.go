package graph

import (
	"fmt"
	"math"

	G "gorgonia.org/gorgonia"
)

// LayerNorm normalises each row of x [batch, n] to mean 0 and variance 1,
// then scales and shifts it (Ba et al., 2016, as torch.nn.LayerNorm):
//
//	y[r, j] = (x[r, j] - mean_r) / sqrt(var_r + eps) * gamma[j] + beta[j]
//
// with the mean and the biased variance of row r; gamma and beta are [n]
// (learned, typically initialised to ones and zeros). eps must be
// positive and finite (PyTorch's default is 1e-5). The gradient reaches x,
// gamma and beta.
func (b *Builder) LayerNorm(x, gamma, beta *G.Node, eps float64) *G.Node {
	if b.nilArg("LayerNorm", x, gamma, beta) {
		return nil
	}
	xs, gs, bs := x.Shape(), gamma.Shape(), beta.Shape()
	if xs.Dims() != 2 || gs.Dims() != 1 || bs.Dims() != 1 || gs[0] != xs[1] || bs[0] != xs[1] {
		b.Fail(shapeError("LayerNorm", "want x [batch, n], gamma [n] and beta [n], got %v, %v and %v", xs, gs, bs), "graph")
		return nil
	}
	if !(eps > 0) || math.IsInf(eps, 0) {
		b.Fail(shapeError("LayerNorm", "eps must be positive and finite, got %g", eps), "graph")
		return nil
	}
	return b.applyX(&layerNormOp{rows: xs[0], n: xs[1], eps: eps}, x, gamma, beta)
}

// layerNormOp is LayerNorm for one shape.
type layerNormOp struct {
	rows, n int
	eps     float64
}

func (o *layerNormOp) name() string    { return "rtn.LayerNorm" }
func (o *layerNormOp) key() string     { return fmt.Sprintf("eps=%g", o.eps) }
func (o *layerNormOp) out() []int      { return []int{o.rows, o.n} }
func (o *layerNormOp) diff(int) bool   { return true }
func (o *layerNormOp) rowArgs() []bool { return []bool{true, false, false} }
func (o *layerNormOp) needs(k int) ([]int, bool) {
	switch k {
	case 0:
		return []int{0, 1}, false
	case 1:
		return []int{0}, false
	}
	return nil, false
}
func (o *layerNormOp) impl64() ximpl[float64] { return layerNormImpl[float64]{o} }
func (o *layerNormOp) impl32() ximpl[float32] { return layerNormImpl[float32]{o} }

type layerNormImpl[F Float] struct{ *layerNormOp }

// stats returns the mean of row x and 1/sqrt(var + eps), summed in
// float64.
func (o layerNormImpl[F]) stats(x []F) (mean, rstd float64) {
	for _, v := range x {
		mean += float64(v)
	}
	mean /= float64(len(x))
	var ss float64
	for _, v := range x {
		d := float64(v) - mean
		ss += d * d
	}
	return mean, 1 / math.Sqrt(ss/float64(len(x))+o.eps)
}

func (o layerNormImpl[F]) forward(rows int, a []xarg[F], y []F, ldy int) {
	n := o.n
	gamma, beta := a[1].d[:n], a[2].d[:n]
	for r := range rows {
		x, yr := a[0].d[r*a[0].ld:r*a[0].ld+n], y[r*ldy:r*ldy+n]
		mean, rstd := o.stats(x)
		for j, v := range x {
			yr[j] = F((float64(v)-mean)*rstd)*gamma[j] + beta[j]
		}
	}
}

// vjp: with xh = (x - mean) rstd and e = gy gamma, the gradient of x is
// rstd (e - mean(e) - xh mean(e xh)); gamma's is the sum over rows of
// gy xh, beta's the sum of gy.
func (o layerNormImpl[F]) vjp(k int, a []xarg[F], _ []F, _ int, gy, d []F, acc bool) {
	n := o.n
	if k > 0 && !acc {
		clear(d[:n])
	}
	for r := range o.rows {
		x, g := a[0].d[r*a[0].ld:r*a[0].ld+n], gy[r*n:(r+1)*n]
		if k == 2 {
			for j, v := range g {
				d[j] += v
			}
			continue
		}
		mean, rstd := o.stats(x)
		if k == 1 {
			for j, v := range g {
				d[j] += v * F((float64(x[j])-mean)*rstd)
			}
			continue
		}
		gamma := a[1].d[:n]
		var me, mex float64
		for j, v := range g {
			e := float64(v * gamma[j])
			me += e
			mex += e * (float64(x[j]) - mean) * rstd
		}
		me, mex = me/float64(n), mex/float64(n)
		dr := d[r*n : (r+1)*n]
		for j, v := range g {
			e := float64(v * gamma[j])
			xh := (float64(x[j]) - mean) * rstd
			set(&dr[j], F(rstd*(e-me-xh*mex)), acc)
		}
	}
}
