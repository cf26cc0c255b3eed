package fuzzcheck

import (
	"runtime"
	"testing"
)

// Base is the allocation every call may make whatever its input: fixed
// buffers (a scanner's, a block of a reader's storage) and the runtime's
// own.
const Base = 64 << 20

// Limit is the allocation allowed for an input of n bytes: Base plus
// perByte bytes for each input byte, the reader's expansion factor (a
// float64 per input byte is 8; a deflated entry expands up to about 1032
// times before that).
func Limit(n int, perByte uint64) uint64 {
	return Base + uint64(n)*perByte
}

// Bounded runs fn and fails t when fn allocated more than limit bytes in
// total (the heap's cumulative allocation over the call, so memory freed
// during the call counts too). Fuzz targets run one input at a time in a
// process, so the count is fn's.
func Bounded(t testing.TB, limit uint64, fn func()) {
	t.Helper()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got > limit {
		t.Fatalf("allocated %d bytes, above the bound of %d for this input", got, limit)
	}
}
