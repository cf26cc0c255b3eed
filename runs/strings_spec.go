package runs

import (
	"io"

	"github.com/rtnlab/rtn/datasets"
)

// The specs below use a model of the default string learner (rtn strings
// fit -out, LoadStringsModel); their checks are those of rtn strings
// score, sample and rank.

// StringsScoreSpec scores a strings model on test strings (rtn strings
// score).
type StringsScoreSpec struct {
	// Model is the model file and Test the strings (both required), read
	// in Format; Solution is the PAutomaC solution file of Test (empty:
	// no perplexity).
	Model, Test, Solution string
	Format                datasets.StringFormat
	// Jobs is the number of workers (the figures are the same for any).
	// If 0, it will be defaulted to 1.
	Jobs int
}

// WithDefaults returns the spec with its unset fields at their defaults.
func (s StringsScoreSpec) WithDefaults() StringsScoreSpec {
	if s.Jobs == 0 {
		s.Jobs = 1
	}
	return s
}

// Validate checks the spec's values (a *FieldError); it reads no file.
func (s StringsScoreSpec) Validate() error {
	return firstErr(checkRequired("Model", s.Model, "a model file"), checkRequired("Test", s.Test, "a string file"),
		checkStringFormat(s.Format), checkRange("Jobs", s.Jobs, 1, MaxJobs))
}

// StringsSampleSpec draws strings from a strings model (rtn strings
// sample); a draw that does not end within MaxLen is drawn again
// (StringsModel.Sample).
type StringsSampleSpec struct {
	SampleOptions
	// Stdout receives the strings when Out is "" or "-".
	Stdout io.Writer
}

// WithDefaults returns the spec with its unset fields at their defaults.
func (s StringsSampleSpec) WithDefaults() StringsSampleSpec {
	s.SampleOptions = s.SampleOptions.WithDefaults()
	return s
}

// StringsRankSpec ranks the likeliest next symbols after each prefix
// (rtn strings rank) and, with Targets, scores the rankings by NDCG@5.
type StringsRankSpec struct {
	// Model is the model file and Prefixes the prefixes (both required),
	// read in Format; Targets is a SPiCe target file (empty: no score).
	Model, Prefixes, Targets string
	Format                   datasets.StringFormat
	// K is the number of symbols ranked per prefix. If 0, it will be
	// defaulted to 5.
	K int
	// Out is the rankings file ("" : standard output without Targets,
	// none with them).
	Out string
	// Stdout receives the rankings when Out is "" without Targets.
	Stdout io.Writer
}

// WithDefaults returns the spec with its unset fields at their defaults.
func (s StringsRankSpec) WithDefaults() StringsRankSpec {
	if s.K == 0 {
		s.K = 5
	}
	return s
}

// Validate checks the spec's values (a *FieldError); it reads no file.
func (s StringsRankSpec) Validate() error {
	return firstErr(checkRequired("Model", s.Model, "a model file"), checkRequired("Prefixes", s.Prefixes, "a prefix file"),
		checkStringFormat(s.Format), checkMin("K", s.K, 1))
}
