package pfa

import "math"

// blockCounts writes the expected counts of st in the layout of each of
// the model's blocks into dst (one slice per block, as Probs' rows).
func (m *Model) blockCounts(st *Stats, dst [][]float64) {
	n, d := m.States, m.Symbols
	copy(dst[0], st.Init)
	if m.Kind == KindPFA {
		row := dst[1]
		w := 1 + d*n
		for q := 0; q < n; q++ {
			row[q*w] = st.Stop[q]
			for a := 0; a < d; a++ {
				copy(row[q*w+1+a*n:q*w+1+(a+1)*n], st.M[a*n*n+q*n:a*n*n+(q+1)*n])
			}
		}
		return
	}
	stop, emit, trans := dst[1], dst[2], dst[3]
	clear(trans)
	for q := 0; q < n; q++ {
		gone := 0.0
		for a := 0; a < d; a++ {
			e := 0.0
			src := st.M[a*n*n+q*n : a*n*n+(q+1)*n]
			tr := trans[q*n : (q+1)*n]
			for j, v := range src {
				e += v
				tr[j] += v
			}
			emit[q*d+a] = e
			gone += e
		}
		stop[2*q], stop[2*q+1] = st.Stop[q], gone
	}
}

// gradInto writes the gradient of the mean negative log-likelihood,
// -st.LogLik / st.Weight, with respect to the logits of each block into
// grads (block layout): for a softmax row p with expected counts c it is
// -(c - p sum(c)) / W. counts is scratch in the same layout.
func (m *Model) gradInto(p *Probs, st *Stats, counts, grads [][]float64) {
	m.blockCounts(st, counts)
	inv := 1 / st.Weight
	for i, b := range m.blocks() {
		c, pr, g := counts[i], p.rows[i], grads[i]
		for r := 0; r < b.rows; r++ {
			lo, hi := r*b.cols, (r+1)*b.cols
			s := 0.0
			for _, v := range c[lo:hi] {
				s += v
			}
			for j := lo; j < hi; j++ {
				g[j] = -(c[j] - pr[j]*s) * inv
			}
		}
	}
}

// emFloor is the smallest probability Baum-Welch gives a parameter: a
// count of 0 becomes a logit of log(emFloor) below its row's largest, so
// that the logits stay finite and the gradient can revive the parameter.
const emFloor = 1e-12

// emUpdate sets the logits to the log of the normalised expected counts
// (the M-step of Baum-Welch), each probability floored at emFloor. A row
// with no counts keeps its logits.
func (m *Model) emUpdate(st *Stats, counts [][]float64) {
	var dst [][]float64
	for _, b := range m.blocks() {
		dst = append(dst, *b.data)
	}
	m.emUpdateInto(st, counts, dst)
}

// emUpdateInto writes the M-step of emUpdate into dst (one slice per
// block) instead of the model's logits; a row with no counts gets the
// model's logits.
func (m *Model) emUpdateInto(st *Stats, counts, dst [][]float64) {
	m.blockCounts(st, counts)
	for i, b := range m.blocks() {
		c, lg, src := counts[i], dst[i], *b.data
		for r := 0; r < b.rows; r++ {
			lo, hi := r*b.cols, (r+1)*b.cols
			s := 0.0
			for _, v := range c[lo:hi] {
				s += v
			}
			if !(s > 0) {
				copy(lg[lo:hi], src[lo:hi])
				continue
			}
			for j := lo; j < hi; j++ {
				lg[j] = math.Log(max(c[j]/s, emFloor))
			}
		}
	}
}

// newBlockBuffers returns one zeroed slice per block of m.
func (m *Model) newBlockBuffers() [][]float64 {
	var out [][]float64
	for _, b := range m.blocks() {
		out = append(out, make([]float64, b.rows*b.cols))
	}
	return out
}
