package datasets

import (
	"math"
	"strings"

	"github.com/pkg/errors"
)

// Symbols is a collection of discrete symbol sequences over one alphabet.
// Seqs[i][t] is the id of step t of sequence i, an index into Alphabet.
type Symbols struct {
	// Alphabet names the symbols; its length V is the number of symbols.
	Alphabet []string
	// Seqs holds the sequences as symbol ids in [0, V).
	Seqs [][]int
}

// Validate reports the first problem found: an empty or duplicated
// alphabet, an empty sequence, or an id out of range.
func (s Symbols) Validate() error {
	if err := checkAlphabet(s.Alphabet); err != nil {
		return err
	}
	v := len(s.Alphabet)
	for i, seq := range s.Seqs {
		if len(seq) == 0 {
			return errors.Errorf("datasets: symbol sequence %d is empty", i)
		}
		for t, id := range seq {
			if id < 0 || id >= v {
				return errors.Errorf("datasets: symbol sequence %d step %d: id %d out of range [0, %d)", i, t, id, v)
			}
		}
	}
	return nil
}

// Len is the number of sequences.
func (s Symbols) Len() int { return len(s.Seqs) }

// Lengths returns the length of every sequence.
func (s Symbols) Lengths() []int {
	l := make([]int, len(s.Seqs))
	for i, seq := range s.Seqs {
		l[i] = len(seq)
	}
	return l
}

// Format writes sequence seq with its symbol names joined by sep; an id
// out of range is written as "?".
func (s Symbols) Format(seq []int, sep string) string {
	parts := make([]string, len(seq))
	for t, id := range seq {
		if id >= 0 && id < len(s.Alphabet) {
			parts[t] = s.Alphabet[id]
		} else {
			parts[t] = "?"
		}
	}
	return strings.Join(parts, sep)
}

// checkAlphabet rejects an empty alphabet and duplicated names.
func checkAlphabet(alpha []string) error {
	if len(alpha) == 0 {
		return errors.Errorf("datasets: empty alphabet")
	}
	seen := make(map[string]int, len(alpha))
	for i, a := range alpha {
		if j, ok := seen[a]; ok {
			return errors.Errorf("datasets: alphabet entries %d and %d are both %q", j, i, a)
		}
		seen[a] = i
	}
	return nil
}

// Vectors is a collection of real vector sequences of one width. Seqs[i]
// holds T_i*Dim values, step-major: step t is Seqs[i][t*Dim:(t+1)*Dim].
type Vectors struct {
	// Dim is the width of every step.
	Dim int
	// Seqs holds the flattened sequences.
	Seqs [][]float64
}

// Validate reports the first problem found: Dim < 1, a sequence that is
// empty or whose length is not a multiple of Dim, or a value that is not
// finite.
func (v Vectors) Validate() error {
	return checkFlat("vector", v.Dim, v.Seqs, func(x float64) bool {
		return !math.IsNaN(x) && !math.IsInf(x, 0)
	}, "not finite")
}

// Len is the number of sequences.
func (v Vectors) Len() int { return len(v.Seqs) }

// Steps is the length T of sequence i.
func (v Vectors) Steps(i int) int { return len(v.Seqs[i]) / v.Dim }

// Step returns step t of sequence i (a view, Dim values).
func (v Vectors) Step(i, t int) []float64 { return v.Seqs[i][t*v.Dim : (t+1)*v.Dim] }

// Frames is a collection of binary frame sequences, such as piano rolls:
// sequence i is a T_i x Width 0/1 matrix stored row-major (step-major),
// so frame t is Seqs[i][t*Width:(t+1)*Width] and Seqs[i][t*Width+k] = 1
// when unit (key) k is on at step t.
type Frames struct {
	// Width is the number of units per frame (88 keys for a piano roll).
	Width int
	// Seqs holds the flattened sequences.
	Seqs [][]float64
}

// Validate reports the first problem found: Width < 1, a sequence that is
// empty or whose length is not a multiple of Width, or a value other than
// 0 or 1.
func (f Frames) Validate() error {
	return checkFlat("frame", f.Width, f.Seqs, func(x float64) bool { return x == 0 || x == 1 }, "not 0 or 1")
}

// Len is the number of sequences.
func (f Frames) Len() int { return len(f.Seqs) }

// Steps is the number of frames T of sequence i.
func (f Frames) Steps(i int) int { return len(f.Seqs[i]) / f.Width }

// Frame returns frame t of sequence i (a view, Width values).
func (f Frames) Frame(i, t int) []float64 { return f.Seqs[i][t*f.Width : (t+1)*f.Width] }

// checkFlat validates flattened step-major sequences of width w whose
// values must satisfy ok.
func checkFlat(kind string, w int, seqs [][]float64, ok func(float64) bool, bad string) error {
	if w < 1 {
		return errors.Errorf("datasets: %s width %d, want >= 1", kind, w)
	}
	for i, seq := range seqs {
		if len(seq) == 0 {
			return errors.Errorf("datasets: %s sequence %d is empty", kind, i)
		}
		if len(seq)%w != 0 {
			return errors.Errorf("datasets: %s sequence %d has %d values, not a multiple of width %d", kind, i, len(seq), w)
		}
		for j, x := range seq {
			if !ok(x) {
				return errors.Errorf("datasets: %s sequence %d step %d unit %d: value %g %s", kind, i, j/w, j%w, x, bad)
			}
		}
	}
	return nil
}
