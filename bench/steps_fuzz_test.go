package bench

import (
	"strconv"
	"strings"
	"testing"
)

// FuzzParseSteps reads -steps lists: an error, or one integer per comma,
// each the value strconv.Atoi gives its trimmed field, never a panic.
func FuzzParseSteps(f *testing.F) {
	for _, s := range []string{"50,100,1000", "1", "", "50,x", " 7 , 8", "-1,0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		steps, err := ParseSteps(s)
		if err != nil {
			return
		}
		fields := strings.Split(s, ",")
		if len(steps) != len(fields) {
			t.Fatalf("%q gives %d lengths", s, len(steps))
		}
		for i, v := range steps {
			if w, err := strconv.Atoi(strings.TrimSpace(fields[i])); err != nil || w != v {
				t.Fatalf("%q: length %d is %d, its field %q", s, i, v, fields[i])
			}
		}
	})
}
