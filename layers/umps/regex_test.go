package umps

import (
	"math"
	"regexp"
	"strings"
	"testing"
)

// bruteZR sums f(s)^2 over the strings of length <= maxLen that Go's regexp
// package matches in full: an oracle independent of the compiler here.
func bruteZR(m *MPS, alphabet string, maxLen int, pattern string) float64 {
	re := regexp.MustCompile(`^(?:` + pattern + `)$`)
	alpha := []rune(alphabet)
	z := 0.0
	buf := make([]rune, 0, maxLen)
	enumerate(m, maxLen, func(s []int, amp float64) {
		buf = buf[:0]
		for _, c := range s {
			buf = append(buf, alpha[c])
		}
		if re.MatchString(string(buf)) {
			z += amp * amp
		}
	})
	return z
}

// Z_R from the transfer-operator algebra of Table 1 equals brute-force
// enumeration for unambiguous regexes: stars (nested too), unions,
// counted repetition, classes. The models' spectral radius is small enough
// that strings longer than the enumeration carry a negligible mass
// (rho^(maxLen+1) relative).
func TestZRMatchesBruteForce(t *testing.T) {
	const tol = 1e-10
	binary := testModel(t, 3, 2, 0.1, 21) // tail 0.1^15 = 1e-15
	ternary := testModel(t, 2, 3, 0.05, 22)
	cases := []struct {
		m        *MPS
		alphabet string
		maxLen   int
		pattern  string
	}{
		{binary, "01", 14, `.*`},
		{binary, "01", 14, `(0|1)*`},
		{binary, "01", 14, `0*1*`},
		{binary, "01", 14, `(01|1)*`},
		{binary, "01", 14, `(1*0)*1*`},
		{binary, "01", 14, `((01)*1)*`},
		{binary, "01", 14, `0{2,4}1?`},
		{binary, "01", 14, `(0|1){3,5}`},
		{binary, "01", 14, `1(0|1)*0|0`},
		{binary, "01", 14, `[01]0+1{1,3}`},
		{binary, "01", 14, `(0(0|1)*)?1`},
		{binary, "01", 14, `(00|11)*((01|10)(00|11)*(01|10)(00|11)*)*`},
		{binary, "01", 14, `[^1]*1.`},
		{binary, "01", 14, `()`},
		{ternary, "abc", 10, `a(b|c)*a|c+`},
		{ternary, "abc", 10, `(a|bc*)*`},
	}
	for _, c := range cases {
		t.Run(c.pattern, func(t *testing.T) {
			r := mustRegex(t, c.pattern, c.alphabet)
			tr, err := NewTransfer(c.m)
			if err != nil {
				t.Fatal(err)
			}
			lz, err := tr.LogZ(r)
			if err != nil {
				t.Fatal(err)
			}
			want := bruteZR(c.m, c.alphabet, c.maxLen, c.pattern)
			if e := relErr(math.Exp(lz), want); e > tol {
				t.Errorf("Z_R = %.15g, brute force %.15g (relative error %.2g)", math.Exp(lz), want, e)
			}
			// The left operators give the same number: Tr(E^l_R(Q_l) Q_r).
			ql, _ := tr.Boundaries()
			q, err := tr.Left(r, ql)
			if err != nil {
				t.Fatal(err)
			}
			if e := relErr(math.Exp(q.Log(c.m.Omega)), want); e > tol {
				t.Errorf("left Z_R = %.15g, brute force %.15g", math.Exp(q.Log(c.m.Omega)), want)
			}
		})
	}
}

// Sigma^n through the regex path equals Z_n from the transfer sweep, also
// at lengths where Z_n itself would overflow a float64.
func TestZRSigmaN(t *testing.T) {
	m := testModel(t, 3, 2, 40, 2) // Z_n grows like 40^n
	lz, err := m.LogZn(300)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := NewTransfer(m)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{1, 5, 300} {
		r := mustRegex(t, strings.Repeat(".", n), "01")
		got, err := tr.LogZ(r)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(got-lz[n]) > 1e-9*math.Abs(lz[n]) {
			t.Errorf("n = %d: log Z_R %.15g, log Z_n %.15g", n, got, lz[n])
		}
	}
	if lz[300] < 1000 {
		t.Errorf("log Z_300 = %g, expected beyond float64 range", lz[300])
	}
}

// Bad regexes give one-line errors naming the fault.
func TestRegexErrors(t *testing.T) {
	cases := []struct{ pattern, want string }{
		{`(01`, "offset 3"},
		{`0[1`, "offset 3"},
		{`01)`, "offset"},
		{`0**`, "offset 1"},
		{`2`, `symbol '2' is not in the alphabet`},
		{`[a-z]`, "holds no symbol of the alphabet"},
		{`[^\x00-\x{10FFFF}]`, "matches no string"},
		{`^0`, "anchor"},
		{`(?i)0`, "case-insensitive"},
		{`0|[^\x00-\x{10FFFF}]`, ""}, // an empty branch is dropped
	}
	for _, c := range cases {
		_, err := CompileRegex(c.pattern, "01")
		if c.want == "" {
			if err != nil {
				t.Errorf("%q: %v", c.pattern, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: got %v, want an error containing %q", c.pattern, err, c.want)
		}
	}
	if _, err := CompileRegex("a", "aa"); err == nil {
		t.Error("alphabet with a repeated symbol accepted")
	}
}

// Closures whose sums diverge are refused with the reason: S* with a
// nullable S, and a model whose operator has spectral radius above 1.
func TestZRDiverges(t *testing.T) {
	small := testModel(t, 3, 2, 0.5, 1)
	big := testModel(t, 3, 2, 1.5, 1)
	for _, c := range []struct {
		m       *MPS
		pattern string
		want    string
	}{
		{small, `(0*)*`, "empty string"},
		{small, `(0|1?)*`, "empty string"},
		{big, `.*`, "spectral radius"},
		{big, `0(..)*`, "spectral radius"},
	} {
		tr, err := NewTransfer(c.m)
		if err != nil {
			t.Fatal(err)
		}
		_, err = tr.LogZ(mustRegex(t, c.pattern, "01"))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: got %v, want an error containing %q", c.pattern, err, c.want)
		}
	}
	// The same large model is fine on a finite language.
	tr, _ := NewTransfer(big)
	if _, err := tr.LogZ(mustRegex(t, `0(1.){2}`, "01")); err != nil {
		t.Error(err)
	}
	if _, err := tr.LogZ(mustRegex(t, `abc`, "abc")); err == nil {
		t.Error("regex over another alphabet accepted")
	}
}

// String prints the compiled tree (after regexp/syntax's simplification)
// in a syntax that compiles to the same language.
func TestRegexString(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`a(b|c)*`, `a[bc]*`},
		{`(ab|c)+`, `(ab|c)(ab|c)*`},
		{`a?`, `a|()`},
	} {
		r := mustRegex(t, c.in, "abc")
		if got := r.String(); got != c.want {
			t.Errorf("%s: String() = %q, want %q", c.in, got, c.want)
		}
		if r.Pattern() != c.in {
			t.Errorf("Pattern() = %q", r.Pattern())
		}
	}
}
