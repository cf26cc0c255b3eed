package autoenc

import (
	"math"
	"sort"
	"sync"

	"github.com/pkg/errors"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// Approximate returns the autoencoder with p hidden units built, as in
// ClosedForm, from V and Lambda of Xi, but with V and Lambda computed by
// ApproxSVD (Algorithms 1-3 of section 3.1) instead of an exact SVD, so
// that Xi is never formed. This is what the paper uses for its
// experiments.
func Approximate(seqs [][]float64, k, p int) (*Model, error) {
	d, err := newData(seqs, k)
	if err != nil {
		return nil, err
	}
	v, lambda, err := approxSVD(d, p, true)
	if err != nil {
		return nil, err
	}
	return fromSVD(d, v, lambda)
}

// ApproxSVD approximates the p leading left singular vectors V (rows x p,
// one row per step of every sequence, in order) and singular values
// Lambda of Xi by Algorithm 1 of section 3.1 (SVFORBIGDATA): the k-wide
// column slices of Xi are taken in reverse order and each is appended to
// the current V Lambda, whose p-truncated SVD (Algorithm 2, KECO: through
// the kernel M M^T when M has no more rows than columns, else through the
// covariance M^T M; Algorithm 3: the truncated SVD of that symmetric
// positive semi-definite matrix, here its eigendecomposition) gives the
// next V Lambda. Xi is never formed: slice i has x_{t-i} in row (q, t)
// and zeros where t < i, so only those "active" rows are touched and the
// rows of V Lambda outside them stay zero. Forming V Lambda = M U at
// every slice would cost rows x p^2 each time; the rotations U are
// instead accumulated in a small matrix and V Lambda is formed only when
// that becomes the cheaper course (see sweep), which changes nothing but
// rounding; the products of a slice with those pending are running sums
// of lagged input products, and the sparse products are split over
// goroutines in a fixed way, so the result does not depend on the number
// of cores. Peak memory is about 3 x rows x p values plus the nonzero
// inputs and at most 32 MB of lag sums. When
// p >= rank(Xi) nothing is dropped and the result equals the exact SVD up
// to rounding (and the signs of the columns). p larger than rank(Xi) is
// an error.
func ApproxSVD(seqs [][]float64, k, p int) (*mat.Dense, []float64, error) {
	d, err := newData(seqs, k)
	if err != nil {
		return nil, nil, err
	}
	return approxSVD(d, p, true)
}

// approxSVD is ApproxSVD on validated data. With deferred false, V Lambda
// is formed after every slice, as Algorithm 1 is written.
func approxSVD(d *data, p int, deferred bool) (*mat.Dense, []float64, error) {
	if p < 1 || p > min(d.rows, d.k*d.maxLen) {
		return nil, nil, errors.Errorf("autoenc: p = %d hidden units, want 1 <= p <= min(rows, columns) of Xi = %d", p, min(d.rows, d.k*d.maxLen))
	}
	return newSweep(d, p, deferred).run()
}

// run takes every slice (Algorithm 1) and returns V and Lambda.
func (sw *sweep) run() (*mat.Dense, []float64, error) {
	d, p := sw.d, sw.p
	for i := d.maxLen - 1; i >= 0; i-- {
		if err := sw.step(i); err != nil {
			return nil, nil, errors.Errorf("autoenc: slice %d: %v", i, err)
		}
	}
	sw.flush()
	lambda := sw.lambda
	if sw.cols < p {
		return nil, nil, errors.Errorf("autoenc: p = %d exceeds rank(Xi) <= %d", p, sw.cols)
	}
	// V = (V Lambda) Lambda^{-1}, back in the original row order.
	tol := float64(max(d.rows, d.k*d.maxLen)) * 0x1p-52 * lambda[0]
	if lambda[p-1] <= tol {
		return nil, nil, errors.Errorf("autoenc: singular value %d of Xi is %.3g (numerically 0): p = %d exceeds rank(Xi)", p, lambda[p-1], p)
	}
	v := mat.NewDense(d.rows, p, nil)
	for r, o := range sw.order {
		src := sw.base.RawRowView(r)
		dst := v.RawRowView(d.off[o.q] + o.t)
		for j, l := range lambda {
			dst[j] = src[j] / l
		}
	}
	return v, lambda, nil
}

// entry is a nonzero input value and its unit.
type entry struct {
	j int
	v float64
}

// ref is a row of Xi: step t of sequence q.
type ref struct{ q, t int }

// slice is the k-wide column slice i of Xi restricted to its a active
// rows (the first a rows of sweep.order) and to the units nonzero in
// them: the other columns are zero, so they only add zero rows and
// columns to the covariance of Algorithm 2 and zero rows to its
// eigenvectors of nonzero eigenvalue.
type slice struct {
	i, a  int
	unit  []int // unit j's column among the units present, or -1
	list  []int // the units present, in increasing order
	units int   // the number of units present
	nnz   int   // nonzero entries
}

// sweep is the state of Algorithm 1 between slices. Z = V Lambda of the
// slices taken so far (rows in order, nonzero only in the first a) is
// held as the product
//
//	Z = [B, S_1, ..., S_m] G,
//
// where B (the first bcols columns of base) is the V Lambda last formed
// explicitly, S_1 .. S_m (pend) are the slices taken since, restricted to
// their units, and G ((bcols + their units) x cols) accumulates the
// eigenvectors U of Algorithm 2: V Lambda = M U = [S, Z] U gives
// G <- [G U_bottom; U_top]. G is the identity (g nil) when m = 0.
// Forming Z costs a x bcols x cols; updating G costs rows(G) x cols x
// cols, far less while few slices are pending, so Z is formed (flush)
// only once the work spent on G since the last flush reaches the cost of
// forming it: when that work grows linearly with the number of pending
// slices, this is the spacing of flushes with the least work per slice.
// The work on G is weighted by gWorkWeight, since it runs in small
// products on one core while forming Z is split over the cores.
//
// The products S^T S_j of slice i with the pending slice i + delta are
// lag-delta cross-products of the inputs, sum over q and over
// s = delta .. T_q - 1 - i of x_{q,s} x_{q,s-delta}^T, so they are kept
// as running sums (lag) that slice i extends by one step s = T_q - 1 - i
// of every sequence longer than i, instead of being summed over the
// active rows each time; lag[0] gives S^T S. At most maxLag slices are
// left pending.
type sweep struct {
	d        *data
	p        int
	order    []ref       // rows of Xi by decreasing t
	first    []int       // first[t]: the first row of level t in order
	active   []int       // active[i]: rows active in slice i, a prefix of order
	ent      []entry     // the nonzero entries of the rows, in order
	eoff     []int       // row r's entries: ent[eoff[r]:eoff[r+1]]
	nz       [][][]entry // nz[q][t]: the nonzero entries of x_t of sequence q
	base     *mat.Dense  // rows x p: B, then Z at the end
	buf      *mat.Dense  // rows x p: receives the next B
	a        int         // rows of Z that may be nonzero
	lambda   []float64   // singular values of Z, largest first
	cols     int         // columns of Z
	bcols    int         // columns of B
	g        *mat.Dense  // G, nil for the identity
	pend     []slice     // S_1 .. S_m
	work     float64     // flops spent on G since the last flush
	deferred bool        // whether to defer forming Z at all
	byLen    []int       // sequences by decreasing length
	lag      [][]float64 // lag[delta]: k x k running lag-delta cross-products
	nnz      int         // nonzero entries of the slices taken so far
	seen     []int       // seen[j]: of them, the entries of unit j
	next     *ahead      // the next slice, when prepared ahead
}

// gWorkWeight is the cost of a flop spent on G relative to one spent
// forming Z (see sweep). Against weight 1 it made Algorithm 1 10-15%
// faster on Nottingham (p = 50), JSB (p = 250) and MuseData (p = 50).
const gWorkWeight = 4

// lagBudget bounds the values held by sweep.lag, and so the number of
// slices left pending (32 MB; 64 slices for piano rolls).
const lagBudget = 1 << 22

// maxLag is the largest number of pending slices, with
// lag[0] .. lag[maxLag] held.
func (sw *sweep) maxLag() int { return len(sw.lag) - 1 }

// newSweep prepares Algorithm 1 on d for p columns.
func newSweep(d *data, p int, deferred bool) *sweep {
	sw := &sweep{d: d, p: p, deferred: deferred, active: make([]int, d.maxLen)}
	sw.byLen = make([]int, len(d.seqs))
	for q := range sw.byLen {
		sw.byLen[q] = q
	}
	sort.SliceStable(sw.byLen, func(x, y int) bool { return d.steps(sw.byLen[x]) > d.steps(sw.byLen[y]) })
	// Rows in order of decreasing t, so that the rows active in slice i
	// (t >= i) are a prefix: active[i] of them; within a t, sequences by
	// decreasing length, so that those of level t are a prefix of those
	// of any level below.
	sw.order = make([]ref, 0, d.rows)
	sw.first = make([]int, d.maxLen)
	for t := d.maxLen - 1; t >= 0; t-- {
		sw.first[t] = len(sw.order)
		for _, q := range sw.byLen {
			if d.steps(q) <= t {
				break
			}
			sw.order = append(sw.order, ref{q, t})
		}
		sw.active[t] = len(sw.order)
	}
	// Piano rolls have about 4 notes out of 88, so the slice products
	// work on the lists of nonzero entries, stored row after row in the
	// order above: the rows of a level read the inputs of a level below
	// in the same order, one contiguous run.
	sw.eoff = make([]int, d.rows+1)
	sw.nz = make([][][]entry, len(d.seqs))
	for q := range d.seqs {
		sw.nz[q] = make([][]entry, d.steps(q))
	}
	for r, o := range sw.order {
		for j, v := range d.seqs[o.q][o.t*d.k : (o.t+1)*d.k] {
			if v != 0 {
				sw.ent = append(sw.ent, entry{j, v})
			}
		}
		sw.eoff[r+1] = len(sw.ent)
	}
	for r, o := range sw.order {
		sw.nz[o.q][o.t] = sw.ent[sw.eoff[r]:sw.eoff[r+1]:sw.eoff[r+1]]
	}
	sw.seen = make([]int, d.k)
	sw.lag = make([][]float64, 1+min(64, max(1, lagBudget/(d.k*d.k)-1)))
	for l := range sw.lag {
		sw.lag[l] = make([]float64, d.k*d.k)
	}
	// Rows and columns of base and buf beyond those in use are never
	// written before they come into use, so they stay zero.
	sw.base, sw.buf = mat.NewDense(d.rows, p, nil), mat.NewDense(d.rows, p, nil)
	return sw
}

// row returns the nonzero entries of active row r of slice s: those of
// x_{t-i}, the row in the same place of level t - i as r in level t.
func (sw *sweep) row(s slice, r int) []entry {
	t := sw.order[r].t
	r += sw.first[t-s.i] - sw.first[t]
	return sw.ent[sw.eoff[r]:sw.eoff[r+1]]
}

// slice extends the running sums by slice i (see sweep) and returns it
// with its units: the units with a nonzero entry in some x_{q,s},
// s <= T_q - 1 - i.
func (sw *sweep) slice(i int) slice {
	k := sw.d.k
	longer := 0 // sequences longer than i: a prefix of byLen
	for _, q := range sw.byLen {
		last := sw.d.steps(q) - 1 - i
		if last < 0 {
			break
		}
		longer++
		sw.nnz += len(sw.nz[q][last])
		for _, e := range sw.nz[q][last] {
			sw.seen[e.j]++
		}
	}
	// The lags are independent sums: they are split into parts.
	inParts(len(sw.lag), sweepParts, func(_, lo, hi int) {
		for _, q := range sw.byLen[:longer] {
			x := sw.nz[q]
			last := len(x) - 1 - i
			for l := lo; l < min(hi, last+1); l++ {
				lag := sw.lag[l]
				for _, e := range x[last] {
					row := lag[e.j*k : (e.j+1)*k]
					for _, f := range x[last-l] {
						row[f.j] += e.v * f.v
					}
				}
			}
		}
	})
	s := slice{i: i, a: sw.active[i], unit: make([]int, k), nnz: sw.nnz}
	for j := range s.unit {
		s.unit[j] = -1
		if sw.seen[j] > 0 {
			s.unit[j] = s.units
			s.list = append(s.list, j)
			s.units++
		}
	}
	return s
}

// step takes slice i (Algorithm 1's loop body): M = [S_i, Z] is replaced
// by its first min(p, k + cols, a) left singular vectors times singular
// values through Algorithm 2.
func (sw *sweep) step(i int) error {
	var s slice
	var stb []float64
	if sw.next != nil && sw.next.s.i == i {
		s, stb = sw.next.s, sw.next.stb
	} else {
		s = sw.slice(i)
	}
	sw.next = nil
	keep := min(sw.p, sw.d.k+sw.cols, s.a)
	// Algorithm 2's choice; M = 0 with no columns of Z yet also takes the
	// kernel route, where the covariance would be empty.
	if s.a <= sw.d.k+sw.cols || s.units+sw.cols == 0 {
		sw.flush()
		return sw.kernel(s, keep)
	}
	return sw.covariance(s, stb, keep)
}

// ahead is the next slice and its product S^T B (u x bcols), prepared
// while the eigenvectors of the current one are computed.
type ahead struct {
	s   slice
	stb []float64
}

// kernel is the kernel route of Algorithm 2 (KECO), for a <= k + cols:
// K = M M^T = S S^T + Z Z^T (a x a), whose leading eigenvectors are V and
// eigenvalues Lambda^2. Z must have been formed; V Lambda replaces it.
func (sw *sweep) kernel(s slice, keep int) error {
	sd := mat.NewDense(s.a, sw.d.k, nil)
	for r := range s.a {
		for _, e := range sw.row(s, r) {
			sd.Set(r, e.j, e.v)
		}
	}
	var kern mat.SymDense
	kern.SymOuterK(1, sd)
	if sw.cols > 0 {
		kern.SymRankK(&kern, 1, sw.base.Slice(0, s.a, 0, sw.cols))
	}
	vecs, sq, err := truncatedEig(&kern, keep)
	if err != nil {
		return err
	}
	z := sw.base.Slice(0, s.a, 0, sw.p).(*mat.Dense)
	z.Zero()
	lambda := make([]float64, keep)
	for j := range sq {
		lambda[j] = math.Sqrt(max(sq[j], 0))
		for r := range s.a {
			z.Set(r, j, vecs.At(r, j)*lambda[j])
		}
	}
	sw.lambda, sw.cols, sw.bcols, sw.a = lambda, keep, keep, s.a
	return nil
}

// covariance is the covariance route of Algorithm 2 (KECO), for
// a > k + cols: the leading eigenvectors U of C = M^T M (see cov) give the
// new V Lambda = M U, deferred as G <- [G U_bottom; U_top] (see sweep).
func (sw *sweep) covariance(s slice, stb []float64, keep int) error {
	c, w := sw.cov(s, stb)
	// The work on G and whether Z is formed after this slice are known
	// before the eigenvectors: forming Z costs the product with B plus
	// one row of G per nonzero of S_j.
	u, n := s.units, c.SymmetricDim()
	m := min(keep, n)
	gwork := 0.0
	if sw.cols > 0 && sw.g != nil {
		gwork = 2 * float64(w*sw.cols*m)
	}
	nnz := s.nnz
	for _, pj := range sw.pend {
		nnz += pj.nnz
	}
	flush := !sw.deferred || len(sw.pend)+1 == sw.maxLag() || gWorkWeight*(sw.work+gwork) >= 2*float64(keep)*float64(s.a*sw.bcols+nnz)
	// Unless Z is formed, B stays, and the next slice, if it takes the
	// covariance route, is prepared side by side with the eigenvectors.
	var wg sync.WaitGroup
	defer wg.Wait()
	if i := s.i - 1; !flush && i >= 0 && sw.active[i] > sw.d.k+keep {
		wg.Go(func() {
			next := &ahead{s: sw.slice(i)}
			next.stb = sw.stb(next.s)
			sw.next = next
		})
	}
	vecs, sq, err := truncatedEig(c, keep)
	if err != nil {
		return err
	}
	// A zero slice (no units) adds no rows to G.
	g := mat.NewDense(w+u, keep, nil)
	if sw.cols > 0 {
		gt, ub := g.Slice(0, w, 0, m).(*mat.Dense), vecs.Slice(u, n, 0, m)
		if sw.g == nil {
			gt.Copy(ub)
		} else {
			gt.Mul(sw.g, ub)
		}
	}
	if u > 0 {
		g.Slice(w, w+u, 0, m).(*mat.Dense).Copy(vecs.Slice(0, u, 0, m))
	}
	lambda := make([]float64, keep)
	for j := range sq {
		lambda[j] = math.Sqrt(max(sq[j], 0))
	}
	wg.Wait()
	sw.g, sw.pend, sw.lambda, sw.cols, sw.a = g, append(sw.pend, s), lambda, keep, s.a
	sw.work += gwork
	if flush {
		sw.flush()
	}
	return nil
}

// cov returns Algorithm 2's covariance C = M^T M of M = [S, Z] over the
// units present in S, (units + cols) x (units + cols):
// [S^T S, S^T Z; Z^T S, Z^T Z] with Z^T Z = Lambda^2 (the columns of V
// are orthonormal) and S^T Z = (S^T [B, S_1, ..., S_m]) G, where S^T S
// and S^T S_j come from the running lag sums (see sweep) and S^T B runs
// over the nonzero entries of S. It also returns the number of rows of
// G, and adds the deferred part of its work to sw.work.
func (sw *sweep) cov(s slice, stb []float64) (*mat.SymDense, int) {
	k, u, n := sw.d.k, s.units, s.units+sw.cols
	w := sw.bcols
	for _, pj := range sw.pend {
		w += pj.units
	}
	c := mat.NewSymDense(n, nil)
	cd := c.RawSymmetric().Data // n x n, upper triangle used
	for ce, je := range s.list {
		lag := sw.lag[0][je*k : (je+1)*k]
		for cf, jf := range s.list[ce:] {
			cd[ce*n+ce+cf] = lag[jf]
		}
	}
	if u > 0 && sw.cols > 0 {
		t := mat.NewDense(u, w, nil) // S^T [B, S_1, ..., S_m]
		if sw.bcols > 0 {
			if stb == nil {
				stb = sw.stb(s)
			}
			for ce := range u {
				copy(t.RawRowView(ce), stb[ce*sw.bcols:(ce+1)*sw.bcols])
			}
		}
		off := sw.bcols
		for _, pj := range sw.pend {
			lag := sw.lag[pj.i-s.i]
			for ce, je := range s.list {
				tr := t.RawRowView(ce)[off : off+pj.units]
				for cf, jf := range pj.list {
					tr[cf] = lag[je*k+jf]
				}
			}
			off += pj.units
		}
		stz := mat.NewDense(n, n, cd).Slice(0, u, u, n).(*mat.Dense)
		if sw.g == nil {
			stz.Copy(t)
		} else {
			stz.Mul(t, sw.g)
			sw.work += 2 * float64(u*w*sw.cols)
		}
	}
	for j, l := range sw.lambda {
		cd[(u+j)*n+u+j] = l * l
	}
	return c, w
}

// stb returns S^T B (units x bcols, row-major) for slice s, nil when B
// has no columns, by parts of the rows, each into its own block, summed
// in order.
func (sw *sweep) stb(s slice) []float64 {
	u, bc := s.units, sw.bcols
	if u == 0 || bc == 0 {
		return nil
	}
	var part [sweepParts][]float64
	inParts(s.a, sweepParts, func(i, lo, hi int) {
		part[i] = make([]float64, u*bc)
		for r := lo; r < hi; r++ {
			b := sw.base.RawRowView(r)[:bc]
			for _, e := range sw.row(s, r) {
				c := s.unit[e.j] * bc
				addScaled(part[i][c:c+bc], e.v, b)
			}
		}
	})
	for _, pi := range part[1:] {
		floats.Add(part[0], pi)
	}
	return part[0]
}

// flush forms Z = [B, S_1, ..., S_m] G (see sweep) and makes it the new B.
func (sw *sweep) flush() {
	if sw.g == nil {
		return
	}
	// By blocks of rows, each formed whole (the product with B, then
	// the rows of G of every pending slice) while it is in cache.
	z := sw.buf.Slice(0, sw.a, 0, sw.cols).(*mat.Dense)
	inParts(sw.a, sweepParts, func(_, lo, hi int) {
		for blo := lo; blo < hi; blo += flushBlock {
			bhi := min(hi, blo+flushBlock)
			zb := z.Slice(blo, bhi, 0, sw.cols).(*mat.Dense)
			if sw.bcols > 0 {
				zb.Mul(sw.base.Slice(blo, bhi, 0, sw.bcols), sw.g.Slice(0, sw.bcols, 0, sw.cols))
			} else {
				zb.Zero()
			}
			off := sw.bcols
			for _, pj := range sw.pend {
				for r := blo; r < min(bhi, pj.a); r++ {
					zr := z.RawRowView(r)
					for _, f := range sw.row(pj, r) {
						addScaled(zr, f.v, sw.g.RawRowView(off+pj.unit[f.j]))
					}
				}
				off += pj.units
			}
		}
	})
	sw.base, sw.buf = sw.buf, sw.base
	sw.bcols, sw.g, sw.pend, sw.work = sw.cols, nil, sw.pend[:0], 0
}

// truncatedEig is Algorithm 3's p-truncated SVD for the symmetric
// positive semi-definite kernel and covariance matrices of Algorithm 2.
// Their left singular vectors are eigenvectors and their singular values
// eigenvalues, so one symmetric eigendecomposition (symEig) stands in for
// INDIRECTSVD's QR factorisation followed by a general SVD of R, at a
// fraction of the cost. It returns the min(p, n) leading eigenvectors
// (n x min(p, n)) and eigenvalues, largest first.
func truncatedEig(m *mat.SymDense, p int) (*mat.Dense, []float64, error) {
	vals, rows, ok := symEig(m)
	if !ok {
		return nil, nil, errors.Errorf("eigendecomposition did not converge")
	}
	n := m.SymmetricDim()
	p = min(p, n)
	vecs := mat.NewDense(n, p, nil)
	for j := range p {
		for r, x := range rows[j*n : (j+1)*n] {
			vecs.Set(r, j, x)
		}
	}
	return vecs, vals[:p], nil
}

// flushBlock is the number of rows of Z that flush forms at a time.
const flushBlock = 128

// sweepParts is the number of parts of the rows that the sparse products
// of the sweep are split into, run side by side. The split is fixed, so
// the sums, and the results, do not depend on the number of cores.
const sweepParts = 4

// addScaled adds alpha s to dst, through the faster floats.Add when
// alpha is 1 (the notes of a piano roll), which gives the same bits.
func addScaled(dst []float64, alpha float64, s []float64) {
	if alpha == 1 {
		floats.Add(dst, s)
		return
	}
	floats.AddScaled(dst, alpha, s)
}
