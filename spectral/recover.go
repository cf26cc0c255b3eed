package spectral

import (
	"github.com/pkg/errors"

	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/rtnlab/rtn/datasets"
)

// Recover returns the linear 2-RNN with rank states that Theorem 3 builds
// from the Hankel tensors H^(L), H^(2L) and H^(2L+1): with
// H^(2L)<<L,L+1>> ~ U_R S_R V_R^T its rank-R truncated SVD, P = U_R S_R,
// S = V_R^T, P^+ = S_R^-1 U_R^T and S^+ = V_R,
//
//	Alpha = V_R^T vec(H^(L)),  Omega^T = P^+ H^(L)<<L,1>>,
//	A[:,c,:] = P^+ H^(2L+1)[:, c, :] V_R  (Eq. (4), Algorithm 1 line 14).
//
// rank must be at most d^L and the R-th singular value must be nonzero.
func Recover(hL, h2L, h2L1 Hankel, rank int) (RNN, error) {
	L, d, p := hL.Len, hL.In, hL.Out
	if h2L.Len != 2*L || h2L1.Len != 2*L+1 {
		return RNN{}, errors.Errorf("spectral: Hankel tensors of lengths %d, %d, %d, want L, 2L, 2L+1", L, h2L.Len, h2L1.Len)
	}
	for _, h := range []Hankel{h2L, h2L1} {
		if h.In != d || h.Out != p {
			return RNN{}, errors.Errorf("spectral: Hankel tensors with d = %d, p = %d and d = %d, p = %d", d, p, h.In, h.Out)
		}
	}
	for _, h := range []Hankel{hL, h2L, h2L1} {
		if err := checkFinite(fmt.Sprintf("Hankel tensor H^(%d)", h.Len), h.Data); err != nil {
			return RNN{}, err
		}
	}
	dL := hL.Rows()
	if rank < 1 || rank > dL {
		return RNN{}, errors.Errorf("spectral: rank %d out of range: H^(2L)<<L,L+1>> is %d x %d, so the rank must be in [1, %d]", rank, dL, dL*p, dL)
	}
	var svd mat.SVD
	if !svd.Factorize(h2L.Matrix(L), mat.SVDThin) {
		return RNN{}, errors.New("spectral: SVD of H^(2L) failed")
	}
	sv := svd.Values(nil)
	if sv[rank-1] <= float64(dL*p)*eps*sv[0] || sv[rank-1] == 0 {
		return RNN{}, errors.Errorf("spectral: rank %d exceeds the numerical rank of H^(2L)<<L,L+1>> (singular value %d is %g, the largest %g)",
			rank, rank, sv[rank-1], sv[0])
	}
	var u, v mat.Dense
	svd.UTo(&u)
	svd.VTo(&v)
	ur := u.Slice(0, dL, 0, rank)
	vr := v.Slice(0, dL*p, 0, rank)
	// P^+ = S_R^-1 U_R^T.
	pinv := mat.DenseCopyOf(ur.T())
	for k := range rank {
		row := pinv.RawRowView(k)
		for j := range row {
			row[j] /= sv[k]
		}
	}
	m := Zero(rank, d, p)
	mat.NewVecDense(rank, m.Alpha).MulVec(vr.T(), mat.NewVecDense(dL*p, hL.Data))
	mat.NewDense(p, rank, m.Omega).Mul(hL.Matrix(L).T(), pinv.T())
	left := mat.NewDense(rank, d*dL*p, nil)
	left.Mul(pinv, h2L1.Matrix(L))
	ac := mat.NewDense(rank, rank, nil)
	for c := range d {
		ac.Mul(left.Slice(0, rank, c*dL*p, (c+1)*dL*p), vr)
		for i := range rank {
			copy(m.A[(i*d+c)*rank:(i*d+c+1)*rank], ac.RawRowView(i))
		}
	}
	return m, nil
}

// Method is a Hankel recovery method of Algorithm 1. The zero value is
// MethodTIHT.
type Method int

// The recovery methods.
const (
	// MethodTIHT is tensor IHT with a TT-SVD projection (lines 8-12), the
	// default.
	MethodTIHT Method = iota
	// MethodLS is least squares (line 4).
	MethodLS
	// MethodIHT is iterative hard thresholding with an SVD projection of
	// the balanced matricisation (lines 8-12).
	MethodIHT
	// MethodNuclear is nuclear-norm minimisation (line 6), penalised
	// when Config.Nuclear.Lambda > 0.
	MethodNuclear
)

var methodNames = [...]string{MethodTIHT: "tiht", MethodLS: "ls", MethodIHT: "iht", MethodNuclear: "nuclear"}

// String is the method's name as ParseMethod reads it.
func (m Method) String() string {
	if m < 0 || int(m) >= len(methodNames) {
		return fmt.Sprintf("Method(%d)", int(m))
	}
	return methodNames[m]
}

// ParseMethod reads a method's name: ls, nuclear, iht or tiht.
func ParseMethod(name string) (Method, error) {
	for m, n := range methodNames {
		if n == name {
			return Method(m), nil
		}
	}
	return 0, errors.Errorf("spectral: unknown method %q (want ls, nuclear, iht or tiht)", name)
}

// check reports an unknown method.
func (m Method) check() error {
	if m < 0 || int(m) >= len(methodNames) {
		return errors.Errorf("spectral: unknown method %v (want ls, nuclear, iht or tiht)", m)
	}
	return nil
}

// estimate recovers the Hankel tensor of the examples of s with
// cfg.Method (IHT/TIHT projecting to rank) and returns the iterations
// spent (zero for least squares).
func estimate(s datasets.TwoRNNData, cfg Config, rank int) (Hankel, int, error) {
	var h Hankel
	var st IHTStats
	var err error
	switch cfg.Method {
	case MethodLS:
		h, err = LeastSquares(s)
	case MethodIHT, MethodTIHT:
		h, st, err = iterativeHT(s, rank, cfg.Method == MethodTIHT, cfg.IHT)
	case MethodNuclear:
		if cfg.Nuclear.Lambda > 0 || !cfg.NuclearHoldout {
			h, st, err = NuclearNorm(s, cfg.Nuclear)
		} else {
			h, st, _, err = NuclearHoldout(s, cfg.Nuclear)
		}
	default:
		err = cfg.Method.check()
	}
	return h, st.Iterations, err
}

// Config configures Learn.
type Config struct {
	// Method is the recovery method; the zero value is MethodTIHT.
	Method Method
	// Rank is the number of states R of the learned 2-RNN and the rank of
	// the IHT/TIHT projections. If 0 it is chosen by ChooseRank from a
	// least-squares estimate of H^(2L).
	Rank int
	// IHT configures MethodIHT and MethodTIHT.
	IHT IHTConfig
	// Nuclear configures MethodNuclear.
	Nuclear NuclearConfig
	// NuclearHoldout, with Nuclear.Lambda = 0, selects the penalty by
	// NuclearHoldout (for noisy data) instead of solving the
	// equality-constrained problem.
	NuclearHoldout bool
}

// Result is what Learn returns.
type Result struct {
	// Model is the learned linear 2-RNN, or the zero function when
	// ZeroFallback is set.
	Model RNN
	// TrainMSE is the model's MSE on the length-(2L+1) training set and
	// ZeroMSE that of the zero function (the mean of y^2 there).
	TrainMSE, ZeroMSE float64
	// ZeroFallback reports that the estimate was aberrant (its training
	// MSE exceeded ZeroMSE, or it was not finite) and the zero function
	// was returned instead, the rule of the paper's Section 5.
	ZeroFallback bool
	// Reason says why the fallback applied; empty otherwise.
	Reason string
	// Iterations holds the IHT/TIHT iterations spent on H^(L), H^(2L),
	// H^(2L+1) (zero for least squares).
	Iterations [3]int
}

// Learn runs Algorithm 1 (2RNN-SL) on training sets of lengths L, 2L and
// 2L+1 (in that order): recover the three Hankel tensors with cfg.Method,
// then the 2-RNN by Theorem 3 with cfg.Rank states. If the estimate fits
// the length-(2L+1) set worse than the zero function, or recovery breaks
// down numerically, the zero function is returned with ZeroFallback set.
func Learn(train [3]datasets.TwoRNNData, cfg Config) (Result, error) {
	L := train[0].Len
	for k, want := range []int{L, 2 * L, 2*L + 1} {
		if err := train[k].Validate(); err != nil {
			return Result{}, errors.Wrapf(err, "spectral: training set %d", k)
		}
		if train[k].Len != want {
			return Result{}, errors.Errorf("spectral: training sets of lengths %d, %d, %d, want L, 2L, 2L+1", L, train[1].Len, train[2].Len)
		}
		if train[k].In != train[0].In || train[k].Out != train[0].Out {
			return Result{}, errors.Errorf("spectral: training set %d has d = %d, p = %d, set 0 has d = %d, p = %d",
				k, train[k].In, train[k].Out, train[0].In, train[0].Out)
		}
	}
	d, p := train[0].In, train[0].Out
	dL, _ := powInt(d, L)
	if cfg.Rank == 0 {
		h, err := LeastSquares(train[1])
		if err != nil {
			return Result{}, err
		}
		if cfg.Rank, err = ChooseRank(h); err != nil {
			return Result{}, err
		}
	}
	if cfg.Rank < 1 || cfg.Rank > dL {
		return Result{}, errors.Errorf("spectral: rank %d out of range [1, d^L = %d]", cfg.Rank, dL)
	}
	if err := cfg.Method.check(); err != nil {
		return Result{}, err
	}
	var hs [3]Hankel
	var res Result
	for k, s := range train {
		var err error
		hs[k], res.Iterations[k], err = estimate(s, cfg, cfg.Rank)
		if errors.Is(err, ErrDiverged) {
			res.ZeroMSE = meanSquare(train[2].Y)
			return fallback(res, d, p, cfg.Rank, err.Error()), nil
		}
		if err != nil {
			return Result{}, err
		}
	}
	res.ZeroMSE = meanSquare(train[2].Y)
	m, err := Recover(hs[0], hs[1], hs[2], cfg.Rank)
	if err != nil {
		return fallback(res, d, p, cfg.Rank, err.Error()), nil
	}
	return judge(res, m, train[2]), nil
}

// judge applies the aberrant-estimate rule of Section 5 to the estimate m
// on the length-(2L+1) training set s: m is kept if its training MSE is at
// most that of the zero function (res.ZeroMSE), else replaced by zero.
func judge(res Result, m RNN, s datasets.TwoRNNData) Result {
	mse, err := m.MSE(s)
	if err != nil || math.IsNaN(mse) || math.IsInf(mse, 0) {
		return fallback(res, m.In, m.Out, m.States, "the estimate is not finite")
	}
	res.Model, res.TrainMSE = m, mse
	if mse > res.ZeroMSE {
		return fallback(res, m.In, m.Out, m.States, fmt.Sprintf("training MSE %.4g exceeds the zero function's %.4g", mse, res.ZeroMSE))
	}
	return res
}

// ChooseRank picks the number of states from the singular values
// s_1 >= s_2 >= ... of the (L, L+1) matricisation of an estimate of
// H^(2L) (h.Len = 2L): the rank R that maximises the gap s_R / s_{R+1},
// among the singular values above 1e-12 s_1 (values below count as
// 1e-12 s_1, so an exactly low-rank tensor gives its rank). With noisy
// estimates the noise floor makes the gap to the signal the largest one
// once N is large enough; with few examples prefer an explicit rank.
func ChooseRank(h Hankel) (int, error) {
	if h.Len < 2 || h.Len%2 != 0 {
		return 0, errors.Errorf("spectral: ChooseRank needs H^(2L), got a tensor of length %d", h.Len)
	}
	if err := checkFinite("Hankel tensor", h.Data); err != nil {
		return 0, err
	}
	var svd mat.SVD
	if !svd.Factorize(h.Matrix(h.Len/2), mat.SVDNone) {
		return 0, errors.New("spectral: SVD of H^(2L) failed")
	}
	return gapRank(svd.Values(nil), "H^(2L)")
}

// gapRank is ChooseRank's rule on the decreasing singular values sv of a
// Hankel matrix named what.
func gapRank(sv []float64, what string) (int, error) {
	if sv[0] == 0 {
		return 0, errors.Errorf("spectral: %s is zero, no rank to choose", what)
	}
	floor := 1e-12 * sv[0]
	best, bestGap := 1, 0.0
	for k := 0; k+1 < len(sv); k++ {
		gap := math.Max(sv[k], floor) / math.Max(sv[k+1], floor)
		if gap > bestGap {
			best, bestGap = k+1, gap
		}
	}
	if bestGap <= 1 {
		best = len(sv)
	}
	return best, nil
}

// fallback replaces the model of res by the zero function.
func fallback(res Result, d, p, rank int, reason string) Result {
	res.Model = Zero(rank, d, p)
	res.TrainMSE = res.ZeroMSE
	res.ZeroFallback = true
	res.Reason = reason
	return res
}

// meanSquare is the mean of v^2.
func meanSquare(v []float64) float64 {
	ss := 0.0
	for _, x := range v {
		ss += x * x
	}
	return ss / float64(len(v))
}
