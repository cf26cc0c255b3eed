package datasets

import (
	"math"
	"math/rand/v2"
	"strings"

	"github.com/pkg/errors"
)

// Stream is one long symbol sequence, the setting of the Riemannian
// (PCNN) paper: a model is trained on one stream and scored on another
// drawn independently from the same generator.
type Stream struct {
	// Alphabet names the symbols (one character each); X holds ids into it.
	Alphabet []string
	X        []int
	// Mask[t] says whether X[t] is to be predicted (chi_t of eq. 14);
	// nil means every symbol is.
	Mask []bool
	// LogLik is the exact log-probability, in nats, of the predicted
	// symbols given their past under the generating process:
	// sum_t chi_t log P(x_t | x_0..x_{t-1}).
	LogLik float64
}

// TrueBits is the number of bits the generating process needs to code the
// predicted symbols, -LogLik / ln 2.
func (s Stream) TrueBits() float64 { return -s.LogLik / math.Ln2 }

// String renders the stream as text.
func (s Stream) String() string {
	var b strings.Builder
	for _, x := range s.X {
		b.WriteString(s.Alphabet[x])
	}
	return b.String()
}

// RegretBits is the cumulative regret of a model on a stream (section 4):
// the bits modelBits it spends on the predicted symbols minus the bits
// the true generating process spends.
func (s Stream) RegretBits(modelBits float64) float64 { return modelBits - s.TrueBits() }

// RegularizedProb is the paper's regularised prediction (section 4,
// "Regularization"): the model's probability p of the observed symbol at
// position t is replaced by (1 - 1/(t+2)) p + 1/(t+2) / alphabetSize.
func RegularizedProb(p float64, t, alphabetSize int) float64 {
	e := 1 / float64(t+2)
	return (1-e)*p + e/float64(alphabetSize)
}

// chooser makes the random decisions of a generator: pick returns an
// index into p (probabilities summing to 1).
type chooser interface {
	pick(p []float64) int
}

// rngChooser draws decisions from a generator.
type rngChooser struct{ rng *rand.Rand }

func (c rngChooser) pick(p []float64) int {
	u := c.rng.Float64()
	for k, pk := range p {
		if u < pk {
			return k
		}
		u -= pk
	}
	return len(p) - 1
}

// streamBuilder writes a stream and accumulates the log-probability of
// the decisions taken (path).
type streamBuilder struct {
	c     chooser
	index map[rune]int
	s     Stream
	path  float64 // log-probability of the decisions taken, nats
}

func newStreamBuilder(c chooser, alphabet string) *streamBuilder {
	b := &streamBuilder{c: c, index: map[rune]int{}}
	for _, r := range alphabet {
		b.index[r] = len(b.s.Alphabet)
		b.s.Alphabet = append(b.s.Alphabet, string(r))
	}
	return b
}

// emit appends the symbols of text.
func (b *streamBuilder) emit(text string) {
	for _, r := range text {
		b.s.X = append(b.s.X, b.index[r])
	}
}

// pick makes a decision with probabilities p and records its log-probability.
func (b *streamBuilder) pick(p []float64) int {
	k := b.c.pick(p)
	b.path += math.Log(p[k])
	return k
}

// bernoulli is pick([1-q, q]) == 1.
func (b *streamBuilder) bernoulli(q float64) bool { return b.pick([]float64{1 - q, q}) == 1 }

// uniform picks among n equally likely values.
func (b *streamBuilder) uniform(n int) int {
	p := make([]float64, n)
	for k := range p {
		p[k] = 1 / float64(n)
	}
	return b.pick(p)
}

func checkRng(rng *rand.Rand) error {
	if rng == nil {
		return errors.New("datasets: the generator needs a *rand.Rand")
	}
	return nil
}
