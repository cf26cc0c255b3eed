package pfa

import (
	"bufio"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/pkg/errors"
)

// ReadPAutomaC reads a PAutomaC target machine (a *_model.txt file:
// sections I, F, S and T, one "(indices) value" line per non-zero
// parameter) over symbols symbols into probabilities: M(q, a, q') =
// (1 - F(q)) S(q, a) T(q, a, q'). The number of states is one more than
// the largest state named, and every state below it must be named too.
func ReadPAutomaC(r io.Reader, symbols int) (*Probs, error) {
	type entry struct {
		sec byte
		idx []int
		v   float64
	}
	var entries []entry
	var sec byte
	n := 0
	sc := bufio.NewScanner(r)
	for line := 1; sc.Scan(); line++ {
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		if len(f[0]) == 2 && f[0][1] == ':' {
			sec = f[0][0]
			continue
		}
		if len(f) != 2 || sec == 0 || !strings.HasPrefix(f[0], "(") || !strings.HasSuffix(f[0], ")") {
			return nil, errors.Errorf("pfa: PAutomaC model line %d: %q is not a (indices) value line", line, sc.Text())
		}
		e := entry{sec: sec}
		for _, s := range strings.Split(strings.Trim(f[0], "()"), ",") {
			v, err := strconv.Atoi(s)
			if err != nil || v < 0 {
				return nil, errors.Errorf("pfa: PAutomaC model line %d: bad index %q", line, s)
			}
			e.idx = append(e.idx, v)
		}
		want := map[byte]int{'I': 1, 'F': 1, 'S': 2, 'T': 3}[sec]
		if len(e.idx) != want {
			return nil, errors.Errorf("pfa: PAutomaC model line %d: %d indices in section %c, want %d", line, len(e.idx), sec, want)
		}
		var err error
		if e.v, err = strconv.ParseFloat(f[1], 64); err != nil {
			return nil, errors.Errorf("pfa: PAutomaC model line %d: bad value %q", line, f[1])
		}
		n = max(n, e.idx[0]+1)
		if sec == 'T' {
			n = max(n, e.idx[2]+1)
		}
		if (sec == 'S' || sec == 'T') && e.idx[1] >= symbols {
			return nil, errors.Errorf("pfa: PAutomaC model line %d: symbol %d, alphabet of %d", line, e.idx[1], symbols)
		}
		entries = append(entries, e)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if n == 0 || n > MaxStates {
		return nil, errors.Errorf("pfa: PAutomaC model with %d states", n)
	}
	named := make([]bool, n)
	for _, e := range entries {
		named[e.idx[0]] = true
		if e.sec == 'T' {
			named[e.idx[2]] = true
		}
	}
	if q := slices.Index(named, false); q >= 0 {
		return nil, errors.Errorf("pfa: PAutomaC model: state %d is never named, though state %d is", q, n-1)
	}
	d := symbols
	p := &Probs{N: n, D: d, Init: make([]float64, n), Stop: make([]float64, n), M: make([]float64, d*n*n)}
	emit := make([]float64, n*d)
	for _, e := range entries {
		switch e.sec {
		case 'I':
			p.Init[e.idx[0]] = e.v
		case 'F':
			p.Stop[e.idx[0]] = e.v
		case 'S':
			emit[e.idx[0]*d+e.idx[1]] = e.v
		}
	}
	for _, e := range entries {
		if e.sec == 'T' {
			q, a, j := e.idx[0], e.idx[1], e.idx[2]
			p.M[a*n*n+q*n+j] = (1 - p.Stop[q]) * emit[q*d+a] * e.v
		}
	}
	return p, nil
}

// ReadPAutomaCFile reads a PAutomaC target machine from a file.
func ReadPAutomaCFile(path string, symbols int) (*Probs, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	p, err := ReadPAutomaC(f, symbols)
	return p, errors.Wrap(err, path)
}

// LogProbs returns log P(x) (nats) of each string under p.
func (p *Probs) LogProbs(seqs [][]int) []float64 {
	var wk work
	out := make([]float64, len(seqs))
	for i, x := range seqs {
		out[i] = p.logProb(x, 1, &wk, false)
	}
	return out
}
