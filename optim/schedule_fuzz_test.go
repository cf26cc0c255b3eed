package optim

import "testing"

// FuzzParseSchedule reads -schedule specs: an error, or a schedule whose
// Name reads back as the same schedule and whose rates are never
// negative or NaN (a factor above 1 is allowed: exp:2 doubles the rate),
// never a panic.
func FuzzParseSchedule(f *testing.F) {
	for _, s := range []string{"", "constant", "step:5:0.5", "step:5", "exp:0.9", "plateau:3:0.5:0.01:1e-6",
		"warmup:2+cosine:10:0.1", "linear:4", "cosine:1e300", "warmup:0.5", "step:9223372036854775807:1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		s, err := ParseSchedule(spec)
		if err != nil {
			return
		}
		again, err := ParseSchedule(s.Name())
		if err != nil || again.Name() != s.Name() {
			t.Fatalf("%q gives the name %q, which reads as %v (%v)", spec, s.Name(), again, err)
		}
		const base = 0.1
		lr := base
		for epoch := range 5 {
			lr = s.Next(epoch, lr, 1/float64(epoch+1))
			if !(lr >= 0) {
				t.Fatalf("%q: rate %v after epoch %d from %v", spec, lr, epoch+1, base)
			}
		}
		if ss, ok := s.(StepSchedule); ok {
			for _, ab := range [][2]float64{{0, 0.5}, {0.5, 3}, {3, 1e6}} {
				if v := ss.Factor(ab[0], ab[1]); !(v >= 0) {
					t.Fatalf("%q: factor %v from epoch %v to %v", spec, v, ab[0], ab[1])
				}
			}
		}
	})
}
