package datasets

import (
	"fmt"
	"math/rand/v2"

	"github.com/pkg/errors"
)

// TomitaAlphabet is the alphabet of the Tomita grammars: symbol 0 is '0',
// symbol 1 is '1'.
var TomitaAlphabet = []string{"0", "1"}

// Tomita is one of the seven Tomita (1982) regular languages over {0, 1},
// the grammatical-inference benchmark of the u-MPS paper's Table 2:
//
//	1: 1*
//	2: (10)*
//	3: no odd-length run of 1s followed, later, by an odd-length run of 0s
//	4: no substring 000
//	5: an even number of 0s and an even number of 1s
//	6: (#0 - #1) divisible by 3
//	7: 0*1*0*1*
//
// Grammar 3 has two readings in the literature. The u-MPS authors' code
// forbids an odd run of 1s followed LATER (anywhere to the right) by an odd
// run of 0s; that is the default. Adjacent selects the other reading, an
// odd run of 1s IMMEDIATELY followed by an odd run of 0s; the two differ
// from length 6 on (100110 is in the adjacent language only). Runs are
// maximal.
type Tomita struct {
	// K is the grammar number, 1 to 7.
	K int
	// Adjacent selects the "immediately followed" reading of grammar 3;
	// it is ignored for the other grammars.
	Adjacent bool
}

// NewTomita returns grammar k (1..7) with the authors' reading of grammar 3.
func NewTomita(k int) (Tomita, error) {
	if k < 1 || k > 7 {
		return Tomita{}, errors.Errorf("datasets: Tomita grammar %d does not exist (want 1 to 7)", k)
	}
	return Tomita{K: k}, nil
}

// Name is "tomitaK", with "-adjacent" for the other reading of grammar 3.
func (g Tomita) Name() string {
	if g.K == 3 && g.Adjacent {
		return "tomita3-adjacent"
	}
	return fmt.Sprintf("tomita%d", g.K)
}

// Contains reports whether s (symbols 0 and 1) is in the language; a
// string holding another symbol is not.
func (g Tomita) Contains(s []int) bool {
	n0 := 0
	for _, c := range s {
		if c != 0 && c != 1 {
			return false
		}
		if c == 0 {
			n0++
		}
	}
	n1 := len(s) - n0
	switch g.K {
	case 1:
		return n0 == 0
	case 2:
		for i, c := range s {
			if c != 1-i%2 {
				return false
			}
		}
		return len(s)%2 == 0
	case 3:
		return tomita3(s, g.Adjacent)
	case 4:
		for i := 0; i+2 < len(s); i++ {
			if s[i] == 0 && s[i+1] == 0 && s[i+2] == 0 {
				return false
			}
		}
		return true
	case 5:
		return n0%2 == 0 && n1%2 == 0
	case 6:
		return (n0-n1)%3 == 0
	case 7:
		changes := 0
		for i := 1; i < len(s); i++ {
			if s[i] != s[i-1] {
				changes++
			}
		}
		if len(s) > 0 && s[0] == 1 {
			changes++ // as if preceded by an empty run of 0s
		}
		return changes <= 3
	}
	return false
}

// tomita3 scans the maximal runs of s.
func tomita3(s []int, adjacent bool) bool {
	oddOnes := false // an odd run of 1s seen (adjacent: the previous run)
	for i := 0; i < len(s); {
		j := i
		for j < len(s) && s[j] == s[i] {
			j++
		}
		odd := (j-i)%2 == 1
		if s[i] == 0 && odd && oddOnes {
			return false
		}
		switch {
		case s[i] == 1:
			oddOnes = oddOnes && !adjacent || odd
		case adjacent:
			oddOnes = false
		}
		i = j
	}
	return true
}

// Strings lists every string of the language with length in [minLen,
// maxLen], shortest first, then in lexicographic order.
func (g Tomita) Strings(minLen, maxLen int) [][]int {
	var out [][]int
	for n := max(minLen, 0); n <= maxLen; n++ {
		for code := 0; code < 1<<n; code++ {
			s := make([]int, n)
			for i := range s {
				s[i] = code >> (n - 1 - i) & 1
			}
			if g.Contains(s) {
				out = append(out, s)
			}
		}
	}
	return out
}

// TomitaData draws the training and validation sets of the u-MPS
// experiments: distinct strings of lengths 1..maxLen chosen uniformly from
// the language, nTrain for training capped at 80% of the language's strings
// and nValid for validation capped at 20% (the authors' caps), disjoint.
func TomitaData(g Tomita, maxLen, nTrain, nValid int, rng *rand.Rand) (train, valid [][]int, err error) {
	if g.K < 1 || g.K > 7 {
		return nil, nil, errors.Errorf("datasets: Tomita grammar %d does not exist (want 1 to 7)", g.K)
	}
	if maxLen < 1 || maxLen > 24 || nTrain < 1 || nValid < 0 {
		return nil, nil, errors.Errorf("datasets: Tomita data with maximum length %d (want 1 to 24), %d training and %d validation strings", maxLen, nTrain, nValid)
	}
	all := g.Strings(1, maxLen)
	p := Shuffle(rng, len(all))
	nt := min(nTrain, len(all)*8/10)
	nv := min(nValid, len(all)*2/10)
	if nt < 1 {
		return nil, nil, errors.Errorf("datasets: %s has only %d strings of length 1 to %d", g.Name(), len(all), maxLen)
	}
	for _, i := range p[:nt] {
		train = append(train, all[i])
	}
	for _, i := range p[nt : nt+nv] {
		valid = append(valid, all[i])
	}
	return train, valid, nil
}
