package umps

import (
	"math"
	"math/rand/v2"

	"github.com/pkg/errors"
)

// Distribution is a u-MPS read as a distribution over all strings. With a
// length model (a model trained on P_n) P(s) = pi(|s|) P_|s|(s); without
// one (a model trained on P_*) P(s) = P_*(s) = f(s)^2 / Z_*, whose length
// distribution Z_n / Z_* is the model's own. Every regex, ambiguous or
// not, gets its probability and its conditional samples from either.
type Distribution struct {
	// M is the model.
	M *MPS
	// Lengths is the length model; nil means P_*.
	Lengths *LengthModel
}

// SampleMethod selects how Distribution.Sample draws from P(s | s in R).
type SampleMethod int

const (
	// SampleAuto takes Algorithm 1 where it is exact (a P_* model and an
	// unambiguous regex) and the DFA sampler otherwise.
	SampleAuto SampleMethod = iota
	// SampleAlgorithm1 is Algorithm 1 of the paper (P_* and unambiguous
	// regexes only).
	SampleAlgorithm1
	// SampleExact runs on the DFA of the regex: exact for every regex,
	// under P_* (ExactSampler) and under a length model (length drawn
	// first, then the symbols with per-length right environments).
	SampleExact
)

var sampleMethodNames = [...]string{SampleAuto: "auto", SampleAlgorithm1: "alg1", SampleExact: "exact"}

// String is "auto", "alg1" or "exact".
func (s SampleMethod) String() string {
	if s < 0 || int(s) >= len(sampleMethodNames) {
		return "unknown"
	}
	return sampleMethodNames[s]
}

// ParseSampleMethod reads "auto", "alg1" or "exact".
func ParseSampleMethod(name string) (SampleMethod, error) {
	for i, n := range sampleMethodNames {
		if n == name {
			return SampleMethod(i), nil
		}
	}
	return 0, errors.Errorf("umps: unknown sampling method %q (want auto, alg1 or exact)", name)
}

// LengthModelName says which length model a distribution uses: "fitted"
// (a LengthModel) or "star" (the model's own, P_*).
func (p Distribution) LengthModelName() string {
	if p.Lengths != nil {
		return "fitted"
	}
	return "star"
}

// LogProbs returns log P(s) for every string, nats.
func (p Distribution) LogProbs(seqs [][]int) ([]float64, error) {
	if p.Lengths == nil {
		return p.M.LogProbsStar(seqs)
	}
	lp, err := p.M.LogProbsN(seqs)
	if err != nil {
		return nil, err
	}
	for b, s := range seqs {
		lp[b] += p.Lengths.LogProb(len(s))
	}
	return lp, nil
}

// LogProbRegex returns log P(s in R), each matching string counted once
// (ambiguous regexes included).
func (p Distribution) LogProbRegex(r *Regex) (float64, error) {
	t, err := NewTransfer(p.M)
	if err != nil {
		return 0, err
	}
	if err := t.checkRegex(r); err != nil {
		return 0, err
	}
	if p.Lengths != nil {
		sw, err := t.newLengthSweep(r, p.Lengths, false)
		if err != nil {
			return 0, err
		}
		return sw.logMass, nil
	}
	if !r.Ambiguous() {
		return t.LogProbRegex(r)
	}
	s, err := t.NewExactSampler(r)
	if err != nil {
		return 0, err
	}
	lz, err := t.LogZStar()
	if err != nil {
		return 0, err
	}
	return s.LogZ() - lz, nil
}

// Sample draws count strings from P(s | s in R) with the given method and
// returns the method used (SampleAuto resolved).
func (p Distribution) Sample(r *Regex, count int, method SampleMethod, rng *rand.Rand) ([][]int, SampleMethod, error) {
	if count < 0 || rng == nil {
		return nil, method, errors.New("umps: want count >= 0 and a random source")
	}
	t, err := NewTransfer(p.M)
	if err != nil {
		return nil, method, err
	}
	if err := t.checkRegex(r); err != nil {
		return nil, method, err
	}
	if method == SampleAuto {
		method = SampleExact
		if p.Lengths == nil && !r.Ambiguous() {
			method = SampleAlgorithm1
		}
	}
	switch {
	case method == SampleAlgorithm1 && p.Lengths != nil:
		return nil, method, errors.New("umps: Algorithm 1 samples P_*; this model is per-length with a length model, use the exact sampler")
	case method == SampleAlgorithm1:
		out, err := t.Sample(r, count, rng)
		return out, method, err
	case method != SampleExact:
		return nil, method, errors.Errorf("umps: unknown sampling method %d", method)
	case p.Lengths == nil:
		s, err := t.NewExactSampler(r)
		if err != nil {
			return nil, method, err
		}
		out, err := s.Sample(count, rng)
		return out, method, err
	}
	sw, err := t.newLengthSweep(r, p.Lengths, true)
	if err != nil {
		return nil, method, err
	}
	out, err := sw.sample(count, rng)
	return out, method, err
}

// lengthSweep holds, for a regex R and a per-length model with a length
// model pi, the right environments of R's DFA at every length,
//
//	X_0[q] = [q accepts] Q_r,   X_k[q] = sum_c A(c) X_{k-1}[delta(q,c)] A(c)^T,
//
// so that Tr(Q_l X_k[0]) is the mass of the strings of length k in R, all
// divided by the same Z_k-like scale (the trace of E^k(Q_r)) as they are
// built. Z_{R,k}/Z_k comes out of the same sweep, and
// P(R) = sum_k pi(k) Z_{R,k} / Z_k.
type lengthSweep struct {
	t       *Transfer
	a       *dfa
	x       [][]float64 // x[k][q*D*D:] when kept for sampling
	trace   []float64   // trace[k]: X_k was divided by it (trace[0] = 1)
	logW    []float64   // log pi(k) + log Z_{R,k}/Z_k, k = 0..horizon
	logMass float64     // log P(R)
}

// maxSweepStates bounds the DFA of a regex swept over lengths.
const maxSweepStates = 10000

// newLengthSweep runs the sweep up to the length model's horizon; keep
// stores every X_k for sampling.
func (t *Transfer) newLengthSweep(r *Regex, lm *LengthModel, keep bool) (*lengthSweep, error) {
	if err := lm.Validate(); err != nil {
		return nil, err
	}
	N, err := lm.Horizon()
	if err != nil {
		return nil, err
	}
	a := newDFA(r.root, t.m.Symbols, maxSweepStates+1)
	if a == nil {
		return nil, errors.Errorf("umps: regex %q has more than %d DFA states", r.pattern, maxSweepStates)
	}
	S, D := len(a.next), t.m.Bond
	dd := D * D
	if keep && (N+1)*S*dd > 1<<27 {
		return nil, errors.Errorf("umps: sampling regex %q to length %d needs %d DFA states x %d lengths x D^2 values, too many", r.pattern, N, S, N+1)
	}
	sw := &lengthSweep{t: t, a: a, logW: make([]float64, N+1), trace: make([]float64, N+1)}
	sw.trace[0] = 1
	y := outer(t.m.Omega)
	x := make([]float64, S*dd)
	for q, acc := range a.accept {
		if acc {
			copy(x[q*dd:], y)
		}
	}
	ny, nx, tmp := make([]float64, dd), make([]float64, S*dd), make([]float64, dd)
	alpha := t.m.Alpha
	quad := func(q []float64) float64 { return Mat{Data: q}.quad(alpha) }
	for k := 0; ; k++ {
		if keep {
			sw.x = append(sw.x, append([]float64(nil), x...))
		}
		zk, zr := quad(y), quad(x[:dd])
		sw.logW[k] = math.Inf(-1)
		if zk > 0 && zr > 0 {
			sw.logW[k] = lm.LogProb(k) + math.Log(zr/zk)
		}
		if k == N {
			break
		}
		t.rightStep(y, ny, tmp, nil)
		for q := range a.next {
			out := nx[q*dd : (q+1)*dd]
			clear(out)
			for c, j := range a.next[q] {
				if j >= 0 {
					t.rightStep(x[j*dd:(j+1)*dd], out, tmp, []int{c})
				}
			}
		}
		tr := 0.0
		for i := 0; i < D; i++ {
			tr += ny[i*D+i]
		}
		if !(tr > 0) {
			return nil, errors.Errorf("umps: the model gives no mass to length %d", k+1)
		}
		sw.trace[k+1] = tr
		for i := range ny {
			ny[i] /= tr
		}
		for i := range nx {
			nx[i] /= tr
		}
		y, ny, x, nx = ny, y, nx, x
	}
	sw.logMass = logSumExp(sw.logW)
	if math.IsInf(sw.logMass, -1) {
		return nil, errors.Errorf("umps: the model gives regex %q no mass", r.pattern)
	}
	return sw, nil
}

// rightStep adds sum_{c in syms} A(c) q A(c)^T to out (all symbols when
// syms is nil); tmp is scratch.
func (t *Transfer) rightStep(q, out, tmp []float64, syms []int) {
	D := t.m.Bond
	if syms == nil {
		clear(out)
	}
	for c, a := range t.mats {
		if syms != nil && c != syms[0] {
			continue
		}
		mm(D, false, false, 1, a, q, 0, tmp)
		mm(D, false, true, 1, tmp, a, 1, out)
	}
}

// leftStep writes A(c)^T l A(c) into out; tmp is scratch.
func (t *Transfer) leftStep(c int, l, out, tmp []float64) {
	D := t.m.Bond
	a := t.mats[c]
	mm(D, true, false, 1, a, l, 0, tmp)
	mm(D, false, false, 1, tmp, a, 0, out)
}

// quad is x^T M x for the unscaled data of M.
func (q Mat) quad(x []float64) float64 {
	D := len(x)
	v := 0.0
	for i := 0; i < D; i++ {
		v += x[i] * dot(q.Data[i*D:(i+1)*D], x)
	}
	return v
}

// logSumExp is log sum exp(v), -Inf for an empty or all -Inf v.
func logSumExp(v []float64) float64 {
	m := math.Inf(-1)
	for _, x := range v {
		m = math.Max(m, x)
	}
	if math.IsInf(m, -1) {
		return m
	}
	s := 0.0
	for _, x := range v {
		s += math.Exp(x - m)
	}
	return m + math.Log(s)
}

// sample draws a length k with probability proportional to
// pi(k) Z_{R,k}/Z_k, then the symbols left to right: in DFA state q with
// left environment L and m symbols still to draw after this one, symbol c
// has weight Tr(A(c)^T L A(c) X_m[delta(q,c)]).
func (sw *lengthSweep) sample(count int, rng *rand.Rand) ([][]int, error) {
	t, d, D := sw.t, sw.t.m.Symbols, sw.t.m.Bond
	dd := D * D
	out := make([][]int, count)
	w := make([]float64, d)
	tmp := make([]float64, dd)
	next := make([][]float64, d)
	for c := range next {
		next[c] = make([]float64, dd)
	}
	for i := range out {
		n, err := choose(sw.logW, rng)
		if err != nil {
			return nil, err
		}
		l := outer(t.m.Alpha)
		s := make([]int, 0, n)
		q := 0
		for pos := 0; pos < n; pos++ {
			m := n - pos - 1
			for c := 0; c < d; c++ {
				w[c] = math.Inf(-1)
				j := sw.a.next[q][c]
				if j < 0 {
					continue
				}
				t.leftStep(c, l, next[c], tmp)
				if v := (Mat{Data: next[c]}).trace(sw.x[m][j*dd : (j+1)*dd]); v > 0 {
					w[c] = math.Log(v)
				}
			}
			c, err := choose(w, rng)
			if err != nil {
				return nil, err
			}
			s = append(s, c)
			copy(l, next[c])
			normalise(l)
			q = sw.a.next[q][c]
		}
		out[i] = s
	}
	return out, nil
}

// trace is Tr(M b) for the unscaled data of M and b symmetric.
func (q Mat) trace(b []float64) float64 {
	s := 0.0
	for i, v := range q.Data {
		s += v * b[i]
	}
	return s
}
