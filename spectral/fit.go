package spectral

import (
	"github.com/pkg/errors"

	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/rtnlab/rtn/datasets"
)

// FitConfig configures Fit. The zero value learns with TIHT, a rank
// chosen from the data and Hankel tensors of at most 4,096 rows.
type FitConfig struct {
	// Config sets the recovery method, the rank (0: chosen by the
	// singular-value gap of a least-squares estimate of the Hankel
	// matrix, as ChooseRank does) and the methods' settings.
	Config
	// MaxRows bounds d^l for the Hankel tensors H^(l) the basis may use.
	// If MaxRows is 0, it will be defaulted to 4,096.
	MaxRows int
}

// FitResult is what Fit returns.
type FitResult struct {
	// Result holds the model and the training MSE of the zero-function
	// rule: on the length-(2L+1) sequences for the paper's recipe, on
	// every training sequence otherwise. Iterations is set for the recipe
	// only.
	Result
	// Basis is the prefix/suffix basis used.
	Basis Basis
	// Recipe reports that the data's lengths were exactly L, 2L and 2L+1
	// and Learn (Algorithm 1) ran on them.
	Recipe bool
}

// UsableLengths returns the lengths whose Hankel tensors the training
// data can estimate: those present with d^l <= maxRows and, for least
// squares, at least d^l sequences (so that the estimate is determined).
func UsableLengths(train datasets.IOData, method Method, maxRows int) []int {
	lengths, counts := train.Lengths()
	var out []int
	for k, l := range lengths {
		rows, ok := powInt(train.In, l)
		if !ok || rows > maxRows || (method == MethodLS && counts[k] < rows) || counts[k] > maxDense/rows {
			continue
		}
		out = append(out, l)
	}
	return out
}

// Fit learns a linear 2-RNN from training sequences of any lengths. When
// the lengths present are exactly L, 2L and 2L+1 it runs the paper's
// Algorithm 1 (Learn); otherwise it picks a prefix/suffix basis from the
// usable lengths (ChooseBasis over UsableLengths), estimates the Hankel
// tensor of every length the basis needs from the sequences of that
// length with cfg.Method, and recovers the 2-RNN with RecoverBasis. The
// zero-function rule of Learn applies to the result. A rank larger than
// every basis allows is a *RankError.
func Fit(train datasets.IOData, cfg FitConfig) (FitResult, error) {
	if err := train.Validate(); err != nil {
		return FitResult{}, errors.Wrap(err, "spectral")
	}
	if err := cfg.Method.check(); err != nil {
		return FitResult{}, err
	}
	if cfg.MaxRows == 0 {
		cfg.MaxRows = 4096
	}
	if cfg.Rank < 0 || cfg.MaxRows < 1 {
		return FitResult{}, errors.Errorf("spectral: Fit with rank %d and MaxRows %d, want >= 0 and >= 1", cfg.Rank, cfg.MaxRows)
	}
	groups := train.ByLength()
	if len(groups) == 3 && groups[1].Len == 2*groups[0].Len && groups[2].Len == groups[1].Len+1 {
		return fitRecipe([3]datasets.TwoRNNData(groups), cfg.Config)
	}
	basis, err := ChooseBasis(UsableLengths(train, cfg.Method, cfg.MaxRows), train.In, train.Out, cfg.Rank)
	if err != nil {
		return FitResult{}, err
	}
	byLen := map[int]datasets.TwoRNNData{}
	for _, g := range groups {
		byLen[g.Len] = g
	}
	res := FitResult{Basis: basis}
	res.ZeroMSE = meanSquare(train.Y)
	if cfg.Rank == 0 {
		if cfg.Rank, err = basisRank(byLen, basis); err != nil {
			return FitResult{}, err
		}
	}
	hs := map[int]Hankel{}
	for _, l := range basis.Lengths() {
		s := byLen[l]
		m := (l + 1) / 2
		rm, _ := powInt(s.In, m)
		rc, _ := powInt(s.In, l-m)
		h, _, err := estimate(s, cfg.Config, min(cfg.Rank, rm, rc*s.Out))
		if err != nil {
			res.Result = fallback(res.Result, train.In, train.Out, cfg.Rank, err.Error())
			return res, nil
		}
		hs[l] = h
	}
	m, err := RecoverBasis(hs, basis, cfg.Rank)
	if err != nil {
		res.Result = fallback(res.Result, train.In, train.Out, cfg.Rank, err.Error())
		return res, nil
	}
	mse, err := m.MSEIO(train)
	switch {
	case err != nil || math.IsNaN(mse) || math.IsInf(mse, 0):
		res.Result = fallback(res.Result, m.In, m.Out, m.States, "the estimate is not finite")
	case mse > res.ZeroMSE:
		res.Result = fallback(res.Result, m.In, m.Out, m.States, fmt.Sprintf("training MSE %.4g exceeds the zero function's %.4g", mse, res.ZeroMSE))
	default:
		res.Model, res.TrainMSE = m, mse
	}
	return res, nil
}

// fitRecipe runs Learn on the sets of lengths L, 2L, 2L+1, checking the
// rank against d^L first.
func fitRecipe(train [3]datasets.TwoRNNData, cfg Config) (FitResult, error) {
	L := train[0].Len
	b := Basis{Prefix: []int{L}, Suffix: []int{L}}
	if dL, _ := powInt(train[0].In, L); cfg.Rank > dL {
		return FitResult{}, &RankError{Rank: cfg.Rank, Max: dL, Basis: b}
	}
	res, err := Learn(train, cfg)
	return FitResult{Result: res, Basis: b, Recipe: true}, err
}

// basisRank chooses the rank by the singular-value gap (gapRank) of the
// basis's Hankel matrix estimated by least squares.
func basisRank(byLen map[int]datasets.TwoRNNData, b Basis) (int, error) {
	hs := map[int]Hankel{}
	for _, l := range b.Lengths() {
		h, err := LeastSquares(byLen[l])
		if err != nil {
			return 0, err
		}
		hs[l] = h
	}
	h, _, _, _, err := BasisHankels(hs, b)
	if err != nil {
		return 0, err
	}
	var svd mat.SVD
	if !svd.Factorize(h, mat.SVDNone) {
		return 0, errors.Errorf("spectral: SVD of the Hankel matrix of %v failed", b)
	}
	return gapRank(svd.Values(nil), "the Hankel matrix")
}

// PredictIO returns the model's output on every sequence of s, N*p
// values in the order of s. Sequences of one length go through Predict
// together.
func (m RNN) PredictIO(s datasets.IOData) ([]float64, error) {
	if err := s.Validate(); err != nil {
		return nil, errors.Wrap(err, "spectral")
	}
	lengths, _ := s.Lengths()
	where := make([][]int, len(lengths))
	for i := range s.X {
		k, _ := slices.BinarySearch(lengths, s.Len(i))
		where[k] = append(where[k], i)
	}
	out := make([]float64, len(s.Y))
	for k, g := range s.ByLength() {
		y, err := m.Predict(g)
		if err != nil {
			return nil, err
		}
		for j, i := range where[k] {
			copy(out[i*s.Out:(i+1)*s.Out], y.RawRowView(j))
		}
	}
	return out, nil
}

// MSEIO is the mean over sequences and outputs of the squared error of
// the model on s. The squared errors are summed length by length, in
// increasing length and file order, so that on data of one length it
// equals MSE bit for bit.
func (m RNN) MSEIO(s datasets.IOData) (float64, error) {
	if err := s.Validate(); err != nil {
		return math.NaN(), errors.Wrap(err, "spectral")
	}
	ss := 0.0
	for _, g := range s.ByLength() {
		y, err := m.Predict(g)
		if err != nil {
			return math.NaN(), err
		}
		for i, v := range y.RawMatrix().Data {
			e := v - g.Y[i]
			ss += e * e
		}
	}
	return ss / float64(len(s.Y)), nil
}

// FitSelect chooses the rank on validation data: it runs Fit with every
// rank from 1 to maxRank that the data's basis allows and returns the fit
// with the lowest MSE on valid, a higher rank winning only by more than
// round-off (1e-12 times the mean of y^2 on valid), and the
// validation MSE of each rank tried (index r-1). cfg.Rank is ignored.
func FitSelect(train, valid datasets.IOData, cfg FitConfig, maxRank int) (FitResult, []float64, error) {
	if maxRank < 1 {
		return FitResult{}, nil, errors.Errorf("spectral: FitSelect with maxRank %d, want >= 1", maxRank)
	}
	if err := valid.Validate(); err != nil {
		return FitResult{}, nil, errors.Wrap(err, "spectral: validation data")
	}
	var best FitResult
	var mses []float64
	bestMSE := math.Inf(1)
	for r := 1; r <= maxRank; r++ {
		cfg.Rank = r
		res, err := Fit(train, cfg)
		var re *RankError
		if errors.As(err, &re) && r > 1 {
			break
		}
		if err != nil {
			return FitResult{}, nil, err
		}
		mse, err := res.Model.MSEIO(valid)
		if err != nil {
			return FitResult{}, nil, err
		}
		if mse < bestMSE-1e-12*meanSquare(valid.Y) || len(mses) == 0 {
			best, bestMSE = res, mse
		}
		mses = append(mses, mse)
	}
	return best, mses, nil
}
