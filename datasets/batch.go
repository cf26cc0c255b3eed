package datasets

import "github.com/pkg/errors"

// Batch is a padded minibatch of B examples in step-major layout, ready to
// feed to a recurrent model one step at a time. Examples shorter than T are
// padded at the end with zero inputs and zero targets, and masked out.
type Batch struct {
	// T is the number of steps (the longest example); B the number of
	// examples; In and Out the task's input and output widths.
	T, B, In, Out int
	// X[t] holds B*In inputs of step t, row b for example b:
	// X[t][b*In+i] is input i of example b. Zero where padded.
	X [][]float64
	// Y[t] holds B*Out targets of step t, laid out as X. For Categorical
	// tasks the class is one-hot encoded: Y[t][b*Out+c] = 1 for the target
	// class c. Zero where padded.
	Y [][]float64
	// Mask[t] holds B values: Mask[t][b] = 1 if step t exists for example
	// b, else 0 (padded).
	Mask [][]float64
	// Lengths[b] is the number of unpadded steps of example b in this
	// batch (the sum of column b of Mask).
	Lengths []int
}

// MakeBatch pads the examples exs[idx[0]], exs[idx[1]], ... into a Batch
// with T equal to the longest of them; a nil idx selects all of exs in
// order. The task gives the widths and target kind; every selected example
// is checked against it and an error names the first bad one, an index out
// of range, or an empty selection.
func MakeBatch(t *Task, exs []Example, idx []int) (Batch, error) {
	var buf BatchBuffer
	return buf.Make(t, exs, idx)
}

// BatchBuffer makes batches as MakeBatch does, in memory it keeps: a loop
// that makes one batch per training step allocates only when a batch
// outgrows every earlier one. The zero value is ready to use.
type BatchBuffer struct {
	xs, ys, ms []float64
	x, y, m    [][]float64
	lengths    []int
}

// Make is MakeBatch into the buffer's memory. The batch it returns is
// valid until the next call of Make.
func (buf *BatchBuffer) Make(t *Task, exs []Example, idx []int) (Batch, error) {
	if t == nil {
		return Batch{}, errors.Errorf("datasets: MakeBatch with a nil task")
	}
	if t.In < 1 || t.Out < 1 || t.Kind < Categorical || t.Kind > Real {
		return Batch{}, errors.Errorf("datasets: task %q: In = %d, Out = %d, kind %s: not a valid task", t.Name, t.In, t.Out, t.Kind)
	}
	if idx == nil {
		idx = Shuffle(nil, len(exs))
	}
	if len(idx) == 0 {
		return Batch{}, errors.Errorf("datasets: task %q: empty batch", t.Name)
	}
	T := 0
	for _, j := range idx {
		if j < 0 || j >= len(exs) {
			return Batch{}, errors.Errorf("datasets: task %q: batch index %d out of range [0, %d)", t.Name, j, len(exs))
		}
		if err := t.checkExample(exs[j]); err != nil {
			return Batch{}, errors.Errorf("datasets: task %q: example %d: %v", t.Name, j, err)
		}
		T = max(T, exs[j].T)
	}
	B, in, out := len(idx), t.In, t.Out
	// One backing array per field keeps the batch in a few allocations.
	xs, ys, ms := zeroed(&buf.xs, T*B*in), zeroed(&buf.ys, T*B*out), zeroed(&buf.ms, T*B)
	b := Batch{T: T, B: B, In: in, Out: out,
		X: rows(&buf.x, T), Y: rows(&buf.y, T), Mask: rows(&buf.m, T), Lengths: buf.lengths[:0]}
	for s := range T {
		b.X[s] = xs[s*B*in : (s+1)*B*in : (s+1)*B*in]
		b.Y[s] = ys[s*B*out : (s+1)*B*out : (s+1)*B*out]
		b.Mask[s] = ms[s*B : (s+1)*B : (s+1)*B]
	}
	for r, j := range idx {
		ex := exs[j]
		b.Lengths = append(b.Lengths, ex.T)
		for s := range ex.T {
			copy(b.X[s][r*in:(r+1)*in], ex.X[s*in:(s+1)*in])
			if t.Kind == Categorical {
				b.Y[s][r*out+int(ex.Y[s])] = 1
			} else {
				copy(b.Y[s][r*out:(r+1)*out], ex.Y[s*out:(s+1)*out])
			}
			b.Mask[s][r] = 1
		}
	}
	buf.lengths = b.Lengths
	return b, nil
}

// zeroed returns the first n values of *buf, zeroed, growing it if needed.
func zeroed(buf *[]float64, n int) []float64 {
	if cap(*buf) < n {
		*buf = make([]float64, n)
	}
	v := (*buf)[:n]
	clear(v)
	return v
}

// rows returns the first n entries of *buf, growing it if needed.
func rows(buf *[][]float64, n int) [][]float64 {
	if cap(*buf) < n {
		*buf = make([][]float64, n)
	}
	return (*buf)[:n]
}

// MakeBatches calls MakeBatch for every group of indices, e.g. those of
// BucketBatches or ShuffledBatches.
func MakeBatches(t *Task, exs []Example, groups [][]int) ([]Batch, error) {
	bs := make([]Batch, len(groups))
	for i, g := range groups {
		b, err := MakeBatch(t, exs, g)
		if err != nil {
			return nil, err
		}
		bs[i] = b
	}
	return bs, nil
}

// Steps is the number of unpadded steps in the batch (the sum of Mask),
// the denominator of a mean per-step loss.
func (b Batch) Steps() float64 {
	s := 0.0
	for _, m := range b.Mask {
		for _, v := range m {
			s += v
		}
	}
	return s
}

// Chunks cuts the batch along time into consecutive pieces of at most n
// steps for truncated backpropagation through time: chunk k covers steps
// [k*n, min((k+1)*n, T)), so the last chunk may be shorter, and every step
// belongs to exactly one chunk. Each chunk keeps B, In, Out, its slice of
// the mask, and Lengths counting the example's unpadded steps within the
// chunk (0 once an example has ended). A model carries its recurrent state
// from one chunk to the next. If n < 1 or n >= T, the result is the batch
// itself. Chunks share memory with b.
func (b Batch) Chunks(n int) []Batch {
	if n < 1 || n >= b.T {
		return []Batch{b}
	}
	chunks := make([]Batch, 0, (b.T+n-1)/n)
	for s := 0; s < b.T; s += n {
		e := min(s+n, b.T)
		c := Batch{T: e - s, B: b.B, In: b.In, Out: b.Out,
			X: b.X[s:e:e], Y: b.Y[s:e:e], Mask: b.Mask[s:e:e], Lengths: make([]int, b.B)}
		for _, m := range c.Mask {
			for r, v := range m {
				if v != 0 {
					c.Lengths[r]++
				}
			}
		}
		chunks = append(chunks, c)
	}
	return chunks
}
