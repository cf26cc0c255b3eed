package datasets

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/pkg/errors"
)

// Part says which part of a split a sequence belongs to.
type Part int

// The parts of a split.
const (
	// PartTrain marks a training sequence.
	PartTrain Part = iota
	// PartValid marks a validation sequence.
	PartValid
	// PartTest marks a test sequence.
	PartTest
)

var partNames = [...]string{"train", "valid", "test"}

// String returns "train", "valid" or "test".
func (p Part) String() string {
	if p < 0 || int(p) >= len(partNames) {
		return fmt.Sprintf("Part(%d)", int(p))
	}
	return partNames[p]
}

// ParsePart is the inverse of Part.String.
func ParsePart(s string) (Part, error) {
	if i := slices.Index(partNames[:], s); i >= 0 {
		return Part(i), nil
	}
	return 0, errors.Errorf("datasets: unknown split part %q (want train, valid or test)", s)
}

// IOData holds N input/output sequences of any lengths: sequence i is
// T_i steps of d inputs and one output in R^p, the value of the target
// function on the whole sequence (the 2-RNN spectral paper's regression
// setting, Section 4.2, with mixed lengths). It is what the sequence-data
// files (.npz and .csv, see ReadIOData) hold.
type IOData struct {
	// In and Out are d and p.
	In, Out int
	// X[i] holds the T_i*In inputs of sequence i, step-major: input c of
	// step t is X[i][t*In+c].
	X [][]float64
	// Y holds N*Out outputs: output o of sequence i is Y[i*Out+o].
	Y []float64
	// Split, if not nil, assigns each sequence to a part (the file's own
	// split); nil means the file has none (see SplitParts).
	Split []Part
}

// N is the number of sequences.
func (s IOData) N() int { return len(s.X) }

// Len is the number of steps T_i of sequence i.
func (s IOData) Len(i int) int { return len(s.X[i]) / s.In }

// Lengths returns the sorted distinct sequence lengths and the number of
// sequences of each.
func (s IOData) Lengths() (lengths, counts []int) {
	c := map[int]int{}
	for i := range s.X {
		c[s.Len(i)]++
	}
	for l := range c {
		lengths = append(lengths, l)
	}
	slices.Sort(lengths)
	for _, l := range lengths {
		counts = append(counts, c[l])
	}
	return lengths, counts
}

// Validate checks the sizes (d, p >= 1, at least one sequence, every
// sequence at least one step and a multiple of d values) and that every
// value is finite.
func (s IOData) Validate() error {
	if s.In < 1 || s.Out < 1 {
		return errors.Errorf("datasets: sequence data with d = %d, p = %d, want both >= 1", s.In, s.Out)
	}
	if len(s.X) == 0 || len(s.Y) != len(s.X)*s.Out {
		return errors.Errorf("datasets: sequence data with %d sequences and %d outputs, want at least one sequence and p = %d outputs each", len(s.X), len(s.Y), s.Out)
	}
	if s.Split != nil && len(s.Split) != len(s.X) {
		return errors.Errorf("datasets: sequence data with %d sequences and %d split labels", len(s.X), len(s.Split))
	}
	for i, x := range s.X {
		if len(x) == 0 || len(x)%s.In != 0 {
			return errors.Errorf("datasets: sequence %d has %d inputs, want a positive multiple of d = %d", i, len(x), s.In)
		}
		for j, v := range x {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return errors.Errorf("datasets: sequence %d, step %d, input %d is %g", i, j/s.In, j%s.In, v)
			}
		}
		for o, v := range s.Y[i*s.Out : (i+1)*s.Out] {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return errors.Errorf("datasets: sequence %d, output %d is %g", i, o, v)
			}
		}
		if s.Split != nil && (s.Split[i] < PartTrain || s.Split[i] > PartTest) {
			return errors.Errorf("datasets: sequence %d has split label %d", i, int(s.Split[i]))
		}
	}
	return nil
}

// Subset returns the sequences idx, in that order, without split labels.
// The input slices are shared.
func (s IOData) Subset(idx []int) IOData {
	out := IOData{In: s.In, Out: s.Out, X: make([][]float64, len(idx)), Y: make([]float64, 0, len(idx)*s.Out)}
	for k, i := range idx {
		out.X[k] = s.X[i]
		out.Y = append(out.Y, s.Y[i*s.Out:(i+1)*s.Out]...)
	}
	return out
}

// ByLength groups the sequences by length: one TwoRNNData per distinct
// length, in increasing order of length, each keeping the sequences'
// order in s.
func (s IOData) ByLength() []TwoRNNData {
	lengths, _ := s.Lengths()
	out := make([]TwoRNNData, len(lengths))
	for k, l := range lengths {
		out[k] = TwoRNNData{Len: l, In: s.In, Out: s.Out}
	}
	for i, x := range s.X {
		k, _ := slices.BinarySearch(lengths, s.Len(i))
		out[k].X = append(out[k].X, x...)
		out[k].Y = append(out[k].Y, s.Y[i*s.Out:(i+1)*s.Out]...)
	}
	return out
}

// IODataFrom concatenates fixed-length sets into one IOData, labelling
// every sequence of set k with parts[k] (parts may be nil: no labels).
func IODataFrom(sets []TwoRNNData, parts []Part) (IOData, error) {
	if len(sets) == 0 || (parts != nil && len(parts) != len(sets)) {
		return IOData{}, errors.Errorf("datasets: %d sets with %d part labels", len(sets), len(parts))
	}
	out := IOData{In: sets[0].In, Out: sets[0].Out}
	for k, s := range sets {
		if err := s.Validate(); err != nil {
			return IOData{}, err
		}
		if s.In != out.In || s.Out != out.Out {
			return IOData{}, errors.Errorf("datasets: set %d has d = %d, p = %d, set 0 d = %d, p = %d", k, s.In, s.Out, out.In, out.Out)
		}
		for i := range s.N() {
			out.X = append(out.X, s.Seq(i))
			if parts != nil {
				out.Split = append(out.Split, parts[k])
			}
		}
		out.Y = append(out.Y, s.Y...)
	}
	return out, nil
}

// SplitParts divides s into training, validation and test data. When s
// carries its own split (s.Split), it is used as is and rng and the
// fractions are ignored; otherwise the sequences are split at random by
// Split(N, validFrac, testFrac, rng). Each part keeps the file order. A
// split of another length than the data, or with a label that is not a
// Part, is an error.
func (s IOData) SplitParts(validFrac, testFrac float64, rng *rand.Rand) (train, valid, test IOData, err error) {
	var idx [3][]int
	if s.Split != nil {
		if len(s.Split) != s.N() {
			return IOData{}, IOData{}, IOData{}, errors.Errorf("datasets: %d split labels for %d sequences", len(s.Split), s.N())
		}
		for i, p := range s.Split {
			if p < PartTrain || p > PartTest {
				return IOData{}, IOData{}, IOData{}, errors.Errorf("datasets: sequence %d has split label %d, want train, valid or test", i, p)
			}
			idx[p] = append(idx[p], i)
		}
		if len(idx[PartTrain]) == 0 {
			return IOData{}, IOData{}, IOData{}, errors.New("datasets: the data's own split has no training sequence")
		}
	} else {
		idx[0], idx[1], idx[2], err = Split(s.N(), validFrac, testFrac, rng)
		if err != nil {
			return IOData{}, IOData{}, IOData{}, err
		}
	}
	return s.Subset(idx[0]), s.Subset(idx[1]), s.Subset(idx[2]), nil
}

// OutputVar is the variance of the outputs with one mean per output
// coordinate, as TwoRNNData.OutputVar.
func (s IOData) OutputVar() float64 { return TwoRNNData{Out: s.Out, Y: s.Y}.OutputVar() }
