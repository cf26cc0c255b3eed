package main

import (
	"errors"
	"flag"
	"strings"
	"unicode"

	"github.com/rtnlab/rtn/internal/memlimit"
	"github.com/rtnlab/rtn/runs"
)

// The commands map their flags to a runs spec, and the spec checks
// itself (runs.FieldError, runs.MemoryError). A message names a spec
// field by the flag that sets it: its Go name in kebab case ("WeightDecay"
// is -weight-decay, "Optim.LR" is -lr), except for the fields below.

// flagNames maps the spec fields whose flag is not their name in kebab
// case to that flag.
var flagNames = map[string]string{
	"ClipNorm":      "clip",
	"DType":         "dtype",
	"DataFile":      "data",
	"L":             "L",
	"NTrain":        "train",
	"NValid":        "valid",
	"BatchSize":     "batch",
	"BalanceEpochs": "balance",
	"Count":         "n",
	"Depth":         "ctw-depth",
	"Iterations":    "hmm-iterations",
	"Budget":        "minutes",
	"SaveModel":     "out",
}

// baselineFlagNames are the flags of rtn pcnn -baseline whose field name
// another command's flag takes.
var baselineFlagNames = map[string]string{"States": "hmm-states", "Size": "size"}

// flagName is the flag of a spec field ("Optim.WeightDecay": -weight-decay).
func flagName(field string) string {
	if i := strings.LastIndexByte(field, '.'); i >= 0 {
		field = field[i+1:]
	}
	if f, ok := flagNames[field]; ok {
		return "-" + f
	}
	r := []rune(field)
	var b strings.Builder
	b.WriteByte('-')
	for i, c := range r {
		// A word starts at an upper-case letter after a lower-case one, or
		// before a lower-case one (GrowLR: grow-lr, LRDecay: lr-decay).
		if i > 0 && unicode.IsUpper(c) && (unicode.IsLower(r[i-1]) || (i+1 < len(r) && unicode.IsLower(r[i+1]))) {
			b.WriteByte('-')
		}
		b.WriteRune(unicode.ToLower(c))
	}
	return b.String()
}

// specError turns the error of a spec's checks or driver into the
// command's: a refused field is a usage error naming its flag, a memory
// or time estimate past the limit, or a longest length too few draws end
// within, a failure naming the flags, a malformed
// RTN_MEMORY_LIMIT a usage error, a refused output a usage error when it
// conflicts with other flags and a failure otherwise; others stay as
// they are.
func specError(err error) error { return specErrorNamed(err, nil) }

// specErrorNamed is specError with the flag names of own before the
// table's.
func specErrorNamed(err error, own map[string]string) error {
	flagName := func(field string) string {
		if f, ok := own[field[strings.LastIndexByte(field, '.')+1:]]; ok {
			return "-" + f
		}
		return flagName(field)
	}
	var fe *runs.FieldError
	var me *runs.MemoryError
	var ee *memlimit.EnvError
	var pe *runs.PathError
	var te *runs.TimeError
	var le *runs.MaxLenError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &fe):
		return usagef("%s", fe.Named(flagName))
	case errors.As(err, &me):
		return errors.New(me.Named(flagName))
	case errors.As(err, &te):
		return errors.New(te.Named(flagName))
	case errors.As(err, &le):
		return errors.New(le.Named(flagName))
	case errors.As(err, &ee):
		return usagef("%v", ee)
	case errors.As(err, &pe) && pe.Usage:
		return usagef("%s", pe.Named(flagName))
	case errors.As(err, &pe):
		return errors.New(pe.Named(flagName))
	}
	return err
}

// needMemory fails, naming what (flags and their values), when bytes
// exceed the memory limit.
func needMemory(what string, bytes float64) error {
	return specError(runs.CheckMemory(runs.MemoryEstimate{What: what, Bytes: bytes}))
}

// float64s is the size in bytes of n float64 (or int) values.
func float64s(n float64) float64 { return 8 * n }

// zeroIsOff maps the flags whose 0 means "none" to runs.Off, the value
// that asks for none in a spec field whose zero value takes a default.
func zeroIsOff[T int | float64](fields ...*T) {
	for _, f := range fields {
		if *f == 0 {
			*f = runs.Off
		}
	}
}

// givenZeroIsOff maps the flag name, whose default 0 leaves its spec field
// unset, to runs.Off when it is given as 0 (asking for none).
func givenZeroIsOff[T int | float64](fs *flag.FlagSet, name string, field *T) {
	if *field == 0 && flagSet(fs, name) {
		*field = runs.Off
	}
}
