package memlimit

import (
	"math"
	"strconv"
	"strings"
	"testing"
)

// FuzzParseMemoryLimit reads RTN_MEMORY_LIMIT values: an error, +Inf for
// "off", or a byte count in [1, 8 EiB] that agrees with the value's
// digits, never a panic and never a value that overflowed into another.
func FuzzParseMemoryLimit(f *testing.F) {
	for _, s := range []string{"off", "OFF", "1024", "2K", "1.5G", "3t", "8G", "99999999999999999999T", "12Q", "5GB",
		"-5G", "1e9", "0", "0.0001K", "8388608T", "8388607.9999T", ".5G", "1.", "9223372036854775808", "NaN"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b, err := Parse(s)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("%q: a message of several lines: %q", s, err)
			}
			return
		}
		if strings.EqualFold(s, "off") {
			if !math.IsInf(b, 1) {
				t.Fatalf("off read as %v", b)
			}
			return
		}
		if !(b >= 1 && b <= maxMemoryLimit) {
			t.Fatalf("%q read as %v bytes, outside [1, 8 EiB]", s, b)
		}
		num, mult := s, 1.0
		if i := strings.IndexAny(s, "KMGTkmgt"); i >= 0 {
			num, mult = s[:i], math.Pow(1024, float64(strings.IndexByte("KMGT", s[i]&^0x20)+1))
		}
		v, err := strconv.ParseFloat(num, 64)
		if err != nil || math.Abs(v*mult-b) > 1e-9*b+mult*1e-6+1 {
			t.Fatalf("%q read as %v bytes, its digits say %v (%v)", s, b, v*mult, err)
		}
	})
}
