package pcnn

import (
	"math"
	"math/rand/v2"

	"github.com/pkg/errors"
	"github.com/rtnlab/rtn/datasets"
)

// HMM is a hidden Markov model on a sparse random graph, the paper's
// third sanity check (section 4, footnote 9): K states, each with Out
// outgoing edges (loop included), trained by Baum-Welch with scaling.
// Trans[s] lists the (target, probability) pairs of state s; Emit[s*A+y]
// is the probability that state s writes y; Start is the initial
// distribution.
type HMM struct {
	K, A  int
	Out   [][]int     // Out[s]: targets of s
	Trans [][]float64 // Trans[s][k]: probability of s -> Out[s][k]
	Emit  []float64   // [K, A]
	Start []float64   // [K]
}

// NewHMM draws the graph (each state has min(degree, K) distinct
// targets, its loop among them), transition probabilities from a
// Dirichlet(1/2, ..., 1/2) (Jeffreys) prior on its edges, and emission
// probabilities proportional to the frequency of each symbol in train
// times a U[0, 1] draw, as footnote 9 says.
func NewHMM(states, degree int, train datasets.Stream, alphabet int, rng *rand.Rand) (*HMM, error) {
	if states < 1 || degree < 1 || alphabet < 2 || rng == nil {
		return nil, errors.Errorf("pcnn: hmm needs states, degree >= 1, an alphabet >= 2 and a *rand.Rand (got %d, %d, %d)", states, degree, alphabet)
	}
	if err := checkSeq(train, alphabet); err != nil {
		return nil, err
	}
	d := min(degree, states)
	net, err := RandomNetwork(states, d, rng)
	if err != nil {
		return nil, err
	}
	h := &HMM{K: states, A: alphabet, Out: make([][]int, states), Trans: make([][]float64, states),
		Emit: make([]float64, states*alphabet), Start: make([]float64, states)}
	// RandomNetwork draws incoming lists; reading them as outgoing lists
	// gives each state d distinct targets including itself.
	for s := range states {
		for _, j := range net.In[s][1:] {
			h.Out[s] = append(h.Out[s], j-1)
		}
		h.Trans[s] = dirichletHalf(len(h.Out[s]), rng)
		h.Start[s] = 1 / float64(states)
	}
	f := freqs(train, alphabet)
	for s := range states {
		row := h.Emit[s*alphabet : (s+1)*alphabet]
		var z float64
		for y := range row {
			row[y] = (f[y] + 1e-3) * rng.Float64()
			z += row[y]
		}
		for y := range row {
			row[y] /= z
		}
	}
	return h, nil
}

// dirichletHalf draws from a symmetric Dirichlet(1/2) on n coordinates.
func dirichletHalf(n int, rng *rand.Rand) []float64 {
	p := make([]float64, n)
	var z float64
	for k := range p {
		p[k] = gammaHalf(rng) + 1e-300
		z += p[k]
	}
	for k := range p {
		p[k] /= z
	}
	return p
}

// gammaHalf draws Gamma(1/2, 1): a chi-square with one degree of freedom
// over 2.
func gammaHalf(rng *rand.Rand) float64 {
	g := rng.NormFloat64()
	return g * g / 2
}

// forward runs the scaled forward algorithm; alpha [T, K] holds the
// filtered state distributions after each symbol and c[t] = P(x_t | past).
// With reg, the predictions are regularised as in section 4 before c is
// taken (the filter itself is exact).
func (h *HMM) forward(x []int, alpha, c []float64, reg bool) {
	K, A := h.K, h.A
	prior := append([]float64(nil), h.Start...)
	for t, y := range x {
		a := alpha[t*K : (t+1)*K]
		var z float64
		for s := range K {
			a[s] = prior[s] * h.Emit[s*A+y]
			z += a[s]
		}
		if !(z > 0) { // a symbol no state writes: restart from uniform
			for s := range a {
				a[s] = 1 / float64(K)
			}
			z = 0
		} else {
			for s := range a {
				a[s] /= z
			}
		}
		c[t] = z
		if reg {
			e := 1 / float64(t+2)
			c[t] = (1-e)*z + e/float64(A)
		}
		clear(prior)
		for s := range K {
			for k, j := range h.Out[s] {
				prior[j] += a[s] * h.Trans[s][k]
			}
		}
	}
}

// LogLik is log P(x) in nats (the exact filter; regularised with reg).
func (h *HMM) LogLik(x []int, reg bool) float64 { return h.LogLikMasked(x, nil, reg) }

// LogLikMasked is the sum over the positions with mask[t] (all for a nil
// mask) of log P(x_t | x_0..x_{t-1}), in nats.
func (h *HMM) LogLikMasked(x []int, mask []bool, reg bool) float64 {
	alpha, c := make([]float64, len(x)*h.K), make([]float64, len(x))
	h.forward(x, alpha, c, reg)
	var ll float64
	for t, v := range c {
		if mask == nil || mask[t] {
			ll += math.Log(v)
		}
	}
	return ll
}

// BaumWelch makes one EM iteration on x and returns the log-likelihood
// (nats) of x before it; EM never decreases it.
func (h *HMM) BaumWelch(x []int) float64 {
	T, K, A := len(x), h.K, h.A
	alpha, c := make([]float64, T*K), make([]float64, T)
	h.forward(x, alpha, c, false)
	beta := make([]float64, T*K)
	for s := range K {
		beta[(T-1)*K+s] = 1
	}
	for t := T - 2; t >= 0; t-- {
		b, bn := beta[t*K:(t+1)*K], beta[(t+1)*K:(t+2)*K]
		y := x[t+1]
		for s := range K {
			var v float64
			for k, j := range h.Out[s] {
				v += h.Trans[s][k] * h.Emit[j*A+y] * bn[j]
			}
			b[s] = v / c[t+1]
		}
	}
	trans := make([][]float64, K)
	for s := range K {
		trans[s] = make([]float64, len(h.Out[s]))
	}
	emit := make([]float64, K*A)
	for t, y := range x {
		a, b := alpha[t*K:(t+1)*K], beta[t*K:(t+1)*K]
		for s := range K {
			emit[s*A+y] += a[s] * b[s]
		}
		if t+1 == T {
			continue
		}
		bn, yn := beta[(t+1)*K:(t+2)*K], x[t+1]
		for s := range K {
			for k, j := range h.Out[s] {
				trans[s][k] += a[s] * h.Trans[s][k] * h.Emit[j*A+yn] * bn[j] / c[t+1]
			}
		}
	}
	for s := range K {
		h.Start[s] = alpha[s] * beta[s]
		normalize(trans[s])
		h.Trans[s] = trans[s]
		normalize(emit[s*A : (s+1)*A])
	}
	normalize(h.Start)
	h.Emit = emit
	var ll float64
	for _, v := range c {
		ll += math.Log(v)
	}
	return ll
}

// normalize scales p to sum 1 (left alone if it sums to 0).
func normalize(p []float64) {
	var z float64
	for _, v := range p {
		z += v
	}
	if z > 0 {
		for k := range p {
			p[k] /= z
		}
	}
}
