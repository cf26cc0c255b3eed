package umps

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// A regex whose DFA has 2^26 states is refused while the subset
// construction is still small, not after building it.
func TestExactSamplerExplodingDFA(t *testing.T) {
	m, err := New(2, 2, NearIdentity, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	tr, err := NewTransfer(m)
	if err != nil {
		t.Fatal(err)
	}
	_, err = tr.NewExactSampler(mustRegex(t, `.*1.{25}`, "01"))
	if err == nil || !strings.Contains(err.Error(), "more than 1500 DFA states") {
		t.Fatalf("got %v", err)
	}
}

// A class with no symbol of the alphabet is named in a short message
// even when it expands to thousands of ranges.
func TestRegexClassErrorShort(t *testing.T) {
	_, err := CompileRegex(`\pL`, "01")
	if err == nil || !strings.Contains(err.Error(), "holds no symbol") || len([]rune(err.Error())) > 120 {
		t.Fatalf("got %q", err)
	}
}
