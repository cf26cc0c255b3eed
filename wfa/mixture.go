package wfa

import (
	"math"
	"slices"
	"time"

	"github.com/pkg/errors"

	"github.com/rtnlab/rtn/datasets"
	"github.com/rtnlab/rtn/spectral"
)

// Component is one automaton of a mixture: the configuration it was fitted
// at and its weight.
type Component struct {
	Spec Spec
	// Weight is the mixture weight of the component's normalised function
	// f / Z (the weights of a mixture sum to 1).
	Weight float64
}

// MinMixtureWeight is the smallest weight a mixture component keeps:
// Fit drops the components whose weight is below it and rescales the
// others to sum 1 (they cost states and change the figure little).
const MinMixtureWeight = 0.01

// mixIterations bounds the Frank-Wolfe steps of mixWeights, and
// mixLineSteps the ternary-search steps of each line search.
const (
	mixIterations = 300
	mixLineSteps  = 40
)

// Mix returns the WFA of sum_i coef[i] f_i, f_i the function of ws[i]: the
// block-diagonal automaton whose transitions, final weights and initial
// weights (scaled by coef[i]) are those of the ws[i] in order. The
// automata must have the same number of symbols and one output.
func Mix(ws []spectral.WFA, coef []float64) (spectral.WFA, error) {
	if len(ws) == 0 || len(ws) != len(coef) {
		return spectral.WFA{}, errors.Errorf("wfa: mixture of %d automata with %d coefficients", len(ws), len(coef))
	}
	n := 0
	for _, w := range ws {
		if err := w.Validate(); err != nil {
			return spectral.WFA{}, err
		}
		if w.Out != 1 || len(w.Trans) != len(ws[0].Trans) {
			return spectral.WFA{}, errors.Errorf("wfa: mixture of automata with %d and %d symbols, %d outputs", len(ws[0].Trans), len(w.Trans), w.Out)
		}
		n += w.States
	}
	m := spectral.WFA{States: n, Out: 1, Alpha: make([]float64, n), Omega: make([]float64, n), Trans: make([][]float64, len(ws[0].Trans))}
	for s := range m.Trans {
		m.Trans[s] = make([]float64, n*n)
	}
	off := 0
	for i, w := range ws {
		r := w.States
		for a := range r {
			m.Alpha[off+a] = coef[i] * w.Alpha[a]
			m.Omega[off+a] = w.Omega[a]
		}
		for s, t := range w.Trans {
			for a := range r {
				row := (off+a)*n + off
				copy(m.Trans[s][row:row+r], t[a*r:(a+1)*r])
			}
		}
		off += r
	}
	return m, nil
}

// mixZLL is the ValidZLL figure of the mixture sum_i w[i] u[i] of the
// normalised values u[i] (mass 1): -sum_x p(x) log max(value, Floor).
func mixZLL(u [][]float64, p, w []float64) float64 {
	zll := 0.0
	for x, px := range p {
		v := 0.0
		for i, ui := range u {
			v += w[i] * ui[x]
		}
		zll -= px * math.Log(max(v, Floor))
	}
	return zll
}

// mixWeights minimises mixZLL over the simplex by Frank-Wolfe steps
// towards the vertex of the steepest descent, each with a ternary line
// search, starting from the vertex of u[0] and stopping when a step does
// not lower the figure. The floor makes the figure non-convex, so this is
// a local minimum no worse than u[0] alone.
func mixWeights(u [][]float64, p []float64) []float64 {
	k := len(u)
	w := make([]float64, k)
	w[0] = 1
	f := mixZLL(u, p, w)
	trial, g := make([]float64, k), make([]float64, k)
	for range mixIterations {
		clear(g)
		for x, px := range p {
			v := 0.0
			for i, ui := range u {
				v += w[i] * ui[x]
			}
			if !(v > Floor) {
				continue // floored: no gradient
			}
			for i, ui := range u {
				g[i] -= px * ui[x] / v
			}
		}
		j := 0
		for i := range g {
			if g[i] < g[j] {
				j = i
			}
		}
		at := func(step float64) float64 {
			for i := range w {
				trial[i] = (1 - step) * w[i]
			}
			trial[j] += step
			return mixZLL(u, p, trial)
		}
		lo, hi := 0.0, 1.0
		for range mixLineSteps {
			a, b := lo+(hi-lo)/3, hi-(hi-lo)/3
			if at(a) < at(b) {
				hi = b
			} else {
				lo = a
			}
		}
		v := at((lo + hi) / 2)
		if !(v < f) {
			break
		}
		f = v
		copy(w, trial)
	}
	return w
}

// mixturePick returns the candidates (indices into cands) and weights of
// the mixture of the k best candidates of order, pruned below
// MinMixtureWeight, or nil when at most one component is left or the
// mixture's gain in ValidZLL over the best candidate is not above se
// standard errors (mixtureZ over n validation strings; a negative se
// keeps any gain).
func mixturePick(cands []Candidate, order []int, k int, p []float64, n int, se float64) ([]int, []float64) {
	top := order[:min(k, len(order))]
	if len(top) < 2 {
		return nil, nil
	}
	u := make([][]float64, len(top))
	for i, c := range top {
		u[i] = cands[c].vals
	}
	w := mixWeights(u, p)
	var keep []int
	var kw []float64
	var ku [][]float64
	sum := 0.0
	for i, x := range w {
		if x >= MinMixtureWeight {
			keep, kw, ku = append(keep, top[i]), append(kw, x), append(ku, u[i])
			sum += x
		}
	}
	if len(keep) < 2 {
		return nil, nil
	}
	for i := range kw {
		kw[i] /= sum
	}
	if !(mixZLL(ku, p, kw) < cands[top[0]].ZLL) || se >= 0 && !(mixtureZ(ku, p, kw, u[0], n) > se) {
		return nil, nil
	}
	return keep, kw
}

// mixtureZ is the gain of the mixture sum_i w[i] u[i] over the values
// best, in standard errors (gainZ of the per-string differences
// log max(mixture, Floor) - log max(best, Floor)).
func mixtureZ(u [][]float64, p, w, best []float64, n int) float64 {
	d := make([]float64, len(p))
	for x := range p {
		v := 0.0
		for i, ui := range u {
			v += w[i] * ui[x]
		}
		d[x] = math.Log(max(v, Floor)) - math.Log(max(best[x], Floor))
	}
	return gainZ(d, p, n)
}

// gainZ is the mean gain d of the per-string gains d(x) under the weights
// p, over the standard error sqrt(sum_x p(x) (d(x) - d)^2 / n) of a mean
// of n strings; +Inf or -Inf when every string gains or loses the same, 0
// when none does, NaN when a gain is not a number.
func gainZ(d, p []float64, n int) float64 {
	mean := 0.0
	for x, px := range p {
		mean += px * d[x]
	}
	variance := 0.0
	for x, px := range p {
		variance += px * (d[x] - mean) * (d[x] - mean)
	}
	if variance == 0 {
		switch {
		case mean > 0:
			return math.Inf(1)
		case mean < 0:
			return math.Inf(-1)
		}
		return 0
	}
	return mean / math.Sqrt(variance/float64(n))
}

// fitMixture returns the mixture of Fit's doc comment, or nil (and no
// error) when there is none or it fails the checks.
func fitMixture(s datasets.Symbols, cfg Config, rep *Report, order []int, p []float64, n int, all *EvalSet) (*Model, error) {
	keep, w := mixturePick(rep.Candidates, order, cfg.Mixture, p, n, cfg.MixtureSE)
	if keep == nil {
		return nil, nil
	}
	start := time.Now()
	coef := make([]float64, len(keep))
	comps := make([]Component, len(keep))
	specs := make([]Spec, len(keep))
	for i, c := range keep {
		specs[i] = rep.Candidates[c].Spec
	}
	ws := make([]spectral.WFA, len(keep))
	rejected := false
	err := fitEach(s.Seqs, len(s.Alphabet), specs, cfg.Seed, func(i int, f spectral.WFA) bool {
		if refitRejected(f, all, cfg) != "" {
			rejected = true
			return false
		}
		z, _ := f.Mass() // in [MinMass, MaxMass]: refitRejected checked it
		ws[i], coef[i], comps[i] = f, w[i]/z, Component{Spec: specs[i], Weight: w[i]}
		return true
	})
	if err != nil || rejected {
		return nil, err
	}
	mw, err := Mix(ws, coef)
	if err != nil {
		return nil, err
	}
	if refitRejected(mw, all, cfg) != "" {
		return nil, nil
	}
	rep.FitSeconds = time.Since(start).Seconds()
	rep.Chosen, rep.Components = comps[0].Spec, comps
	return &Model{WFA: mw, Alphabet: slices.Clone(s.Alphabet), Spec: comps[0].Spec, Components: slices.Clone(comps)}, nil
}
