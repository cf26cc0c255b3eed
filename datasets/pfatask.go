package datasets

import (
	"math"
	"math/rand/v2"

	"github.com/pkg/errors"
)

// PFAConfig configures PFATask. The zero value is the built-in task of
// `rtn train`.
type PFAConfig struct {
	// Name is the task name. If Name is "", it defaults to "pfa".
	Name string
	// States is the number of automaton states Q. If States is 0, it
	// defaults to 4.
	States int
	// Symbols is the alphabet size V. If Symbols is 0, it defaults to 4.
	Symbols int
	// Concentration is the Dirichlet parameter of each state's emission
	// distribution; smaller is peakier. If Concentration is 0, it
	// defaults to 0.3.
	Concentration float64
	// Smoothing is the weight of the uniform distribution mixed into each
	// emission row (so no probability is below Smoothing/V). If Smoothing
	// is 0, it defaults to 0.05; a negative value means no smoothing.
	Smoothing float64
	// MinLen and MaxLen bound the sequence lengths, drawn uniformly from
	// [MinLen, MaxLen]. If MinLen is 0, it defaults to 20; if MaxLen is 0,
	// it defaults to max(40, MinLen).
	MinLen, MaxLen int
	// Train, Valid and Test are the numbers of sequences in each split.
	// If Train is 0, it defaults to 512; if Valid is 0, to 128; if Test is
	// 0, to 128. A negative Valid or Test means an empty split.
	Train, Valid, Test int
}

// WithDefaults returns c with its zero fields set to their defaults.
func (c PFAConfig) WithDefaults() PFAConfig {
	def := func(x *int, d int) {
		if *x == 0 {
			*x = d
		}
	}
	if c.Name == "" {
		c.Name = "pfa"
	}
	def(&c.States, 4)
	def(&c.Symbols, 4)
	if c.Concentration == 0 {
		c.Concentration = 0.3
	}
	switch {
	case c.Smoothing == 0:
		c.Smoothing = 0.05
	case c.Smoothing < 0:
		c.Smoothing = 0
	}
	def(&c.MinLen, 20)
	def(&c.MaxLen, max(40, c.MinLen))
	def(&c.Train, 512)
	def(&c.Valid, 128)
	def(&c.Test, 128)
	c.Valid, c.Test = max(c.Valid, 0), max(c.Test, 0)
	return c
}

// PFATask draws a random automaton with RandomPDFA and builds a
// next-symbol task on its samples: each sequence has a length drawn
// uniformly from [MinLen, MaxLen] and symbols sampled from the automaton's
// start state; Train, Valid and Test sequences are drawn in that order.
// The examples follow the BOS convention of SymbolExamples (In = V+1,
// Out = V, every symbol is a target). Task.OptimalLoss is the automaton's
// exact NLL per symbol on Valid in nats (NaN if Valid is empty); compare
// it with PDFA.EntropyRate, the long-sequence limit, and with log V, the
// uniform predictor's loss.
func PFATask(cfg PFAConfig, rng *rand.Rand) (*Task, *PDFA, error) {
	c := cfg.WithDefaults()
	if c.States < 1 || c.Symbols < 1 || c.MinLen < 1 || c.MaxLen < c.MinLen || c.Train < 1 {
		return nil, nil, errors.Errorf("datasets: PFAConfig with States %d, Symbols %d, MinLen %d, MaxLen %d, Train %d: want States, Symbols, MinLen, Train >= 1 and MaxLen >= MinLen",
			c.States, c.Symbols, c.MinLen, c.MaxLen, c.Train)
	}
	a, err := RandomPDFA(c.States, c.Symbols, c.Concentration, c.Smoothing, rng)
	if err != nil {
		return nil, nil, err
	}
	draw := func(n int) Symbols {
		s := Symbols{Alphabet: a.Alphabet, Seqs: make([][]int, n)}
		for i := range s.Seqs {
			s.Seqs[i] = a.Sample(rng, c.MinLen+rng.IntN(c.MaxLen-c.MinLen+1))
		}
		return s
	}
	train, valid, test := draw(c.Train), draw(c.Valid), draw(c.Test)
	t := &Task{Name: c.Name, In: c.Symbols + 1, Out: c.Symbols, Kind: Categorical,
		Symbols: append([]string(nil), a.Alphabet...)}
	for _, p := range []struct {
		s   Symbols
		dst *[]Example
	}{{train, &t.Train}, {valid, &t.Valid}, {test, &t.Test}} {
		if *p.dst, err = SymbolExamples(p.s); err != nil {
			return nil, nil, err
		}
	}
	t.OptimalLoss = math.NaN()
	if len(valid.Seqs) > 0 {
		if t.OptimalLoss, err = a.NLL(valid.Seqs); err != nil {
			return nil, nil, err
		}
	}
	return t, a, nil
}
