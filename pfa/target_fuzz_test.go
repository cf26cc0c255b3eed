package pfa

import (
	"bytes"
	"testing"

	"github.com/rtnlab/rtn/internal/fuzzcheck"
)

// FuzzReadPAutomaC: a target machine file reads with an error or as
// probabilities of the states it names, never a panic; every state being
// named, the dense arrays grow with the square of the file's lines at
// most.
func FuzzReadPAutomaC(f *testing.F) {
	f.Add([]byte("I: (state)\n\t(0) 1\nF: (state)\n\t(1) 0.5\nS: (state,symbol)\n\t(0,1) 1\n\t(1,0) 0.5\nT: (state,symbol,state)\n\t(0,1,1) 1\n\t(1,0,0) 1\n"))
	f.Add([]byte("I: (state)\n\t(4095) 1\n"))
	const symbols = 3
	f.Fuzz(func(t *testing.T, b []byte) {
		lines := uint64(bytes.Count(b, []byte("\n")) + 1)
		limit := fuzzcheck.Limit(len(b), 200) + 8*(symbols+3)*lines*lines
		fuzzcheck.Bounded(t, limit, func() {
			p, err := ReadPAutomaC(bytes.NewReader(b), symbols)
			if err != nil {
				return
			}
			if p.N < 1 || p.D != symbols || len(p.M) != p.N*p.N*symbols {
				t.Fatalf("read %d states over %d symbols with %d transition values", p.N, p.D, len(p.M))
			}
		})
	})
}
