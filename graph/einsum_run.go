package graph

import "bytes"

// erun executes an eplan in one float type, with its temporaries
// allocated once.
type erun[F Float] struct {
	p      *eplan
	bufs   [][]F // each temporary slot's values (nil for the operands)
	spare  [][]F // per step: a copy of operand a when its row stride breaks its layout
	spareB [][]F // likewise for operand b
	views  []eview[F]
}

// eview is a slot's values and the stride of each of its letters.
type eview[F Float] struct {
	d   []F
	str [maxEinsumLetters]int
}

func newErun[F Float](p *eplan) *erun[F] {
	r := &erun[F]{p: p, bufs: make([][]F, len(p.slots)), views: make([]eview[F], len(p.slots))}
	for i := p.nin; i < len(p.slots); i++ {
		r.bufs[i] = make([]F, p.size(p.slots[i]))
		r.views[i] = eview[F]{d: r.bufs[i], str: p.natural(p.slots[i], 0)}
	}
	r.spare = make([][]F, len(p.steps))
	r.spareB = make([][]F, len(p.steps))
	for i, s := range p.steps {
		// An operand of rank 2 or more may come with a row stride that
		// breaks a layout its letters allow: keep room to copy it.
		if s.kind == stepContract && s.a < p.nin && s.packA < 0 && len(p.slots[s.a]) > 1 {
			r.spare[i] = make([]F, p.size(s.gmk))
		}
		if s.kind == stepContract && s.b < p.nin && s.packB < 0 && len(p.slots[s.b]) > 1 {
			r.spareB[i] = make([]F, p.size(s.gkn))
		}
	}
	return r
}

// natural is the row-major strides of a tensor with the given letters,
// with row stride ld along the first letter when ld > 0 and there are two
// letters or more.
func (p *eplan) natural(l []byte, ld int) [maxEinsumLetters]int {
	var s [maxEinsumLetters]int
	st := 1
	for i := len(l) - 1; i >= 0; i-- {
		s[i] = st
		st *= p.ext[l[i]]
	}
	if ld > 0 && len(l) > 1 {
		s[0] = ld
	}
	return s
}

// run computes the plan's result from the operands a into y (row stride
// ldy), or adds it into y when acc is set.
func (r *erun[F]) run(a []xarg[F], y []F, ldy int, acc bool) {
	p := r.p
	for i := range p.nin {
		r.views[i] = eview[F]{d: a[i].d, str: p.natural(p.slots[i], a[i].ld)}
	}
	yv := eview[F]{d: y, str: p.natural(p.res, ldy)}
	for i := range p.steps {
		s := &p.steps[i]
		if s.kind == stepReduce {
			r.reduce(s)
			continue
		}
		if i == len(p.steps)-1 && p.direct && r.contract(i, s, yv, acc) {
			return
		}
		r.contract(i, s, r.views[s.c], false)
	}
	// Copy the last slot into y in the result's order, broadcasting along
	// the letters it lacks.
	l := p.slots[p.last]
	src := r.views[p.last]
	var ss [maxEinsumLetters]int
	for i, c := range p.res {
		if j := bytes.IndexByte(l, c); j >= 0 {
			ss[i] = src.str[j]
		}
	}
	walk(p.res, p.ext, y, yv.str, src.d, ss, acc)
}

// reduce sums slot s.a over the letters slot s.c lacks.
func (r *erun[F]) reduce(s *estep) {
	p := r.p
	la, lc := p.slots[s.a], p.slots[s.c]
	dst := r.views[s.c]
	clear(dst.d)
	var ds [maxEinsumLetters]int
	for i, c := range la {
		if j := bytes.IndexByte(lc, c); j >= 0 {
			ds[i] = dst.str[j]
		}
	}
	walk(la, p.ext, dst.d, ds, r.views[s.a].d, r.views[s.a].str, true)
}

// block returns the stride of the run of letters b in l (the stride of its
// last letter) and whether the run is one dimension: each letter's stride
// the next one's times its extent. An empty run has stride 1.
func (p *eplan) block(l, b []byte, str *[maxEinsumLetters]int) (int, bool) {
	if len(b) == 0 {
		return 1, true
	}
	i := bytes.Index(l, b)
	if i < 0 {
		return 0, false
	}
	for j := i; j < i+len(b)-1; j++ {
		if str[j] != str[j+1]*p.ext[l[j+1]] {
			return 0, false
		}
	}
	return str[i+len(b)-1], true
}

// contract runs step s (number i) into the view c of s.c's letters, adding
// when acc is set. It returns false, doing nothing, when c's strides do
// not allow the product to write into it.
func (r *erun[F]) contract(i int, s *estep, c eview[F], acc bool) bool {
	p := r.p
	lc := p.slots[s.c]
	mC, ok1 := p.block(lc, s.m, &c.str)
	nC, ok2 := p.block(lc, s.n, &c.str)
	m, n, k := p.size(s.m), p.size(s.n), p.size(s.k)
	if !ok1 || !ok2 || n > 1 && nC != 1 {
		return false
	}
	a, la, transA, lda := r.operand(s.a, s.packA, r.spare[i], s.gmk, s.m, s.k, s.transA)
	b, lb, transB, ldb := r.operand(s.b, s.packB, r.spareB[i], s.gkn, s.k, s.n, s.transB)
	if !transA && m == 1 || transA && k == 1 {
		lda = max(lda, 1, k, m) // a single row or column: the stride is not read
	}
	if !transB && k == 1 || transB && n == 1 {
		ldb = max(ldb, 1, k, n)
	}
	ldc := mC
	if m == 1 {
		ldc = max(n, 1)
	}
	beta := F(0)
	if acc {
		beta = 1
	}
	// One product per value of the shared letters g.
	var idx [maxEinsumLetters]int
	var sa, sb, sc [maxEinsumLetters]int
	for j, g := range s.g {
		sa[j] = a.str[bytes.IndexByte(la, g)]
		sb[j] = b.str[bytes.IndexByte(lb, g)]
		sc[j] = c.str[bytes.IndexByte(lc, g)]
	}
	small := m*n*k <= smallProduct || k == 1 // outer products: loops
	oa, ob, oc := 0, 0, 0
	for {
		if small {
			smallGemm(transA, transB, m, n, k, a.d[oa:], lda, b.d[ob:], ldb, acc, c.d[oc:], ldc)
		} else {
			GemmOf(transA, transB, m, n, k, 1, a.d[oa:], lda, b.d[ob:], ldb, beta, c.d[oc:], ldc)
		}
		j := len(s.g) - 1
		for ; j >= 0; j-- {
			idx[j]++
			oa, ob, oc = oa+sa[j], ob+sb[j], oc+sc[j]
			if idx[j] < p.ext[s.g[j]] {
				break
			}
			oa, ob, oc = oa-idx[j]*sa[j], ob-idx[j]*sb[j], oc-idx[j]*sc[j]
			idx[j] = 0
		}
		if j < 0 {
			return true
		}
	}
}

// smallProduct is the largest m n k of a product computed by loops
// rather than Gemm: below it, as for the products of a Hadamard-like
// einsum ("br,br->br", one per batch row and rank), a call costs more
// than the arithmetic. Outer products (no index summed, k = 1) always run
// on loops: a row-wise Kronecker product ("bi,bj->bij") is one per row.
const smallProduct = 8

// smallGemm is GemmOf with alpha 1 and beta 0, or 1 when acc is set, by
// plain loops.
func smallGemm[F Float](transA, transB bool, m, n, k int, a []F, lda int, b []F, ldb int, acc bool, c []F, ldc int) {
	for i := range m {
		for j := range n {
			var s F
			for l := range k {
				ia, ib := i*lda+l, l*ldb+j
				if transA {
					ia = l*lda + i
				}
				if transB {
					ib = j*ldb + l
				}
				s += a[ia] * b[ib]
			}
			if acc {
				c[i*ldc+j] += s
			} else {
				c[i*ldc+j] = s
			}
		}
	}
}

// operand returns slot id's view as a matrix [rows, cols] (transposed when
// trans): the slot itself when its layout allows, else its copy in pack
// (a temporary slot) or spare, laid out as the letters dl (g, rows, cols).
// It also returns the view's letters and the matrix's row stride.
func (r *erun[F]) operand(id, pack int, spare []F, dl, rows, cols []byte, trans bool) (eview[F], []byte, bool, int) {
	p := r.p
	v, l := r.views[id], p.slots[id]
	if pack < 0 {
		sr, okR := p.block(l, rows, &v.str)
		sc, okC := p.block(l, cols, &v.str)
		switch {
		case !okR || !okC:
		case !trans && (sc == 1 || p.size(cols) == 1):
			return v, l, false, sr
		case trans && (sr == 1 || p.size(rows) == 1):
			return v, l, true, sc
		}
	}
	dst := eview[F]{str: p.natural(dl, 0)}
	if pack >= 0 {
		dst.d = r.bufs[pack]
	} else {
		dst.d = spare
	}
	var ss [maxEinsumLetters]int
	for i, c := range dl {
		ss[i] = v.str[bytes.IndexByte(l, c)]
	}
	walk(dl, p.ext, dst.d, dst.str, v.d, ss, false)
	return dst, dl, false, max(p.size(cols), 1)
}

// walk runs over every index of the letters l: dst[i] = src[j], or +=
// when acc is set, with i and j the offsets by the strides ds and ss (a
// zero stride repeats a value, or sums into one).
func walk[F Float](l []byte, ext *extents, dst []F, ds [maxEinsumLetters]int, src []F, ss [maxEinsumLetters]int, acc bool) {
	n := len(l)
	if n == 0 {
		if acc {
			dst[0] += src[0]
		} else {
			dst[0] = src[0]
		}
		return
	}
	var e [maxEinsumLetters]int
	for i, c := range l {
		e[i] = ext[c]
	}
	var idx [maxEinsumLetters]int
	last, dl, sl := e[n-1], ds[n-1], ss[n-1]
	od, os := 0, 0
	for {
		if acc {
			for t := range last {
				dst[od+t*dl] += src[os+t*sl]
			}
		} else {
			for t := range last {
				dst[od+t*dl] = src[os+t*sl]
			}
		}
		j := n - 2
		for ; j >= 0; j-- {
			idx[j]++
			od, os = od+ds[j], os+ss[j]
			if idx[j] < e[j] {
				break
			}
			od, os = od-idx[j]*ds[j], os-idx[j]*ss[j]
			idx[j] = 0
		}
		if j < 0 {
			return
		}
	}
}
