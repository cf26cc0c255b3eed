package runs

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/pkg/errors"

	"github.com/rtnlab/rtn/datasets"
	"github.com/rtnlab/rtn/internal/report"
	"github.com/rtnlab/rtn/layers/pcnn"
)

// PCNNBaselineSpec is a sanity check of Table 1: a compressor or a
// classical model scored the paper's way, the bits spent on the
// validation stream after seeing the training stream.
type PCNNBaselineSpec struct {
	// Baseline is bzip2, ctw or hmm (required).
	Baseline string
	// Task and Size as in PCNNSpec.
	Task string
	Size int
	// Depth is the CTW context depth, with Baseline ctw only. If 0, it
	// will be defaulted to 8.
	Depth int
	// States and Iterations set the HMM, with Baseline hmm only: its
	// number of states (each with as many outgoing edges as the alphabet
	// has symbols, footnote 9) and of Baum-Welch iterations. If 0, they
	// will be defaulted to 32 and 50.
	States, Iterations int
	// Seed seeds the streams and the HMM. Default 1.
	Seed uint64
	// Network holds settings of a network run (PCNNSpec) given beside
	// the baseline, which reads none: each field but Task, Size, Seed and
	// Log must be zero or PCNNSpec's default (the command line sets it
	// from its flags, so that a network flag given with -baseline is
	// refused rather than ignored).
	Network PCNNSpec `json:"-"`
}

// RunPCNNBaseline scores a baseline on the task's validation stream
// (hmm: Baum-Welch on the training stream, then the regularised filter
// over the validation stream, predicted symbols only):
//   - bzip2: 8 x (size of bzip2 -9 of train+valid minus that of train),
//     over every symbol (bzip2 cannot skip unpredicted ones);
//   - ctw: context tree weighting fed the training stream, then the
//     validation stream (layers/pcnn.CTW), over the predicted symbols.
func RunPCNNBaseline(spec PCNNBaselineSpec) (*PCNNReport, error) {
	spec = spec.WithDefaults()
	if spec.Baseline == "" {
		return nil, fieldErr("Baseline", spec.Baseline, "bzip2, ctw or hmm")
	}
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	train, valid, err := PCNNStreams(spec.Task, spec.Size, spec.Seed)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	rep := &PCNNReport{Task: spec.Task, Model: spec.Baseline, TrueBits: valid.TrueBits()}
	var bits float64
	switch spec.Baseline {
	case "bzip2":
		rep.Method = "bzip2 -9"
		bits, err = pcnn.Bzip2Bits(train.String(), valid.String())
	case "ctw":
		rep.Method = "ctw depth " + report.Ftoa(float64(spec.Depth))
		bits, err = pcnn.CTWBits(train, valid, len(train.Alphabet), spec.Depth)
	case "hmm":
		rep.Method = fmt.Sprintf("hmm %d states, %d Baum-Welch iterations", spec.States, spec.Iterations)
		rep.Units, rep.Passes = spec.States, spec.Iterations
		bits, err = hmmBits(train, valid, spec)
	default:
		return nil, errors.Errorf("unknown baseline %q (want bzip2, ctw or hmm)", spec.Baseline)
	}
	if err != nil {
		return nil, err
	}
	rep.Seconds = time.Since(start).Seconds()
	rep.ValidBits, rep.FinalValidBits, rep.RegretBits = bits, bits, valid.RegretBits(bits)
	return rep, nil
}

// hmmBits trains an HMM on train and returns the regularised bits of the
// predicted symbols of valid.
func hmmBits(train, valid datasets.Stream, spec PCNNBaselineSpec) (float64, error) {
	rng := rand.New(rand.NewPCG(spec.Seed, 0x4d4d))
	h, err := pcnn.NewHMM(spec.States, len(train.Alphabet), train, len(train.Alphabet), rng)
	if err != nil {
		return 0, err
	}
	for range spec.Iterations {
		h.BaumWelch(train.X)
	}
	return -h.LogLikMasked(valid.X, valid.Mask, true) / math.Ln2, nil
}
