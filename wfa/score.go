package wfa

import (
	"bufio"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/pkg/errors"

	"github.com/rtnlab/rtn/datasets"
	"github.com/rtnlab/rtn/losses"
)

// Score is the PAutomaC perplexity of the model on the test strings given
// their true probabilities (a solution file): the model's probabilities
// are Predict's, max(f(x), Floor), and both sides are normalised over the
// test set (losses.PAutomaCPerplexity).
func Score(m *Model, test [][]int, solution []float64) (float64, error) {
	if len(test) != len(solution) {
		return math.NaN(), errors.Errorf("wfa: %d test strings and %d solution values", len(test), len(solution))
	}
	return losses.PAutomaCPerplexity(solution, m.Predict(test))
}

// LogLossResult is the log-loss of a model on a sample.
type LogLossResult struct {
	// NatsPerSymbol is -sum_x log(q(x)/Z) / sum_x (|x| + 1): the end of
	// each string counts as a symbol.
	NatsPerSymbol float64
	// Normaliser says what Z is: "model" for the automaton's mass
	// alpha^T (I - S)^-1 omega (when the spectral radius of S is below 1
	// and the mass positive), "sample" for the sum of q over the distinct
	// strings of the sample otherwise.
	Normaliser string
	// Floored is the number of strings whose value was floored.
	Floored int
}

// LogLoss is the per-symbol log-loss of the model on seqs, with q(x) =
// max(f(x), Floor) (see LogLossResult).
func LogLoss(m *Model, seqs [][]int) (LogLossResult, error) {
	if len(seqs) == 0 {
		return LogLossResult{}, errors.New("wfa: log-loss of no strings")
	}
	q := m.Predict(seqs)
	res := LogLossResult{Normaliser: "model"}
	z := math.NaN()
	if r, err := m.WFA.SpectralRadius(); err == nil && r < 1 {
		z, _ = m.WFA.Mass()
	}
	if !(z > 0) || math.IsInf(z, 0) {
		res.Normaliser = "sample"
		e := NewEvalSet(seqs)
		z = 0
		for _, v := range m.Predict(e.Seqs) {
			z += v
		}
	}
	nats, symbols := 0.0, 0
	for i, v := range q {
		if v == Floor {
			res.Floored++
		}
		nats -= math.Log(v / z)
		symbols += len(seqs[i]) + 1
	}
	res.NatsPerSymbol = nats / float64(symbols)
	return res, nil
}

// End is the symbol id Rank uses for the end of the string (SPiCe's -1).
const End = -1

// Rank returns the k most probable next symbols after each prefix, most
// probable first, End standing for the end of the string (the SPiCe
// submission). Probabilities are WFA.NextSymbol's.
func Rank(m *Model, prefixes [][]int, k int) ([][]int, error) {
	beta, err := m.WFA.Stop()
	if err != nil {
		return nil, err
	}
	d := len(m.WFA.Trans)
	out := make([][]int, len(prefixes))
	for i, p := range prefixes {
		for t, s := range p {
			if s < 0 || s >= d {
				return nil, errors.Errorf("wfa: prefix %d position %d: symbol %d out of range [0, %d)", i, t, s, d)
			}
		}
		out[i] = TopK(m.WFA.NextSymbol(p, beta), k)
	}
	return out, nil
}

// Target is the SPiCe target of one prefix: the ideal discounted gain
// (the normaliser of NDCG@5) and the true probability of each next symbol
// (End for the end of the string).
type Target struct {
	Ideal float64
	Probs map[int]float64
}

// ReadTargets reads a SPiCe target file: one line per prefix, the ideal
// DCG followed by pairs "symbol probability" (-1 is the end symbol).
// Errors are *datasets.TextError values naming the line.
func ReadTargets(r io.Reader) ([]Target, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 1<<26)
	var out []Target
	line := 0
	for sc.Scan() {
		line++
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		if len(f)%2 != 1 {
			return nil, &datasets.TextError{Line: line, Msg: "want the ideal DCG then pairs \"symbol probability\""}
		}
		t := Target{Probs: map[int]float64{}}
		var err error
		if t.Ideal, err = strconv.ParseFloat(f[0], 64); err != nil || !(t.Ideal > 0) || math.IsInf(t.Ideal, 0) {
			return nil, &datasets.TextError{Line: line, Msg: "ideal DCG " + strconv.Quote(f[0]) + " is not a positive number"}
		}
		for j := 1; j < len(f); j += 2 {
			s, err1 := strconv.Atoi(f[j])
			p, err2 := strconv.ParseFloat(f[j+1], 64)
			if err1 != nil || s < End || err2 != nil || !(p >= 0) || math.IsInf(p, 0) {
				return nil, &datasets.TextError{Line: line, Msg: "pair " + strconv.Quote(f[j]+" "+f[j+1]) + " is not \"symbol probability\""}
			}
			t.Probs[s] = p
		}
		out = append(out, t)
	}
	if err := sc.Err(); err != nil {
		return nil, &datasets.TextError{Line: line + 1, Msg: "read: " + err.Error(), Err: err}
	}
	return out, nil
}

// ReadTargetsFile reads the target file at path.
func ReadTargetsFile(path string) ([]Target, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, errors.Wrap(err, "wfa")
	}
	defer f.Close()
	t, err := ReadTargets(f)
	var te *datasets.TextError
	if errors.As(err, &te) {
		te.Path = path
	}
	return t, err
}

// NDCG5 is the SPiCe score: the mean over prefixes of
// sum_{i<=5} p(r_i) / log2(i+1) divided by the ideal DCG, with r_i the
// i-th ranked symbol and p its true probability.
func NDCG5(ranks [][]int, targets []Target) (float64, error) {
	if len(ranks) != len(targets) || len(ranks) == 0 {
		return math.NaN(), errors.Errorf("wfa: %d rankings and %d targets", len(ranks), len(targets))
	}
	sum := 0.0
	for i, r := range ranks {
		g := 0.0
		for j, s := range r[:min(5, len(r))] {
			g += targets[i].Probs[s] / math.Log2(float64(j+2))
		}
		sum += g / targets[i].Ideal
	}
	return sum / float64(len(ranks)), nil
}

// TopK returns the k most probable next symbols of a distribution over
// the symbols and the end of the string (probs[len(probs)-1], returned as
// End), most probable first, ties in symbol order.
func TopK(probs []float64, k int) []int {
	ids := make([]int, len(probs))
	for j := range ids {
		ids[j] = j
	}
	slices.SortStableFunc(ids, func(a, b int) int {
		switch {
		case probs[a] > probs[b]:
			return -1
		case probs[a] < probs[b]:
			return 1
		}
		return 0
	})
	ids = ids[:min(k, len(ids))]
	for j, s := range ids {
		if s == len(probs)-1 {
			ids[j] = End
		}
	}
	return ids
}
