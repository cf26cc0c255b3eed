package main

import (
	"fmt"
	"io"
	"math"
	"os"
	"unicode/utf8"

	"github.com/rtnlab/rtn/experiments"
)

// The estimates below count the float64 (or int) values of a command's
// biggest allocations from its flags, with a factor for the copies that
// training makes (gradients, optimizer moments, batches). They are meant
// to be right within a small factor: enough to refuse before the process
// dies out of memory, never to refuse what fits.

// spectralBytes estimates rtn spectral: the target 2-RNN (states^2 d),
// the training sequences of lengths L, 2L, 2L+1 and their outputs, the
// dense design matrix and Hankel tensor, and the test set.
func spectralBytes(s experiments.SpectralSpec) (string, float64) {
	d, p, S := float64(s.D), float64(s.P), float64(s.States)
	n, L := float64(s.N), float64(s.L)
	target := S*d*S + S*p + 2*S
	data := n*(5*L+1)*d + 3*n*p + 1000*(6*d+p)
	dense := math.Pow(d, 2*L+1)
	if s.Method == "tt-als" || s.Method == "tt-tiht" {
		dense = 0
	}
	total := float64s(4*target + 2*data + n*dense + 4*dense*p)
	what := fmt.Sprintf("-states %d -p %d -d %d -n %d", s.States, s.P, s.D, s.N)
	return what, total
}

// pcnnBytes estimates rtn pcnn: the training and validation streams
// (symbols per unit of -size measured on a small sample) with the
// per-symbol states kept for the gradient, and the -generate output.
func pcnnBytes(s experiments.PCNNSpec) (string, float64, error) {
	total := float64s(4 * float64(s.Generate))
	what := fmt.Sprintf("-generate %d", s.Generate)
	if s.Size > 0 {
		const probe = 8
		train, _, err := experiments.PCNNStreams(s.Task, probe, s.Seed)
		if err != nil {
			return "", 0, err
		}
		symbols := float64(len(train.X)) / probe * float64(s.Size)
		total += 2 * float64s(symbols*(3+4*float64(s.Units)))
		what = fmt.Sprintf("-size %d", s.Size)
		if s.Generate > s.Size {
			what = fmt.Sprintf("-generate %d", s.Generate)
		}
	}
	return what, total, nil
}

// benchBytes estimates rtn bench: per model the unrolled activations of
// a chunk (batch x steps x the gate widths) and the weights, gradients
// and optimizer state of an LSTM.
func benchBytes(c experiments.BenchConfig) (string, float64) {
	b, t, in, h := float64(c.Batch), float64(c.Steps), float64(c.In), float64(c.Hidden)
	acts := b * t * (3*in + 12*h)
	weights := 4*h*(in+h+1) + h*in
	return fmt.Sprintf("-batch %d -steps %d -in %d -hidden %d", c.Batch, c.Steps, c.In, c.Hidden), float64s(4*acts + 4*weights)
}

// maxSampleWork bounds the work (multiply-adds) of umps eval's and umps
// sample's sampling, about ten minutes at the speed of this code.
const maxSampleWork = 1e12

// umpsEvalCheck checks umps eval: count strings of length n (the ints
// and a symbol distribution per position for each draw), the n right
// environments of D x D, and for motzkin the counting table of big
// integers (n^2/2 of them) used by the completions.
func umpsEvalCheck(n, count, bond, symbols int, motzkin bool) error {
	N, C, D, A := float64(n), float64(count), float64(bond), float64(symbols)
	bytes := float64s(C*N + 2*N*D*D)
	if motzkin {
		bytes += 48 * N * N / 2
	}
	if err := needMemory(fmt.Sprintf("-len %d -samples %d", n, count), bytes); err != nil {
		return err
	}
	if work := C*N*D*D*A + N*D*D*D; work > maxSampleWork {
		return fmt.Errorf("-len %d -samples %d needs about %.2g multiply-adds at bond %d (limit %.0e, hours of work): lower -len or -samples",
			n, count, work, bond, maxSampleWork)
	}
	return nil
}

// umpsSampleCheck checks umps sample: count strings, each at least a
// slice header and typically a few dozen symbols.
func umpsSampleCheck(count int) error {
	return needMemory(fmt.Sprintf("-n %d", count), float64s(float64(count)*(3+16)))
}

// textFileStats reads a text file once, with a progress bar on progress
// (nil: none), and returns its size in bytes and the number of distinct
// characters.
func textFileStats(path string, progress io.Writer) (int64, int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return 0, 0, err
	}
	if st.IsDir() {
		return 0, 0, fmt.Errorf("%s is a directory, want a text file", path)
	}
	r := newProgressReader(f, st.Size(), "reading "+path, progress)
	defer r.finish()
	var ascii [utf8.RuneSelf]bool
	other := map[rune]bool{}
	buf := make([]byte, 1<<20)
	var carry []byte
	for {
		k, err := r.Read(buf)
		chunk := append(carry, buf[:k]...)
		carry = carry[:0]
		for i := 0; i < len(chunk); {
			c := chunk[i]
			if c < utf8.RuneSelf {
				ascii[c] = c != '\n' && c != '\r'
				i++
				continue
			}
			if !utf8.FullRune(chunk[i:]) && err == nil {
				carry = append(carry, chunk[i:]...)
				break
			}
			ru, w := utf8.DecodeRune(chunk[i:])
			other[ru] = true
			i += w
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return 0, 0, err
		}
	}
	distinct := len(other)
	for _, b := range ascii {
		if b {
			distinct++
		}
	}
	return st.Size(), distinct, nil
}

// trainDataCheck checks rtn train -data: every character becomes a
// one-hot input of alphabet+1 values and a target, kept for training,
// validation and test at once.
func trainDataCheck(path string, progress io.Writer) error {
	size, distinct, err := textFileStats(path, progress)
	if err != nil {
		return flagError("-data", err)
	}
	return needMemory(fmt.Sprintf("-data %s (%s)", path, formatBytes(float64(size))), float64s(float64(size)*float64(distinct+4)))
}

// umpsDataCheck checks umps train -data on a file: each character is an
// int in the string list and in the length-grouped batches, each string
// also gets a slice header and its D x D environments are recomputed per
// batch, not stored.
func umpsDataCheck(path string, progress io.Writer) error {
	if _, _, err := experiments.Membership(path); err == nil {
		return nil
	}
	if _, err := os.Stat(path); err != nil {
		return nil // not a file: the data name is checked later
	}
	size, _, err := textFileStats(path, progress)
	if err != nil {
		return flagError("-data", err)
	}
	return needMemory(fmt.Sprintf("-data %s (%s)", path, formatBytes(float64(size))), float64s(4*float64(size)))
}
