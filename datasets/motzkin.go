package datasets

import (
	"math/big"
	"math/rand/v2"

	"github.com/pkg/errors"
)

// MotzkinAlphabet is the alphabet of the Motzkin language, in the order of
// the u-MPS paper: symbol 0 opens, 1 is the neutral '&', 2 closes.
var MotzkinAlphabet = []string{"(", "&", ")"}

// Motzkin symbols.
const (
	MotzkinOpen    = 0
	MotzkinNeutral = 1
	MotzkinClose   = 2
)

// MotzkinContains reports whether s is a Motzkin word: its brackets
// balance (the running depth never goes negative and ends at 0), with the
// neutral symbol anywhere.
func MotzkinContains(s []int) bool {
	depth := 0
	for _, c := range s {
		switch c {
		case MotzkinOpen:
			depth++
		case MotzkinClose:
			depth--
			if depth < 0 {
				return false
			}
		case MotzkinNeutral:
		default:
			return false
		}
	}
	return depth == 0
}

// MotzkinCounter counts Motzkin paths exactly: W(m, h) is the number of
// ways to finish a word with m symbols left at depth h,
// W(m, h) = W(m-1, h+1) + W(m-1, h) + W(m-1, h-1), W(0, h) = [h = 0].
// W(n, 0) is the Motzkin number M_n.
type MotzkinCounter struct {
	w [][]*big.Int // w[m][h], h <= m
}

// NewMotzkinCounter tabulates W for words of length up to maxLen.
func NewMotzkinCounter(maxLen int) *MotzkinCounter {
	w := make([][]*big.Int, maxLen+1)
	for m := range w {
		w[m] = make([]*big.Int, m+2)
		for h := range w[m] {
			w[m][h] = new(big.Int)
		}
	}
	w[0][0].SetInt64(1)
	for m := 1; m <= maxLen; m++ {
		for h := 0; h <= m; h++ {
			x := w[m][h]
			if h+1 <= m-1 {
				x.Add(x, w[m-1][h+1])
			}
			if h <= m-1 {
				x.Add(x, w[m-1][h])
			}
			if h >= 1 && h-1 <= m-1 {
				x.Add(x, w[m-1][h-1])
			}
		}
	}
	return &MotzkinCounter{w: w}
}

// count is W(m, h), zero outside the table.
func (c *MotzkinCounter) count(m, h int) *big.Int {
	if h < 0 || m < 0 || m >= len(c.w) || h >= len(c.w[m]) {
		return new(big.Int)
	}
	return c.w[m][h]
}

// Count is the Motzkin number M_n (the number of words of length n).
func (c *MotzkinCounter) Count(n int) *big.Int { return new(big.Int).Set(c.count(n, 0)) }

// Sample draws a Motzkin word of length n uniformly at random, exactly:
// each symbol is chosen with probability proportional to the number of
// words that complete it, drawn as a uniform big integer.
func (c *MotzkinCounter) Sample(n int, rng *rand.Rand) ([]int, error) {
	if n < 0 || n >= len(c.w) {
		return nil, errors.Errorf("datasets: Motzkin length %d outside the counter's range 0..%d", n, len(c.w)-1)
	}
	s := make([]int, 0, n)
	h := 0
	for m := n; m > 0; m-- {
		opts := []struct {
			sym, h int
		}{{MotzkinOpen, h + 1}, {MotzkinNeutral, h}, {MotzkinClose, h - 1}}
		u := uniformBig(c.count(m, h), rng)
		for _, o := range opts {
			k := c.count(m-1, o.h)
			if u.Cmp(k) < 0 {
				s = append(s, o.sym)
				h = o.h
				break
			}
			u.Sub(u, k)
		}
	}
	return s, nil
}

// uniformBig draws uniformly from [0, n), n > 0, by rejection on the
// smallest power of two above n.
func uniformBig(n *big.Int, rng *rand.Rand) *big.Int {
	bits := n.BitLen()
	words := (bits + 63) / 64
	buf := make([]big.Word, 0, words)
	for {
		buf = buf[:0]
		for i := 0; i < words; i++ {
			buf = append(buf, big.Word(rng.Uint64()))
		}
		u := new(big.Int).SetBits(buf)
		u.Rsh(u, uint(words*64-bits))
		if u.Cmp(n) < 0 {
			return u
		}
	}
}

// MotzkinData draws the u-MPS paper's Motzkin training and validation sets:
// nTrain and nValid words of length n, each uniform over the M_n words
// (independent draws, so repeats are possible when M_n is small).
func MotzkinData(n, nTrain, nValid int, rng *rand.Rand) (train, valid [][]int, err error) {
	if n < 1 || nTrain < 1 || nValid < 0 {
		return nil, nil, errors.Errorf("datasets: Motzkin data of length %d with %d training and %d validation words", n, nTrain, nValid)
	}
	c := NewMotzkinCounter(n)
	draw := func(k int) ([][]int, error) {
		out := make([][]int, k)
		for i := range out {
			s, err := c.Sample(n, rng)
			if err != nil {
				return nil, err
			}
			out[i] = s
		}
		return out, nil
	}
	if train, err = draw(nTrain); err != nil {
		return nil, nil, err
	}
	valid, err = draw(nValid)
	return train, valid, err
}
