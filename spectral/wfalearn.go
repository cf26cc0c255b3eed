package spectral

import (
	"fmt"
	"math/rand/v2"

	"github.com/pkg/errors"
	"gonum.org/v1/gonum/mat"
)

// HankelRankError reports a rank above what a string Hankel matrix allows.
type HankelRankError struct {
	// Rank is the requested rank and Max the largest allowed.
	Rank, Max int
}

// Error names both ranks.
func (e *HankelRankError) Error() string {
	return fmt.Sprintf("spectral: rank %d is above the Hankel matrix's largest usable rank %d", e.Rank, e.Max)
}

// Factorization is the truncated SVD H ~ U diag(S) V^T of a string Hankel
// matrix with the projections the spectral method needs, so that the WFA
// of every rank up to Rank is read off without another pass over the
// Hankel matrices.
type Factorization struct {
	// Variant and Symbols are those of the Hankel matrix.
	Variant HankelVariant
	Symbols int
	// Rank is the number of singular triplets kept.
	Rank int
	// S holds the Rank leading singular values of H.
	S []float64
	// proj[s] = U^T H_s V (Rank x Rank); row = V^T H[eps, :];
	// col = U^T H[:, eps].
	proj     []*mat.Dense
	row, col []float64
}

// Factorize computes the truncated SVD of h with maxRank triplets
// (see Sparse.TruncatedSVD; rng seeds the randomized SVD) and the
// projections of the H_sigma. A maxRank above MaxRank is a *HankelRankError.
func (h *StringHankel) Factorize(maxRank int, rng *rand.Rand) (*Factorization, error) {
	if maxRank < 1 || maxRank > h.MaxRank() {
		return nil, &HankelRankError{Rank: maxRank, Max: h.MaxRank()}
	}
	svd, err := h.H.TruncatedSVD(maxRank, 0, rng)
	if err != nil {
		return nil, err
	}
	f := &Factorization{Variant: h.Variant, Symbols: h.Symbols, Rank: maxRank, S: svd.S}
	for _, hs := range h.Sigma {
		f.proj = append(f.proj, hs.projectSandwich(svd.U, svd.V))
	}
	// H[eps, :] is row 0 and H[:, eps] column 0: eps comes first in both
	// bases.
	row, col := make([]float64, h.H.Cols), make([]float64, h.H.Rows)
	for p := h.H.RowPtr[0]; p < h.H.RowPtr[1]; p++ {
		row[h.H.Col[p]] += h.H.Val[p]
	}
	for r := range h.H.Rows {
		if p := h.H.RowPtr[r]; p < h.H.RowPtr[r+1] && h.H.Col[p] == 0 {
			col[r] += h.H.Val[p]
		}
	}
	rowV := mat.NewVecDense(maxRank, nil)
	rowV.MulVec(svd.V.T(), mat.NewVecDense(h.H.Cols, row))
	colU := mat.NewVecDense(maxRank, nil)
	colU.MulVec(svd.U.T(), mat.NewVecDense(h.H.Rows, col))
	f.row, f.col = rowV.RawVector().Data, colU.RawVector().Data
	return f, nil
}

// WFA returns the spectral automaton of the given rank (Hsu, Kakade and
// Zhang 2012; Balle et al. 2014): with the rank-r truncation
// H ~ U_r S_r V_r^T,
//
//	A_s = S_r^-1 U_r^T H_s V_r,  alpha = V_r^T H[eps, :]^T,  omega = S_r^-1 U_r^T H[:, eps],
//
// converted to the Classic variant (FromVariant), so that it computes the
// string function f itself. A rank above Rank is a *HankelRankError.
func (f *Factorization) WFA(rank int) (WFA, error) {
	if rank < 1 || rank > f.Rank {
		return WFA{}, &HankelRankError{Rank: rank, Max: f.Rank}
	}
	w := WFA{States: rank, Out: 1, Alpha: append([]float64(nil), f.row[:rank]...), Omega: make([]float64, rank)}
	for i := range rank {
		w.Omega[i] = f.col[i] / f.S[i]
	}
	for _, p := range f.proj {
		a := make([]float64, rank*rank)
		for i := range rank {
			for j := range rank {
				a[i*rank+j] = p.At(i, j) / f.S[i]
			}
		}
		w.Trans = append(w.Trans, a)
	}
	return FromVariant(w, f.Variant)
}

// FromVariant turns an automaton computing the variant's function (f_p,
// f_s or f_f) into one computing f, with S = sum_s A_s:
// f(x) = f_p(x) - sum_s f_p(xs) gives omega <- (I - S) omega,
// f(x) = f_s(x) - sum_s f_s(sx) gives alpha^T <- alpha^T (I - S), and
// Factor takes both. Classic is returned as is. w must have one output.
func FromVariant(w WFA, v HankelVariant) (WFA, error) {
	if err := w.Validate(); err != nil {
		return WFA{}, err
	}
	if w.Out != 1 {
		return WFA{}, errors.Errorf("spectral: variant conversion of a WFA with %d outputs, want 1", w.Out)
	}
	n := w.States
	ims := mat.NewDense(n, n, nil)
	for i := range n {
		ims.Set(i, i, 1)
	}
	for _, a := range w.Trans {
		ims.Sub(ims, mat.NewDense(n, n, a))
	}
	if v == Prefix || v == Factor {
		o := mat.NewVecDense(n, nil)
		o.MulVec(ims, mat.NewVecDense(n, w.Omega))
		w.Omega = o.RawVector().Data
	}
	if v == Suffix || v == Factor {
		a := mat.NewVecDense(n, nil)
		a.MulVec(ims.T(), mat.NewVecDense(n, w.Alpha))
		w.Alpha = a.RawVector().Data
	}
	return w, nil
}

// ToVariant is the inverse of FromVariant: it turns an automaton computing
// f into one computing the variant's function, through (I - S)^-1. It
// fails when I - S is singular.
func ToVariant(w WFA, v HankelVariant) (WFA, error) {
	if err := w.Validate(); err != nil {
		return WFA{}, err
	}
	n := w.States
	ims := mat.NewDense(n, n, nil)
	for i := range n {
		ims.Set(i, i, 1)
	}
	for _, a := range w.Trans {
		ims.Sub(ims, mat.NewDense(n, n, a))
	}
	var inv mat.Dense
	if err := inv.Inverse(ims); err != nil {
		return WFA{}, errors.Wrap(err, "spectral: I - sum of transitions")
	}
	if v == Prefix || v == Factor {
		o := mat.NewVecDense(n, nil)
		o.MulVec(&inv, mat.NewVecDense(n, w.Omega))
		w.Omega = o.RawVector().Data
	}
	if v == Suffix || v == Factor {
		a := mat.NewVecDense(n, nil)
		a.MulVec(inv.T(), mat.NewVecDense(n, w.Alpha))
		w.Alpha = a.RawVector().Data
	}
	return w, nil
}
