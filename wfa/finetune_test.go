package wfa

import (
	"errors"
	"fmt"
	"math"
	"math/cmplx"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/rtnlab/rtn/datasets"
	"github.com/rtnlab/rtn/internal/vec"
	"github.com/rtnlab/rtn/optim"
	"github.com/rtnlab/rtn/params"
	"github.com/rtnlab/rtn/spectral"
)

// fdTol bounds the relative error of central differences with step fdStep.
const (
	fdStep = 1e-6
	fdTol  = 1e-6
)

// randomPFA returns a positive WFA with n states over d symbols whose
// transition sum has spectral radius about 0.6: a distribution up to Z.
func randomPFA(rng *rand.Rand, n, d int) spectral.WFA {
	w := spectral.WFA{States: n, Out: 1, Alpha: make([]float64, n), Omega: make([]float64, n)}
	for i := range n {
		w.Alpha[i] = 0.2 + rng.Float64()
		w.Omega[i] = 0.2 + rng.Float64()
	}
	for range d {
		a := make([]float64, n*n)
		for i := range a {
			a[i] = (0.1 + rng.Float64()) * 1.2 / float64(n*d)
		}
		w.Trans = append(w.Trans, a)
	}
	return w
}

// shifted adds delta to every transition weight of w and returns it.
func shifted(w spectral.WFA, delta float64) spectral.WFA {
	for _, a := range w.Trans {
		for i := range a {
			a[i] += delta
		}
	}
	return w
}

func randomStrings(rng *rand.Rand, count, d, maxLen int) [][]int {
	out := make([][]int, count)
	for i := range out {
		out[i] = make([]int, rng.IntN(maxLen+1))
		for t := range out[i] {
			out[i][t] = rng.IntN(d)
		}
	}
	return out
}

// The gradient of the normalised log-likelihood matches central
// differences on every parameter, at state counts that take each path of
// the forward and backward kernels.
func TestLikelihoodGradient(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	const d = 3
	// 13 states cross graph.Gemm's 12-column panels, 33 reach gonum's axpy
	// kernel in the backward pass.
	for _, n := range []int{3, 13, vec.AxpyLoop + 1} {
		w := randomPFA(rng, n, d)
		train := append(randomStrings(rng, 6, d, 5), make([]int, 12))
		p, err := NewLikelihood(w, train, train[:2])
		if err != nil {
			t.Fatal(err)
		}
		batch := []int{0, 1, 2, 3, 4, 5, 6}
		grads := p.Params().Like()
		if _, err := p.LossGrad(batch, grads); err != nil {
			t.Fatal(err)
		}
		checkGradient(t, p, batch, grads)
	}
}

// A batch gives the mean of its strings' losses and gradients taken one
// string at a time, across several chunks of lossChunk strings or of
// lossChunkValues state values, with
// strings of every length from 0 (so positions where some strings have
// ended) and repeated ones; the validation loss weights each distinct
// string by its frequency.
func TestLikelihoodBatch(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	const n, d = 13, 5
	w := shifted(randomPFA(rng, n, d), -0.3/float64(n*d)) // some next-symbol weights negative
	train := randomStrings(rng, 2*lossChunk+37, d, 9)
	train = append(train, train[:40]...)
	p, err := NewLikelihood(w, train, train)
	if err != nil {
		t.Fatal(err)
	}
	batch := make([]int, len(train))
	for i := range batch {
		batch[i] = i
	}
	want, one := 0.0, p.Params().Like()
	sum := p.Params().Like()
	for _, b := range batch {
		v, err := p.LossGrad([]int{b}, one)
		if err != nil {
			t.Fatal(err)
		}
		want += v / float64(len(batch))
		for _, name := range sum.Names() {
			floats.AddScaled(sum.Data(name), 1/float64(len(batch)), one.Data(name))
		}
	}
	defer func(v int) { lossChunkValues = v }(lossChunkValues)
	// The default chunks, then chunks of at most 5 positions, which the
	// strings of 5 symbols or more exceed alone.
	for _, values := range []int{lossChunkValues, 5 * n} {
		lossChunkValues = values
		grads := p.Params().Like()
		loss, err := p.LossGrad(batch, grads)
		if err != nil {
			t.Fatal(err)
		}
		if !(math.Abs(loss-want) <= 1e-12*want) {
			t.Errorf("chunks of %d values: batch loss %.17g, mean of the strings' %.17g", values, loss, want)
		}
		for _, name := range sum.Names() {
			for i, g := range grads.Data(name) {
				if v := sum.Data(name)[i]; !(math.Abs(g-v) <= 1e-10*(1+math.Abs(v))) {
					t.Fatalf("chunks of %d values: %s[%d]: batch gradient %g, mean of the strings' %g", values, name, i, g, v)
				}
			}
		}
		valid, err := p.ValidationLoss()
		if err != nil || !(math.Abs(valid-want) <= 1e-12*want) {
			t.Errorf("chunks of %d values: validation loss %.17g (%v), the training strings' mean %.17g", values, valid, err, want)
		}
	}
}

// The gradient also matches central differences on a signed automaton,
// where some next-symbol weights of the batch's prefixes are negative and
// count by their absolute values, and some strings have a value below 0:
// the loss is -sum log(|g_y| / sum |g|) over the steps, but a negative end
// weight costs -log(condFloor) - endSlope g_end / sum |g|.
func TestLikelihoodGradientSigned(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	const n, d = 3, 2
	w := shifted(randomPFA(rng, n, d), -0.12)
	w.Omega[0] = -0.5
	train := randomStrings(rng, 8, d, 5)
	beta, err := w.Stop()
	if err != nil {
		t.Fatal(err)
	}
	negative, floored, want := 0, 0, 0.0
	for _, x := range train {
		h := slices.Clone(w.Alpha)
		for k := 0; k <= len(x); k++ {
			g := make([]float64, d+1)
			for i := range n {
				g[d] += h[i] * w.Omega[i]
				for s := range d {
					for j := range n {
						g[s] += h[i] * w.Trans[s][i*n+j] * beta[j]
					}
				}
			}
			sum := 0.0
			for _, v := range g {
				sum += math.Abs(v)
				if v < 0 {
					negative++
				}
			}
			y := d
			if k < len(x) {
				y = x[k]
				next := make([]float64, n)
				for i := range n {
					for j := range n {
						next[j] += h[i] * w.Trans[y][i*n+j]
					}
				}
				h = next
			}
			if y == d && g[y] <= 0 {
				floored++
				want += (-math.Log(condFloor) - endSlope*g[y]/sum) / float64(len(train))
				continue
			}
			want -= math.Log(math.Abs(g[y])/sum) / float64(len(train))
		}
	}
	if negative == 0 || floored == 0 || floored == len(train) {
		t.Fatalf("%d negative next-symbol weights, %d of %d strings of value <= 0: the test needs both signs", negative, floored, len(train))
	}
	p, err := NewLikelihood(w, train, train[:2])
	if err != nil {
		t.Fatal(err)
	}
	batch := []int{0, 1, 2, 3, 4, 5, 6, 7}
	grads := p.Params().Like()
	loss, err := p.LossGrad(batch, grads)
	if err != nil || !(math.Abs(loss-want) <= 1e-12*want) {
		t.Fatalf("loss %g (%v), want %g from |g| / sum |g| at each step", loss, err, want)
	}
	checkGradient(t, p, batch, grads)
}

// The normaliser is the sum of f over all strings: for a nilpotent
// automaton (finite support) the loss equals the brute-force normalised
// log-likelihood.
func TestLikelihoodExactNormaliser(t *testing.T) {
	const n, d = 3, 2
	rng := rand.New(rand.NewPCG(13, 14))
	w := spectral.WFA{States: n, Out: 1, Alpha: []float64{0.5, 0.3, 0.2}, Omega: []float64{0.4, 0.7, 1}}
	for range d {
		a := make([]float64, n*n)
		for i := range n {
			for j := i + 1; j < n; j++ {
				a[i*n+j] = 0.1 + rng.Float64()
			}
		}
		w.Trans = append(w.Trans, a)
	}
	z := 0.0
	var all [][]int
	for _, x := range [][]int{{}, {0}, {1}, {0, 0}, {0, 1}, {1, 0}, {1, 1}} {
		z += w.Value(x)
		all = append(all, x)
	}
	p, err := NewLikelihood(w, all, all)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := p.Loss([]int{3, 4})
	want := -(math.Log(w.Value(all[3])/z) + math.Log(w.Value(all[4])/z)) / 2
	if math.Abs(got-want) > 1e-12 {
		t.Fatalf("loss %g, want %g", got, want)
	}
}

// Fine-tuning a perturbed automaton on its own samples lowers the
// validation loss and keeps a normalisable automaton; the trained
// automaton is returned only when it is no worse than the start on
// validation under ZLL and better on all the strings by two standard
// errors (LOO is reported as well).
func TestFinetuneImproves(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	seqs, start := perturbedSample(t, rng, 600, func(v float64) float64 { return v * (0.7 + 0.6*rng.Float64()) })
	m := &Model{WFA: start, Alphabet: []string{"a", "b", "c"}}
	out, rep, err := Finetune(m, datasets.Symbols{Alphabet: m.Alphabet, Seqs: seqs}, FinetuneConfig{Epochs: 5, Optim: optimLR(0.01)})
	if err != nil {
		t.Fatal(err)
	}
	if !(rep.BestValid < rep.InitialValid) {
		t.Fatalf("validation loss %g -> %g, want a decrease", rep.InitialValid, rep.BestValid)
	}
	if r, err := out.WFA.SpectralRadius(); err != nil || r >= 1 {
		t.Fatalf("fine-tuned spectral radius %g (%v)", r, err)
	}
	_, va, err := FinetuneSplit(seqs, FinetuneValidFraction, 1)
	if err != nil {
		t.Fatal(err)
	}
	valid, all := NewEvalSet(va), NewEvalSet(seqs)
	if rep.StartZLL != valid.ZLL(start) || rep.StartLOO != valid.LOO(start) || rep.StartAllZLL != all.ZLL(start) {
		t.Fatalf("report %+v disagrees with the validation figures", rep)
	}
	kept := slices.EqualFunc(out.WFA.Trans, start.Trans, slices.Equal[[]float64])
	if improved := rep.BestZLL <= rep.StartZLL && rep.AllZ >= 2; improved == kept {
		t.Fatalf("start kept %v with zll %g -> %g (all strings %g -> %g, %g standard errors)", kept, rep.StartZLL, rep.BestZLL, rep.StartAllZLL, rep.BestAllZLL, rep.AllZ)
	}
	if !kept && (valid.ZLL(out.WFA) != rep.BestZLL || valid.LOO(out.WFA) != rep.BestLOO || all.ZLL(out.WFA) != rep.BestAllZLL) {
		t.Fatalf("returned automaton's figures %g, %g, %g, report %g, %g, %g", valid.ZLL(out.WFA), valid.LOO(out.WFA), all.ZLL(out.WFA), rep.BestZLL, rep.BestLOO, rep.BestAllZLL)
	}
}

func optimLR(lr float64) optim.Config { return optim.Config{LR: lr} }

// With Check "zll" the start is kept when the fine-tuned automaton is
// worse under the floor rule on validation, or not better on all the
// strings by CheckSE standard errors; with
// "none" the fine-tuned automaton is returned all the same. The start is a signed perturbation
// of the automaton that generated the strings, on which fine-tuning
// improves the likelihood and worsens the floor rule's figure.
func TestFinetuneCheck(t *testing.T) {
	rng := rand.New(rand.NewPCG(20, 18))
	seqs, start := perturbedSample(t, rng, 300, func(v float64) float64 { return v + 0.08*(rng.Float64()-0.6) })
	m := &Model{WFA: start, Alphabet: []string{"a", "b", "c"}}
	s := datasets.Symbols{Alphabet: m.Alphabet, Seqs: seqs}
	cfg := FinetuneConfig{Epochs: 5, Optim: optimLR(0.01)}
	kept, rep, err := Finetune(m, s, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !(rep.BestValid < rep.InitialValid) || !(rep.BestZLL > rep.StartZLL) {
		t.Fatalf("likelihood %g -> %g, zll %g -> %g: the test needs a better likelihood and a worse zll", rep.InitialValid, rep.BestValid, rep.StartZLL, rep.BestZLL)
	}
	if !slices.EqualFunc(kept.WFA.Trans, start.Trans, slices.Equal[[]float64]) || rep.Stopped == "" {
		t.Fatalf("check zll: start not kept (stopped %q)", rep.Stopped)
	}
	cfg.Check = CheckNone
	tuned, rep2, err := Finetune(m, s, cfg)
	if err != nil {
		t.Fatal(err)
	}
	_, va, err := FinetuneSplit(seqs, FinetuneValidFraction, 1)
	if err != nil {
		t.Fatal(err)
	}
	if got := NewEvalSet(va).ZLL(tuned.WFA); got != rep.BestZLL || rep2.BestZLL != rep.BestZLL || rep2.Stopped != "" {
		t.Fatalf("check none returned zll %g (report %g, first run %g), stopped %q", got, rep2.BestZLL, rep.BestZLL, rep2.Stopped)
	}
	// Better on validation, worse on all the strings: the start is kept.
	rng = rand.New(rand.NewPCG(11, 18))
	seqs, start = perturbedSample(t, rng, 300, func(v float64) float64 { return v + 0.08*(rng.Float64()-0.6) })
	m2 := &Model{WFA: start, Alphabet: m.Alphabet}
	kept, rep, err = Finetune(m2, datasets.Symbols{Alphabet: m.Alphabet, Seqs: seqs}, FinetuneConfig{Epochs: 5, Optim: optimLR(0.01)})
	if err != nil {
		t.Fatal(err)
	}
	if !(rep.BestZLL <= rep.StartZLL) || !(rep.BestAllZLL > rep.StartAllZLL) {
		t.Fatalf("zll %g -> %g, on all the strings %g -> %g: the test needs a better zll on validation and a worse one on all", rep.StartZLL, rep.BestZLL, rep.StartAllZLL, rep.BestAllZLL)
	}
	if !slices.EqualFunc(kept.WFA.Trans, start.Trans, slices.Equal[[]float64]) || !strings.Contains(rep.Stopped, "all the strings") {
		t.Fatalf("check zll: start not kept (stopped %q)", rep.Stopped)
	}
	// Better on validation and on all the strings, the latter by 0.5
	// standard errors (seed 4) or by 4.5 (seed 2): the start is kept at the
	// default two standard errors, the fine-tuned automaton returned for
	// any gain, or by the default when the gain is large. AllZ is the mean
	// of the per-string gains over its standard error, string by string.
	for _, c := range []struct {
		seed       uint64
		tuned      bool
		minZ, maxZ float64
	}{{4, false, 0, 2}, {2, true, 2, math.Inf(1)}} {
		rng = rand.New(rand.NewPCG(c.seed, 18))
		seqs, start = perturbedSample(t, rng, 300, func(v float64) float64 { return v + 0.08*(rng.Float64()-0.6) })
		m3 := &Model{WFA: start, Alphabet: m.Alphabet}
		s3 := datasets.Symbols{Alphabet: m.Alphabet, Seqs: seqs}
		got, rep, err := Finetune(m3, s3, FinetuneConfig{Epochs: 5, Optim: optimLR(0.01)})
		if err != nil {
			t.Fatal(err)
		}
		if !(rep.BestZLL <= rep.StartZLL) || !(rep.AllZ > c.minZ && rep.AllZ < c.maxZ) {
			t.Fatalf("seed %d: zll %g -> %g, gain on all the strings %g standard errors: the test needs a better zll and a gain in (%g, %g)", c.seed, rep.StartZLL, rep.BestZLL, rep.AllZ, c.minZ, c.maxZ)
		}
		if isStart := slices.EqualFunc(got.WFA.Trans, start.Trans, slices.Equal[[]float64]); isStart == c.tuned {
			t.Fatalf("seed %d: gain %g standard errors, start returned %v (stopped %q)", c.seed, rep.AllZ, isStart, rep.Stopped)
		}
		anyGain, _, err := Finetune(m3, s3, FinetuneConfig{Epochs: 5, Optim: optimLR(0.01), CheckSE: -1})
		if err != nil {
			t.Fatal(err)
		}
		if slices.EqualFunc(anyGain.WFA.Trans, start.Trans, slices.Equal[[]float64]) {
			t.Fatalf("seed %d: CheckSE -1 kept the start", c.seed)
		}
		tuned, _, err := Finetune(m3, s3, FinetuneConfig{Epochs: 5, Optim: optimLR(0.01), Check: CheckNone})
		if err != nil {
			t.Fatal(err)
		}
		zs, _ := start.Mass()
		zt, _ := tuned.WFA.Mass()
		var sum, sum2 float64
		for _, x := range seqs {
			d := math.Log(max(tuned.WFA.Value(x), Floor)/zt) - math.Log(max(start.Value(x), Floor)/zs)
			sum, sum2 = sum+d, sum2+d*d
		}
		n := float64(len(seqs))
		mean := sum / n
		want := mean / math.Sqrt((sum2/n-mean*mean)/n)
		if math.Abs(rep.AllZ-want) > 1e-9*math.Abs(want) || math.Abs(mean-(rep.StartAllZLL-rep.BestAllZLL)) > 1e-12 {
			t.Fatalf("seed %d: AllZ %g, want %g from the strings one by one (mean gain %g, report %g)", c.seed, rep.AllZ, want, mean, rep.StartAllZLL-rep.BestAllZLL)
		}
	}
	// No epoch improves: the start comes back, with nothing to report.
	same, rep, err := Finetune(m, s, FinetuneConfig{Epochs: 2, Optim: optimLR(1e-300)})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.EqualFunc(same.WFA.Trans, m.WFA.Trans, slices.Equal[[]float64]) || rep.BestValid != rep.InitialValid || rep.Stopped != "" {
		t.Fatalf("no improvement: start returned %v, loss %g -> %g, stopped %q", slices.EqualFunc(same.WFA.Trans, m.WFA.Trans, slices.Equal[[]float64]), rep.InitialValid, rep.BestValid, rep.Stopped)
	}
	cfg.Check = "loo"
	if _, _, err := Finetune(m, s, cfg); err == nil {
		t.Fatal("check \"loo\" accepted")
	}
	cfg.Check, cfg.CheckSE = CheckZLL, math.NaN()
	if _, _, err := Finetune(m, s, cfg); err == nil {
		t.Fatal("CheckSE NaN accepted")
	}
}

// checkGradient compares grads, the gradient of p's loss on batch, with
// central differences on every parameter.
func checkGradient(t *testing.T, p *Likelihood, batch []int, grads *params.Params) {
	t.Helper()
	for _, name := range p.Params().Names() {
		v := p.Params().Data(name)
		g := grads.Data(name)
		for i := range v {
			old := v[i]
			v[i] = old + fdStep
			up, _ := p.Loss(batch)
			v[i] = old - fdStep
			down, _ := p.Loss(batch)
			v[i] = old
			fd := (up - down) / (2 * fdStep)
			if math.Abs(fd-g[i]) > fdTol*(1+math.Abs(fd)) {
				t.Errorf("%s[%d]: gradient %g, finite difference %g", name, i, g[i], fd)
			}
		}
	}
}

// perturbedSample draws a 3-state automaton over 3 symbols from rng,
// count strings from it, and returns them with a start whose transition
// weights are the automaton's passed through perturb.
func perturbedSample(t *testing.T, rng *rand.Rand, count int, perturb func(float64) float64) ([][]int, spectral.WFA) {
	t.Helper()
	target := randomPFA(rng, 3, 3)
	var seqs [][]int
	for range count {
		s, err := target.Sample(rng, 50)
		if err != nil {
			t.Fatal(err)
		}
		seqs = append(seqs, s)
	}
	start := target
	start.Trans = nil
	for _, a := range target.Trans {
		b := make([]float64, len(a))
		for i, v := range a {
			b[i] = perturb(v)
		}
		start.Trans = append(start.Trans, b)
	}
	return seqs, start
}

// FinetuneSplit holds out the share asked for, every string in exactly
// one part, the same for the same seed; it refuses a split with an empty
// part.
func TestFinetuneSplit(t *testing.T) {
	seqs := randomStrings(rand.New(rand.NewPCG(25, 26)), 50, 3, 6)
	for i := range seqs {
		seqs[i] = append(seqs[i], 100+i) // a mark that makes every string distinct
	}
	tr, va, err := FinetuneSplit(seqs, 0.2, 7)
	if err != nil || len(tr) != 40 || len(va) != 10 {
		t.Fatalf("split %d / %d (%v), want 40 / 10", len(tr), len(va), err)
	}
	seen := map[int]int{}
	for _, s := range append(slices.Clone(tr), va...) {
		seen[s[len(s)-1]]++
	}
	for i := range seqs {
		if seen[100+i] != 1 {
			t.Fatalf("string %d is in %d parts", i, seen[100+i])
		}
	}
	tr2, _, _ := FinetuneSplit(seqs, 0.2, 7)
	if !slices.EqualFunc(tr, tr2, slices.Equal[[]int]) {
		t.Error("the same seed gave two splits")
	}
	if _, _, err := FinetuneSplit(seqs[:2], 0.1, 7); err == nil {
		t.Error("a split of 2 strings with no validation string accepted")
	}
}

// stable agrees with the spectral radius computed from the eigenvalues of
// S on random matrices scaled to radii on both sides of 1 and on
// non-normal ones whose powers grow before they shrink; its certificate
// (contracts) holds only where the radius is below 1, and does hold on the
// random matrices of radius up to 0.9, so the eigenvalues are the
// fallback; it does not hold where rounding could fake it, and non-finite
// entries are refused.
func TestStable(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	radius := func(s []float64, n int) float64 {
		var e mat.Eigen
		if !e.Factorize(mat.NewDense(n, n, slices.Clone(s)), mat.EigenNone) {
			t.Fatal("eigen decomposition failed")
		}
		r := 0.0
		for _, v := range e.Values(nil) {
			r = max(r, cmplx.Abs(v))
		}
		return r
	}
	type tc struct {
		name    string
		n       int
		s       []float64
		certify bool // contracts must hold
	}
	var cases []tc
	for _, n := range []int{1, 2, 5, 13, 40} {
		for _, r := range []float64{0, 0.3, 0.9, 0.99, 0.999, 1.001, 1.2} {
			s := make([]float64, n*n)
			for i := range s {
				s[i] = rng.NormFloat64()
			}
			if rho := radius(s, n); rho > 0 {
				for i := range s {
					s[i] *= r / rho
				}
			}
			cases = append(cases, tc{fmt.Sprintf("n=%d radius %g", n, r), n, s, r <= 0.9})
		}
	}
	nil40 := make([]float64, 40*40) // strictly upper triangular: radius 0, S^40 = 0
	for i := range 40 {
		for j := i + 1; j < 40; j++ {
			nil40[i*40+j] = 3 + rng.Float64()
		}
	}
	cases = append(cases,
		tc{"Jordan block 0.9, 1e3", 2, []float64{0.9, 1e3, 0, 0.9}, false},
		tc{"nilpotent 40", 40, nil40, false},
		tc{"rotation by 1.01", 2, []float64{0, 1.01, -1.01, 0}, false},
		tc{"identity", 3, []float64{1, 0, 0, 0, 1, 0, 0, 0, 1}, false},
		tc{"-identity x 0.999", 2, []float64{-0.999, 0, 0, -0.999}, false},
	)
	for _, c := range cases {
		ims := make([]float64, c.n*c.n)
		for i, v := range c.s {
			ims[i] = -v
		}
		for i := range c.n {
			ims[i*c.n+i]++
		}
		want := radius(c.s, c.n) < 1
		got, cert := stable(ims, c.n), contracts(ims, c.n)
		if got != want || cert && !want || c.certify && !cert {
			t.Errorf("%s: stable %v, certified %v; radius %g", c.name, got, cert, radius(c.s, c.n))
		}
	}
	// S^2 = I exactly (radius 1), with entries so large that a product
	// without fused multiply-adds rounds S^2 to 0: the certificate's
	// error bound refuses it.
	big := math.Ldexp(1, 30)
	involution := []float64{big + 1, big, -(big + 2), -(big + 1)}
	ims := []float64{1 - involution[0], -involution[1], -involution[2], 1 - involution[3]}
	if contracts(ims, 2) {
		t.Error("certified a matrix whose square is the identity")
	}
	// A NaN or infinite entry is not stable (the eigenvalue routine would
	// not return on a NaN).
	for _, v := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		if stable([]float64{1, v, 0, 1}, 2) {
			t.Errorf("stable with an entry %g", v)
		}
	}
}

// blowUp is a hook that multiplies every transition weight by 100 after
// optimizer step step, so that the next step leaves the normalisable
// region (an infinite loss): a divergence at step step+1.
func blowUp(step int) optim.Hook {
	return optim.Hook{Name: "blow up", EverySteps: 1, Fn: func(s *optim.State) error {
		if s.Step == step {
			for i := range s.Params.Data(ParamA) {
				s.Params.Data(ParamA)[i] *= 100
			}
		}
		return nil
	}}
}

// A run that diverges before any epoch improved on the start is an
// error, a *DivergedError that optim.IsDiverged recognises, with the
// report of the training so far; one that diverges after an improvement
// returns the best parameters validated before it, marked fine-tuned,
// and says so. The start, when returned, keeps its own mark.
func TestFinetuneDiverged(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	seqs, start := perturbedSample(t, rng, 600, func(v float64) float64 { return v * (0.7 + 0.6*rng.Float64()) })
	m := &Model{WFA: start, Alphabet: []string{"a", "b", "c"}}
	s := datasets.Symbols{Alphabet: m.Alphabet, Seqs: seqs}
	// 540 training strings in batches of 64: 9 steps per epoch.
	const stepsPerEpoch = 9
	got, rep, err := Finetune(m, s, FinetuneConfig{Epochs: 3, Optim: optimLR(0.01), Train: optim.TrainConfig{Hooks: []optim.Hook{blowUp(2)}}})
	var de *DivergedError
	if !errors.As(err, &de) || !optim.IsDiverged(err) || got != nil || rep == nil || !rep.Diverged || !strings.Contains(err.Error(), "before any epoch improved") {
		t.Fatalf("divergence in epoch 1: model %v, report %+v, error %v", got != nil, rep, err)
	}
	if rep.BestValid != rep.InitialValid || rep.Result.Epochs != 0 || !strings.Contains(rep.Stopped, "step 3 (epoch 1)") {
		t.Fatalf("divergence in epoch 1: report %+v", rep)
	}
	for _, check := range []string{CheckNone, CheckZLL} {
		got, rep, err = Finetune(m, s, FinetuneConfig{Epochs: 3, Optim: optimLR(0.01), Check: check, CheckSE: -1,
			Train: optim.TrainConfig{Hooks: []optim.Hook{blowUp(stepsPerEpoch + 2)}}})
		if err != nil {
			t.Fatalf("check %s: divergence in epoch 2: %v", check, err)
		}
		if !rep.Diverged || !(rep.BestValid < rep.InitialValid) || rep.Result.BestEpoch != 1 || !strings.Contains(rep.Stopped, "epoch 1's") {
			t.Fatalf("check %s: divergence in epoch 2: report %+v", check, rep)
		}
		isStart := slices.EqualFunc(got.WFA.Trans, start.Trans, slices.Equal[[]float64])
		if isStart != rep.KeptStart || got.Finetuned == rep.KeptStart || (check == CheckNone && rep.KeptStart) {
			t.Fatalf("check %s: start returned %v, KeptStart %v, Finetuned %v", check, isStart, rep.KeptStart, got.Finetuned)
		}
	}
	// No epoch improves: the start comes back with its own mark.
	for _, mark := range []bool{false, true} {
		m2 := &Model{WFA: start, Alphabet: m.Alphabet, Finetuned: mark}
		got, rep, err = Finetune(m2, s, FinetuneConfig{Epochs: 2, Optim: optimLR(1e-300)})
		if err != nil || !rep.KeptStart || rep.Diverged || got.Finetuned != mark {
			t.Fatalf("no improvement from a start marked %v: KeptStart %v, Finetuned %v (%v)", mark, rep.KeptStart, got.Finetuned, err)
		}
	}
}

// One epoch then a resume to three gives the automaton of three epochs
// straight, bit for bit, also when the resumed run diverges before its
// first validation (the best parameters then come from the checkpoint) and when the
// checkpoint already holds every epoch; a checkpoint of another start,
// other strings or another seed is refused, naming the difference.
func TestFinetuneResume(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	seqs, start := perturbedSample(t, rng, 600, func(v float64) float64 { return v * (0.7 + 0.6*rng.Float64()) })
	m := &Model{WFA: start, Alphabet: []string{"a", "b", "c"}}
	s := datasets.Symbols{Alphabet: m.Alphabet, Seqs: seqs}
	const stepsPerEpoch = 9 // see TestFinetuneDiverged
	dir := t.TempDir()
	run := func(epochs int, ckpt, resume string, hooks ...optim.Hook) (*Model, *FinetuneReport) {
		t.Helper()
		got, rep, err := Finetune(m, s, FinetuneConfig{Epochs: epochs, Optim: optimLR(0.01), Check: CheckNone, Resume: resume,
			Train: optim.TrainConfig{CheckpointPath: ckpt, Hooks: hooks}})
		if err != nil {
			t.Fatalf("%d epochs, resume %q: %v", epochs, resume, err)
		}
		return got, rep
	}
	same := func(a, b *Model) bool {
		return slices.Equal(a.WFA.Alpha, b.WFA.Alpha) && slices.Equal(a.WFA.Omega, b.WFA.Omega) &&
			slices.EqualFunc(a.WFA.Trans, b.WFA.Trans, slices.Equal[[]float64]) && a.Finetuned == b.Finetuned
	}
	straight, _ := run(3, "", "")
	ckpt := filepath.Join(dir, "c.npz")
	run(1, ckpt, "")
	if resumed, rep := run(3, ckpt, ckpt); !same(straight, resumed) || rep.Result.Epochs != 3 {
		t.Fatalf("1 epoch then a resume to 3 (%d epochs) differs from 3 epochs", rep.Result.Epochs)
	}
	if again, rep := run(3, "", ckpt); !same(straight, again) || rep.Result.Epochs != 3 {
		t.Fatal("a resume of a complete checkpoint differs from its run")
	}
	diverged, rep := run(3, "", "", blowUp(stepsPerEpoch+1))
	if !rep.Diverged || rep.Result.BestEpoch != 1 || rep.KeptStart {
		t.Fatalf("divergence at the second step of epoch 2: report %+v", rep)
	}
	run(1, ckpt, "")
	if resumed, _ := run(3, "", ckpt, blowUp(stepsPerEpoch+1)); !same(diverged, resumed) {
		t.Fatal("a resumed run diverging at its second step returns other parameters than the run straight")
	}
	other := *m
	other.WFA.Trans = nil
	for _, a := range start.Trans {
		other.WFA.Trans = append(other.WFA.Trans, slices.Clone(a))
	}
	other.WFA = shifted(other.WFA, 1e-3)
	moreSeqs := datasets.Symbols{Alphabet: m.Alphabet, Seqs: append(slices.Clone(seqs), []int{0})}
	for _, c := range []struct {
		m    *Model
		s    datasets.Symbols
		seed uint64
		want string
	}{{&other, s, 1, "start_model_sha256"}, {m, moreSeqs, 1, "strings_sha256"}, {m, s, 2, "meta.seed is 1 in the checkpoint, 2 in this run"}} {
		if _, _, err := Finetune(c.m, c.s, FinetuneConfig{Epochs: 3, Optim: optimLR(0.01), Seed: c.seed, Resume: ckpt}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("resume of another run (%s): %v", c.want, err)
		}
	}
}

// Finetune reads the strings' symbols by name: the same strings over the
// model's alphabet in another order give the same automaton, bit for bit,
// and a symbol the model does not know is refused. A nil model is an
// error, not a panic.
func TestFinetuneSymbolsByName(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 18))
	seqs, start := perturbedSample(t, rng, 300, func(v float64) float64 { return v * (0.7 + 0.6*rng.Float64()) })
	m := &Model{WFA: start, Alphabet: []string{"a", "b", "c"}}
	cfg := FinetuneConfig{Epochs: 2, Optim: optimLR(0.01), Check: CheckNone}
	want, _, err := Finetune(m, datasets.Symbols{Alphabet: m.Alphabet, Seqs: seqs}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	// The same strings with the ids of the alphabet c, a, b.
	perm := map[int]int{0: 1, 1: 2, 2: 0}
	var other [][]int
	for _, x := range seqs {
		y := make([]int, len(x))
		for i, v := range x {
			y[i] = perm[v]
		}
		other = append(other, y)
	}
	got, _, err := Finetune(m, datasets.Symbols{Alphabet: []string{"c", "a", "b"}, Seqs: other}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.WFA.Alpha, want.WFA.Alpha) || !slices.EqualFunc(got.WFA.Trans, want.WFA.Trans, slices.Equal[[]float64]) ||
		!slices.Equal(got.WFA.Omega, want.WFA.Omega) {
		t.Error("the same strings over a permuted alphabet fine-tune to another automaton")
	}
	if _, _, err := Finetune(m, datasets.Symbols{Alphabet: []string{"a", "b", "z"}, Seqs: seqs}, cfg); err == nil || !strings.Contains(err.Error(), `"z", which the model does not know`) {
		t.Errorf("a symbol the model does not know: %v", err)
	}
	if _, _, err := Finetune(nil, datasets.Symbols{Alphabet: m.Alphabet, Seqs: seqs}, cfg); err == nil {
		t.Error("a nil model was fine-tuned")
	}
}

// A resumed run with no checkpoint path of its own writes its checkpoints
// on to the file it resumed from.
func TestFinetuneResumeCheckpointsOn(t *testing.T) {
	rng := rand.New(rand.NewPCG(19, 20))
	seqs, start := perturbedSample(t, rng, 300, func(v float64) float64 { return v * (0.7 + 0.6*rng.Float64()) })
	m := &Model{WFA: start, Alphabet: []string{"a", "b", "c"}}
	s := datasets.Symbols{Alphabet: m.Alphabet, Seqs: seqs}
	ckpt := filepath.Join(t.TempDir(), "c.npz")
	if _, _, err := Finetune(m, s, FinetuneConfig{Epochs: 1, Optim: optimLR(0.01), Check: CheckNone, Patience: 5,
		Train: optim.TrainConfig{CheckpointPath: ckpt}}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Finetune(m, s, FinetuneConfig{Epochs: 2, Optim: optimLR(0.01), Check: CheckNone, Patience: 5, Resume: ckpt}); err != nil {
		t.Fatal(err)
	}
	var meta struct {
		Epoch int `json:"epoch"`
	}
	if _, err := params.LoadNPZ(ckpt, &meta); err != nil || meta.Epoch != 2 {
		t.Errorf("checkpoint after the resumed run: epoch %d (%v), want 2", meta.Epoch, err)
	}
}
