package main

import (
	"bufio"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/rtnlab/rtn/datasets"
	"github.com/rtnlab/rtn/wfa"
)

// wfaLearnMemory checks, from the header of a counted string file (the
// alphabet size it declares) and the learning configuration, the memory
// the automata of wfa learn need before the file is read: a transition
// matrix of R x R per symbol for the candidates (R the largest rank
// tried, several alive at once, and no more than the basis prefixes the
// alphabet allows) and of the result (R times -mixture states at most
// when selecting), and each symbol's row offsets in the sparse Hankel
// blocks. A lines file declares no alphabet: its symbols
// are the file's own tokens, bounded by its size.
func wfaLearnMemory(path string, fm datasets.StringFormat, cfg wfa.Config) error {
	if fm == datasets.Lines || path == "" {
		return nil
	}
	symbols, ok := countedAlphabet(path)
	if !ok {
		return nil // the reader reports a missing file or a bad header
	}
	// A rank is at most the Hankel matrix's, at most its rows: the
	// prefixes up to the longest basis length over the alphabet.
	basis := 5
	if cfg.Spec.Rank > 0 && cfg.Spec.Rows > 0 {
		basis = cfg.Spec.Rows
	} else if len(cfg.Bases) > 0 {
		basis = slices.Max(cfg.Bases)
	}
	rows, power := 1.0, 1.0
	for range basis {
		power *= float64(symbols)
		rows += power
	}
	r := cfg.Spec.Rank
	what := fmt.Sprintf("-rank %d", r)
	if r == 0 {
		r = 50
		if len(cfg.Ranks) > 0 {
			r = slices.Max(cfg.Ranks)
		}
		what = fmt.Sprintf("ranks up to %d", r)
		if cfg.Mixture > 1 {
			what += fmt.Sprintf(" and -mixture %d", cfg.Mixture)
		}
	}
	rf := min(float64(r), rows)
	states := rf
	if cfg.Spec.Rank == 0 {
		states *= float64(max(cfg.Mixture, 1))
	}
	perSymbol := float64s(64 + 4*rf*rf + 2*states*states)
	return needMemory(fmt.Sprintf("-train %s (alphabet %d) with %s", path, symbols, what), float64(symbols)*perSymbol)
}

// countedAlphabet reads the alphabet size from the header line "N d" of
// a PAutomaC or SPiCe file. A pipe or another file that is not regular is
// not opened: it can be read once only, by the reader.
func countedAlphabet(path string) (int, bool) {
	if st, err := os.Stat(path); err != nil || !st.Mode().IsRegular() {
		return 0, false
	}
	f, err := os.Open(path)
	if err != nil {
		return 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	if !sc.Scan() {
		return 0, false
	}
	fields := strings.Fields(sc.Text())
	if len(fields) != 2 {
		return 0, false
	}
	d, err := strconv.Atoi(fields[1])
	return d, err == nil && d > 0
}
