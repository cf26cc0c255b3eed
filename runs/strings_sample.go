package runs

import (
	"io"
	"math/rand/v2"

	"github.com/pkg/errors"

	"github.com/rtnlab/rtn/datasets"
	"github.com/rtnlab/rtn/wfa"
)

// StringsSampleReport is what SampleStrings did beyond writing the
// strings.
type StringsSampleReport struct {
	// Redrawn is the number of draws that did not end within MaxLen and
	// were drawn again.
	Redrawn int
}

// SampleStrings draws spec.Count strings from the strings model in
// spec.Model (rtn strings sample) and writes them to spec.Out (or
// spec.Stdout) in spec.Format; its checks, the output's included, run
// before the model is read.
func SampleStrings(spec StringsSampleSpec) (rep StringsSampleReport, err error) {
	spec = spec.WithDefaults()
	if err := spec.Validate(); err != nil {
		return rep, err
	}
	if err := CheckStdoutOrFile("{Out}", spec.Out, spec.Model); err != nil {
		return rep, err
	}
	m, err := LoadStringsModel(spec.Model)
	if err != nil {
		return rep, err
	}
	var seqs [][]int
	seqs, rep.Redrawn, err = m.Sample(spec.Count, spec.MaxLen, rand.New(rand.NewPCG(spec.Seed, 0)))
	if err != nil {
		return rep, err
	}
	s := datasets.Symbols{Alphabet: m.Alphabet, Seqs: seqs}
	return rep, WriteOut(spec.Out, spec.Stdout, func(w io.Writer) error { return datasets.WriteStrings(w, s, spec.Format) })
}

// RunStringsRank ranks the likeliest next symbols after each prefix of
// spec.Prefixes under the strings model in spec.Model (rtn strings rank),
// scores the rankings by NDCG@5 with spec.Targets, and writes them to
// spec.Out (or spec.Stdout; with Targets and no Out, nowhere); its checks,
// the outputs' included, run before the model is read.
func RunStringsRank(spec StringsRankSpec) (*WFARankReport, error) {
	spec = spec.WithDefaults()
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	if err := CheckStdoutOrFile("{Out}", spec.Out, spec.Model, spec.Prefixes, spec.Targets); err != nil {
		return nil, err
	}
	m, err := LoadStringsModel(spec.Model)
	if err != nil {
		return nil, err
	}
	s, err := m.Read(spec.Prefixes, spec.Format)
	if err != nil {
		return nil, err
	}
	ranks, err := RankStrings(m, s.Seqs, spec.K)
	if err != nil {
		return nil, err
	}
	var t []wfa.Target
	if spec.Targets != "" {
		if t, err = wfa.ReadTargetsFile(spec.Targets); err != nil {
			return nil, err
		}
		if len(t) != len(ranks) {
			return nil, errors.Errorf("%s: %d targets for the %d prefixes of %s", spec.Targets, len(t), len(ranks), spec.Prefixes)
		}
	}
	return reportRanks(ranks, m.Alphabet, t, spec.Targets, spec.Out, spec.Stdout)
}
