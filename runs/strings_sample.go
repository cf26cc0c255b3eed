package runs

import (
	"io"
	"math/rand/v2"

	"github.com/rtnlab/rtn/datasets"
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
