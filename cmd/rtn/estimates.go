package main

import (
	"fmt"
	"io"

	"github.com/rtnlab/rtn/bench"
	"github.com/rtnlab/rtn/runs"
)

// The estimates below count the float64 (or int) values of a command's
// biggest allocations from its flags, with a factor for the copies that
// training makes (gradients, optimizer moments, batches). They are meant
// to be right within a small factor: enough to refuse before the process
// dies out of memory, never to refuse what fits.

// benchBytes estimates rtn bench at one sequence length for its largest
// model, the LSTM: the next-frame data (T+1 frames of batch x in), the
// stored states (h and c of every step, or of every k-th step and one
// segment of k with -checkpoint k), and the weights with their gradients
// and Adam moments, twice over: the step's garbage lets the Go heap grow to
// about twice its live size (GOGC 100; a peak of 1.6 GB was measured at T = 10,000
// where the count above is 0.74 GB).
func benchBytes(c bench.Config) (string, float64) {
	b, t, in, h := float64(c.Batch), float64(c.Steps), float64(c.In), float64(c.Hidden)
	k := float64(max(c.Checkpoint, 1))
	states := b * 2 * h * (t/k + k + 1)
	weights := 4*h*(in+h+1) + h*in
	return fmt.Sprintf("-batch %d -steps %d -in %d -hidden %d", c.Batch, c.Steps, c.In, c.Hidden), 2 * float64s(b*(t+1)*in+states+4*weights)
}

// maxEvalSeconds bounds the estimated time of umps eval's sampling: a
// run past it is refused rather than left running without output.
const maxEvalSeconds = 600

// umpsEvalCheck checks umps eval: count strings of length n (the ints
// grown by append), the n right environments of D x D, and for motzkin
// the counting table of big integers (n^2/2 of them) used by the
// completions; then the time, from costs measured on this code (about
// 4e-6 D^2 s per position to set up, 3e-8 D^2 A s per drawn symbol).
func umpsEvalCheck(n, count, bond, symbols int, motzkin bool) error {
	N, C, D, A := float64(n), float64(count), float64(bond), float64(symbols)
	bytes := float64s(2*C*N + 2*N*D*D)
	if motzkin {
		bytes += 48 * N * N / 2
	}
	what := fmt.Sprintf("-len %d -samples %d", n, count)
	if err := needMemory(what, bytes); err != nil {
		return err
	}
	if secs := 4e-6*N*D*D + 3e-8*C*N*D*D*A; secs > maxEvalSeconds {
		return fmt.Errorf("%s needs about %.2g hours of sampling at bond %d (limit %d minutes): lower -len or -samples",
			what, secs/3600, bond, maxEvalSeconds/60)
	}
	return nil
}

// umpsSampleCheck checks umps sample: count strings, each at least a
// slice header and typically a few dozen symbols.
func umpsSampleCheck(count int) error {
	return needMemory(fmt.Sprintf("-n %d", count), float64s(float64(count)*(3+16)))
}

// reportUMPSClamps says on stderr when the built-in language had fewer
// strings than -train or -valid asked for.
func reportUMPSClamps(stderr io.Writer, spec runs.UMPSSpec, rep *runs.UMPSReport) {
	if _, _, err := runs.Membership(spec.Data); err != nil {
		return // a file: split 80/20, -train and -valid do not apply
	}
	if rep.NTrain < spec.NTrain {
		fmt.Fprintf(stderr, "rtn: note: -train %d reduced to %d (80%% of the %s strings up to the maximum length)\n", spec.NTrain, rep.NTrain, spec.Data)
	}
	if rep.NValid < spec.NValid {
		fmt.Fprintf(stderr, "rtn: note: -valid %d reduced to %d (20%% of the %s strings up to the maximum length)\n", spec.NValid, rep.NValid, spec.Data)
	}
}
