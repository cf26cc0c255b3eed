package runs

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"

	"github.com/pkg/errors"

	"github.com/rtnlab/rtn/datasets"
	"github.com/rtnlab/rtn/internal/memlimit"
	"github.com/rtnlab/rtn/layers/umps"
	"github.com/rtnlab/rtn/losses"
)

// ReadUMPSStrings reads a string sample in the given format (alphabet as
// datasets.ScanStrings takes it) with datasets.ReadStringsFile, which
// streams the file and packs the symbols into shared blocks.
func ReadUMPSStrings(path string, format datasets.StringFormat, alphabet []string) ([][]int, []string, error) {
	s, err := datasets.ReadStringsFile(path, format, alphabet)
	return s.Seqs, s.Alphabet, err
}

// validCount is the number of validation strings splitValid draws from
// n strings, an error when it leaves either part empty.
func validCount(n int, frac float64) (int, error) {
	nv := int(math.Round(frac * float64(n)))
	if nv < 1 || nv >= n {
		return 0, errors.Errorf("%d strings: too few for a validation fraction of %v", n, frac)
	}
	return nv, nil
}

// splitValid puts a fraction frac of seqs, drawn by rng, in valid and the
// rest in train (both keep file order).
func splitValid(seqs [][]int, frac float64, rng *rand.Rand) (train, valid [][]int, err error) {
	nv, err := validCount(len(seqs), frac)
	if err != nil {
		return nil, nil, err
	}
	inValid := make([]bool, len(seqs))
	for _, k := range rng.Perm(len(seqs))[:nv] {
		inValid[k] = true
	}
	train = make([][]int, 0, len(seqs)-nv)
	valid = make([][]int, 0, nv)
	for k, s := range seqs {
		if inValid[k] {
			valid = append(valid, s)
		} else {
			train = append(train, s)
		}
	}
	return train, valid, nil
}

// UMPSScore is the result of ScoreUMPS.
type UMPSScore struct {
	Test    string `json:"test"`
	Strings int    `json:"strings"`
	// LengthModel is as LengthModelName.
	LengthModel string `json:"length_model"`
	// Perplexity is the PAutomaC score (with a solution file only).
	Perplexity *float64 `json:"perplexity,omitempty"`
	// NLL is -(1/N) sum log P(s), nats per string.
	NLL float64 `json:"nll"`
	// LogLoss is -sum log P(s) / sum (|s| + 1), nats per symbol, the end
	// of each string counted as one symbol (the unit of every log-loss rtn
	// prints).
	LogLoss float64 `json:"log_loss_nats_per_symbol"`
}

// ScoreUMPS evaluates a model on a test file: its NLL and per-symbol
// log-loss, and with solution (a PAutomaC solution file, "" for none) the
// PAutomaC perplexity 2^(-sum_x P*(x) log2 Q(x)), P* and Q normalised
// over the test strings.
func ScoreUMPS(m *umps.MPS, meta umps.ModelMeta, test string, format datasets.StringFormat, solution string) (*UMPSScore, error) {
	alphabet := meta.Alphabet
	seqs, _, err := ReadUMPSStrings(test, format, alphabet)
	if err != nil {
		return nil, err
	}
	if len(seqs) == 0 {
		return nil, errors.Errorf("%s holds no strings", test)
	}
	var target []float64
	if solution != "" {
		if target, err = datasets.ReadSolutionFile(solution); err != nil {
			return nil, err
		}
		if len(target) != len(seqs) {
			return nil, errors.Errorf("%s has %d probabilities for the %d strings of %s", solution, len(target), len(seqs), test)
		}
	}
	lp, err := meta.Distribution(m).LogProbs(seqs)
	if err != nil {
		return nil, err
	}
	sc := &UMPSScore{Test: test, Strings: len(seqs), LengthModel: meta.LengthModelName()}
	syms, top := 0, math.Inf(-1)
	for b, v := range lp {
		sc.NLL -= v
		syms += len(seqs[b]) + 1
		top = math.Max(top, v)
	}
	sc.LogLoss = sc.NLL / float64(syms)
	sc.NLL /= float64(len(seqs))
	if target != nil {
		q := make([]float64, len(lp))
		for b, v := range lp {
			q[b] = math.Exp(v - top)
		}
		pp, err := losses.PAutomaCPerplexity(target, q)
		if err != nil {
			return nil, err
		}
		sc.Perplexity = &pp
	}
	return sc, nil
}

// EstimateMemory counts, for Data a text file read as characters (no
// Format), each character as an int in the string list and in the
// length-grouped batches, and each string's slice header; a string's
// D x D environments are recomputed per batch, not stored. It reads the
// file once, with a progress bar on Progress. A built-in language counts
// nothing.
func (s UMPSSpec) EstimateMemory() (MemoryEstimate, error) {
	if _, _, err := Membership(s.Data); err == nil {
		return MemoryEstimate{}, nil
	}
	if _, err := os.Stat(s.Data); err != nil {
		return MemoryEstimate{}, nil // not a file: the data name is refused later
	}
	size, _, err := textFileStats(s.Data, s.Progress)
	if err != nil {
		return MemoryEstimate{}, errors.Wrap(err, "reading the data file")
	}
	return MemoryEstimate{What: fmt.Sprintf("{Data} %s (%s)", s.Data, memlimit.FormatBytes(float64(size))), Bytes: float64s(4 * float64(size))}, nil
}
