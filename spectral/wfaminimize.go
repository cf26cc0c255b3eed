package spectral

import (
	"math"

	"github.com/pkg/errors"
	"gonum.org/v1/gonum/mat"
)

// Minimize returns an automaton computing the same function as w with the
// fewest states, up to the relative tolerance tol of the rank decisions:
// the forward reduction (restriction to the span of the rows
// alpha^T A_u, an invariant subspace) followed by the backward one (the
// span of the columns A_u omega), which together give a minimal WFA
// (Berstel and Reutenauer, Noncommutative rational series, Ch. 2).
func Minimize(w WFA, tol float64) (WFA, error) {
	if err := w.Validate(); err != nil {
		return WFA{}, err
	}
	if !(tol > 0 && tol < 1) {
		return WFA{}, errors.Errorf("spectral: minimisation tolerance %g, want in (0, 1)", tol)
	}
	return transpose(reduceForward(transpose(reduceForward(w, tol)), tol)), nil
}

// transpose returns the automaton with alpha and omega swapped and every
// A_s transposed; it computes f on reversed strings.
func transpose(w WFA) WFA {
	n := w.States
	t := WFA{States: n, Out: w.Out, Alpha: append([]float64(nil), w.Omega...), Omega: append([]float64(nil), w.Alpha...)}
	for _, a := range w.Trans {
		b := make([]float64, n*n)
		for i := range n {
			for j := range n {
				b[j*n+i] = a[i*n+j]
			}
		}
		t.Trans = append(t.Trans, b)
	}
	return t
}

// reduceForward restricts w (one output) to the span of its forward rows.
func reduceForward(w WFA, tol float64) WFA {
	n := w.States
	scale := 0.0
	for _, v := range w.Alpha {
		scale = math.Max(scale, math.Abs(v))
	}
	for _, a := range w.Trans {
		for _, v := range a {
			scale = math.Max(scale, math.Abs(v))
		}
	}
	var basis [][]float64
	add := func(v []float64) {
		norm0 := math.Sqrt(dot(v, v))
		for range 2 {
			for _, b := range basis {
				d := dot(v, b)
				for i := range v {
					v[i] -= d * b[i]
				}
			}
		}
		norm := math.Sqrt(dot(v, v))
		if norm <= tol*math.Max(norm0, scale) || norm == 0 {
			return
		}
		for i := range v {
			v[i] /= norm
		}
		basis = append(basis, v)
	}
	add(append([]float64(nil), w.Alpha...))
	for k := 0; k < len(basis) && len(basis) < n; k++ {
		for _, a := range w.Trans {
			v := make([]float64, n)
			mat.NewVecDense(n, v).MulVec(mat.NewDense(n, n, a).T(), mat.NewVecDense(n, basis[k]))
			add(v)
		}
	}
	k := len(basis)
	if k == 0 {
		return WFA{States: 1, Out: w.Out, Alpha: []float64{0}, Omega: make([]float64, w.Out), Trans: zeroTrans(len(w.Trans))}
	}
	q := mat.NewDense(k, n, nil)
	for i, b := range basis {
		q.SetRow(i, b)
	}
	r := WFA{States: k, Out: w.Out, Alpha: make([]float64, k), Omega: make([]float64, w.Out*k)}
	mat.NewVecDense(k, r.Alpha).MulVec(q, mat.NewVecDense(n, w.Alpha))
	om := mat.NewDense(w.Out, k, r.Omega)
	om.Mul(mat.NewDense(w.Out, n, w.Omega), q.T())
	for _, a := range w.Trans {
		var t mat.Dense
		t.Mul(q, mat.NewDense(n, n, a))
		red := mat.NewDense(k, k, nil)
		red.Mul(&t, q.T())
		r.Trans = append(r.Trans, red.RawMatrix().Data)
	}
	return r
}

func zeroTrans(d int) [][]float64 {
	t := make([][]float64, d)
	for i := range t {
		t[i] = []float64{0}
	}
	return t
}
