package runs

import (
	"io"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/pkg/errors"

	"github.com/rtnlab/rtn/datasets"
	"github.com/rtnlab/rtn/layers/umps"
	"github.com/rtnlab/rtn/params"
	"github.com/rtnlab/rtn/wfa"
)

// UMPSSpec configures the training of a u-MPS Born machine (rtn umps
// train). The zero value of every numeric field takes its default
// (WithDefaults): the paper's setting for the built-in languages, those
// of DefaultUMPSFileSpec for a string file (Format set).
type UMPSSpec struct {
	// Data is tomita1..tomita7, tomita3-adjacent, motzkin, or a text file
	// (one string per line, characters as symbols, split 80/20; see
	// Format for the other layouts). If empty, it will be defaulted to
	// tomita4 (without Format: a string file is required).
	Data string
	// Format, if not nil, reads Data as a string file in that format
	// (PAutomaC, SPiCe or whitespace-separated lines), streamed into
	// compact storage (ReadUMPSStrings), with a validation split of
	// ValidFrac drawn by Seed.
	Format *datasets.StringFormat
	// Alphabet fixes the symbols of a Lines file (nil: the sorted tokens
	// of the file); PAutomaC and SPiCe files declare theirs.
	Alphabet []string
	// ValidFrac is the fraction of a file's strings held out for
	// validation. If 0, it will be defaulted to 0.2.
	ValidFrac float64
	// Bond is the bond dimension D, or BondAuto to choose it from a
	// string file with BondRule. If 0, it will be defaulted to 20.
	Bond int
	// BondRule chooses the bond dimension when Bond is BondAuto (the zero
	// value is the rule's defaults).
	BondRule BondRule
	// GrowFrom, if above 0, trains every initialisation first at this
	// bond dimension (below Bond, with the same settings and generator;
	// with Bond = BondAuto, only when the chosen bond is above it),
	// then grows the trained core into Bond (umps.GrowParams: the small
	// model in the top-left block, other entries N(0, GrowNoise^2)) and
	// trains that, without a length-balanced start. GrowAuto takes the
	// bond rule's choice with Bond = BondAuto (BondRule.GrowFrom at the
	// top of its grid, none below) and means none for a fixed Bond. If 0,
	// it will be defaulted to none, or GrowAuto on a string file; Off
	// asks for none.
	GrowFrom int
	// GrowNoise is the standard deviation of the entries a grown core
	// adds. If 0, it will be defaulted to 1e-6 (the near-identity
	// start's noise).
	GrowNoise float64
	// GrowLR is Adam's initial learning rate for the grown model, refused
	// when no model can grow (GrowFrom none, or GrowAuto with a fixed
	// Bond). If 0, it will be defaulted to LR/100: a fresh Adam moves every entry by
	// about the rate at each step, the added ones included however small
	// their gradient, and at LR or LR/10 the grown core leaves the
	// trained model for a validation NLL 2 to 3 nats per string worse
	// and stays there until the first drop restores it (docs/umps.md).
	GrowLR float64
	// NTrain and NValid are the training and validation sizes for the
	// built-in languages. If 0, they will be defaulted to 1,000 each.
	NTrain, NValid int
	// Epochs is the maximum number of epochs. If 0, it will be defaulted
	// to 300. The paper's code caps training at 100 epochs; ours often
	// needs up to about 170 before early stopping ends it (Tomita 4 at
	// D = 20: 85% valid samples of length 16 after 100 epochs, 98.9% at
	// length 30 when early stopping ends it at epoch 163).
	Epochs int
	// Init is the core initialisation (default near-identity); see LR.
	Init umps.Init
	// Norm is the likelihood's normalisation: per length (umps.PerLength,
	// P_n, the paper's; the model then gets the length model of the
	// training lengths, umps.FitLengths) or over all lengths
	// (umps.AllLengths, P_*; the likelihood sees the contracted core
	// umps.ContractCore, whose Z_* exists for every parameter value, and
	// the model file stores it). If nil, it will be defaulted to P_n, or
	// to P_* on a string file.
	Norm *umps.Norm
	// Seed seeds the data, the initialisations and the batches. If Seed
	// is 0, it will be defaulted to 1 (as in every spec of this package).
	Seed uint64
	// Restarts is the number of initialisations trained on the same data;
	// the one with the best validation NLL is kept (the paper keeps the
	// best of five seeds). If Restarts is 0, it will be defaulted to 1.
	Restarts int
	// LR is Adam's initial learning rate. If LR is 0, it will be defaulted
	// to 1e-2 (the paper's) for the near-identity initialisation and to
	// 1e-1 for N(0, 1/D). The near-identity core starts at the uniform
	// model, where the expected gradient on parity data (Tomita 5) is
	// zero (see umps.LengthBalanced); with the paper's shuffled batches it
	// never leaves it (validation NLL 9.25 nats against 8.55, about 50%
	// valid samples). An N(0, 1/D) core at lr 1e-1 sometimes does (Tomita
	// 5, 10K strings, D = 20: 2 of 9 initialisations), at lr 1e-2 or 3e-2
	// it falls back onto the plateau, and it fails on some seeds of Tomita
	// 4 (1K) and Motzkin (10K). BalanceEpochs is the reliable fix.
	LR float64
	// BalanceEpochs, if above 0, trains every restart twice from the same
	// initialisation and keeps the better by validation NLL: as the paper
	// does, and with BalanceEpochs epochs first whose minibatches hold
	// equally many strings of each length (umps.LengthBalanced), at the
	// constant rate LR, after which the paper's training (shuffled
	// batches, early stopping, drops) starts afresh from their best
	// parameters by validation NLL. If BalanceEpochs is 0, it will be
	// defaulted to 5, or to none on a string file; Off trains the first
	// only (the paper's protocol). The balanced start lets Tomita 5 (10K) leave the
	// uniform model the near-identity start sits on, where the paper's
	// batches never do: the parity shows only in the short strings, about
	// 1 in 1,000 of the data, and balanced batches find it within 2 or 3
	// epochs (D = 20, seeds 1-5: validation NLL 8.52-8.59 nats against
	// 9.25, 100% valid samples of length 16). It can also hurt: on Tomita
	// 7 (1K) it ends worse than the paper's batches for 2 seeds of 4
	// (validation NLL 7.35 against 5.65 for one), better for the other 2,
	// and balancing throughout ends Tomita 4 (1K) at 8.8-8.9 nats instead
	// of 8.57 (about 70% valid samples of length 30 instead of 99%): hence
	// both, and validation NLL to choose, as the paper chooses between
	// seeds. Under P_* the balanced epochs train the same core on P_n,
	// which does not depend on its scale, before the P_* training.
	BalanceEpochs int
	// InitNoise, if above 0, replaces the 1e-6 noise of the near-identity
	// start by N(0, InitNoise^2) entries: the near-identity core starts at
	// the uniform model, which small noise leaves only slowly.
	InitNoise float64
	// Warmup is the number of initial epochs that never count towards
	// the patience of early stopping. If Warmup is 0, it will be
	// defaulted to 5 (the paper's).
	Warmup int
	// BatchSize is the number of strings per minibatch. If BatchSize is
	// 0, it will be defaulted to 50 (the paper's).
	BatchSize int
	// Patience is the number of epochs without a better validation NLL
	// after which the learning rate drops (the third plateau stops). If
	// Patience is 0, it will be defaulted to 5 (the paper's).
	Patience int
	// RestoreOnDrop, if true, restarts each lower learning rate from the
	// best parameters so far rather than the current ones. If nil, it
	// will be defaulted to false, or to true on a string file.
	RestoreOnDrop *bool
	// ClipNorm scales each minibatch gradient down to this Euclidean norm
	// when it is larger, before Adam sees it. If 0, it will be defaulted
	// to none, or 0.3 on a string file; Off does not clip.
	ClipNorm float64
	// Out, if not empty, is a directory that receives model.npz,
	// checkpoint.npz and metrics.jsonl (each initialisation's in
	// restartK[-balanced]/ when there are several, and the metrics of
	// the model a run was grown from in grow-from-N/ below its own).
	Out string
	// Progress receives a progress bar (nil: none).
	Progress io.Writer
}

// UMPSReport is the result of TrainUMPS.
type UMPSReport struct {
	Data      string  `json:"task"`
	Bond      int     `json:"bond"`
	NTrain    int     `json:"train"`
	NValid    int     `json:"valid"`
	Epochs    int     `json:"epochs"`
	BestEpoch int     `json:"best_epoch"`
	TrainNLL  float64 `json:"train_nll"`
	ValidNLL  float64 `json:"valid_nll"`
	Seconds   float64 `json:"seconds"`
	// BalanceEpochs is the number of length-balanced epochs the kept
	// model started with (0 or UMPSSpec.BalanceEpochs); Epochs and
	// BestEpoch count them. A grown model has none: the model it was
	// grown from (Grown) had them.
	BalanceEpochs int `json:"balance_epochs"`
	// LengthModel is "fitted" (per-length model with the length model
	// of the training lengths) or "star" (P_*, the model's own).
	LengthModel string `json:"length_model"`
	// ValidNLLAll is -(1/N) sum log P(s) on the validation strings under
	// the distribution over all strings (length model included), nats per
	// string: comparable between P_n and P_* models.
	ValidNLLAll float64 `json:"valid_nll_all"`
	// SpectralRank is the rank of the spectral selection that chose Bond
	// (UMPSSpec.Bond = BondAuto) and BondSeconds its wall time; both are 0
	// for a bond given as a number.
	SpectralRank int     `json:"spectral_rank,omitempty"`
	BondSeconds  float64 `json:"bond_seconds,omitempty"`
	// Grown is the report of the smaller model this one was grown from
	// (UMPSSpec.GrowFrom; nil when it was not): Epochs, BestEpoch and
	// Seconds above count the grown model's training only, so the run
	// took Seconds + Grown.Seconds.
	Grown *UMPSReport `json:"grown_from,omitempty"`
	// Spectral is the spectral automaton of that selection, to compare
	// with the u-MPS (nil when the bond dimension was given).
	Spectral *wfa.Model `json:"-"`
	// Params and Meta are the trained model.
	Params *params.Params `json:"-"`
	Meta   umps.ModelMeta `json:"-"`
}

// UMPSData returns the training and validation strings of a data name and
// the alphabet.
func UMPSData(name string, nTrain, nValid int, rng *rand.Rand) (train, valid [][]int, alphabet []string, err error) {
	switch {
	case name == "motzkin":
		train, valid, err = datasets.MotzkinData(15, nTrain, nValid, rng)
		return train, valid, datasets.MotzkinAlphabet, err
	case strings.HasPrefix(name, "tomita"):
		g, err := parseTomita(name)
		if err != nil {
			return nil, nil, nil, err
		}
		train, valid, err = datasets.TomitaData(g, 15, nTrain, nValid, rng)
		return train, valid, datasets.TomitaAlphabet, err
	}
	syms, err := datasets.LoadTextFile(name, datasets.TextOptions{})
	if err != nil {
		return nil, nil, nil, err
	}
	p := datasets.Shuffle(rng, len(syms.Seqs))
	nt := len(p) * 8 / 10
	if nt < 1 || nt == len(p) {
		return nil, nil, nil, errors.Errorf("%s: %d strings, too few to split 80/20", name, len(p))
	}
	for i, k := range p {
		if i < nt {
			train = append(train, syms.Seqs[k])
		} else {
			valid = append(valid, syms.Seqs[k])
		}
	}
	return train, valid, syms.Alphabet, nil
}

func parseTomita(name string) (datasets.Tomita, error) {
	rest := strings.TrimPrefix(name, "tomita")
	adjacent := strings.HasSuffix(rest, "-adjacent")
	k, err := strconv.Atoi(strings.TrimSuffix(rest, "-adjacent"))
	if err != nil || (adjacent && k != 3) {
		return datasets.Tomita{}, errors.Errorf("unknown data %q (want tomita1..tomita7, tomita3-adjacent, motzkin or a file)", name)
	}
	g, err := datasets.NewTomita(k)
	g.Adjacent = adjacent
	return g, err
}

// Membership returns the exact membership test of a built-in language and
// its alphabet.
func Membership(data string) (func([]int) bool, []string, error) {
	if data == "motzkin" {
		return datasets.MotzkinContains, datasets.MotzkinAlphabet, nil
	}
	g, err := parseTomita(data)
	if err != nil {
		return nil, nil, err
	}
	return g.Contains, datasets.TomitaAlphabet, nil
}

// CheckAlphabet returns an error when a model's alphabet is not the
// task's, so that its symbols would be read as the wrong characters.
func CheckAlphabet(task string, model []string) error {
	_, alpha, err := Membership(task)
	if err != nil {
		return err
	}
	if strings.Join(alpha, "\x00") != strings.Join(model, "\x00") {
		return errors.Errorf("the model's alphabet %q is not the alphabet %q of %s", strings.Join(model, ""), strings.Join(alpha, ""), task)
	}
	return nil
}

// UMPSEval is the result of EvalUMPS: the percentage of sampled strings of
// length Len in the language, and of correct single-symbol completions.
type UMPSEval struct {
	Task              string   `json:"task"`
	Bond              int      `json:"bond"`
	Len               int      `json:"len"`
	Samples           int      `json:"samples"`
	ValidPercent      float64  `json:"valid_percent"`
	CompletionPercent *float64 `json:"completion_percent"`
	Seconds           float64  `json:"seconds,omitempty"`
}

// EvalUMPS samples count strings of length n (R = Sigma^n) and reports the
// percentage in the language of task. For Motzkin it also masks one
// uniformly chosen symbol of count uniformly drawn words of length n and
// draws the missing symbol from the model's conditional distribution
// (R = prefix Sigma suffix, as the paper's Table 3), reporting the
// percentage of completed strings in the language.
func EvalUMPS(m *umps.MPS, task string, n, count int, rng *rand.Rand) (*UMPSEval, error) {
	member, alpha, err := Membership(task)
	if err != nil {
		return nil, err
	}
	if m.Symbols != len(alpha) {
		return nil, errors.Errorf("the model has %d symbols, %s has %d", m.Symbols, task, len(alpha))
	}
	t, err := umps.NewTransfer(m)
	if err != nil {
		return nil, err
	}
	samples, err := t.SampleLength(n, count, rng)
	if err != nil {
		return nil, err
	}
	ok := 0
	for _, s := range samples {
		if member(s) {
			ok++
		}
	}
	ev := &UMPSEval{Task: task, Bond: m.Bond, Len: n, Samples: count, ValidPercent: 100 * float64(ok) / float64(count)}
	if task != "motzkin" || n < 1 {
		return ev, nil
	}
	pc, err := MotzkinCompletion(t.Complete, n, count, rng)
	if err != nil {
		return nil, err
	}
	ev.CompletionPercent = &pc
	return ev, nil
}

// MotzkinCompletion is the percentage of count uniformly drawn Motzkin
// words of length n >= 1, one uniformly chosen symbol masked, that
// complete completes into a word: the missing symbol is drawn from the
// distribution complete(prefix, suffix) returns over the alphabet
// (R = prefix Sigma suffix, the u-MPS paper's Table 3).
func MotzkinCompletion(complete func(prefix, suffix []int) ([]float64, error), n, count int, rng *rand.Rand) (float64, error) {
	if n < 1 {
		return 0, errors.Errorf("completion is evaluated on motzkin words of length >= 1, not %d", n)
	}
	c := datasets.NewMotzkinCounter(n)
	ok := 0
	for i := 0; i < count; i++ {
		w, err := c.Sample(n, rng)
		if err != nil {
			return 0, err
		}
		k := rng.IntN(n)
		dist, err := complete(w[:k], w[k+1:])
		if err != nil {
			return 0, err
		}
		w[k] = drawFrom(dist, rng)
		if datasets.MotzkinContains(w) {
			ok++
		}
	}
	return 100 * float64(ok) / float64(count), nil
}

// drawFrom draws an index from a probability vector.
func drawFrom(dist []float64, rng *rand.Rand) int {
	u, c := rng.Float64(), 0
	for c < len(dist)-1 && u >= dist[c] {
		u -= dist[c]
		c++
	}
	return c
}

// FormatSymbols renders symbols over an alphabet: concatenated when every
// symbol is one character, each in angle brackets otherwise (the numbered
// symbols of PAutomaC files: <1><11><3>), the syntax of the u-MPS regexes
// (umps.CompileRegexSymbols) and of ParseSymbols.
func FormatSymbols(s []int, alphabet []string) string {
	single := singleRunes(alphabet)
	var b strings.Builder
	for _, c := range s {
		if single {
			b.WriteString(alphabet[c])
		} else {
			b.WriteString("<" + alphabet[c] + ">")
		}
	}
	return b.String()
}

// symbolIDs returns 0..n-1.
func symbolIDs(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

// singleRunes reports whether every symbol of alphabet is one character.
func singleRunes(alphabet []string) bool {
	for _, a := range alphabet {
		if len([]rune(a)) != 1 {
			return false
		}
	}
	return true
}

// ParseSymbols reads a string over an alphabet: one symbol per character
// when every symbol is one character (spaces skipped unless the space is
// a symbol), else symbols in angle brackets as FormatSymbols writes them
// (<1><11>, spaces between them ignored) or separated by spaces (1 11).
func ParseSymbols(s string, alphabet []string) ([]int, error) {
	tokens := strings.Fields(s)
	if !singleRunes(alphabet) && strings.Contains(s, "<") {
		var err error
		if tokens, err = bracketTokens(s); err != nil {
			return nil, err
		}
	}
	if singleRunes(alphabet) {
		spaced := slices.Contains(alphabet, " ")
		tokens = tokens[:0]
		for _, r := range s {
			if spaced || r != ' ' {
				tokens = append(tokens, string(r))
			}
		}
	}
	var out []int
	for i, tok := range tokens {
		k := slices.Index(alphabet, tok)
		if k < 0 {
			var sym any = tok
			if r := []rune(tok); len(r) == 1 {
				sym = r[0]
			}
			return nil, errors.Errorf("symbol %q at position %d is not in the alphabet %q", sym, i, FormatSymbols(symbolIDs(len(alphabet)), alphabet))
		}
		out = append(out, k)
	}
	return out, nil
}

// bracketTokens splits "<a> <b><c>" into a, b, c.
func bracketTokens(s string) ([]string, error) {
	var out []string
	for i := 0; i < len(s); {
		switch {
		case s[i] == ' ':
			i++
		case s[i] == '<':
			end := strings.IndexByte(s[i:], '>')
			if end < 0 {
				return nil, errors.Errorf("'<' at offset %d is not closed by '>'", i)
			}
			out = append(out, s[i+1:i+end])
			i += end + 1
		default:
			return nil, errors.Errorf("%q at offset %d is outside angle brackets: write each symbol as <name>, or separate them by spaces", s[i], i)
		}
	}
	return out, nil
}
