package spectral

import (
	"github.com/pkg/errors"

	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/rtnlab/rtn/datasets"
)

// TTTIHTConfig configures TTTIHT. The zero value gives the defaults.
type TTTIHTConfig struct {
	// Batch is the mini-batch size M; if 0 it defaults to min(N, 20)
	// (measured on H^(5), d = 3: batches of 20 converge in the least
	// time, the rounding cost growing like (M + R)^3).
	// Each iteration costs O(l d (M + R)^3 + M^2 l d), independent of
	// d^l.
	Batch int
	// MaxIter caps the iterations; if 0 it defaults to 2,000.
	MaxIter int
	// Tol: every 10 iterations the mean squared residual on all examples
	// is measured; the run stops when it falls below Tol^2 times the mean
	// of y^2, or when three measurements in a row fail to improve the best
	// one by a factor 1 - Tol. If 0 it defaults to 1e-6.
	Tol float64
}

// TTTIHT is TIHT with both the estimate and the data in tensor-train form
// (the paper's supplementary Algorithm 2): each iteration forms the
// mini-batch gradient sum_i r_i (x_i1 (x) ... (x) x_il (x) e) as a train of
// rank M (block-diagonal cores holding the inputs, the residuals in the
// output core), adds it to the estimate with the exact line-search step
// mu = ||g||^2 / ||X_M g||^2 of the batch (both from the M x M kernel
// K_ij = prod_t <x_it, x_jt>, so nothing of d^l entries is formed) and
// rounds the sum back to TT-rank R (TT.Round). It starts from zero.
//
// When to use which: on the paper's sizes (d = 3, L = 2) dense TIHT is
// faster and exact; TTTIHT is the memory-light variant. For large d^l,
// the mini-batch gradient of a zero start carries too little signal
// (measured: no progress for d = 10, L = 3, N = 20,000); there LearnTT
// with ALSConfig.Bootstrap is the method that works.
func TTTIHT(s datasets.TwoRNNData, rank int, cfg TTTIHTConfig, rng *rand.Rand) (TT, IHTStats, error) {
	c := cfg
	if err := s.Validate(); err != nil {
		return TT{}, IHTStats{}, errors.Wrap(err, "spectral")
	}
	l, d, p, N := s.Len, s.In, s.Out, s.N()
	if c.Batch == 0 {
		c.Batch = min(N, 20)
	}
	if c.MaxIter == 0 {
		c.MaxIter = 2000
	}
	if c.Tol == 0 {
		c.Tol = 1e-6
	}
	if rank < 1 || c.Batch < 1 || c.MaxIter < 1 || !(c.Tol > 0) {
		return TT{}, IHTStats{}, errors.Errorf("spectral: TT-TIHT with rank %d, batch %d, %d iterations, tolerance %g: want all > 0",
			rank, c.Batch, c.MaxIter, c.Tol)
	}
	M := min(c.Batch, N)
	t := TT{Dims: make([]int, l+1), Ranks: make([]int, l+2), Cores: make([][]float64, l+1)}
	for k := range l {
		t.Dims[k] = d
	}
	t.Dims[l] = p
	for k := range t.Ranks {
		t.Ranks[k] = 1
	}
	for k := range t.Cores {
		t.Cores[k] = make([]float64, t.Dims[k])
	}
	zero := meanSquare(s.Y)
	best, stale := math.Inf(1), 0
	var st IHTStats
	batch := datasets.TwoRNNData{Len: l, In: d, Out: p, X: make([]float64, M*l*d), Y: make([]float64, M*p)}
	for st.Iterations < c.MaxIter {
		idx := allIndices(N)[:M]
		if M < N {
			idx = rng.Perm(N)[:M]
		}
		for r, i := range idx {
			copy(batch.Seq(r), s.Seq(i))
			copy(batch.Y[r*p:(r+1)*p], s.Y[i*p:(i+1)*p])
		}
		pred, err := t.ContractKron(batch.X, l, d)
		if err != nil {
			return TT{}, IHTStats{}, err
		}
		res := mat.NewDense(M, p, nil)
		res.Sub(targets(batch), pred)
		kern := kronKernel(batch)
		var kr mat.Dense
		kr.Mul(kern, res)
		gg := mat.Sum(elemMul(res, &kr)) // ||g||^2 = tr(R^T K R)
		curv := mat.Norm(&kr, 2)
		curv *= curv // ||X_M g||^2 = ||K R||^2
		if !(gg > 0) || !(curv > 0) {
			st.Converged = true
			break
		}
		res.Scale(gg/curv, res)
		sum, err := t.Add(gradientTT(batch, res))
		if err != nil {
			return TT{}, IHTStats{}, err
		}
		if t, err = sum.Round(rank, 0); err != nil {
			return TT{}, IHTStats{}, err
		}
		st.Iterations++
		if st.Iterations%10 == 0 || st.Iterations == c.MaxIter {
			r, err := alsResidual(t, s)
			if err != nil {
				return TT{}, IHTStats{}, err
			}
			if math.IsNaN(r) || math.IsInf(r, 0) {
				return TT{}, IHTStats{}, ErrDiverged
			}
			st.Residual = r
			if r < best*(1-c.Tol) {
				best, stale = r, 0
			} else {
				stale++
			}
			if r <= c.Tol*c.Tol*zero || stale >= 3 {
				st.Converged = true
				break
			}
		}
	}
	if st.Iterations%10 != 0 {
		r, err := alsResidual(t, s)
		if err != nil {
			return TT{}, IHTStats{}, err
		}
		st.Residual = r
	}
	return t, st, nil
}

// kronKernel returns K_ij = <x_i1 (x) ... (x) x_il, x_j1 (x) ... (x) x_jl>
// = prod_t <x_it, x_jt> for the examples of s (N x N).
func kronKernel(s datasets.TwoRNNData) *mat.Dense {
	N, l, d := s.N(), s.Len, s.In
	k := mat.NewDense(N, N, nil)
	for i := range N {
		for j := range N {
			k.Set(i, j, 1)
		}
	}
	xt := mat.NewDense(N, d, nil)
	var g mat.Dense
	for t := range l {
		for i := range N {
			xt.SetRow(i, s.X[(i*l+t)*d:(i*l+t+1)*d])
		}
		g.Mul(xt, xt.T())
		k.MulElem(k, &g)
	}
	return k
}

// gradientTT returns sum_i x_i1 (x) ... (x) x_il (x) w_i as a train of
// rank N (the rows w_i of w, N x p, in the output core).
func gradientTT(s datasets.TwoRNNData, w *mat.Dense) TT {
	N, l, d, p := s.N(), s.Len, s.In, s.Out
	t := TT{Dims: make([]int, l+1), Ranks: make([]int, l+2), Cores: make([][]float64, l+1)}
	for k := range l {
		t.Dims[k] = d
		t.Ranks[k+1] = N
	}
	t.Dims[l] = p
	t.Ranks[0], t.Ranks[l+1] = 1, 1
	first := make([]float64, d*N)
	for i := range N {
		for c := range d {
			first[c*N+i] = s.X[(i*l)*d+c]
		}
	}
	t.Cores[0] = first
	for k := 1; k < l; k++ {
		core := make([]float64, N*d*N)
		for i := range N {
			for c := range d {
				core[(i*d+c)*N+i] = s.X[(i*l+k)*d+c]
			}
		}
		t.Cores[k] = core
	}
	t.Cores[l] = append([]float64(nil), w.RawMatrix().Data...)
	return t
}
