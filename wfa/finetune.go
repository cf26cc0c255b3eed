package wfa

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/pkg/errors"

	"github.com/rtnlab/rtn/datasets"
	"github.com/rtnlab/rtn/optim"
	"github.com/rtnlab/rtn/params"
	"github.com/rtnlab/rtn/spectral"
)

// FinetuneConfig sets Finetune. The zero value trains with Adam at rate
// 3e-5, batches of 64 strings, for at most 20 epochs on a 90/10 split with
// seed 1; at each epoch without validation improvement the best
// parameters are restored and the rate divided by 10, and the third such
// epoch ends training.
type FinetuneConfig struct {
	// Optimizer is a name from the optim registry. If empty, it will be
	// defaulted to "adam".
	Optimizer string
	// Optim holds its hyperparameters. If Optim.LR is 0, it will be
	// defaulted to 3e-5 (the spectral automaton's parameters are badly
	// scaled, and larger steps leave the normalisable region).
	Optim optim.Config
	// Epochs is the most epochs run, in total when resuming. If 0, it will
	// be defaulted to 20.
	Epochs int
	// BatchSize is the number of strings per step. If 0, it will be
	// defaulted to 64.
	BatchSize int
	// Patience is the number of epochs without validation improvement
	// before a drop of the rate. If 0, it will be defaulted to 1.
	Patience int
	// ValidFraction is the share of strings held out for early stopping.
	// If 0, it will be defaulted to 0.1.
	ValidFraction float64
	// Seed draws the split and the batches. If 0, it will be defaulted to 1.
	Seed uint64
	// Check is the final comparison with the start: "zll" returns the
	// start when the fine-tuned automaton is worse under the floor rule
	// (EvalSet.ZLL) on the validation strings, or when its gain on all
	// the strings is below CheckSE standard errors of that gain;
	// "none" returns the automaton of the best
	// validation loss whatever its figures (to compare optimizers by what
	// they reach). If empty, it will be defaulted to "zll".
	Check string
	// CheckSE is the gain on all the strings, in standard errors of the
	// per-string gain (FinetuneReport.AllZ), below which the "zll" check
	// keeps the start. If 0, it will be defaulted to 2; below 0, any gain
	// (AllZ >= 0) is kept.
	CheckSE float64
	// Resume is a training checkpoint to continue from, written through
	// Train.CheckpointPath by a run from the same start on the same
	// strings with the same Optimizer, Optim, BatchSize, Patience,
	// ValidFraction and Seed (a checkpoint of another run is refused,
	// naming the first difference). Training goes on up to Epochs in
	// total, with the same steps as an uninterrupted run, so the result
	// is the same bit for bit; a checkpoint that already has Epochs
	// epochs or more, or whose run stopped early, gives its result
	// without training. Check and CheckSE may differ. Checkpoints go on
	// to the Resume file unless Train.CheckpointPath names another. If
	// empty, training starts from the model.
	Resume string
	// Train is passed to the Trainer (checkpoints, metrics, progress,
	// hooks); its Epochs, BatchSize, Seed and Patience are set from the
	// fields above, MaxDrops = 3 with RestoreOnDrop and ResetOnDrop, and
	// Meta identifies the run (the start, the strings and the settings
	// Resume compares).
	Train optim.TrainConfig
}

// WithDefaults returns the config with its unset fields at the defaults
// their comments give.
func (c FinetuneConfig) WithDefaults() FinetuneConfig {
	if c.Optimizer == "" {
		c.Optimizer = "adam"
	}
	if c.Epochs == 0 {
		c.Epochs = 20
	}
	if c.BatchSize == 0 {
		c.BatchSize = 64
	}
	if c.Patience == 0 {
		c.Patience = 1
	}
	if c.Optim.LR == 0 {
		c.Optim.LR = 3e-5
	}
	if c.ValidFraction == 0 {
		c.ValidFraction = FinetuneValidFraction
	}
	if c.Seed == 0 {
		c.Seed = 1
	}
	if c.Check == "" {
		c.Check = CheckZLL
	}
	if c.CheckSE == 0 {
		c.CheckSE = 2
	}
	return c
}

// withDefaults is WithDefaults and the checks of the fields that Finetune
// reads itself.
func (c FinetuneConfig) withDefaults() (FinetuneConfig, error) {
	c = c.WithDefaults()
	if math.IsNaN(c.CheckSE) || math.IsInf(c.CheckSE, 0) {
		return c, errors.Errorf("wfa: fine-tuning check's standard errors %g, want a finite number", c.CheckSE)
	}
	if c.Check != CheckZLL && c.Check != CheckNone {
		return c, errors.Errorf("wfa: fine-tuning check %q, want %q or %q", c.Check, CheckZLL, CheckNone)
	}
	return c, nil
}

// FinetuneValidFraction is Finetune's default share of validation strings.
const FinetuneValidFraction = 0.1

// FinetuneSplit splits seqs into training and validation strings as
// Finetune does: a share validFraction of them, drawn from seed, held out.
// It fails when either part is empty.
func FinetuneSplit(seqs [][]int, validFraction float64, seed uint64) (train, valid [][]int, err error) {
	tr, va, _, err := datasets.Split(len(seqs), validFraction, 0, rand.New(rand.NewPCG(seed, 1)))
	if err != nil {
		return nil, nil, err
	}
	if len(tr) == 0 || len(va) == 0 {
		return nil, nil, errors.Errorf("wfa: %d strings are too few for a validation share of %g", len(seqs), validFraction)
	}
	return pick(seqs, tr), pick(seqs, va), nil
}

// Values of FinetuneConfig.Check.
const (
	CheckZLL  = "zll"
	CheckNone = "none"
)

// FinetuneReport describes a Finetune run.
type FinetuneReport struct {
	// Result is the Trainer's summary.
	Result *optim.Result
	// InitialValid and BestValid are the validation losses
	// (Likelihood.ValidationLoss, nats per string) of the start and of the
	// best parameters training reached, which are returned unless the
	// check keeps the start.
	InitialValid, BestValid float64
	// StartZLL and BestZLL are EvalSet.ZLL on the validation strings (the
	// floor rule's log-loss over the mass) of the start and of the best
	// parameters; the start is returned when BestZLL is the larger.
	// StartLOO and BestLOO are EvalSet.LOO of the same (floored values
	// normalised over the distinct validation strings, each weighted by
	// its count minus one: the frequent strings), reported only.
	StartZLL, BestZLL, StartLOO, BestLOO float64
	// StartAllZLL and BestAllZLL are EvalSet.ZLL of the same on all the
	// strings Finetune was given (the training part included). AllZ is
	// StartAllZLL - BestAllZLL over the standard error of that mean of
	// per-string gains (NaN when the start or the best parameters have no
	// finite positive mass); the start is also returned when AllZ is below
	// FinetuneConfig.CheckSE.
	StartAllZLL, BestAllZLL, AllZ float64
	// Diverged reports that training stopped at a step that left the
	// normalisable region or whose loss was otherwise not finite or too
	// large (optim.IsDiverged); the best parameters validated before it
	// are the fine-tuned ones.
	Diverged bool
	// KeptStart reports that the start's parameters were returned: no
	// epoch improved on its validation loss, or the check kept it.
	KeptStart bool
	// Stopped explains a divergence, or why the check kept the start (""
	// otherwise).
	Stopped string
}

// DivergedError is Finetune's error when training diverged (see
// optim.IsDiverged) before any epoch improved on the start's validation
// loss: there are no fine-tuned parameters to return, and a lower
// learning rate may give some.
type DivergedError struct {
	// Err is the Trainer's error, an *optim.NonFiniteError or an
	// *optim.DivergedError.
	Err error
}

// Error names the divergence.
func (e *DivergedError) Error() string {
	return "wfa: fine-tuning diverged before any epoch improved on the start (" + e.Err.Error() + ")"
}

// Unwrap returns the Trainer's error.
func (e *DivergedError) Unwrap() error { return e.Err }

// Finetune trains the model's WFA, as a linear 2-RNN, on the
// log-likelihood of the strings of s (see Likelihood), with the
// validation split used for early stopping, and returns the automaton of
// the best validation loss, or the start when that automaton is worse
// under the floor rule the model is scored by (EvalSet.ZLL) on the
// validation strings, or better on all the strings of s by less than
// cfg.CheckSE standard errors: never worse than the start under that
// figure on either (unless cfg.Check is CheckNone).
//
// Training stops at a step that leaves the normalisable region (an
// infinite loss) or diverges otherwise; the best parameters validated
// before it are then the fine-tuned ones (FinetuneReport.Diverged). When
// no epoch improved on the start before the divergence, there are none:
// Finetune returns a *DivergedError, with the report of the training so
// far (its floor-rule figures are not computed).
//
// The returned model is marked Finetuned when its parameters are the
// fine-tuned ones; when the start is returned (FinetuneReport.KeptStart)
// it keeps the start's mark.
func Finetune(m *Model, s datasets.Symbols, cfg FinetuneConfig) (*Model, *FinetuneReport, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, nil, err
	}
	if m == nil {
		return nil, nil, errors.New("wfa: fine-tuning a nil model")
	}
	seqs, err := m.Encode(s)
	if err != nil {
		return nil, nil, err
	}
	opt, err := optim.New(cfg.Optimizer, cfg.Optim)
	if err != nil {
		return nil, nil, err
	}
	train, valid, err := FinetuneSplit(seqs, cfg.ValidFraction, cfg.Seed)
	if err != nil {
		return nil, nil, err
	}
	p, err := NewLikelihood(m.WFA, train, valid)
	if err != nil {
		return nil, nil, err
	}
	rep := &FinetuneReport{}
	if rep.InitialValid, err = p.ValidationLoss(); err != nil {
		return nil, nil, err
	}
	if !(rep.InitialValid < math.Inf(1)) {
		return nil, nil, errors.New("wfa: the automaton is not normalisable (spectral radius of sum_s A_s >= 1 or mass <= 0); fine-tuning needs a distribution")
	}
	t, err := newFinetuneTrainer(p, opt, m.WFA, seqs, cfg)
	if err != nil {
		return nil, nil, err
	}
	rep.Result, err = t.Run()
	if optim.IsDiverged(err) {
		rep.Diverged, rep.Stopped = true, err.Error()
	} else if err != nil {
		return nil, nil, err
	}
	rep.BestValid = p.bestLoss
	improved := rep.BestValid < rep.InitialValid // else the best parameters are the start's
	if rep.Diverged && !improved {
		return nil, rep, &DivergedError{Err: err}
	}
	if rep.Diverged {
		rep.Stopped += fmt.Sprintf("; the best parameters before it are epoch %d's", rep.Result.BestEpoch)
	}
	best := p.Best()
	// The model is scored by its floored values normalised over the test
	// strings; the likelihood trained above reads the prefixes' negative
	// next-symbol weights by their absolute values and normalises by the
	// mass, so it can improve while the floored values get worse. Keep the
	// start unless the best parameters also do at least as well under the
	// floor rule (EvalSet.ZLL) on the validation strings, and better on
	// all the strings by CheckSE standard errors: a frequent string sent
	// to the floor costs some 20 nats per occurrence, the validation part
	// alone can miss it, and gains within the noise of the per-string
	// differences go either way on the test.
	rep.StartZLL, rep.BestZLL = p.valid.ZLL(m.WFA), p.valid.ZLL(best)
	rep.StartLOO, rep.BestLOO = p.valid.LOO(m.WFA), p.valid.LOO(best)
	all := NewEvalSet(seqs)
	rep.StartAllZLL, rep.BestAllZLL, rep.AllZ = all.compareZLL(m.WFA, best)
	rep.KeptStart = !improved
	if cfg.Check == CheckZLL && improved && !(rep.BestZLL <= rep.StartZLL && rep.AllZ >= max(cfg.CheckSE, 0)) {
		kept := "fine-tuned automaton worse on validation under the floor rule; the start is kept"
		if rep.BestZLL <= rep.StartZLL {
			kept = fmt.Sprintf("fine-tuned automaton's gain on all the strings under the floor rule is %.3g standard errors, below %g; the start is kept", rep.AllZ, max(cfg.CheckSE, 0))
		}
		if rep.Stopped != "" {
			kept = rep.Stopped + "; " + kept
		}
		rep.Stopped = kept
		rep.KeptStart = true
	}
	if rep.KeptStart {
		best = m.WFA
	}
	out := &Model{WFA: best, Alphabet: slices.Clone(m.Alphabet), Spec: m.Spec, Components: slices.Clone(m.Components),
		Finetuned: m.Finetuned || !rep.KeptStart}
	return out, rep, nil
}

// finetuneMeta identifies a fine-tuning run in its checkpoints, so that
// Resume refuses a checkpoint of another start, other strings or settings
// that change the steps, naming the first field that differs.
type finetuneMeta struct {
	Start         string       `json:"start_model_sha256"`
	Strings       string       `json:"strings_sha256"`
	ValidFraction float64      `json:"valid_fraction"`
	Seed          uint64       `json:"seed"`
	BatchSize     int          `json:"batch_size"`
	Patience      int          `json:"patience"`
	Optimizer     string       `json:"optimizer"`
	Optim         optim.Config `json:"optim"`
}

// newFinetuneTrainer returns the Trainer of Finetune on p, which starts
// from the automaton start and holds the strings seqs (cfg with its
// defaults), resumed from cfg.Resume when it is set.
func newFinetuneTrainer(p *Likelihood, opt optim.Optimizer, start spectral.WFA, seqs [][]int, cfg FinetuneConfig) (*optim.Trainer, error) {
	tc := cfg.Train
	tc.Epochs, tc.BatchSize, tc.Seed, tc.Patience = cfg.Epochs, cfg.BatchSize, cfg.Seed, cfg.Patience
	tc.MaxDrops, tc.RestoreOnDrop, tc.ResetOnDrop = 3, true, true
	if cfg.Resume != "" && tc.CheckpointPath == "" {
		tc.CheckpointPath = cfg.Resume
	}
	tc.Meta = finetuneMeta{Start: wfaDigest(start), Strings: stringsDigest(seqs), ValidFraction: cfg.ValidFraction,
		Seed: cfg.Seed, BatchSize: cfg.BatchSize, Patience: cfg.Patience, Optimizer: cfg.Optimizer, Optim: cfg.Optim}
	t, err := optim.NewTrainer(p, opt, tc)
	if err != nil || cfg.Resume == "" {
		return t, err
	}
	if err := t.Resume(cfg.Resume); err != nil {
		return nil, err
	}
	return t, p.resumeBest(cfg.Resume)
}

// resumeBest sets the best parameters and validation loss from the
// training checkpoint at path, which optim.Trainer.Resume has accepted:
// its "best" set and the "best_valid" scalar of its "trainer" set. The
// Trainer keeps its own copy, which it hands back at the end of a run but
// not after a divergence, when Finetune returns these.
func (l *Likelihood) resumeBest(path string) error {
	sets, err := params.LoadNPZ(path, nil)
	if err != nil {
		return err
	}
	best, tr := sets["best"], sets["trainer"]
	if best == nil || tr == nil || len(tr.Data("best_valid")) != 1 {
		return errors.Errorf("wfa: checkpoint %s has no best parameters and validation loss", path)
	}
	l.best = l.params.Clone()
	if err := l.best.CopyFrom(best); err != nil {
		return errors.Wrapf(err, "wfa: checkpoint %s", path)
	}
	l.bestLoss = tr.Data("best_valid")[0]
	return nil
}

// digestLen is the number of hexadecimal digits of the SHA-256 digests
// that identify a start automaton and a sample in checkpoints.
const digestLen = 16

// wfaDigest identifies w by the SHA-256 of its sizes and weights.
func wfaDigest(w spectral.WFA) string {
	h := newDigest()
	h.put(uint64(w.States), uint64(len(w.Trans)), uint64(w.Out))
	h.putFloats(w.Alpha)
	for _, a := range w.Trans {
		h.putFloats(a)
	}
	h.putFloats(w.Omega)
	return h.String()
}

// stringsDigest identifies a sample, in order, by the SHA-256 of its
// strings' lengths and symbols.
func stringsDigest(seqs [][]int) string {
	h := newDigest()
	h.put(uint64(len(seqs)))
	for _, x := range seqs {
		h.put(uint64(len(x)))
		for _, v := range x {
			h.put(uint64(v))
		}
	}
	return h.String()
}

// digest hashes 64-bit words, little-endian.
type digest struct{ h hash.Hash }

func newDigest() digest { return digest{sha256.New()} }

func (d digest) put(vs ...uint64) {
	var b [8]byte
	for _, v := range vs {
		binary.LittleEndian.PutUint64(b[:], v)
		d.h.Write(b[:])
	}
}

func (d digest) putFloats(vs []float64) {
	for _, v := range vs {
		d.put(math.Float64bits(v))
	}
}

// String is the first digestLen hexadecimal digits of the digest.
func (d digest) String() string { return hex.EncodeToString(d.h.Sum(nil))[:digestLen] }
