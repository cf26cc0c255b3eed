package runs

import (
	"fmt"
	"strings"

	"github.com/pkg/errors"

	"github.com/rtnlab/rtn/datasets"
	"github.com/rtnlab/rtn/graph"
	"github.com/rtnlab/rtn/internal/memlimit"
	"github.com/rtnlab/rtn/layers"
	"github.com/rtnlab/rtn/optim"
)

// MaxHidden bounds the hidden units of a layer (TrainSpec.Hidden,
// PretrainSpec.Hidden) and the width of an embedding: an LSTM of that
// size already holds about 70 million weights per layer.
const MaxHidden = 1 << 12

// MaxLayers bounds TrainSpec.Layers.
const MaxLayers = 64

// WithDefaults returns the spec with its unset fields at their defaults.
func (s TrainSpec) WithDefaults() TrainSpec {
	if s.Model == "" {
		s.Model = "lstm"
	}
	if s.Hidden == 0 {
		s.Hidden = 32
	}
	if s.Layers == 0 {
		s.Layers = 1
	}
	if s.Task == "" {
		s.Task = "pfa"
	}
	if s.Optimizer == "" {
		s.Optimizer = "adam"
	}
	if s.Epochs == 0 {
		s.Epochs = 10
	}
	if s.Batch == 0 {
		s.Batch = 32
	}
	if s.DType == "" {
		s.DType = graph.Float64
	}
	if s.Seed == 0 {
		s.Seed = 1
	}
	if s.Out == "" {
		s.Out = s.Resume
	}
	return s
}

// Validate checks the spec's values (a *FieldError); it reads no file.
func (s TrainSpec) Validate() error {
	if !layers.HasCell(s.Model) {
		return fieldErr("Model", s.Model, "one of %s", strings.Join(layers.CellNames(), ", "))
	}
	if s.DataFile == "" && s.Task != "pfa" {
		return fieldErr("Task", s.Task, "pfa (or give {DataFile} FILE)")
	}
	return firstErr(
		checkRange("Hidden", s.Hidden, 1, MaxHidden),
		checkMin("Epochs", s.Epochs, 1),
		checkMin("Batch", s.Batch, 1),
		checkMin("Chunk", s.Chunk, 0),
		checkMin("Patience", s.Patience, 0),
		checkSeed("Seed", s.Seed),
		checkDType("DType", s.DType),
		checkComposition(s.Layers, s.Dropout, s.Embed),
		checkCell(s.Model, s.cellConfig(0)),
		checkOptimizer(s.Optimizer, s.Optim, s.Schedule),
	)
}

// checkDType refuses a dtype other than float64 and float32.
func checkDType(field, dtype string) error {
	if dtype != graph.Float64 && dtype != graph.Float32 {
		return fieldErr(field, dtype, "float64 or float32")
	}
	return nil
}

// checkComposition checks the layers, dropout and embedding around the
// cells: this package's bounds (MaxLayers, MaxHidden), then
// layers.CheckComposition, naming the field.
func checkComposition(depth int, dropout float64, embed int) error {
	switch {
	case depth > MaxLayers:
		return fieldErr("Layers", depth, "in [1, %d]", MaxLayers)
	case embed > MaxHidden:
		return fieldErr("Embed", embed, "in [0, %d]", MaxHidden)
	}
	err := layers.CheckComposition(depth, dropout, embed)
	var fe *layers.FieldError
	if errors.As(err, &fe) {
		return fieldCause(strings.ToUpper(fe.Field[:1])+fe.Field[1:], err)
	}
	return err
}

// checkCell checks the cell fields Activation, Rank, Order and Lags of a
// registered cell, naming the field at fault: each alone, then all the
// fields set together.
func checkCell(model string, c layers.CellConfig) error {
	var given []string
	for _, g := range []struct {
		field string
		set   bool
	}{{"Activation", c.Activation != ""}, {"Rank", c.Rank != 0}, {"Order", c.Order != 0}, {"Lags", c.Lags != 0}} {
		if g.set {
			given = append(given, g.field)
		}
	}
	for _, f := range []struct {
		field string
		cfg   layers.CellConfig
	}{
		{"Activation", layers.CellConfig{Activation: c.Activation}},
		{"Rank", layers.CellConfig{Rank: c.Rank}},
		{"Order", layers.CellConfig{Order: c.Order}},
		{"Lags", layers.CellConfig{Lags: c.Lags}},
		{strings.Join(given, ", "), c},
	} {
		if err := layers.CheckCellConfig(model, f.cfg); err != nil {
			return fieldCause(f.field, err)
		}
	}
	return nil
}

// checkOptimizer checks an optimizer, its hyperparameters and a schedule:
// a registered name, rates, clipping and decay finite and >= 0, momentum
// only for the optimizers that take it, a schedule optim.ParseSchedule
// reads.
func checkOptimizer(name string, c optim.Config, schedule string) error {
	if !contains(optim.Names(), name) {
		return fieldCause("Optimizer", errors.Errorf("unknown optimizer %q (known: %s)", name, strings.Join(optim.Names(), ", ")))
	}
	err := firstErr(
		checkNonNeg("Optim.LR", c.LR),
		checkNonNeg("Optim.ClipNorm", c.ClipNorm),
		checkNonNeg("Optim.WeightDecay", c.WeightDecay),
	)
	if err != nil {
		return err
	}
	if name != "sgd" && name != "rmsprop" {
		switch {
		case c.Momentum != 0:
			return fieldErr("Optim.Momentum", c.Momentum, "0 with {Optimizer} %s (momentum applies to sgd and rmsprop)", name)
		case c.Nesterov:
			return fieldErr("Optim.Nesterov", c.Nesterov, "false with {Optimizer} %s (Nesterov momentum applies to sgd and rmsprop)", name)
		}
	}
	if err := checkSchedule("Schedule", schedule); err != nil {
		return err
	}
	if _, err := optim.New(name, c); err != nil {
		return fieldCause("Optimizer", err)
	}
	return nil
}

// completeSchedules are the schedule kinds whose parameters
// optim.ParseSchedule completes with defaults when left out, each with
// its complete form and an example; a spec must give them all (warmup,
// cosine and linear ask for their lengths themselves).
var completeSchedules = map[string]struct{ form, example string }{
	"step":        {"step:N:G", "step:10:0.5"},
	"exp":         {"exp:G", "exp:0.95"},
	"exponential": {"exp:G", "exp:0.95"},
	"plateau":     {"plateau:P:F", "plateau:5:0.1"},
}

// checkSchedule refuses a schedule spec optim.ParseSchedule refuses, and
// one that leaves out a parameter of completeSchedules: a default taken
// without a word.
func checkSchedule(field, schedule string) error {
	if schedule == "" {
		return nil
	}
	if _, err := optim.ParseSchedule(schedule); err != nil {
		return fieldCause(field, err)
	}
	kind, _, _ := strings.Cut(schedule, ":")
	c, ok := completeSchedules[kind]
	if ok && strings.Count(schedule, ":") < strings.Count(c.form, ":") {
		return fieldErr(field, schedule, "complete, %s (e.g. %s)", c.form, c.example)
	}
	return nil
}

// contains reports whether list holds s.
func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// EstimateMemory counts, for the built-in task, the model's parameters
// (layers.ModelConfig.Size), each held eight times (the values, the
// gradient, Adam's two moments, the best and last good copies, and the
// checkpoint's two), and a batch's stored states and step caches, taken
// as 8 values of Hidden per layer and step. With a DataFile it first reads
// the file once (with a progress bar on Progress) for its size and its
// distinct characters: each character becomes a one-hot input of
// alphabet+1 values and a target, kept for training, validation and test
// at once. A cell that registered no size counts no parameters.
func (s TrainSpec) EstimateMemory() (MemoryEstimate, error) {
	pfa := datasets.PFAConfig{}.WithDefaults()
	symbols, maxLen := pfa.Symbols, pfa.MaxLen
	if s.DataFile != "" {
		size, distinct, err := textFileStats(s.DataFile, s.Progress)
		if err != nil {
			return MemoryEstimate{}, errors.Wrap(err, "reading the data file")
		}
		est := MemoryEstimate{What: fmt.Sprintf("{DataFile} %s (%s)", s.DataFile, memlimit.FormatBytes(float64(size))), Bytes: float64s(float64(size) * float64(distinct+4))}
		if err := CheckMemory(est); err != nil {
			return est, err
		}
		// The lengths are not read here: the weights are counted.
		symbols, maxLen = distinct, 1
	}
	mc := layers.ModelConfig{Cell: s.Model, Config: s.cellConfig(symbols + 1), Layers: s.Layers, Out: symbols, Embed: s.Embed}
	n, ok := mc.Size()
	if !ok {
		return MemoryEstimate{}, nil
	}
	acts := float64(s.Batch) * float64(maxLen) * float64(s.Layers) * 8 * float64(s.Hidden)
	return MemoryEstimate{What: fmt.Sprintf("{Model} %s {Hidden} %d {Layers} %d (%.3g parameters)", s.Model, s.Hidden, s.Layers, n),
		Bytes: float64s(8*n + acts)}, nil
}
