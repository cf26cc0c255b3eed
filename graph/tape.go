package graph

import (
	"fmt"
	"slices"

	"github.com/pkg/errors"
	G "gorgonia.org/gorgonia"

	"github.com/rtnlab/rtn/params"
)

// The tape executor: every Builder method records what its node computes
// (an irInstr), and CompileTape turns the recorded InitialState and Step
// of a cell into a StepKernel in plain Go, so a cell without a
// hand-written kernel runs on FusedRecurrence too.

// opKind is an op of the Builder's record.
type opKind uint8

const (
	opInput    opKind = iota // Builder.Input: bound by the executor, or zeros
	opParam                  // Builder.Param
	opConst                  // Builder.Const: a scalar
	opConstant               // Builder.Constant: a tensor
	opMul
	opAdd
	opSub
	opHadamard
	opDiv
	opAddRow
	opMulRow
	opMulCol
	opScale
	opShift
	opNeg
	opTanh
	opSigmoid
	opExp
	opLog
	opSquare
	opAbs
	opRectify
	opLog1pExp
	opSum
	opMean
	opReshape
	opTranspose
	opCols
	opConcat
	opLogSumExp
	opLogSoftmax
	opExt // a tensor op (xop): Kron, Einsum, ...
)

var opNames = [...]string{"Input", "Param", "Const", "Constant", "Mul", "Add", "Sub", "Hadamard", "Div",
	"AddRow", "MulRow", "MulCol", "Scale", "Shift", "Neg", "Tanh", "Sigmoid", "Exp", "Log", "Square", "Abs",
	"Rectify", "Log1pExp", "Sum", "Mean", "Reshape", "Transpose", "Cols", "Concat", "LogSumExp", "LogSoftmax", "Ext"}

func (o opKind) String() string { return opNames[o] }

// irInstr is what one Builder method computed: the op, its argument
// nodes and its constants.
type irInstr struct {
	op   opKind
	args []*G.Node
	f    float64   // Scale, Shift, Const: the constant
	ints []int     // Sum, Mean, Transpose: axes; Cols: from, to; Concat, LogSumExp, LogSoftmax: the axis
	data []float64 // Constant: the values
	set  *params.Params
	name string // Param: the parameter's name in set
	x    xop    // Ext: the tensor op
}

// ErrNotRecorded is the error, tested with errors.Is, of CompileTape for a
// cell that uses an op outside the Builder's record (Builder.Do,
// Builder.Fused, gorgonia directly) or a shape the tape does not run (a
// tensor of rank above 4, a reduction over one axis of a tensor of rank
// above 2).
var ErrNotRecorded = errors.New("graph: the cell uses an op the tape executor cannot run")

// nodeClass says where a node of a program is computed.
type nodeClass uint8

const (
	clsConst nodeClass = iota // parameter, constant or unbound (zero) input: read, never computed
	clsX                      // the step input x
	clsState                  // an input state
	clsProj                   // depends on x only, row by row: computed by Project for a block of steps
	clsStep                   // computed by every Forward
)

// maxTapeRank is the largest rank of a value the tape runs.
const maxTapeRank = 4

// Mul variants by argument ranks.
const (
	mulMM = iota // [m, k] x [k, n]
	mulMV        // [m, k] x [k] -> [m]
	mulVV        // [k] . [k] -> scalar
	mulSA        // scalar x tensor
	mulAS        // tensor x scalar
)

// Reductions of Sum and Mean, and the axis of Concat, LogSumExp and
// LogSoftmax, in terms of a node's rows and columns.
const (
	alongAll  = iota // every entry
	alongRows        // down each column (axis 0 of a matrix)
	alongCols        // along each row (axis 1 of a matrix, axis 0 of a vector)
)

// Value locations, by phase.
type locKind uint8

const (
	locNone    locKind = iota
	locX               // the step input (the block's inputs in Project)
	locState           // input state i
	locParam           // a parameter's data
	locData            // the node's own constant data (or zeros)
	locScratch         // the node's scratch buffer
	locCache           // a slot of the step's cache
	locProj            // columns of the projection
	locView            // columns of another node's value (Cols)
)

type loc struct {
	kind locKind
	i    int // locState: the state; locView: the node viewed
	off  int // locCache: the slot's offset; locProj, locView: the first column
	ld   int // row stride
}

// phases of a program.
const (
	phProj = iota
	phFwd
	phBwd
)

// tnode is one node of a program: a value of shape [rows, cols] (a
// vector [n] is [1, n], a scalar [1, 1]).
type tnode[F Float] struct {
	op         opKind
	in         []int
	rank       int
	shape      []int
	rows, cols int
	f          float64
	ints       []int
	variant    int
	data       []F // constants, zeros, scratch
	set        *params.Params
	name       string
	diff       bool // a parameter of the differentiated set
	class      nodeClass
	grad       bool // a gradient reaches it
	need       bool // backward reads its value
	loc        [3]loc
	gbuf       []F      // its gradient (not for parameters, states and aliases)
	galias     int      // the node whose gradient its gradient is, or -1 (aliasGradients)
	gseed      int      // the output gradient its gradient is, or -1
	xop        xop      // Ext: the op
	x          ximpl[F] // Ext: its implementation
	xargs      []xarg[F]
	pw         *PackedWeightOf[F] // a step's product by a parameter: the parameter packed once per pass
}

func (n *tnode[F]) size() int { return n.rows * n.cols }

// bstep is one instruction of a backward pass.
type bstep struct {
	kind     uint8 // bSeed, bZero or bVJP
	n, k     int   // bSeed: output k into node n; bZero: node n; bVJP: node n into its argument k
	acc      bool  // add into the gradient instead of writing it
	from, to int   // bZero: the columns
}

const (
	bSeed = iota
	bZero
	bVJP
)

// tapeProgram is a recorded computation compiled for one batch size.
type tapeProgram[F Float] struct {
	p        *params.Params
	w        Weights[F] // reads the parameters' values
	nodes    []*tnode[F]
	outs     []int
	states   []int
	projOps  []int // computed by Project, in order
	fwdOps   []int // computed by Forward, in order
	projSave []int // projected values backward reads, copied into the cache
	bsteps   []bstep
	inWidth  int
	projSize int
	cacheLen int
	vals     [3][][]F
	grads    [][]F
	noise    []*noise // the states of its random ops
}

// newTapeProgram compiles the computation of outs recorded by b; x (may be
// nil) is the step input and states the input states, both made by
// b.Input; p is the differentiated set. With project set, the part that
// depends on x only, row by row, is computed by project.
func newTapeProgram[F Float](b *Builder, outs []*G.Node, x *G.Node, states []*G.Node, p *params.Params, w Weights[F], project bool) (*tapeProgram[F], error) {
	pr := &tapeProgram[F]{p: p, w: w}
	ids := map[*G.Node]int{}
	var visit func(n *G.Node) error
	visit = func(n *G.Node) error {
		if _, ok := ids[n]; ok {
			return nil
		}
		rec, ok := b.ir[n]
		if !ok {
			return errors.Wrap(ErrNotRecorded, b.unrecorded(n))
		}
		if rec.op == opReshape {
			if a := b.ir[rec.args[0]]; a.op == opParam {
				rec = a // a reshaped parameter is the parameter read with another shape
			}
		}
		for _, a := range rec.args {
			if err := visit(a); err != nil {
				return err
			}
		}
		t, err := newTnode(rec, n, ids, pr.nodes)
		if err != nil {
			return errors.Wrapf(err, "%v %v", rec.op, n.Shape())
		}
		if t.op == opParam {
			t.diff = rec.set == p
		}
		if no, ok := rec.x.(noisyOp); ok && !slices.Contains(pr.noise, no.noiseState()) {
			pr.noise = append(pr.noise, no.noiseState())
		}
		switch {
		case n == x:
			t.class = clsX
			pr.inWidth = t.cols
		case slices.Contains(states, n):
			t.class = clsState
		}
		ids[n] = len(pr.nodes)
		pr.nodes = append(pr.nodes, t)
		return nil
	}
	for _, o := range outs {
		if err := visit(o); err != nil {
			return nil, err
		}
		pr.outs = append(pr.outs, ids[o])
	}
	for _, s := range states {
		id, ok := ids[s]
		if !ok {
			id = len(pr.nodes) // a state the step does not read: its gradient is zero
			pr.nodes = append(pr.nodes, &tnode[F]{op: opInput, rank: 2, rows: s.Shape()[0], cols: s.Shape()[1], class: clsState, galias: -1, gseed: -1})
		}
		pr.states = append(pr.states, id)
	}
	pr.classify(project)
	pr.planBackward()
	pr.layout()
	for ph := range pr.vals {
		pr.vals[ph] = make([][]F, len(pr.nodes))
	}
	pr.grads = make([][]F, len(pr.nodes))
	return pr, nil
}

// newTnode checks a recorded op's shapes and returns its node.
func newTnode[F Float](rec *irInstr, n *G.Node, ids map[*G.Node]int, nodes []*tnode[F]) (*tnode[F], error) {
	t := &tnode[F]{op: rec.op, f: rec.f, ints: rec.ints, set: rec.set, name: rec.name, galias: -1, gseed: -1}
	t.shape = n.Shape().Clone()
	if n.Shape().IsScalar() {
		t.shape = nil
	}
	t.rank = len(t.shape)
	if t.rank > maxTapeRank {
		return nil, errors.Wrapf(ErrNotRecorded, "rank %d", t.rank)
	}
	t.rows, t.cols = rowsCols(t.shape)
	arg := make([]*tnode[F], len(rec.args))
	for i, a := range rec.args {
		t.in = append(t.in, ids[a])
		arg[i] = nodes[ids[a]]
	}
	same := func() bool {
		return arg[0].rank == arg[1].rank && arg[0].rows == arg[1].rows && arg[0].cols == arg[1].cols
	}
	bad := func() (*tnode[F], error) {
		return nil, errors.Wrap(ErrNotRecorded, "argument shapes")
	}
	matrices := func() bool { // every argument and the node of rank 2 at most
		for _, a := range arg {
			if a.rank > 2 {
				return false
			}
		}
		return t.rank <= 2
	}
	switch t.op {
	case opMul, opTranspose, opConcat, opLogSumExp, opLogSoftmax, opAddRow, opMulRow, opMulCol, opCols:
		if !matrices() {
			return bad()
		}
	case opSum, opMean:
		if arg[0].rank > 2 && len(t.ints) > 0 {
			return bad()
		}
	}
	switch t.op {
	case opInput:
		t.data = make([]F, t.size())
	case opConst:
		t.data = []F{F(rec.f)}
	case opConstant:
		t.data = make([]F, len(rec.data))
		convert(t.data, rec.data)
	case opMul:
		switch a, c := arg[0].rank, arg[1].rank; {
		case a == 2 && c == 2:
			t.variant = mulMM
		case a == 2 && c == 1:
			t.variant = mulMV
		case a == 1 && c == 1:
			t.variant = mulVV
		case a == 0 && c > 0:
			t.variant = mulSA
		case a > 0 && c == 0:
			t.variant = mulAS
		default:
			return bad()
		}
	case opAdd, opSub, opHadamard, opDiv:
		if !same() {
			return bad()
		}
	case opSum, opMean:
		t.variant = alongAll
		if arg[0].rank == 2 && len(t.ints) == 1 {
			t.variant = alongRows + t.ints[0]
		}
	case opTranspose:
		if arg[0].rank != 2 {
			return bad()
		}
	case opExt:
		t.xop = rec.x
		if is32[F]() {
			t.x = any(rec.x.impl32()).(ximpl[F])
		} else {
			t.x = any(rec.x.impl64()).(ximpl[F])
		}
		t.xargs = make([]xarg[F], len(arg))
	case opConcat, opLogSumExp, opLogSoftmax:
		t.variant = alongCols
		if arg[0].rank == 2 && t.ints[0] == 0 {
			t.variant = alongRows
		}
		for _, a := range arg {
			if a.rank != arg[0].rank {
				return bad()
			}
		}
	}
	return t, nil
}

// rowwise says whether node n computes each row of its value from the same
// row of its arguments (x-like ones) and whole constants (the others).
func (pr *tapeProgram[F]) rowwise(n *tnode[F], xlike func(int) bool) bool {
	if n.rank < 2 || len(n.in) == 0 {
		return false
	}
	cst := func(i int) bool { return pr.nodes[n.in[i]].class == clsConst }
	switch n.op {
	case opMul:
		return n.variant == mulMM && xlike(0) && cst(1) || n.variant == mulAS && xlike(0) && cst(1)
	case opAdd, opSub, opHadamard, opDiv:
		return xlike(0) && xlike(1)
	case opAddRow, opMulRow:
		return xlike(0) && cst(1)
	case opScale, opShift, opNeg, opTanh, opSigmoid, opExp, opLog, opSquare, opAbs, opRectify, opLog1pExp, opCols:
		return xlike(0)
	case opExt:
		rowArgs := n.xop.rowArgs()
		if rowArgs == nil {
			return false
		}
		for i, r := range rowArgs {
			if r && !xlike(i) || !r && !cst(i) {
				return false
			}
		}
		return true
	case opConcat, opLogSoftmax:
		if n.variant != alongCols {
			return false
		}
		for i := range n.in {
			if !xlike(i) {
				return false
			}
		}
		return true
	}
	return false
}

// classify sets each node's class and which nodes need gradients.
func (pr *tapeProgram[F]) classify(project bool) {
	for _, n := range pr.nodes {
		if n.class == clsX || n.class == clsState {
			n.grad = n.class == clsState
			continue
		}
		if len(n.in) == 0 {
			n.class = clsConst
			n.grad = n.diff
			continue
		}
		xlike := func(i int) bool { c := pr.nodes[n.in[i]].class; return c == clsX || c == clsProj }
		n.class = clsStep
		if project && pr.rowwise(n, xlike) {
			n.class = clsProj
		}
		for k, a := range n.in {
			n.grad = n.grad || pr.nodes[a].grad && (n.op != opExt || n.xop.diff(k))
		}
	}
}

// needs marks the values that the vector-Jacobian product of node n with
// respect to argument k reads.
func (pr *tapeProgram[F]) needs(id, k int) {
	n := pr.nodes[id]
	mark := func(i int) { pr.nodes[i].need = true }
	switch n.op {
	case opMul, opHadamard, opMulRow, opMulCol:
		mark(n.in[1-k])
	case opDiv:
		mark(n.in[1])
		if k == 1 {
			mark(n.in[0])
		}
	case opTanh, opSigmoid, opExp, opLogSoftmax:
		mark(id)
	case opLog, opSquare, opAbs, opRectify, opLog1pExp:
		mark(n.in[0])
	case opLogSumExp:
		mark(id)
		mark(n.in[0])
	case opExt:
		args, out := n.xop.needs(k)
		for _, i := range args {
			mark(n.in[i])
		}
		if out {
			mark(id)
		}
	}
}

// planBackward lists the backward pass's instructions: the output
// gradients, then each node's vector-Jacobian product in reverse order.
// Each gradient buffer is written by its first contribution and added
// into by the next ones, and columns no op reaches are zeroed, so nothing
// is cleared that is written anyway.
func (pr *tapeProgram[F]) planBackward() {
	covered := make([][]bool, len(pr.nodes))
	// contribute returns whether a contribution to columns [from, to) of
	// node i's gradient adds (after zeroing the columns not yet written
	// when some are).
	contribute := func(i, from, to int) bool {
		if pr.nodes[i].op == opParam {
			return true // gradients add into the caller's set
		}
		if covered[i] == nil {
			covered[i] = make([]bool, pr.nodes[i].cols)
		}
		c := covered[i][from:to]
		all, none := !slices.Contains(c, false), !slices.Contains(c, true)
		if !all && !none {
			pr.zeroUncovered(i, covered[i], from, to)
		}
		for j := range c {
			c[j] = true
		}
		return !none
	}
	complete := func(i int) {
		if covered[i] == nil {
			covered[i] = make([]bool, pr.nodes[i].cols)
		}
		pr.zeroUncovered(i, covered[i], 0, pr.nodes[i].cols)
	}
	for k, o := range pr.outs {
		if n := pr.nodes[o]; n.grad {
			pr.bsteps = append(pr.bsteps, bstep{kind: bSeed, n: o, k: k, acc: contribute(o, 0, n.cols)})
		}
	}
	for id := len(pr.nodes) - 1; id >= 0; id-- {
		n := pr.nodes[id]
		if !n.grad || len(n.in) == 0 {
			continue
		}
		complete(id)
		for k, a := range n.in {
			if !pr.nodes[a].grad || n.op == opExt && !n.xop.diff(k) {
				continue
			}
			from, to := 0, pr.nodes[a].cols
			if n.op == opCols {
				from, to = n.ints[0], n.ints[1]
			}
			pr.needs(id, k)
			pr.bsteps = append(pr.bsteps, bstep{kind: bVJP, n: id, k: k, acc: contribute(a, from, to)})
		}
	}
	for _, s := range pr.states {
		complete(s)
	}
	pr.aliasGradients()
}

// zeroUncovered adds instructions zeroing the runs of columns of [from,
// to) of node i's gradient that cov marks as not written, and marks them.
func (pr *tapeProgram[F]) zeroUncovered(i int, cov []bool, from, to int) {
	for j := from; j < to; {
		if cov[j] {
			j++
			continue
		}
		e := j
		for e < to && !cov[e] {
			cov[e] = true
			e++
		}
		pr.bsteps = append(pr.bsteps, bstep{kind: bZero, n: i, from: j, to: e})
		j = e
	}
}

// layout places every node's value in each phase and sizes the buffers.
func (pr *tapeProgram[F]) layout() {
	// A view's value is read where its base's is.
	for id := len(pr.nodes) - 1; id >= 0; id-- {
		if n := pr.nodes[id]; n.op == opCols && n.need {
			pr.nodes[n.in[0]].need = true
		}
	}
	for id, n := range pr.nodes {
		if n.op == opCols {
			b := pr.nodes[n.in[0]]
			for ph := range n.loc {
				n.loc[ph] = loc{kind: locView, i: n.in[0], off: n.ints[0], ld: b.loc[ph].ld}
			}
			if n.class == clsProj || b.class == clsX {
				n.class = clsProj
			}
			if n.grad && n.galias < 0 && n.gseed < 0 {
				n.gbuf = make([]F, n.size())
			}
			continue
		}
		var l loc
		switch n.class {
		case clsConst:
			l = loc{kind: locData, ld: n.cols}
			if n.op == opParam {
				l.kind = locParam
			}
			n.loc = [3]loc{l, l, l}
		case clsX:
			l = loc{kind: locX, ld: n.cols}
			n.loc = [3]loc{l, l, l}
		case clsState:
			l = loc{kind: locState, i: slices.Index(pr.states, id), ld: n.cols}
			n.loc = [3]loc{{}, l, l}
		case clsProj:
			n.loc[phProj] = loc{kind: locProj, off: pr.projSize}
			n.loc[phFwd] = loc{kind: locProj, off: pr.projSize}
			pr.projOps = append(pr.projOps, id)
			pr.projSize += n.cols
			if n.need {
				n.loc[phBwd] = loc{kind: locCache, off: pr.cacheLen, ld: n.cols}
				pr.cacheLen += n.size()
				pr.projSave = append(pr.projSave, id)
			}
		case clsStep:
			pr.fwdOps = append(pr.fwdOps, id)
			if n.need {
				n.loc[phFwd] = loc{kind: locCache, off: pr.cacheLen, ld: n.cols}
				n.loc[phBwd] = n.loc[phFwd]
				pr.cacheLen += n.size()
			} else {
				n.data = make([]F, n.size())
				n.loc[phFwd] = loc{kind: locScratch, ld: n.cols}
			}
		}
		if n.grad && n.op != opParam && n.class != clsState && n.galias < 0 && n.gseed < 0 {
			n.gbuf = make([]F, n.size())
		}
	}
	for _, n := range pr.nodes {
		if n.class == clsProj && n.op != opCols {
			n.loc[phProj].ld, n.loc[phFwd].ld = pr.projSize, pr.projSize
		}
	}
	for _, n := range pr.nodes { // views of projected nodes, in order
		if n.op == opCols {
			for ph := range n.loc {
				n.loc[ph].ld = pr.nodes[n.in[0]].loc[ph].ld
			}
		}
	}
}

// resolve points vals[ph][id] at every node's value in phase ph.
func (pr *tapeProgram[F]) resolve(ph int, x, proj []F, in [][]F, cache []F) [][]F {
	v := pr.vals[ph]
	for id, n := range pr.nodes {
		l := n.loc[ph]
		switch l.kind {
		case locX:
			v[id] = x
		case locState:
			v[id] = in[l.i]
		case locParam:
			v[id] = pr.w.Data(n.set, n.name)
		case locData, locScratch:
			v[id] = n.data
		case locCache:
			v[id] = cache[l.off : l.off+n.size()]
		case locProj:
			v[id] = proj[l.off:]
		case locView:
			v[id] = nil
			if b := v[l.i]; b != nil {
				v[id] = b[l.off:]
			}
		default:
			v[id] = nil
		}
	}
	return v
}

// project computes the projected nodes of a block of steps (xs: [R,
// inWidth]) into proj ([R, projSize]).
func (pr *tapeProgram[F]) project(xs, proj []F) {
	if len(pr.projOps) == 0 {
		return
	}
	v := pr.resolve(phProj, xs, proj, nil, nil)
	rows := len(xs) / pr.inWidth
	for _, id := range pr.projOps {
		pr.forwardOp(id, rows, v, phProj)
	}
}

// forward runs one step: the outputs into out, what backward reads into
// cache.
func (pr *tapeProgram[F]) forward(x, proj []F, in, out [][]F, cache []F) {
	v := pr.resolve(phFwd, x, proj, in, cache)
	for _, id := range pr.fwdOps {
		pr.forwardOp(id, pr.nodes[id].rows, v, phFwd)
	}
	for _, id := range pr.projSave {
		n := pr.nodes[id]
		copyRows(cache[n.loc[phBwd].off:], n.cols, v[id], n.loc[phFwd].ld, n.rows, n.cols)
	}
	for i, id := range pr.outs {
		n := pr.nodes[id]
		copyRows(out[i], n.cols, v[id], n.loc[phFwd].ld, n.rows, n.cols)
	}
}

// backward runs the step's vector-Jacobian product from the gradients
// gout reaching the outputs: parameters' gradients add into grads, the
// input states' are written into gin.
func (pr *tapeProgram[F]) backward(x []F, in [][]F, cache []F, gout, gin [][]F, grads Grads[F]) {
	v := pr.resolve(phBwd, x, nil, in, cache)
	g := pr.bindGradients(gout, gin, grads)
	for _, s := range pr.bsteps {
		switch s.kind {
		case bSeed:
			put(g[s.n], gout[s.k], s.acc)
		case bZero:
			n := pr.nodes[s.n]
			for r := range n.rows {
				clear(g[s.n][r*n.cols+s.from : r*n.cols+s.to])
			}
		case bVJP:
			pr.vjp(s.n, s.k, s.acc, v, g)
		}
	}
}

// put writes src into dst, or adds it.
func put[F Float](dst, src []F, acc bool) {
	if !acc {
		copy(dst, src)
		return
	}
	addInto(dst, src)
}

// copyRows copies a [rows, cols] matrix stored with row stride lds into
// dst with row stride ldd.
func copyRows[F Float](dst []F, ldd int, src []F, lds, rows, cols int) {
	for r := range rows {
		copy(dst[r*ldd:r*ldd+cols], src[r*lds:r*lds+cols])
	}
}

// tapeKernel is a cell's recorded InitialState and Step compiled into a
// StepKernel.
type tapeKernel[F Float] struct {
	step, init *tapeProgram[F]
	names      []string
	initOut    [][]F // InitialStateBack's recomputed initial state
	initCache  []F
}

var (
	_ StepKernel  = (*tapeKernel[float64])(nil)
	_ NoisyKernel = (*tapeKernel[float64])(nil)
)

// CompileTape compiles cell c's InitialState and Step, as the Builder
// recorded them, into a StepKernel for a batch size: one buffer per value,
// the forward pass as loops and Gemm, the backward pass as each op's
// vector-Jacobian product in reverse order, and no allocation per call.
// The part of the step that depends on x only, row by row (x W + b,
// typically), is the kernel's input projection, computed for a block of
// steps at once. Parameters bound from p are differentiated; parameters
// bound from another set are read as constants at every call.
// The kernel runs in float64; CompileTape32 makes its float32 twin.
//
// A cell that uses an op the Builder does not record (Builder.Do,
// Builder.Fused, gorgonia directly) gets an error wrapping ErrNotRecorded:
// it runs on the compiled graphs of Recurrence only.
func CompileTape(c Cell, p *params.Params, batch int) (StepKernel, error) {
	return compileTape(c, p, batch, Weights[float64]{})
}

// CompileTape32 is CompileTape in float32: the kernel reads parameters
// through w (float32 copies, of other sets' parameters as well) and adds
// gradients into a float32 set.
func CompileTape32(c Cell, p *params.Params, batch int, w Weights[float32]) (StepKernelOf[float32], error) {
	return compileTape(c, p, batch, w)
}

func compileTape[F Float](c Cell, p *params.Params, batch int, w Weights[F]) (StepKernelOf[F], error) {
	if batch <= 0 {
		return nil, errors.Errorf("graph: tape needs a positive batch size, got %d", batch)
	}
	b := NewBuilder()
	x := b.Input("x", batch, c.InputSize())
	var hIn []*G.Node
	for i, s := range c.StateSizes() {
		hIn = append(hIn, b.Input(fmt.Sprintf("h%d", i), batch, s))
	}
	hOut := c.Step(b, x, hIn)
	if err := checkState(b, c, hOut, batch); err != nil {
		return nil, errors.Wrap(err, "graph: step")
	}
	step, err := newTapeProgram(b, hOut, x, hIn, p, w, true)
	if err != nil {
		return nil, errors.Wrap(err, "graph: tape: step")
	}
	bi := NewBuilder()
	s0 := c.InitialState(bi, batch)
	if err := checkState(bi, c, s0, batch); err != nil {
		return nil, errors.Wrap(err, "graph: initial state")
	}
	init, err := newTapeProgram(bi, s0, nil, nil, p, w, false)
	if err != nil {
		return nil, errors.Wrap(err, "graph: tape: initial state")
	}
	step.packParams()
	k := &tapeKernel[F]{step: step, init: init, initCache: make([]F, init.cacheLen)}
	for _, s := range c.StateSizes() {
		k.initOut = append(k.initOut, make([]F, batch*s))
	}
	for _, pr := range []*tapeProgram[F]{step, init} {
		for _, n := range pr.nodes {
			if n.diff && !slices.Contains(k.names, n.name) {
				k.names = append(k.names, n.name)
			}
		}
	}
	return k, nil
}

// NewTapeRecurrence is NewFusedRecurrence for any cell whose ops the
// Builder records, with the StepKernel CompileTape makes of it.
func NewTapeRecurrence(c Cell, p *params.Params, batch int, head HeadKernel, cfg RecurrenceConfig) (*FusedRecurrence, error) {
	k, err := CompileTape(c, p, batch)
	if err != nil {
		return nil, err
	}
	if err := checkFused(batch, cfg, head != nil); err != nil {
		return nil, err
	}
	r, err := newFusedRun(k, head, nil, c, p, batch, cfg)
	return &FusedRecurrence{r64: r}, err
}

// NewTapeRecurrence32 is NewTapeRecurrence in float32 (see
// NewFusedRecurrence32), with the kernel of CompileTape32.
func NewTapeRecurrence32(c Cell, p *params.Params, batch int, head func(Weights[float32]) HeadKernelOf[float32], cfg RecurrenceConfig) (*FusedRecurrence, error) {
	if err := checkFused(batch, cfg, head != nil); err != nil {
		return nil, err
	}
	m := NewMirror()
	k, err := CompileTape32(c, p, batch, m.Weights32())
	if err != nil {
		return nil, err
	}
	r, err := newFusedRun(k, head(m.Weights32()), m, c, p, batch, cfg)
	return &FusedRecurrence{r32: r}, err
}

// SetNoise implements NoisyKernel; the initial state's random ops draw
// as a step -1.
func (k *tapeKernel[F]) SetNoise(seed uint64, on bool) {
	for _, pr := range []*tapeProgram[F]{k.step, k.init} {
		for _, n := range pr.noise {
			n.set(seed, on)
		}
	}
	for _, n := range k.init.noise {
		n.step = -1
	}
}

// SetStep implements NoisyKernel.
func (k *tapeKernel[F]) SetStep(t int) {
	for _, n := range k.step.noise {
		n.step = t
	}
}

func (k *tapeKernel[F]) Params() []string     { return k.names }
func (k *tapeKernel[F]) CacheSize() int       { return k.step.cacheLen }
func (k *tapeKernel[F]) ProjectionSize() int  { return k.step.projSize }
func (k *tapeKernel[F]) Project(xs, proj []F) { k.step.project(xs, proj) }

func (k *tapeKernel[F]) InitialState(state [][]F) {
	k.step.resetPacked()
	k.init.forward(nil, nil, nil, state, k.initCache)
}

// packParams gives every product of a step by a parameter (h U) a
// PackedWeightOf, so that U is packed once per pass for the forward
// products and once for the backward ones, as the hand-written kernels do.
func (pr *tapeProgram[F]) packParams() {
	for _, n := range pr.nodes {
		if n.op == opMul && n.variant == mulMM && n.class == clsStep && pr.nodes[n.in[1]].op == opParam {
			n.pw = new(PackedWeightOf[F])
		}
	}
}

// resetPacked marks the packed parameters stale: a pass starts, and the
// parameters may have changed since the last one.
func (pr *tapeProgram[F]) resetPacked() {
	for _, n := range pr.nodes {
		if n.pw != nil {
			n.pw.Reset()
		}
	}
}

func (k *tapeKernel[F]) InitialStateBack(g [][]F, grads Grads[F]) {
	k.init.forward(nil, nil, nil, k.initOut, k.initCache)
	k.init.backward(nil, nil, k.initCache, g, nil, grads)
}

func (k *tapeKernel[F]) Forward(x, proj []F, in, out [][]F, cache []F) {
	k.step.forward(x, proj, in, out, cache)
}

func (k *tapeKernel[F]) Backward(x []F, in [][]F, cache []F, gout, gin [][]F, grads Grads[F]) {
	k.step.backward(x, in, cache, gout, gin, grads)
}
