package datasets

import (
	"math/rand/v2"
	"strings"

	"github.com/pkg/errors"
)

// AlphabetConfig sets the alphabet-with-insertions generator (Example 1 and
// section 4 of the Riemannian paper). The zero value is the paper's.
type AlphabetConfig struct {
	// Lines is the number of lines. If 0, it will be defaulted to 1000.
	Lines int
	// Letters is the length of the main sequence (a, b, ...). If 0, it
	// will be defaulted to 26.
	Letters int
	// Digits is the length of a sub-block (0, 1, ...). If 0, 10.
	Digits int
	// Capitals is the number of random capitals in a sub-sub-block. If 0, 9.
	Capitals int
	// CapitalAlphabet is how many capitals (A, B, ...) they are drawn
	// from, uniformly. If 0, 26.
	CapitalAlphabet int
	// PSub is the probability of a sub-block after each letter. If 0, 1/26.
	PSub float64
	// PSubSub is the probability of a sub-sub-block after each digit. If 0, 1/5.
	PSubSub float64
}

func (c AlphabetConfig) withDefaults() (AlphabetConfig, error) {
	def := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	def(&c.Lines, 1000)
	def(&c.Letters, 26)
	def(&c.Digits, 10)
	def(&c.Capitals, 9)
	def(&c.CapitalAlphabet, 26)
	if c.PSub == 0 {
		c.PSub = 1.0 / 26
	}
	if c.PSubSub == 0 {
		c.PSubSub = 1.0 / 5
	}
	switch {
	case c.Lines < 1:
		return c, errors.Errorf("datasets: alphabet Lines must be >= 1, got %d", c.Lines)
	case c.Letters < 1 || c.Letters > 26:
		return c, errors.Errorf("datasets: alphabet Letters must be in [1, 26], got %d", c.Letters)
	case c.Digits < 1 || c.Digits > 10:
		return c, errors.Errorf("datasets: alphabet Digits must be in [1, 10], got %d", c.Digits)
	case c.Capitals < 1:
		return c, errors.Errorf("datasets: alphabet Capitals must be >= 1, got %d", c.Capitals)
	case c.CapitalAlphabet < 1 || c.CapitalAlphabet > 26:
		return c, errors.Errorf("datasets: alphabet CapitalAlphabet must be in [1, 26], got %d", c.CapitalAlphabet)
	case !(c.PSub > 0 && c.PSub < 1) || !(c.PSubSub > 0 && c.PSubSub < 1):
		return c, errors.Errorf("datasets: alphabet PSub and PSubSub must be in (0, 1), got %v and %v", c.PSub, c.PSubSub)
	}
	return c, nil
}

// AlphabetInsertions draws the alphabet-with-insertions stream: each line
// spells the letters in order, with after each letter, with probability
// PSub, a sub-block "(" + digits + ")" in which after each digit, with
// probability PSubSub, a sub-sub-block "[" + Capitals random capitals + "]"
// is inserted; lines end with a newline. Every symbol is predicted.
func AlphabetInsertions(c AlphabetConfig, rng *rand.Rand) (Stream, error) {
	if err := checkRng(rng); err != nil {
		return Stream{}, err
	}
	c, err := c.withDefaults()
	if err != nil {
		return Stream{}, err
	}
	return genAlphabet(c, rngChooser{rng}), nil
}

const (
	lower  = "abcdefghijklmnopqrstuvwxyz"
	upper  = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	digits = "0123456789"
)

func genAlphabet(c AlphabetConfig, ch chooser) Stream {
	b := newStreamBuilder(ch, lower[:c.Letters]+digits[:c.Digits]+upper[:c.CapitalAlphabet]+"()[]\n")
	for range c.Lines {
		for l := range c.Letters {
			b.emit(lower[l : l+1])
			if !b.bernoulli(c.PSub) {
				continue
			}
			b.emit("(")
			for d := range c.Digits {
				b.emit(digits[d : d+1])
				if !b.bernoulli(c.PSubSub) {
					continue
				}
				b.emit("[")
				for range c.Capitals {
					k := b.uniform(c.CapitalAlphabet)
					b.emit(upper[k : k+1])
				}
				b.emit("]")
			}
			b.emit(")")
		}
		b.emit("\n")
	}
	b.s.LogLik = b.path
	return b.s
}

// MusicConfig sets the synthetic-music generator (Example 3).
type MusicConfig struct {
	// Bars is the number of bars. If 0, it will be defaulted to 2700.
	Bars int
}

// musicRhythms are the five waltz rhythms of section 4.
var musicRhythms = [][]string{{"4", "4", "4"}, {"2", "4"}, {"4.", "8", "4"}, {"2."}, {"4", "4", "8", "8"}}

// musicHarmony is the 8-bar cycle I-IV-I-V-I-IV-V-I as chords.
var musicHarmony = []string{"ceg", "cfa", "ceg", "gbd", "ceg", "cfa", "gbd", "ceg"}

// SyntheticMusic draws the synthetic-music stream: bar k uses the chord of
// harmony k mod 8 of I-IV-I-V-I-IV-V-I (I = {c,e,g}, IV = {c,f,a},
// V = {g,b,d}); its rhythm is one of the five waltz rhythms 4-4-4, 2-4,
// 4.-8-4, 2., 4-4-8-8 uniformly, each pitch uniform in the chord. Notes
// are pitch then duration, separated by spaces; a bar ends with " |" and a
// newline. Every symbol is predicted.
func SyntheticMusic(c MusicConfig, rng *rand.Rand) (Stream, error) {
	if err := checkRng(rng); err != nil {
		return Stream{}, err
	}
	if c.Bars == 0 {
		c.Bars = 2700
	}
	if c.Bars < 1 {
		return Stream{}, errors.Errorf("datasets: music Bars must be >= 1, got %d", c.Bars)
	}
	return genMusic(c, rngChooser{rng}), nil
}

func genMusic(c MusicConfig, ch chooser) Stream {
	b := newStreamBuilder(ch, "abcdefg248. |\n")
	for bar := range c.Bars {
		chord := musicHarmony[bar%len(musicHarmony)]
		rhythm := musicRhythms[b.uniform(len(musicRhythms))]
		for k, dur := range rhythm {
			if k > 0 {
				b.emit(" ")
			}
			p := b.uniform(len(chord))
			b.emit(chord[p:p+1] + dur)
		}
		b.emit(" |\n")
	}
	b.s.LogLik = b.path
	return b.s
}

// XORConfig sets the distant-XOR generator (Example 2).
type XORConfig struct {
	// Lines is the number of lines. If 0, it will be defaulted to 10000.
	Lines int
	// T is the base line length. If 0, it will be defaulted to 100.
	T int
}

// DistantXOR draws the distant-XOR stream: each line holds T' random bits,
// T' uniform in [T, 1.1 T), each preceded by a space, except the two at
// positions uniform in [0, T'/10) and [T'/10, T'/2), preceded by "X";
// then "=", the XOR of the two marked bits, and a newline. Only the bit
// after "=" is predicted; the generating process knows it for sure, so
// LogLik is 0.
func DistantXOR(c XORConfig, rng *rand.Rand) (Stream, error) {
	if err := checkRng(rng); err != nil {
		return Stream{}, err
	}
	if c.Lines == 0 {
		c.Lines = 10000
	}
	if c.T == 0 {
		c.T = 100
	}
	if c.Lines < 1 || c.T < 10 {
		return Stream{}, errors.Errorf("datasets: xor needs Lines >= 1 and T >= 10, got %d and %d", c.Lines, c.T)
	}
	return genXOR(c, rngChooser{rng}), nil
}

func genXOR(c XORConfig, ch chooser) Stream {
	b := newStreamBuilder(ch, "01 X=\n")
	span := (11*c.T+9)/10 - c.T // |[T, 1.1T)| = ceil(1.1 T) - T
	for range c.Lines {
		tp := c.T + b.uniform(span)
		lo := tp / 10
		m1 := b.uniform(lo)
		m2 := lo + b.uniform(tp/2-lo)
		var x int
		for k := range tp {
			mark := " "
			if k == m1 || k == m2 {
				mark = "X"
			}
			bit := b.uniform(2)
			if k == m1 || k == m2 {
				x ^= bit
			}
			b.emit(mark + digits[bit:bit+1])
		}
		b.emit("=")
		for len(b.s.Mask) < len(b.s.X) {
			b.s.Mask = append(b.s.Mask, false)
		}
		b.emit(digits[x:x+1] + "\n")
		b.s.Mask = append(b.s.Mask, true, false)
	}
	b.s.LogLik = 0
	return b.s
}

// AnBnConfig sets the a^n b^n generator (Example 4).
type AnBnConfig struct {
	// Blocks is the number of a-blocks (each followed by its b-block). If
	// 0, it will be defaulted to 10.
	Blocks int
	// Min and Max bound n, drawn uniformly in [Min, Max]. If both are 0,
	// they will be defaulted to 1024 and 2048.
	Min, Max int
}

// AnBn draws the a^n b^n stream: Blocks times, n uniform in [Min, Max],
// a line of n "a" then a line of n "b". Every symbol is predicted; the
// true model spends log2(Max-Min+1) bits per a-block and none on b-blocks.
func AnBn(c AnBnConfig, rng *rand.Rand) (Stream, error) {
	if err := checkRng(rng); err != nil {
		return Stream{}, err
	}
	if c.Blocks == 0 {
		c.Blocks = 10
	}
	if c.Min == 0 && c.Max == 0 {
		c.Min, c.Max = 1024, 2048
	}
	if c.Blocks < 1 || c.Min < 1 || c.Max < c.Min {
		return Stream{}, errors.Errorf("datasets: anbn needs Blocks >= 1 and 1 <= Min <= Max, got %d, %d, %d", c.Blocks, c.Min, c.Max)
	}
	return genAnBn(c, rngChooser{rng}), nil
}

func genAnBn(c AnBnConfig, ch chooser) Stream {
	b := newStreamBuilder(ch, "ab\n")
	for range c.Blocks {
		n := c.Min + b.uniform(c.Max-c.Min+1)
		b.emit(strings.Repeat("a", n) + "\n" + strings.Repeat("b", n) + "\n")
	}
	b.s.LogLik = b.path
	return b.s
}
