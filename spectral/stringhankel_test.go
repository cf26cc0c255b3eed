package spectral

import (
	"fmt"
	"github.com/rtnlab/rtn/internal/vec"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// finiteWFA returns a WFA with n states over d symbols whose transition
// matrices are strictly upper triangular with positive entries, so that
// f(x) > 0 only for strings shorter than n: every variant's function is a
// finite sum, computable by enumeration.
func finiteWFA(rng *rand.Rand, n, d int) WFA {
	w := WFA{States: n, Out: 1, Alpha: make([]float64, n), Omega: make([]float64, n)}
	for i := range n {
		w.Alpha[i] = 0.1 + rng.Float64()
		w.Omega[i] = 0.1 + rng.Float64()
	}
	for range d {
		a := make([]float64, n*n)
		for i := range n {
			for j := i + 1; j < n; j++ {
				a[i*n+j] = 0.1 + rng.Float64()
			}
		}
		w.Trans = append(w.Trans, a)
	}
	return w
}

// allStrings lists the strings over d symbols of length <= maxLen.
func allStrings(d, maxLen int) [][]int {
	out := [][]int{{}}
	layer := [][]int{{}}
	for range maxLen {
		var next [][]int
		for _, u := range layer {
			for s := range d {
				next = append(next, append(append([]int(nil), u...), s))
			}
		}
		out = append(out, next...)
		layer = next
	}
	return out
}

// bruteVariant computes the variant's function of x by enumeration over
// the support (strings shorter than supp).
func bruteVariant(w WFA, v HankelVariant, x []int, supp int) float64 {
	d := len(w.Trans)
	sum := 0.0
	for _, y := range allStrings(d, supp) {
		switch v {
		case Classic:
			if len(y) == len(x) && hasAt(y, x, 0) {
				sum += w.Value(y)
			}
		case Prefix:
			if hasAt(y, x, 0) {
				sum += w.Value(y)
			}
		case Suffix:
			if hasAt(y, x, len(y)-len(x)) {
				sum += w.Value(y)
			}
		case Factor:
			for i := 0; i+len(x) <= len(y); i++ {
				if hasAt(y, x, i) {
					sum += w.Value(y)
				}
			}
		}
	}
	return sum
}

func hasAt(y, x []int, i int) bool {
	if i < 0 || i+len(x) > len(y) {
		return false
	}
	for t, s := range x {
		if y[i+t] != s {
			return false
		}
	}
	return true
}

// The Hankel entries are the variant's function (brute force), the
// spectral WFA at the true rank recovers f exactly, and the variants agree.
func TestStringHankelExactRecovery(t *testing.T) {
	const n, d = 4, 2
	rng := rand.New(rand.NewPCG(3, 4))
	w := finiteWFA(rng, n, d)
	support := allStrings(d, n-1)
	weights := make([]float64, len(support))
	z := 0.0
	for i, x := range support {
		weights[i] = w.Value(x)
		z += weights[i]
	}
	for _, v := range HankelVariants {
		t.Run(v.String(), func(t *testing.T) {
			h, err := NewWeightedHankel(support, weights, d, StringHankelConfig{Variant: v, Rows: 3, Cols: 3})
			if err != nil {
				t.Fatal(err)
			}
			dense := h.Dense()
			for i, u := range h.Prefixes {
				for j, s := range h.Suffixes {
					want := bruteVariant(w, v, append(append([]int(nil), u...), s...), n-1) / z
					if got := dense.At(i, j); !closeRel(got, want, exactTol) {
						t.Fatalf("H[%v, %v] = %g, want %g", u, s, got, want)
					}
				}
			}
			for sym, hs := range h.Sigma {
				hd := hs.Dense()
				for i, u := range h.Prefixes {
					for j, s := range h.Suffixes {
						x := append(append(append([]int(nil), u...), sym), s...)
						if got, want := hd.At(i, j), bruteVariant(w, v, x, n-1)/z; !closeRel(got, want, exactTol) {
							t.Fatalf("H_%d[%v, %v] = %g, want %g", sym, u, s, got, want)
						}
					}
				}
			}
			var svd mat.SVD
			svd.Factorize(dense, mat.SVDNone)
			rank := 0
			for _, s := range svd.Values(nil) {
				if s > 1e-10 {
					rank++
				}
			}
			if rank != n {
				t.Fatalf("Hankel rank %d, want %d", rank, n)
			}
			f, err := h.Factorize(rank, rand.New(rand.NewPCG(1, 1)))
			if err != nil {
				t.Fatal(err)
			}
			got, err := f.WFA(rank)
			if err != nil {
				t.Fatal(err)
			}
			for _, x := range allStrings(d, n+1) {
				if g, want := got.Value(x)*z, w.Value(x); math.Abs(g-want) > 1e-9*(1+math.Abs(want)) {
					t.Fatalf("learned f(%v) = %g, want %g", x, g, want)
				}
			}
			if _, err := f.WFA(rank + 1); err == nil {
				t.Fatal("rank above the factorization accepted")
			}
		})
	}
}

// On a random sample with strings longer than lrows + lcolumns + 1, every
// variant's basis and every entry of H and of each H_s equal the counts
// taken by brute force (and each matrix's entries were counted exactly
// before it was filled), over a small alphabet (a trie with a child table)
// and one above denseTrieSymbols (a trie with a child map).
func TestStringHankelCounts(t *testing.T) {
	for _, d := range []int{3, denseTrieSymbols + 6} {
		t.Run(fmt.Sprint(d), func(t *testing.T) { testStringHankelCounts(t, d) })
	}
}

func testStringHankelCounts(t *testing.T, d int) {
	const rows, cols = 2, 3
	rng := rand.New(rand.NewPCG(21, uint64(d)))
	var sample [][]int
	for range 300 {
		s := make([]int, rng.IntN(10))
		for k := range s {
			s[k] = rng.IntN(3)
			if s[k] == 2 {
				s[k] = d - 1 // the alphabet's last symbol
			}
			if k > 0 && rng.IntN(2) == 0 {
				s[k] = s[k-1]
			}
		}
		sample = append(sample, s)
	}
	// f is the variant's count of x over the sample.
	f := func(v HankelVariant, x []int) float64 {
		c := 0.0
		for _, s := range sample {
			switch v {
			case Classic:
				if slices.Equal(s, x) {
					c++
				}
			case Prefix:
				if len(s) >= len(x) && slices.Equal(s[:len(x)], x) {
					c++
				}
			case Suffix:
				if len(s) >= len(x) && slices.Equal(s[len(s)-len(x):], x) {
					c++
				}
			case Factor:
				for k := 0; k+len(x) <= len(s); k++ {
					if slices.Equal(s[k:k+len(x)], x) {
						c++
					}
				}
			}
		}
		return c / float64(len(sample))
	}
	// basis lists the prefixes (suffixes if suffix), or all factors, of
	// the sample's strings up to length l, by length and then in order.
	basis := func(l int, factors, suffix bool) [][]int {
		set := map[string][]int{}
		for _, s := range sample {
			for a := 0; a <= len(s); a++ {
				for b := a; b <= min(len(s), a+l); b++ {
					if factors || (!suffix && a == 0) || (suffix && b == len(s)) {
						set[fmt.Sprint(s[a:b])] = slices.Clone(s[a:b])
					}
				}
			}
		}
		var out [][]int
		for _, w := range set {
			out = append(out, w)
		}
		slices.SortFunc(out, func(x, y []int) int {
			if len(x) != len(y) {
				return len(x) - len(y)
			}
			return slices.Compare(x, y)
		})
		return out
	}
	for _, v := range HankelVariants {
		t.Run(v.String(), func(t *testing.T) {
			h, err := NewStringHankel(sample, d, StringHankelConfig{Variant: v, Rows: rows, Cols: cols})
			if err != nil {
				t.Fatal(err)
			}
			wantRows := basis(rows, v == Suffix || v == Factor, false)
			wantCols := basis(cols, v == Prefix || v == Factor, true)
			if fmt.Sprint(h.Prefixes) != fmt.Sprint(wantRows) || fmt.Sprint(h.Suffixes) != fmt.Sprint(wantCols) {
				t.Fatalf("basis %v x %v, want %v x %v", h.Prefixes, h.Suffixes, wantRows, wantCols)
			}
			for m, hm := range append([]*Sparse{h.H}, h.Sigma...) {
				if cap(hm.Col) != hm.NNZ() || cap(hm.Val) != hm.NNZ() {
					t.Fatalf("matrix %d: %d entries in arrays of capacity %d and %d: not counted exactly beforehand", m, hm.NNZ(), cap(hm.Col), cap(hm.Val))
				}
				for i := range hm.Rows {
					if r := hm.Col[hm.RowPtr[i]:hm.RowPtr[i+1]]; !slices.IsSorted(r) || len(slices.Compact(slices.Clone(r))) != len(r) {
						t.Fatalf("matrix %d row %d: columns %v not strictly increasing", m, i, r)
					}
				}
				hd := hm.Dense()
				for i, u := range h.Prefixes {
					for j, s := range h.Suffixes {
						x := slices.Clone(u)
						if m > 0 {
							x = append(x, m-1)
						}
						x = append(x, s...)
						if got, want := hd.At(i, j), f(v, x); !closeRel(got, want, 1e-12) {
							t.Fatalf("matrix %d (0: H, 1+s: H_s) at [%v, %v] = %g, want %g", m, u, s, got, want)
						}
					}
				}
			}
		})
	}
}

// ToVariant computes the variant's function (brute force) and FromVariant
// undoes it.
func TestVariantConversions(t *testing.T) {
	const n, d = 4, 3
	w := finiteWFA(rand.New(rand.NewPCG(5, 6)), n, d)
	for _, v := range HankelVariants {
		wv, err := ToVariant(w, v)
		if err != nil {
			t.Fatal(err)
		}
		back, err := FromVariant(wv, v)
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range allStrings(d, n) {
			if got, want := wv.Value(x), bruteVariant(w, v, x, n-1); !closeRel(got, want, 1e-12) {
				t.Fatalf("%v: f_v(%v) = %g, want %g", v, x, got, want)
			}
			if got, want := back.Value(x), w.Value(x); math.Abs(got-want) > 1e-12 {
				t.Fatalf("%v: round trip f(%v) = %g, want %g", v, x, got, want)
			}
		}
	}
}

// Mass is the sum of f over the support; the next-symbol distribution
// after a prefix is the ratio of prefix masses.
func TestMassAndNextSymbol(t *testing.T) {
	const n, d = 4, 2
	w := finiteWFA(rand.New(rand.NewPCG(7, 8)), n, d)
	z := 0.0
	for _, x := range allStrings(d, n-1) {
		z += w.Value(x)
	}
	m, err := w.Mass()
	if err != nil || !closeRel(m, z, 1e-12) {
		t.Fatalf("Mass = %g (%v), want %g", m, err, z)
	}
	beta, _ := w.Stop()
	p := w.NextSymbol([]int{1}, beta)
	pre := bruteVariant(w, Prefix, []int{1}, n-1)
	for s := range d {
		if want := bruteVariant(w, Prefix, []int{1, s}, n-1) / pre; !closeRel(p[s], want, 1e-12) {
			t.Fatalf("p(%d | 1) = %g, want %g", s, p[s], want)
		}
	}
	if want := w.Value([]int{1}) / pre; !closeRel(p[d], want, 1e-12) {
		t.Fatalf("p(end | 1) = %g, want %g", p[d], want)
	}
}

// The randomized SVD finds the leading singular values of a sparse matrix
// with a decaying spectrum (plus noise), and a seed fixes its result bit for bit.
func TestRandomizedSVD(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	const rows, cols, k = 520, 450, 8
	g, h := randVec(rng, rows*12, 1), randVec(rng, cols*12, 1)
	var tr []triplet
	for i := range rows {
		for j := range cols {
			v := 1e-3 * rng.NormFloat64()
			for r := range 12 {
				v += math.Pow(0.6, float64(r)) * g[i*12+r] * h[j*12+r]
			}
			tr = append(tr, triplet{i, j, v})
		}
	}
	m := buildSparse(rows, cols, tr)
	got, err := m.TruncatedSVD(k, 0, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	want, _ := denseSVD(m.Dense(), k)
	for i := range k {
		if !closeRel(got.S[i], want.S[i], 1e-8) {
			t.Fatalf("singular value %d: %g, want %g", i, got.S[i], want.S[i])
		}
	}
	for name, f := range map[string]*mat.Dense{"U": got.U, "V": got.V} {
		var g mat.Dense
		g.Mul(f.T(), f)
		id := mat.NewDiagDense(k, slices.Repeat([]float64{1}, k))
		if !mat.EqualApprox(&g, id, 1e-10) {
			t.Fatalf("%s^T %s is not the identity:\n%v", name, name, mat.Formatted(&g))
		}
	}
	again, _ := m.TruncatedSVD(k, 0, rand.New(rand.NewPCG(1, 2)))
	if !mat.Equal(again.U, got.U) || !mat.Equal(again.V, got.V) {
		t.Fatal("same seed, different SVD")
	}
}

// tallGram gives SymOuterK's a^T a bit for bit.
func TestGramT(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	a := mat.NewDense(301, 17, nil)
	for i := range 301 {
		for j := range 17 {
			a.Set(i, j, zeroOrSpread(rng, 3))
		}
	}
	var want mat.SymDense
	want.SymOuterK(1, a.T())
	if got := tallGram(a); !sameBits(got.RawSymmetric().Data, want.RawSymmetric().Data) {
		t.Fatalf("tallGram differs from SymOuterK:\n%v\nwant\n%v", mat.Formatted(got), mat.Formatted(&want))
	}
}

// zeroOrSpread draws 0 or -0 (one time in eight each) or a normal value
// times 10^k, k uniform in [-e, e]: entries that exercise the kernels'
// zero skips, signed zeros and rounding.
func zeroOrSpread(rng *rand.Rand, e int) float64 {
	switch rng.IntN(8) {
	case 0:
		return 0
	case 1:
		return math.Copysign(0, -1)
	}
	return rng.NormFloat64() * math.Pow(10, float64(rng.IntN(2*e+1)-e))
}

// sameBits reports whether a and b hold the same floats, bit for bit.
func sameBits(a, b []float64) bool {
	return slices.EqualFunc(a, b, func(x, y float64) bool { return math.Float64bits(x) == math.Float64bits(y) })
}

// mulDenseTo, tMulDenseTo and projectSandwich give the bits of one axpy
// per entry, in order, from 0, for rows of every length mod 4, a row of -0
// values, an empty row and narrow and wide blocks, whatever the output
// held.
func TestSparseMulBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	const rows, cols = 37, 29
	var tr []triplet
	for i := range rows {
		for j := range cols {
			switch {
			case i == 0:
				// Four products of -0 (x's first rows are positive):
				// the sums start from +0.
				if j < 4 {
					tr = append(tr, triplet{i, j, math.Copysign(0, -1)})
				}
			case i == 5:
				// An empty row: zero in products, skipped by
				// projectSandwich.
			case rng.IntN(1+i%6) == 0:
				tr = append(tr, triplet{i, j, rng.NormFloat64()})
			}
		}
	}
	m := buildSparse(rows, cols, tr)
	for _, k := range []int{5, vec.AxpyLoop + 11} {
		x, y := mat.NewDense(cols, k, nil), mat.NewDense(rows, k, nil)
		for _, d := range [][]float64{x.RawMatrix().Data, y.RawMatrix().Data} {
			for i := range d {
				d[i] = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(9)-4))
			}
		}
		for i := range 4 {
			for j, v := range x.RawRowView(i) {
				x.Set(i, j, math.Abs(v))
			}
		}
		want, wantT := mat.NewDense(rows, k, nil), mat.NewDense(cols, k, nil)
		for _, e := range tr {
			blas64.Axpy(e.v, blas64.Vector{N: k, Inc: 1, Data: x.RawRowView(e.c)}, blas64.Vector{N: k, Inc: 1, Data: want.RawRowView(e.r)})
			blas64.Axpy(e.v, blas64.Vector{N: k, Inc: 1, Data: y.RawRowView(e.r)}, blas64.Vector{N: k, Inc: 1, Data: wantT.RawRowView(e.c)})
		}
		got, gotT := mat.NewDense(rows, k, nil), mat.NewDense(cols, k, nil)
		for _, d := range [][]float64{got.RawMatrix().Data, gotT.RawMatrix().Data} {
			for i := range d {
				d[i] = math.NaN() // the products overwrite whatever is there
			}
		}
		m.mulDenseTo(got, x)
		m.tMulDenseTo(gotT, y)
		if !sameBits(got.RawMatrix().Data, want.RawMatrix().Data) {
			t.Fatalf("k = %d: mulDenseTo differs from one axpy per entry", k)
		}
		if !sameBits(gotT.RawMatrix().Data, wantT.RawMatrix().Data) {
			t.Fatalf("k = %d: tMulDenseTo differs from one axpy per entry", k)
		}
		// projectSandwich: U^T (m x) over the rows that hold entries.
		u := mat.NewDense(rows, k, nil)
		for i := range u.RawMatrix().Data {
			u.RawMatrix().Data[i] = rng.NormFloat64()
		}
		var ug, tg []float64
		for i := range rows {
			if m.RowPtr[i+1] > m.RowPtr[i] {
				ug, tg = append(ug, u.RawRowView(i)...), append(tg, want.RawRowView(i)...)
			}
		}
		var ref mat.Dense
		ref.Mul(mat.NewDense(len(ug)/k, k, ug).T(), mat.NewDense(len(tg)/k, k, tg))
		if !sameBits(m.projectSandwich(u, x).RawMatrix().Data, ref.RawMatrix().Data) {
			t.Fatalf("k = %d: projectSandwich differs from one axpy per entry and a product", k)
		}
	}
}

// trmmUpper gives blas64.Trmm's a r bit for bit, on rows with zero entries
// (skipped) and signed zeros, on rows without any zero, and with a last
// block of fewer than four rows; vec.Axpy gives blas64.Axpy's y + alpha x,
// on vectors below and above the length where vec.Axpy switches.
func TestTrmmUpperAxpy(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	for _, n := range []int{5, vec.AxpyLoop + 9} {
		a := mat.NewDense(43, n, nil)
		r := mat.NewTriDense(n, mat.Upper, nil)
		for i := range n {
			for j := i; j < n; j++ {
				r.SetTri(i, j, rng.NormFloat64())
			}
			for k := range 43 {
				v := zeroOrSpread(rng, 4)
				if k >= 20 { // rows without zeros: blocks that skip no entry
					v = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(9)-4))
				}
				a.Set(k, i, v)
			}
		}
		want := mat.DenseCopyOf(a)
		blas64.Trmm(blas.Right, blas.NoTrans, 1, r.RawTriangular(), want.RawMatrix())
		trmmUpper(a, r)
		if !sameBits(a.RawMatrix().Data, want.RawMatrix().Data) {
			t.Fatalf("n = %d: trmmUpper differs from Trmm", n)
		}
		x, y := mat.Row(nil, 0, a), mat.Row(nil, 1, a)
		wantY := slices.Clone(y)
		blas64.Axpy(0.37, blas64.Vector{N: n, Inc: 1, Data: x}, blas64.Vector{N: n, Inc: 1, Data: wantY})
		vec.Axpy(0.37, x, y)
		if !slices.Equal(y, wantY) {
			t.Fatalf("n = %d: vec.Axpy differs from blas64.Axpy", n)
		}
	}
}

// Minimize removes the redundant half of a direct sum and keeps the
// function.
func TestMinimize(t *testing.T) {
	const n, d = 3, 2
	rng := rand.New(rand.NewPCG(17, 18))
	w := finiteWFA(rng, n, d)
	for i := range w.Alpha {
		w.Alpha[i] += rng.Float64()
	}
	big := WFA{States: 2 * n, Out: 1, Alpha: make([]float64, 2*n), Omega: make([]float64, 2*n)}
	for i := range n {
		big.Alpha[i], big.Alpha[n+i] = 0.25*w.Alpha[i], 0.75*w.Alpha[i]
		big.Omega[i], big.Omega[n+i] = w.Omega[i], w.Omega[i]
	}
	for _, a := range w.Trans {
		b := make([]float64, 4*n*n)
		for i := range n {
			for j := range n {
				b[i*2*n+j], b[(n+i)*2*n+n+j] = a[i*n+j], a[i*n+j]
			}
		}
		big.Trans = append(big.Trans, b)
	}
	m, err := Minimize(big, 1e-9)
	if err != nil {
		t.Fatal(err)
	}
	if m.States != n {
		t.Fatalf("minimal automaton has %d states, want %d", m.States, n)
	}
	for _, x := range allStrings(d, 4) {
		if got, want := m.Value(x), w.Value(x); math.Abs(got-want) > 1e-12*(1+math.Abs(want)) {
			t.Fatalf("f(%v) = %g, want %g", x, got, want)
		}
	}
}

type triplet struct {
	r, c int
	v    float64
}

// buildSparse runs a rowBuilder over entries given in row-major order,
// each (row, column) pair once.
func buildSparse(rows, cols int, tr []triplet) *Sparse {
	return buildSparseCap(rows, cols, tr, len(tr))
}

// buildSparseCap is buildSparse with the builder's capacity given.
func buildSparseCap(rows, cols int, tr []triplet, capacity int) *Sparse {
	b := newRowBuilder(rows, cols, capacity)
	r := 0
	for _, e := range tr {
		for ; r < e.r; r++ {
			b.endRow(r)
		}
		b.add(e.c, e.v)
	}
	for ; r < rows; r++ {
		b.endRow(r)
	}
	return b.build()
}

// The builder's matrix holds the entries as given, with empty rows, and
// equals their dense matrix, whether its capacity is the number of entries
// (then its arrays are the ones allocated), smaller or 0.
func TestRowBuilder(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const rows, cols = 40, 300
	want := mat.NewDense(rows, cols, nil)
	var tr []triplet
	for i := range rows {
		if i%7 == 3 {
			continue
		}
		for j := range cols {
			if rng.IntN(3) == 0 {
				v := rng.NormFloat64()
				tr = append(tr, triplet{i, j, v})
				want.Set(i, j, v)
			}
		}
	}
	for _, capacity := range []int{len(tr), len(tr) / 3, 0} {
		m := buildSparseCap(rows, cols, tr, capacity)
		if !mat.Equal(m.Dense(), want) || m.NNZ() != len(tr) {
			t.Fatalf("capacity %d: the built matrix differs from its entries", capacity)
		}
		for k, e := range tr {
			if m.Col[k] != e.c || m.Val[k] != e.v || k < m.RowPtr[e.r] || k >= m.RowPtr[e.r+1] {
				t.Fatalf("capacity %d: entry %d: column %d value %g, want %v", capacity, k, m.Col[k], m.Val[k], e)
			}
		}
		if capacity == len(tr) && (cap(m.Col) != len(tr) || cap(m.Val) != len(tr)) {
			t.Fatalf("capacities %d and %d for %d entries: the arrays were reallocated", cap(m.Col), cap(m.Val), len(tr))
		}
	}
}

// Restrict gives the matrices of a direct build with the smaller bases,
// bit for bit, for every variant, with unequal row and column lengths and
// weighted strings; it refuses bases longer than the build's.
func TestStringHankelRestrict(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	const d = 3
	var seqs [][]int
	var weights []float64
	for range 300 {
		s := make([]int, rng.IntN(12))
		for i := range s {
			s[i] = rng.IntN(d)
		}
		seqs, weights = append(seqs, s), append(weights, 0.5+rng.Float64())
	}
	same := func(a, b *Sparse) bool {
		if a.Rows != b.Rows || a.Cols != b.Cols || !slices.Equal(a.RowPtr, b.RowPtr) || !slices.Equal(a.Col, b.Col) || len(a.Val) != len(b.Val) {
			return false
		}
		for i, v := range a.Val {
			if math.Float64bits(v) != math.Float64bits(b.Val[i]) {
				return false
			}
		}
		return true
	}
	for _, v := range []HankelVariant{Classic, Prefix, Suffix, Factor} {
		big, err := NewWeightedHankel(seqs, weights, d, StringHankelConfig{Variant: v, Rows: 5, Cols: 4})
		if err != nil {
			t.Fatal(err)
		}
		for _, rc := range [][2]int{{5, 4}, {3, 3}, {1, 4}, {4, 1}, {2, 3}} {
			want, err := NewWeightedHankel(seqs, weights, d, StringHankelConfig{Variant: v, Rows: rc[0], Cols: rc[1]})
			if err != nil {
				t.Fatal(err)
			}
			got, err := big.Restrict(rc[0], rc[1])
			if err != nil {
				t.Fatal(err)
			}
			ok := slices.EqualFunc(got.Prefixes, want.Prefixes, slices.Equal[[]int]) && slices.EqualFunc(got.Suffixes, want.Suffixes, slices.Equal[[]int]) &&
				same(got.H, want.H) && len(got.Sigma) == len(want.Sigma)
			for s := range want.Sigma {
				ok = ok && same(got.Sigma[s], want.Sigma[s])
			}
			if !ok {
				t.Errorf("%v restricted to %v differs from the direct build", v, rc)
			}
			if rc == [2]int{3, 3} && got.H.NNZ() >= big.H.NNZ() {
				t.Errorf("%v: restriction kept %d of %d entries", v, got.H.NNZ(), big.H.NNZ())
			}
		}
		for _, rc := range [][2]int{{6, 4}, {5, 5}, {0, 2}} {
			if _, err := big.Restrict(rc[0], rc[1]); err == nil {
				t.Errorf("%v: restriction to %v accepted", v, rc)
			}
		}
	}
}

// Value and Values give the bits of the plain product, one row of the
// matrix at a time with zero weights skipped, on automata with zero
// weights and a state count that is not a multiple of 4, over strings
// that repeat, are empty or are prefixes of one another.
func TestValuesBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 18))
	plain := func(w WFA, x []int) float64 {
		n := w.States
		row := slices.Clone(w.Alpha)
		for _, s := range x {
			next := make([]float64, n)
			for i, h := range row {
				if h != 0 {
					for j := range n {
						next[j] += float64(h * w.Trans[s][i*n+j])
					}
				}
			}
			row = next
		}
		return dot(row, w.Omega)
	}
	for _, n := range []int{3, 9} {
		const d = 3
		w := WFA{States: n, Out: 1, Alpha: make([]float64, n), Omega: make([]float64, n)}
		draw := func() float64 {
			switch rng.IntN(6) {
			case 0:
				return 0
			case 1:
				return math.Copysign(0, -1)
			}
			return rng.NormFloat64() / math.Sqrt(float64(n))
		}
		for i := range n {
			w.Alpha[i], w.Omega[i] = draw(), draw()
		}
		for range d {
			a := make([]float64, n*n)
			for i := range a {
				a[i] = draw()
			}
			w.Trans = append(w.Trans, a)
		}
		var seqs [][]int
		for range 200 {
			x := make([]int, rng.IntN(7))
			for i := range x {
				x[i] = rng.IntN(d)
			}
			seqs = append(seqs, x)
			if rng.IntN(4) == 0 {
				seqs = append(seqs, x[:rng.IntN(len(x)+1)])
			}
		}
		got := w.Values(NewWords(seqs))
		for i, x := range seqs {
			want := plain(w, x)
			if v := w.Value(x); math.Float64bits(v) != math.Float64bits(want) || math.Float64bits(got[i]) != math.Float64bits(want) {
				t.Fatalf("n = %d, %v: Value %v, Values %v, plain product %v", n, x, v, got[i], want)
			}
		}
	}
}

// A classic sample whose strings are all longer than lrows + lcolumns + 1
// counts no string of the matrices: they are zero, with the bases of the
// sample's prefixes and suffixes, at every basis.
func TestStringHankelNoShortStrings(t *testing.T) {
	seqs := [][]int{{0, 1, 0, 1, 1, 0, 1}, {1, 1, 0, 0, 1, 0, 1, 1}}
	h, err := NewStringHankel(seqs, 2, StringHankelConfig{Variant: Classic, Rows: 2, Cols: 3})
	if err != nil {
		t.Fatal(err)
	}
	r, err := h.Restrict(1, 2)
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range []*StringHankel{h, r} {
		if x.H.NNZ() != 0 || len(x.Prefixes) < 2 || len(x.Suffixes) < 2 {
			t.Fatalf("H has %d entries over %d x %d bases, want none over the sample's", x.H.NNZ(), len(x.Prefixes), len(x.Suffixes))
		}
		for s, m := range x.Sigma {
			if m.NNZ() != 0 {
				t.Fatalf("H_%d has %d entries, want none", s, m.NNZ())
			}
		}
	}
}

// Weights whose counts or total overflow, or whose total is so small that
// its inverse does, are refused with an error; the SVD refuses a non-finite
// entry on both of its paths instead of iterating on it.
func TestStringHankelOverflow(t *testing.T) {
	seqs := [][]int{{0, 1, 0}, {1}}
	for _, w := range [][]float64{{1e308, 1}, {5e-324, 0}} {
		_, err := NewWeightedHankel(seqs, w, 2, StringHankelConfig{Variant: Factor, Rows: 2, Cols: 2})
		if err == nil || !strings.Contains(err.Error(), "overflow") {
			t.Fatalf("weights %v: error %v, want an overflow", w, err)
		}
	}
	// No count overflows, their sum does.
	if _, err := NewWeightedHankel([][]int{{0}, {1}}, []float64{1e308, 1e308}, 2, StringHankelConfig{}); err == nil || !strings.Contains(err.Error(), "overflow") {
		t.Fatalf("weights summing to +Inf: error %v, want an overflow", err)
	}
	for _, n := range []int{3, denseSVDLimit + 1} {
		var tr []triplet
		for i := range n {
			tr = append(tr, triplet{i, i, 1})
		}
		tr[n/2].v = math.Inf(1)
		m := buildSparse(n, n, tr)
		if _, err := m.TruncatedSVD(2, 0, rand.New(rand.NewPCG(1, 2))); err == nil || !strings.Contains(err.Error(), "+Inf") {
			t.Fatalf("%d x %d: error %v, want one naming +Inf", n, n, err)
		}
		tr[n/2].v = math.NaN()
		m = buildSparse(n, n, tr)
		if _, err := m.TruncatedSVD(2, 0, rand.New(rand.NewPCG(1, 2))); err == nil || !strings.Contains(err.Error(), "NaN") {
			t.Fatalf("%d x %d: error %v, want one naming NaN", n, n, err)
		}
	}
}
