package datasets

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
)

func bits(s []int) string {
	var b strings.Builder
	for _, c := range s {
		b.WriteByte(byte('0' + c))
	}
	return b.String()
}

// Tomita 3's per-length counts for lengths 1..8 under both readings, from
// notes/reference-settings.md, and the authors' regex for the "later"
// reading: the complement of ((0|1)*0)*1(11)*(0(0|1)*1)*0(00)*(1(0|1)*)*.
func TestTomita3Counts(t *testing.T) {
	later := []int{2, 3, 6, 10, 18, 31, 54, 93}
	adjacent := []int{2, 3, 6, 10, 18, 32, 56, 100}
	forbidden := regexp.MustCompile(`^(?:((0|1)*0)*1(11)*(0(0|1)*1)*0(00)*(1(0|1)*)*)$`)
	for n := 1; n <= 8; n++ {
		g := Tomita{K: 3}
		if got := len(g.Strings(n, n)); got != later[n-1] {
			t.Errorf("later reading, length %d: %d strings, want %d", n, got, later[n-1])
		}
		if got := len(Tomita{K: 3, Adjacent: true}.Strings(n, n)); got != adjacent[n-1] {
			t.Errorf("adjacent reading, length %d: %d strings, want %d", n, got, adjacent[n-1])
		}
	}
	for n := 0; n <= 12; n++ {
		for code := 0; code < 1<<n; code++ {
			s := make([]int, n)
			for i := range s {
				s[i] = code >> i & 1
			}
			if want := !forbidden.MatchString(bits(s)); (Tomita{K: 3}).Contains(s) != want {
				t.Fatalf("%s: Contains = %v, authors' regex says %v", bits(s), !want, want)
			}
		}
	}
	if !(Tomita{K: 3, Adjacent: true}).Contains([]int{1, 0, 0, 1, 1, 0}) || (Tomita{K: 3}).Contains([]int{1, 0, 0, 1, 1, 0}) {
		t.Error("100110 must separate the two readings")
	}
}

// The other grammars against independent definitions (regexes and
// arithmetic) on every string up to length 12.
func TestTomitaMembership(t *testing.T) {
	regexes := map[int]string{1: `1*`, 2: `(10)*`, 4: `(1|01|001)*(0|00)?`, 7: `0*1*0*1*`}
	for n := 0; n <= 12; n++ {
		for code := 0; code < 1<<n; code++ {
			s := make([]int, n)
			n0 := 0
			for i := range s {
				s[i] = code >> i & 1
				n0 += 1 - s[i]
			}
			want := map[int]bool{5: n0%2 == 0 && (n-n0)%2 == 0, 6: ((n0-(n-n0))%3+3)%3 == 0}
			for k, re := range regexes {
				want[k] = regexp.MustCompile(`^(?:` + re + `)$`).MatchString(bits(s))
			}
			for k, w := range want {
				if got := (Tomita{K: k}).Contains(s); got != w {
					t.Fatalf("tomita%d %s: Contains = %v, want %v", k, bits(s), got, w)
				}
			}
		}
	}
	if (Tomita{K: 4}).Contains([]int{0, 2}) {
		t.Error("symbol 2 accepted")
	}
	if _, err := NewTomita(8); err == nil {
		t.Error("grammar 8 accepted")
	}
}

// Training and validation strings are distinct members, of lengths 1..15,
// within the authors' caps, and the same seed gives the same sets.
func TestTomitaData(t *testing.T) {
	g, _ := NewTomita(4)
	train, valid, err := TomitaData(g, 15, 1000, 1000, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	if len(train) != 1000 || len(valid) != 1000 {
		t.Fatalf("sizes %d, %d", len(train), len(valid))
	}
	seen := map[string]bool{}
	for _, s := range append(append([][]int(nil), train...), valid...) {
		if len(s) < 1 || len(s) > 15 || !g.Contains(s) || seen[bits(s)] {
			t.Fatalf("bad or repeated string %s", bits(s))
		}
		seen[bits(s)] = true
	}
	g3, _ := NewTomita(1) // 15 strings: caps 12 and 3
	train, valid, _ = TomitaData(g3, 15, 1000, 1000, rand.New(rand.NewPCG(1, 2)))
	if len(train) != 12 || len(valid) != 3 {
		t.Errorf("tomita1 sizes %d, %d, want 12, 3", len(train), len(valid))
	}
	again, _, _ := TomitaData(g3, 15, 1000, 1000, rand.New(rand.NewPCG(1, 2)))
	if bits(again[0]) != bits(train[0]) {
		t.Error("same seed, different data")
	}
}
