package graph

import (
	"fmt"
	"slices"
	"strings"

	G "gorgonia.org/gorgonia"
)

// Einsum limits: operands per call and the rank of each operand and of
// the result.
const (
	maxEinsumOperands = 3
	maxEinsumRank     = 4
)

// Einsum contracts one to three operands by Einstein notation, as
// torch.einsum and numpy.einsum do: "bi,ijk->bjk" is sum_i x[b,i]
// W[i,j,k], "bi,bj,ijk->bk" the bilinear form of a second-order cell,
// "bij,bj->bi" a batched matrix-vector product. Each operand's letters
// name its indices in order; the letters after "->" the result's. An index
// absent from the result is summed over.
//
// Rules, checked when the graph is built (an error names the spec and the
// shapes): one to three operands of rank 1 to 4; letters a-z and A-Z; no
// letter twice in one operand or in the result; every result letter in
// some operand; one extent per letter. The result has rank 0 to 4.
//
// Operands are contracted pairwise, in the order that needs the fewest
// multiplications, each pair as matrix products on Gemm (one per value of
// the indices the pair shares and keeps, such as a batch index); operands
// are copied into another layout only when theirs does not suit a matrix
// product. The vector-Jacobian product of each operand is an einsum of
// the result's gradient with the other operands, planned the same way.
//
// When the result's first letter is a batch index that every operand
// holding it holds first, and the operands without it are constants
// (parameters), the einsum is computed row by row: on the tape, for
// instance, Einsum("bi,ijk->bjk", x, W) of the step input x is part of
// the input projection, computed once for a block of steps.
func (b *Builder) Einsum(spec string, xs ...*G.Node) *G.Node {
	if b.nilArg("Einsum", xs...) {
		return nil
	}
	shapes := make([][]int, len(xs))
	for i, x := range xs {
		shapes[i] = x.Shape().Clone()
	}
	op, err := newEinsumOp(spec, shapes)
	if err != nil {
		b.Fail(err, "graph")
		return nil
	}
	return b.applyX(op, xs...)
}

// einsumOp is an einsum bound to its operand shapes, with its forward
// plan and the plan of each operand's vector-Jacobian product.
type einsumOp struct {
	spec   string
	in     [][]byte // each operand's letters
	res    []byte   // the result's letters
	ext    *extents
	shapes [][]int
	rows   []bool // operands indexed by the result's rows; nil if not row by row
	fwd    *eplan
	back   []*eplan // back[k]: the gradient of operand k
}

// newEinsumOp parses and checks spec against the operand shapes and plans
// the contractions.
func newEinsumOp(spec string, shapes [][]int) (*einsumOp, error) {
	fail := func(format string, args ...any) error {
		return shapeError("Einsum", "%q with operands %v: %s", spec, shapes, fmt.Sprintf(format, args...))
	}
	lhs, rhs, ok := strings.Cut(strings.ReplaceAll(spec, " ", ""), "->")
	if !ok {
		return nil, fail("want operands->result, such as \"bi,ij->bj\"")
	}
	terms := strings.Split(lhs, ",")
	if len(terms) < 1 || len(terms) > maxEinsumOperands {
		return nil, fail("%d operands, want 1 to %d", len(terms), maxEinsumOperands)
	}
	if len(terms) != len(shapes) {
		return nil, fail("%d operand terms for %d operands", len(terms), len(shapes))
	}
	op := &einsumOp{spec: spec, ext: &extents{}, shapes: shapes}
	letters := func(t string, what string, maxRank int) ([]byte, error) {
		if len(t) > maxRank {
			return nil, fail("%s %q has rank %d, want at most %d", what, t, len(t), maxRank)
		}
		for i := 0; i < len(t); i++ {
			c := t[i]
			if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
				return nil, fail("%s %q: index %q is not a letter", what, t, c)
			}
			if strings.IndexByte(t[:i], c) >= 0 {
				return nil, fail("%s %q repeats index %q", what, t, c)
			}
		}
		return []byte(t), nil
	}
	for i, t := range terms {
		ls, err := letters(t, fmt.Sprintf("operand %d", i), maxEinsumRank)
		if err != nil {
			return nil, err
		}
		if len(ls) == 0 || len(ls) != len(shapes[i]) {
			return nil, fail("operand %d has shape %v for indices %q", i, shapes[i], t)
		}
		for j, c := range ls {
			if e := op.ext[c]; e != 0 && e != shapes[i][j] {
				return nil, fail("index %q has extent %d and %d", c, e, shapes[i][j])
			}
			op.ext[c] = shapes[i][j]
		}
		op.in = append(op.in, ls)
	}
	res, err := letters(rhs, "result", maxEinsumRank)
	if err != nil {
		return nil, err
	}
	for _, c := range res {
		if op.ext[c] == 0 {
			return nil, fail("result index %q is in no operand", c)
		}
	}
	op.res = res
	op.fwd = newEplan(op.in, op.res, op.ext)
	for k := range op.in {
		ins := [][]byte{op.res}
		for j, l := range op.in {
			if j != k {
				ins = append(ins, l)
			}
		}
		op.back = append(op.back, newEplan(ins, op.in[k], op.ext))
	}
	op.rows = op.rowOperands()
	return op, nil
}

// rowOperands returns which operands are indexed by the result's rows when
// the einsum is row by row: the result has rank 2 or more, and its first
// letter is the first letter of every operand holding it.
func (op *einsumOp) rowOperands() []bool {
	if len(op.res) < 2 {
		return nil
	}
	r := op.res[0]
	rows := make([]bool, len(op.in))
	for i, l := range op.in {
		switch j := slices.Index(l, r); {
		case j == 0:
			rows[i] = true
		case j > 0:
			return nil
		}
	}
	return rows
}

func (op *einsumOp) name() string { return "rtn.Einsum" }
func (op *einsumOp) key() string  { return op.spec }
func (op *einsumOp) out() []int {
	s := make([]int, len(op.res))
	for i, c := range op.res {
		s[i] = op.ext[c]
	}
	return s
}
func (op *einsumOp) diff(int) bool   { return true }
func (op *einsumOp) rowArgs() []bool { return op.rows }
func (op *einsumOp) needs(k int) ([]int, bool) {
	var args []int
	for i := range op.in {
		if i != k {
			args = append(args, i)
		}
	}
	return args, false
}
func (op *einsumOp) impl64() ximpl[float64] { return newEinsumImpl[float64](op) }
func (op *einsumOp) impl32() ximpl[float32] { return newEinsumImpl[float32](op) }

// einsumImpl runs an einsumOp's plans in one float type.
type einsumImpl[F Float] struct {
	op    *einsumOp
	rows  int // the result's rows
	fwd   *erun[F]
	back  []*erun[F]
	views []xarg[F] // the arguments of a plan
	block []xarg[F] // the arguments of a block of rows
}

func newEinsumImpl[F Float](op *einsumOp) *einsumImpl[F] {
	im := &einsumImpl[F]{op: op, rows: rowsOf(op.out()), fwd: newErun[F](op.fwd)}
	for _, p := range op.back {
		im.back = append(im.back, newErun[F](p))
	}
	im.views = make([]xarg[F], len(op.in))
	im.block = make([]xarg[F], len(op.in))
	return im
}

// forward runs the forward plan; rows larger than the result's (the tape's
// input projection of a row-by-row einsum) run it once per block of rows.
func (im *einsumImpl[F]) forward(rows int, a []xarg[F], y []F, ldy int) {
	if rows == im.rows || im.op.rows == nil {
		im.fwd.run(a, y, ldy, false)
		return
	}
	for r := 0; r < rows; r += im.rows {
		for i, x := range a {
			im.block[i] = x
			if im.op.rows[i] {
				im.block[i].d = x.d[r*x.ld:]
			}
		}
		im.fwd.run(im.block, y[r*ldy:], ldy, false)
	}
}

// vjp runs the plan of operand k's gradient on (gy, the other operands).
func (im *einsumImpl[F]) vjp(k int, a []xarg[F], _ []F, _ int, gy, d []F, acc bool) {
	_, c := rowsCols(im.op.out())
	im.views = append(im.views[:0], xarg[F]{d: gy, ld: c})
	for i, x := range a {
		if i != k {
			im.views = append(im.views, x)
		}
	}
	_, ld := rowsCols(im.op.shapes[k])
	im.back[k].run(im.views, d, ld, acc)
}
