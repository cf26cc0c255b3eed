package runs

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// drawWithin keeps the draws that end within maxLen, counts the others as
// redrawn, and refuses after MaxLenDraws draws.
func TestDrawWithin(t *testing.T) {
	// A draw cut at limit symbols: the lengths below, each cut at limit.
	lengths := func(ls ...int) (func(int) ([]int, error), *[]int) {
		var limits []int
		i := 0
		return func(limit int) ([]int, error) {
			limits = append(limits, limit)
			n := min(ls[i%len(ls)], limit)
			i++
			return make([]int, n), nil
		}, &limits
	}
	endsInOne := func(s []int) bool { return len(s) > 0 && s[len(s)-1] == 1 }
	for _, tc := range []struct {
		name        string
		count, max  int
		ls          []int
		ended       func([]int) bool
		wantLens    []int
		wantRedrawn int
		wantLimit   int
	}{
		{"all end", 3, 5, []int{0, 5, 2}, nil, []int{0, 5, 2}, 0, 6},
		{"longer redrawn", 3, 5, []int{6, 1, 9, 2, 3}, nil, []int{1, 2, 3}, 2, 6},
		{"no end symbol", 2, 4, []int{4, 4}, nil, []int{4, 4}, 0, 5},
		{"end symbol never drawn", 1, 4, []int{4}, endsInOne, nil, MaxLenDraws(1), 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			draw, limits := lengths(tc.ls...)
			got, redrawn, err := drawWithin(tc.count, tc.max, draw, tc.ended)
			var le *MaxLenError
			if tc.wantLens == nil {
				if !errors.As(err, &le) || le.Draws != MaxLenDraws(tc.count) || le.Ended != 0 || le.MaxLen != tc.max || !strings.Contains(err.Error(), "raise MaxLen") {
					t.Fatalf("err %v: want a *MaxLenError after %d draws", err, MaxLenDraws(tc.count))
				}
			} else {
				var lens []int
				for _, s := range got {
					lens = append(lens, len(s))
				}
				if err != nil || !slices.Equal(lens, tc.wantLens) {
					t.Fatalf("lengths %v, err %v; want %v", lens, err, tc.wantLens)
				}
			}
			if redrawn != tc.wantRedrawn || (*limits)[0] != tc.wantLimit {
				t.Errorf("redrawn %d, limit %d; want %d and %d", redrawn, (*limits)[0], tc.wantRedrawn, tc.wantLimit)
			}
		})
	}
}
