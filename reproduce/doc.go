// Package reproduce runs the headline experiments of the four papers rtn
// implements (rtn reproduce) and reports each figure the paper prints
// beside ours.
//
// Each section is a recipe: a Section value with a name, a title and a
// Run function over a Context (quick or full settings, the seed, the
// output directory). The sections are listed, in the order they run, in
// one slice in reproduce.go; Reproduce runs a selection of them and
// returns a Summary, which it writes as summary.csv and summary.json
// and which renders as a table, a Markdown page (docs/results.md) or the
// README's headline block. A section calls the drivers in package runs
// and the models in layers; it holds no model code of its own.
//
// Every figure is measured by the run: the same seed gives the same
// numbers, bit for bit.
package reproduce
