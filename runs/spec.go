package runs

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/rtnlab/rtn/internal/memlimit"
	"github.com/rtnlab/rtn/layers"
)

// Every spec of this package follows one contract:
//
//   - WithDefaults returns the spec with each unset field (its zero value)
//     replaced by the default its comment gives. A field whose default is
//     "off" or "none" stays 0. Where 0 would be a meaningful setting that
//     is not the default, the field's comment names the value that asks
//     for it (Off, BondAuto, GrowAuto).
//   - Validate checks a spec that WithDefaults has filled, without reading
//     files or allocating: each fault is a *FieldError naming the field.
//     A zero left in a field whose default is not zero is refused like
//     any other value out of range.
//   - EstimateMemory, on specs that allocate in proportion to their sizes,
//     counts the bytes of the biggest allocations.
//
// The driver (Train, TrainUMPS, RunSpectral, ...) calls all three before
// any work, so a Go program and the command line refuse the same specs
// with the same errors; the command line only maps its flags to a spec
// and names a field by its flag.

// Off asks for "none" in a field whose zero value takes a default that is
// not none (UMPSSpec.BalanceEpochs, SpectralTuneSpec.Patience). It is far
// from any size, so that a negative value given by mistake is refused
// rather than read as none.
const Off = -1 << 31

// FieldError is the error of a spec field whose value Validate refuses.
// Its message is "Field must be Want, got Value", or "Field: Err" when
// another package's check refused the value.
type FieldError struct {
	// Field is the field's Go name, with its path below the spec
	// ("Hidden", "Optim.LR"); several fields refused together are
	// separated by ", ".
	Field string
	// Value is the value refused (nil: none is shown).
	Value any
	// Want is what the field must be ("in [1, 4096]"); it may name other
	// fields as {Name}.
	Want string
	// Err is the cause when Want is empty.
	Err error
}

// Error writes the message with the fields' Go names.
func (e *FieldError) Error() string { return e.Named(func(f string) string { return f }) }

// Unwrap returns the cause.
func (e *FieldError) Unwrap() error { return e.Err }

// Named writes the message with each field named by name (a command line
// names them by their flags).
func (e *FieldError) Named(name func(field string) string) string {
	fields := strings.Split(e.Field, ", ")
	for i, f := range fields {
		fields[i] = name(f)
	}
	subject := strings.Join(fields, ", ")
	var lf *layers.FieldError
	switch {
	case e.Want == "" && errors.As(e.Err, &lf) && (strings.HasPrefix(lf.Msg, lf.Field+" ") || strings.HasPrefix(lf.Msg, lf.Field+":")):
		return subject + strings.TrimPrefix(lf.Msg, lf.Field)
	case e.Want == "" && strings.HasPrefix(e.Err.Error(), "must "):
		return subject + " " + e.Err.Error() // "-jobs must be ...", as with Want
	case e.Want == "":
		return fmt.Sprintf("%s: %v", subject, e.Err)
	}
	msg := subject + " must be " + nameFields(e.Want, name)
	switch v := e.Value.(type) {
	case nil:
	case string:
		msg += fmt.Sprintf(", got %q", v)
	default:
		msg += fmt.Sprintf(", got %v", v)
	}
	return msg
}

// nameFields replaces each {Field} of s by name(Field).
func nameFields(s string, name func(string) string) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(s, '{')
		j := -1
		if i >= 0 {
			j = strings.IndexByte(s[i+1:], '}')
		}
		if j < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		b.WriteString(name(s[i+1 : i+1+j]))
		s = s[i+2+j:]
	}
}

// fieldErr is a *FieldError.
func fieldErr(field string, value any, want string, args ...any) error {
	return &FieldError{Field: field, Value: shownValue(value), Want: fmt.Sprintf(want, args...)}
}

// fieldCause is a *FieldError caused by err (nil stays nil).
func fieldCause(field string, err error) error {
	if err == nil {
		return nil
	}
	return &FieldError{Field: field, Err: err}
}

// checkUnset refuses a field set (not at its zero value) where it has no
// effect; where says where it would apply, fields written as {Name}
// ("unset with {Rank} (a selection setting)").
func checkUnset[T comparable](field string, v T, where string, args ...any) error {
	var zero T
	if v != zero {
		return fieldErr(field, v, where, args...)
	}
	return nil
}

// shownValue is v as a message shows it: Off as none.
func shownValue(v any) any {
	switch x := v.(type) {
	case int:
		if x == Off {
			return offValue{}
		}
	case float64:
		if x == Off {
			return offValue{}
		}
	}
	return v
}

// offValue shows Off in a message.
type offValue struct{}

func (offValue) String() string { return "none" }

// checkMin refuses an integer below lo.
func checkMin(field string, v, lo int) error {
	if v < lo {
		return fieldErr(field, v, ">= %d", lo)
	}
	return nil
}

// checkRange refuses an integer outside [lo, hi].
func checkRange(field string, v, lo, hi int) error {
	if v < lo || v > hi {
		return fieldErr(field, v, "in [%d, %d]", lo, hi)
	}
	return nil
}

// checkNonNeg refuses a float that is negative, NaN or infinite.
func checkNonNeg(field string, v float64) error {
	if !(v >= 0) || math.IsInf(v, 0) {
		return fieldErr(field, v, "a finite number >= 0")
	}
	return nil
}

// checkPositive refuses a float that is not positive and finite.
func checkPositive(field string, v float64) error {
	if !(v > 0) || math.IsInf(v, 0) {
		return fieldErr(field, v, "a finite number > 0")
	}
	return nil
}

// checkSeed refuses the seed 0 that WithDefaults replaces by 1.
func checkSeed(field string, v uint64) error {
	if v == 0 {
		return fieldErr(field, v, ">= 1 (0 is unset: WithDefaults makes it 1)")
	}
	return nil
}

// firstErr returns the first error that is not nil.
func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// MemoryEstimate is what a spec's EstimateMemory counts: the bytes of its
// biggest allocations and the sizes that drive them.
type MemoryEstimate struct {
	// What names the sizes, fields written as {Name} ("{Hidden} 4096
	// {Layers} 2 (1.26e+07 parameters)").
	What string
	// Bytes is the estimate; 0 when nothing was counted.
	Bytes float64
}

// MemoryError is the refusal of a spec whose memory estimate passes the
// memory the process may use (memlimit.Limit).
type MemoryError struct {
	MemoryEstimate
	// Limit is the memory the process may use and Source where the figure
	// comes from.
	Limit  float64
	Source string
}

// Error writes the message with the fields' Go names.
func (e *MemoryError) Error() string { return e.Named(func(f string) string { return f }) }

// Named writes the message with each field named by name.
func (e *MemoryError) Named(name func(field string) string) string {
	return fmt.Sprintf("%s needs about %s of memory, above the limit of %s (%s; set %s to change it)",
		nameFields(e.What, name), memlimit.FormatBytes(e.Bytes), memlimit.FormatBytes(e.Limit), e.Source, memlimit.Env)
}

// TimeError is the refusal of a spec whose estimated running time passes
// a bound: the run would go on for hours without output.
type TimeError struct {
	// What names the sizes and Work the work ("sampling at bond 20"),
	// fields written as {Name}; Lower names the fields to lower.
	What, Work, Lower string
	// Seconds is the estimate and Limit the bound.
	Seconds, Limit float64
}

// Error writes the message with the fields' Go names.
func (e *TimeError) Error() string { return e.Named(func(f string) string { return f }) }

// Named writes the message with each field named by name.
func (e *TimeError) Named(name func(field string) string) string {
	return fmt.Sprintf("%s needs about %.2g hours of %s (limit %g minutes): lower %s",
		nameFields(e.What, name), e.Seconds/3600, nameFields(e.Work, name), e.Limit/60, nameFields(e.Lower, name))
}

// CheckMemory returns a *MemoryError when the estimate passes the memory
// the process may use, a *memlimit.EnvError for a malformed
// RTN_MEMORY_LIMIT, nil otherwise.
func CheckMemory(est MemoryEstimate) error {
	limit, source, err := memlimit.Limit()
	if err != nil {
		return err
	}
	if est.Bytes <= limit {
		return nil
	}
	return &MemoryError{MemoryEstimate: est, Limit: limit, Source: source}
}

// checkEstimate runs CheckMemory on an estimate and its error.
func checkEstimate(est MemoryEstimate, err error) error {
	if err != nil {
		return err
	}
	return CheckMemory(est)
}

// float64s is the size in bytes of n float64 (or int) values.
func float64s(n float64) float64 { return 8 * n }
