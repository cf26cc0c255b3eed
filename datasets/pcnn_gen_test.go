package datasets

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// enumChooser walks every decision path of a generator in turn: path holds
// the choices of the current run, sizes the number of options at each.
type enumChooser struct {
	path, sizes []int
	pos         int
}

func (e *enumChooser) pick(p []float64) int {
	if e.pos == len(e.path) {
		e.path = append(e.path, 0)
		e.sizes = append(e.sizes, len(p))
	}
	e.sizes[e.pos] = len(p)
	k := e.path[e.pos]
	e.pos++
	return k
}

// next moves to the next path (odometer over the decision tree); false
// when every path has been visited.
func (e *enumChooser) next() bool {
	e.path, e.sizes = e.path[:e.pos], e.sizes[:e.pos]
	for k := len(e.path) - 1; k >= 0; k-- {
		if e.path[k]+1 < e.sizes[k] {
			e.path[k]++
			e.path, e.sizes = e.path[:k+1], e.sizes[:k+1]
			e.pos = 0
			return true
		}
	}
	return false
}

// enumerate runs gen on every decision path and returns each output text
// with the log-probability of its path.
func enumerate(t *testing.T, gen func(chooser) Stream) map[string]float64 {
	t.Helper()
	out := map[string]float64{}
	e := &enumChooser{}
	for {
		e.pos = 0
		s := gen(e)
		text := s.String()
		if _, dup := out[text]; dup {
			t.Fatalf("two decision paths give the same text %q: the text does not determine the path", text)
		}
		out[text] = s.LogLik
		if !e.next() {
			return out
		}
	}
}

// The exact log-likelihood is checked by brute force: over every possible
// output of a tiny generator, the probabilities must sum to 1 (a missing
// or extra factor breaks it), and every text must come from one path only.
func TestPCNNGeneratorsExactLogLik(t *testing.T) {
	for name, gen := range map[string]func(chooser) Stream{
		"alphabet": func(c chooser) Stream {
			return genAlphabet(AlphabetConfig{Lines: 2, Letters: 1, Digits: 2, Capitals: 2, CapitalAlphabet: 2, PSub: 0.3, PSubSub: 0.4}, c)
		},
		"music": func(c chooser) Stream { return genMusic(MusicConfig{Bars: 2}, c) },
		"anbn":  func(c chooser) Stream { return genAnBn(AnBnConfig{Blocks: 3, Min: 2, Max: 5}, c) },
	} {
		t.Run(name, func(t *testing.T) {
			all := enumerate(t, gen)
			var sum float64
			for _, ll := range all {
				sum += math.Exp(ll)
			}
			if math.Abs(sum-1) > 1e-12 {
				t.Fatalf("probabilities of the %d outputs sum to %v, want 1", len(all), sum)
			}
		})
	}
}

// TestDistantXORIsExact enumerates every line of a short XOR generator:
// the predicted bit is the XOR of the two marked bits, and it is the only
// predicted symbol.
func TestDistantXORIsExact(t *testing.T) {
	var total float64
	e := &enumChooser{}
	for {
		e.pos = 0
		before := 0.0
		s := genXOR(XORConfig{Lines: 1, T: 10}, &pathProb{e, &before})
		total += math.Exp(before)
		line := s.String()
		eq := strings.IndexByte(line, '=')
		var x byte = '0'
		for k := 0; k+1 < eq; k++ {
			if line[k] == 'X' && line[k+1] == '1' {
				x ^= 1
			}
		}
		if strings.Count(line, "X") != 2 || line[eq+1] != x {
			t.Fatalf("line %q: marks or XOR wrong", line)
		}
		for k, m := range s.Mask {
			if m != (k == eq+1) {
				t.Fatalf("line %q: mask[%d] = %v", line, k, m)
			}
		}
		if s.LogLik != 0 {
			t.Fatalf("LogLik %v, want 0", s.LogLik)
		}
		if !e.next() {
			break
		}
	}
	if math.Abs(total-1) > 1e-12 {
		t.Fatalf("path probabilities sum to %v", total)
	}
}

// pathProb wraps a chooser and accumulates the log-probability of its picks.
type pathProb struct {
	c  chooser
	ll *float64
}

func (p *pathProb) pick(q []float64) int {
	k := p.c.pick(q)
	*p.ll += math.Log(q[k])
	return k
}

func TestPCNNGeneratorsSeededAndSized(t *testing.T) {
	for name, gen := range map[string]func(*rand.Rand) (Stream, error){
		"alphabet": func(r *rand.Rand) (Stream, error) { return AlphabetInsertions(AlphabetConfig{Lines: 50}, r) },
		"music":    func(r *rand.Rand) (Stream, error) { return SyntheticMusic(MusicConfig{Bars: 40}, r) },
		"xor":      func(r *rand.Rand) (Stream, error) { return DistantXOR(XORConfig{Lines: 20}, r) },
		"anbn":     func(r *rand.Rand) (Stream, error) { return AnBn(AnBnConfig{}, r) },
	} {
		t.Run(name, func(t *testing.T) {
			a, err := gen(rand.New(rand.NewPCG(1, 2)))
			if err != nil {
				t.Fatal(err)
			}
			b, _ := gen(rand.New(rand.NewPCG(1, 2)))
			if a.String() != b.String() || a.LogLik != b.LogLik {
				t.Fatal("same seed, different stream")
			}
			if err := (Symbols{Alphabet: a.Alphabet, Seqs: [][]int{a.X}}).Validate(); err != nil {
				t.Fatal(err)
			}
		})
	}
	// a^n b^n: 10 blocks of log2(1025) bits each (section 4: "10 bits for
	// each block ... 100 bits").
	s, _ := AnBn(AnBnConfig{}, rand.New(rand.NewPCG(3, 3)))
	if want := 10 * math.Log2(1025); math.Abs(s.TrueBits()-want) > 1e-9 {
		t.Errorf("a^n b^n true bits %v, want %v", s.TrueBits(), want)
	}
	if s.RegretBits(s.TrueBits()+3) != 3 {
		t.Error("RegretBits is not model bits minus true bits")
	}
	if !strings.HasSuffix(s.String(), "b\n") || strings.Count(s.String(), "\n") != 20 {
		t.Error("a^n b^n stream does not have 10 a-lines and 10 b-lines")
	}
}

func TestPCNNGeneratorsBadInput(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	if _, err := AlphabetInsertions(AlphabetConfig{Letters: 27}, rng); err == nil {
		t.Error("27 letters accepted")
	}
	if _, err := AnBn(AnBnConfig{Min: 5, Max: 3}, rng); err == nil {
		t.Error("Min > Max accepted")
	}
	if _, err := DistantXOR(XORConfig{T: 5}, rng); err == nil {
		t.Error("T = 5 accepted")
	}
	if _, err := SyntheticMusic(MusicConfig{}, nil); err == nil {
		t.Error("nil rng accepted")
	}
}

func TestRegularizedProb(t *testing.T) {
	// t = 0: half the model, half uniform.
	if got := RegularizedProb(0, 0, 4); got != 0.125 {
		t.Errorf("RegularizedProb(0, 0, 4) = %v, want 0.125", got)
	}
	if got := RegularizedProb(1, 8, 2); math.Abs(got-(0.9+0.05)) > 1e-15 {
		t.Errorf("RegularizedProb(1, 8, 2) = %v, want 0.95", got)
	}
}
