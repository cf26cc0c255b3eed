package graph

import (
	"math"

	G "gorgonia.org/gorgonia"
)

// Embed looks symbols up in a table: ids holds integer symbol codes,
// [batch] or [batch, 1] (float values 0, 1, ..., V-1), and table [V, D]
// one row per symbol; the result is [batch, D], row r being table[ids[r]].
// Its gradient adds each row's gradient into the row of its symbol; ids
// get none. A code that is not an integer in [0, V) gives a row of NaN
// (the model's data readers check codes before they reach a graph).
//
// With ids the step input of a cell ([batch, 1]), the lookup is part of
// the tape's input projection. An embedding equals a one-hot input times
// the table, at the cost of D values per row instead of V D
// multiplications.
func (b *Builder) Embed(ids, table *G.Node) *G.Node {
	if b.nilArg("Embed", ids, table) {
		return nil
	}
	is, ts := ids.Shape(), table.Shape()
	if ts.Dims() != 2 || !(is.Dims() == 1 || is.Dims() == 2 && is[1] == 1) {
		b.Fail(shapeError("Embed", "want ids [batch] or [batch, 1] and a table [symbols, width], got %v and %v", is, ts), "graph")
		return nil
	}
	return b.applyX(&embedOp{rows: is[0], rank: is.Dims(), v: ts[0], d: ts[1]}, ids, table)
}

// embedOp is Embed for one pair of shapes.
type embedOp struct{ rows, rank, v, d int }

func (o *embedOp) name() string { return "rtn.Embed" }
func (o *embedOp) key() string  { return "" }
func (o *embedOp) out() []int   { return []int{o.rows, o.d} }
func (o *embedOp) diff(k int) bool {
	return k == 1
}
func (o *embedOp) needs(int) ([]int, bool) { return []int{0}, false }
func (o *embedOp) rowArgs() []bool {
	if o.rank == 1 {
		return nil // a vector of codes is one row to the tape
	}
	return []bool{true, false}
}
func (o *embedOp) impl64() ximpl[float64] { return embedImpl[float64]{o} }
func (o *embedOp) impl32() ximpl[float32] { return embedImpl[float32]{o} }

type embedImpl[F Float] struct{ *embedOp }

// id returns the code of row r, or -1 when it is not a symbol.
func (o embedImpl[F]) id(ids xarg[F], r int) int {
	x := ids.d[r]
	if o.rank == 2 {
		x = ids.d[r*ids.ld]
	}
	if !(x >= 0 && x < F(o.v)) || x != F(math.Trunc(float64(x))) {
		return -1
	}
	return int(x)
}

func (o embedImpl[F]) forward(rows int, a []xarg[F], y []F, ldy int) {
	d := o.d
	for r := range rows {
		yr := y[r*ldy : r*ldy+d]
		i := o.id(a[0], r)
		if i < 0 {
			for j := range yr {
				yr[j] = F(math.NaN())
			}
			continue
		}
		copy(yr, a[1].d[i*a[1].ld:i*a[1].ld+d])
	}
}

func (o embedImpl[F]) vjp(_ int, a []xarg[F], _ []F, _ int, gy, d []F, acc bool) {
	if !acc {
		clear(d[:o.v*o.d])
	}
	for r := range o.rows {
		if i := o.id(a[0], r); i >= 0 {
			dr := d[i*o.d : (i+1)*o.d]
			for j, g := range gy[r*o.d : (r+1)*o.d] {
				dr[j] += g
			}
		}
	}
}
