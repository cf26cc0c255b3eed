package experiments

import (
	"testing"
)

// BenchmarkTrainStep times the step rtn bench times (SequenceStep: forward,
// backward through time and Adam), so the two agree: batch 32, 88 binary
// inputs and outputs, 100 hidden units, 100 steps. Compilation happens
// before the timer starts.
func BenchmarkTrainStep(b *testing.B) {
	cfg := BenchConfig{Batch: 32, In: 88, Hidden: 100, Steps: 100}
	for _, model := range []string{"rnn", "lstm", "gru"} {
		b.Run(model, func(b *testing.B) {
			step, err := SequenceStep(model, cfg)
			if err != nil {
				b.Fatal(err)
			}
			if err := step(); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if err := step(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
