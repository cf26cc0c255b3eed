package autoenc

import (
	"math"

	"github.com/pkg/errors"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// data is a validated set of sequences of width k with their row offsets
// in Xi: sequence q occupies rows off[q] .. off[q]+len(q)-1, one per step.
type data struct {
	k      int
	seqs   [][]float64
	off    []int
	rows   int // L, the total number of steps
	maxLen int // n, the number of k-wide column blocks of Xi
}

// newData checks that k >= 1 and that every sequence is a non-empty
// multiple of k finite values.
func newData(seqs [][]float64, k int) (*data, error) {
	if k < 1 {
		return nil, errors.Errorf("autoenc: input width k = %d, want >= 1", k)
	}
	if len(seqs) == 0 {
		return nil, errors.Errorf("autoenc: no sequences")
	}
	d := &data{k: k, seqs: seqs, off: make([]int, len(seqs))}
	for q, s := range seqs {
		if len(s) == 0 || len(s)%k != 0 {
			return nil, errors.Errorf("autoenc: sequence %d has %d values, want a positive multiple of k = %d", q, len(s), k)
		}
		for j, x := range s {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return nil, errors.Errorf("autoenc: sequence %d step %d unit %d is %g", q, j/k, j%k, x)
			}
		}
		d.off[q] = d.rows
		d.rows += len(s) / k
		d.maxLen = max(d.maxLen, len(s)/k)
	}
	return d, nil
}

// steps is the length of sequence q.
func (d *data) steps(q int) int { return len(d.seqs[q]) / d.k }

// dense builds Xi, rows x (k * maxLen): row (q, t) holds x_t, x_{t-1},
// ..., x_1 of sequence q followed by zeros (section 2, the stacked
// matrices Xi_a, Xi_b of the paper's example).
func (d *data) dense() *mat.Dense {
	xi := mat.NewDense(d.rows, d.k*d.maxLen, nil)
	for q, s := range d.seqs {
		for t := range d.steps(q) {
			row := xi.RawRowView(d.off[q] + t)
			for i := 0; i <= t; i++ {
				copy(row[i*d.k:(i+1)*d.k], s[(t-i)*d.k:(t-i+1)*d.k])
			}
		}
	}
	return xi
}

// shiftT returns R^T V for the within-sequence shift R of section 2
// ((R M) row (q, t) = M row (q, t-1), zero for t = 0): row (q, t) of R^T V
// is V row (q, t+1), zero at each sequence's last step.
func (d *data) shiftT(v *mat.Dense) *mat.Dense {
	_, c := v.Dims()
	out := mat.NewDense(d.rows, c, nil)
	for q := range d.seqs {
		for t := 0; t+1 < d.steps(q); t++ {
			copy(out.RawRowView(d.off[q]+t), v.RawRowView(d.off[q]+t+1))
		}
	}
	return out
}

// firstBlockT returns Xi_1^T M, k x c, for M: rows x c, where Xi_1 (the
// first column block of Xi) has x_t in row (q, t).
func (d *data) firstBlockT(m *mat.Dense) *mat.Dense {
	_, c := m.Dims()
	out := mat.NewDense(d.k, c, nil)
	for q, s := range d.seqs {
		for t := range d.steps(q) {
			x := s[t*d.k : (t+1)*d.k]
			mr := m.RawRowView(d.off[q] + t)
			for i, xi := range x {
				if xi == 0 {
					continue
				}
				floats.AddScaled(out.RawRowView(i), xi, mr)
			}
		}
	}
	return out
}
