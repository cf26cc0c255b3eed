package pfa

import (
	"math/rand/v2"
	"testing"
)

const (
	// emMonoTol is the rise of the training loss (nats per string) an
	// accepted EM iterate may show: the M-step's floor at emFloor makes
	// Baum-Welch monotone only up to rounding of that size.
	emMonoTol = 1e-9
	// emCompareTol is how much worse (nats per string) SQUAREM's end may
	// be than plain EM's with the same passes: rounding only.
	emCompareTol = 1e-9
)

// emCase is a synthetic target and a start of another size.
type emCase struct {
	name           string
	kind           Kind
	target, states int
	symbols        int
	seed           uint64
}

var emCases = []emCase{
	{"pfa-4-from-3", KindPFA, 4, 3, 3, 21},
	{"pfa-6-from-6", KindPFA, 6, 6, 4, 22},
	{"pfa-5-from-8", KindPFA, 5, 8, 2, 23},
	{"hmm-4-from-4", KindHMM, 4, 4, 3, 24},
	{"hmm-6-from-5", KindHMM, 6, 5, 4, 25},
}

// emSetup draws the case's training strings and start.
func emSetup(t *testing.T, c emCase) (*Model, [][]int) {
	t.Helper()
	rng := rand.New(rand.NewPCG(c.seed, 1))
	target := Random(c.kind, c.target, c.symbols, rng)
	return Random(c.kind, c.states, c.symbols, rng), randomStrings(t, target, 400, rng)
}

// trainLoss is the mean training loss of m (nats per string).
func trainLoss(t *testing.T, m *Model, seqs [][]int) float64 {
	t.Helper()
	p, err := NewProblem(m, seqs, nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	l, _ := p.Loss(nil)
	return l
}

func TestSquaremNotBelowPlainEM(t *testing.T) {
	for _, c := range emCases {
		for _, passes := range []int{1, 2, 5, 12, 30} {
			t.Run(c.name, func(t *testing.T) {
				start, seqs := emSetup(t, c)
				// No validation strings: early stopping reads the training
				// loss, and a patience above the passes never stops early.
				var ends [2]float64
				for i, accel := range []string{EMPlain, EMSquarem} {
					cfg := TrainConfig{Epochs: passes, Patience: passes + 1, EMAccel: accel}
					m, rep, err := EM(start, seqs, nil, cfg)
					if err != nil {
						t.Fatal(err)
					}
					if rep.Epochs != passes {
						t.Fatalf("%s ran %d passes, want %d", accel, rep.Epochs, passes)
					}
					ends[i] = trainLoss(t, m, seqs)
				}
				if ends[1] > ends[0]+emCompareTol {
					t.Fatalf("%d passes: SQUAREM ends at training loss %.10g, plain EM at %.10g", passes, ends[1], ends[0])
				}
			})
		}
	}
}

func TestSquaremMonotone(t *testing.T) {
	for _, c := range emCases {
		t.Run(c.name, func(t *testing.T) {
			start, seqs := emSetup(t, c)
			_, rep, err := EM(start, seqs, nil, TrainConfig{Epochs: 40, Patience: 41, EMAccel: EMSquarem})
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Trace) < 10 {
				t.Fatalf("%d accepted iterates in 40 passes, want at least 10", len(rep.Trace))
			}
			for i := 1; i < len(rep.Trace); i++ {
				prev, cur := rep.Trace[i-1], rep.Trace[i]
				if cur.TrainLoss > prev.TrainLoss+emMonoTol {
					t.Fatalf("iterate %d (pass %d): training loss rose from %.12g to %.12g", i, cur.Passes, prev.TrainLoss, cur.TrainLoss)
				}
				if cur.Passes <= prev.Passes {
					t.Fatalf("iterate %d at pass %d after one at pass %d", i, cur.Passes, prev.Passes)
				}
			}
		})
	}
}

func TestEMAccelValidated(t *testing.T) {
	cfg := TrainConfig{EMAccel: "fast"}.WithDefaults()
	if err := cfg.Validate(); err == nil {
		t.Fatal("EM acceleration \"fast\" accepted")
	}
	if got := (TrainConfig{}).WithDefaults().EMAccel; got != EMPlain {
		t.Fatalf("default EM acceleration %q, want %q", got, EMPlain)
	}
}
