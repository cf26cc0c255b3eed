package runs

import "fmt"

// The samplers' rule for a longest length (rtn wfa sample, rtn strings
// sample, rtn sample -stop): a draw that has not ended within MaxLen
// symbols is not a string of the model, so it is redrawn, and the strings
// returned are draws from the model conditioned on ending within MaxLen.
// The redraws are counted in the report. At most MaxLenDraws(count) draws
// are made in all; past them the run fails with a *MaxLenError.

// MaxLenDraws is the number of draws the samplers make at most for count
// strings: ten per string and 100 more, so a model whose strings end
// within MaxLen less than about one time in ten is refused instead of
// sampled for long.
func MaxLenDraws(count int) int { return 10*count + 100 }

// MaxLenError is the refusal of a sampler whose draws too seldom end
// within the longest length.
type MaxLenError struct {
	// MaxLen is the longest length, Draws the draws made and Ended how
	// many of them ended within MaxLen; Count is the number of strings
	// asked for.
	MaxLen, Count, Draws, Ended int
}

// Error writes the message with the fields' Go names.
func (e *MaxLenError) Error() string { return e.Named(func(f string) string { return f }) }

// Named writes the message with each field named by name.
func (e *MaxLenError) Named(name func(field string) string) string {
	return nameFields(fmt.Sprintf("{MaxLen} %d: %d of %d draws ended within %d symbols, short of the %d strings asked for (the model's strings are mostly longer): raise {MaxLen}",
		e.MaxLen, e.Ended, e.Draws, e.MaxLen, e.Count), name)
}

// drawWithin draws count strings by the samplers' rule: draw(limit)
// returns one draw cut at limit symbols, and a draw of more than maxLen
// symbols (draw is called with limit maxLen + 1) has not ended within
// maxLen and is redrawn; ended, when not nil, decides instead for a draw
// of at most maxLen symbols (a sampler whose end is a symbol). It returns
// the strings and the number of draws redrawn.
func drawWithin(count, maxLen int, draw func(limit int) ([]int, error), ended func([]int) bool) ([][]int, int, error) {
	limit := maxLen + 1
	if ended != nil {
		limit = maxLen
	}
	out := make([][]int, 0, count)
	draws := 0
	for len(out) < count {
		if draws == MaxLenDraws(count) {
			return nil, draws - len(out), &MaxLenError{MaxLen: maxLen, Count: count, Draws: draws, Ended: len(out)}
		}
		x, err := draw(limit)
		if err != nil {
			return nil, draws - len(out), err
		}
		draws++
		if len(x) <= maxLen && (ended == nil || ended(x)) {
			out = append(out, x)
		}
	}
	return out, draws - len(out), nil
}
