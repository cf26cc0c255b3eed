package runs

import (
	"math"
	"slices"

	"github.com/pkg/errors"

	"github.com/rtnlab/rtn/datasets"
	"github.com/rtnlab/rtn/losses"
	"github.com/rtnlab/rtn/wfa"
)

// StringsScore is the figure of a string model on test strings.
type StringsScore struct {
	// Strings is the number of test strings.
	Strings int `json:"strings"`
	// LogLoss is -sum_x log q(x) / sum_x (|x| + 1) over the test strings,
	// in nats per symbol (the end of each string counted as a symbol),
	// q the model's own normalised probabilities (a wfa's floored values
	// over its mass), +Inf when an automaton gives a string probability 0.
	LogLoss float64 `json:"log_loss_nats_per_symbol"`
	// Perplexity is the PAutomaC score against the solution, Optimum the
	// solution's own (the lowest possible) and Ratio their quotient; all
	// three are absent without a solution.
	Perplexity *float64 `json:"perplexity,omitempty"`
	Optimum    *float64 `json:"optimum,omitempty"`
	Ratio      *float64 `json:"ratio,omitempty"`
	// Floored counts the strings given wfa.Floor or less: a wfa's floored
	// values, an automaton's exact tiny probabilities (which are not
	// floored).
	Floored int `json:"floored"`
}

// ScoreStrings scores the model on the test strings seqs and, when
// solution is not nil, against the true probabilities of those strings.
func ScoreStrings(m *StringsModel, seqs [][]int, solution []float64, jobs int) (*StringsScore, error) {
	if len(seqs) == 0 {
		return nil, errors.New("strings score: no test strings")
	}
	if solution != nil && len(solution) != len(seqs) {
		return nil, errors.Errorf("strings score: %d solution probabilities for %d test strings", len(solution), len(seqs))
	}
	res := &StringsScore{Strings: len(seqs)}
	logq, err := m.logProbabilities(seqs, jobs)
	if err != nil {
		return nil, err
	}
	// q is the model's probabilities over their largest: the perplexity
	// normalises them over the test set, and exact tiny values stay
	// exact instead of underflowing.
	top := math.Inf(-1)
	for _, v := range logq {
		top = max(top, v)
	}
	q := make([]float64, len(logq))
	nats := 0.0
	for i, v := range logq {
		if v <= math.Log(wfa.Floor) {
			res.Floored++
		}
		nats -= v
		q[i] = math.Exp(v - top)
	}
	res.LogLoss = nats / symbolsOf(seqs)
	if solution == nil {
		return res, nil
	}
	p, err := losses.PAutomaCPerplexity(solution, q)
	if err != nil {
		return nil, errors.Wrap(err, "strings score")
	}
	opt, err := losses.PAutomaCPerplexity(solution, slices.Clone(solution))
	if err != nil {
		return nil, errors.Wrap(err, "strings score: solution")
	}
	ratio := p / opt
	res.Perplexity, res.Optimum, res.Ratio = &p, &opt, &ratio
	return res, nil
}

// RankStrings returns the k most probable next symbols after each prefix,
// most probable first, wfa.End standing for the end of the string (the
// SPiCe submission); ties keep the lower id first.
func RankStrings(m *StringsModel, prefixes [][]int, k int) ([][]int, error) {
	if k < 1 {
		return nil, errors.Errorf("strings rank: k %d, want >= 1", k)
	}
	out := make([][]int, len(prefixes))
	for i, p := range prefixes {
		probs, err := m.NextSymbol(p)
		if err != nil {
			return nil, errors.Wrapf(err, "prefix %d", i)
		}
		out[i] = wfa.TopK(probs, k)
	}
	return out, nil
}

// RunStringsScore scores spec.Model on spec.Test (rtn strings score): the
// spec is checked before any file is read, then the model, the test
// strings and the solution are read and scored. It returns the model with
// its score.
func RunStringsScore(spec StringsScoreSpec) (*StringsModel, *StringsScore, error) {
	spec = spec.WithDefaults()
	if err := spec.Validate(); err != nil {
		return nil, nil, err
	}
	m, err := LoadStringsModel(spec.Model)
	if err != nil {
		return nil, nil, err
	}
	s, err := m.Read(spec.Test, spec.Format)
	if err != nil {
		return nil, nil, err
	}
	var sol []float64
	if spec.Solution != "" {
		if sol, err = datasets.ReadSolutionFile(spec.Solution); err != nil {
			return nil, nil, err
		}
	}
	sc, err := ScoreStrings(m, s.Seqs, sol, spec.Jobs)
	return m, sc, err
}
