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
