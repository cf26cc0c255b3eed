package params

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestAddRefuses(t *testing.T) {
	p := New()
	if _, err := p.Add("W", 2, 3); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		shape []int
		want  string
	}{
		{"", []int{1}, "empty parameter name"},
		{"W", []int{1}, "already exists"},
		{"b", nil, "has no shape"},
		{"b", []int{2, 0}, "non-positive dimension"},
		{"b", []int{1 << 20, 1 << 20}, "more than"},
	} {
		if _, err := p.Add(tc.name, tc.shape...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Add(%q, %v): %v, want %q", tc.name, tc.shape, err, tc.want)
		}
	}
	if p.Len() != 1 || p.Size() != 6 {
		t.Fatalf("a refused Add changed the set: %v", p)
	}
}

func TestCopiesAndLayout(t *testing.T) {
	p := New()
	p.Add("W", 2, 3)
	p.Add("b", 3)
	p.InitNormal("W", rand.New(rand.NewPCG(1, 2)), 1)
	p.Fill("b", 0.5)
	q := p.Clone()
	q.Data("W")[0] += 1
	if p.Data("W")[0] == q.Data("W")[0] {
		t.Fatal("Clone shares memory")
	}
	if err := q.CopyFrom(p); err != nil || q.Data("W")[0] != p.Data("W")[0] {
		t.Fatalf("CopyFrom: %v", err)
	}
	l := p.Like()
	if l.Norm() != 0 || l.SameLayout(p) != nil {
		t.Fatal("Like is not a zero set of the same layout")
	}
	r := New()
	r.Add("W", 3, 2)
	r.Add("b", 3)
	if err := r.SameLayout(p); err == nil || !strings.Contains(err.Error(), `"W" has shape [3 2] versus [2 3]`) {
		t.Fatalf("SameLayout: %v", err)
	}
	sh := p.Shape("W")
	sh[0] = 9
	if p.Shape("W")[0] != 2 {
		t.Fatal("Shape returns the set's own slice")
	}
	want := math.Sqrt(sumSquares(p.Data("W")) + 3*0.25)
	if math.Abs(p.Norm()-want) > 1e-15 {
		t.Fatalf("Norm %v, want %v", p.Norm(), want)
	}
	p.Data("b")[2] = math.Inf(1)
	if err := p.Finite(); err == nil || !strings.Contains(err.Error(), `"b" holds +Inf at index 2`) {
		t.Fatalf("Finite: %v", err)
	}
	if err := p.Set("b", []float64{1}); err == nil {
		t.Fatal("Set of the wrong length accepted")
	}
	p.Zero()
	if p.Norm() != 0 {
		t.Fatal("Zero left values")
	}
}

func sumSquares(d []float64) float64 {
	s := 0.0
	for _, x := range d {
		s += x * x
	}
	return s
}
