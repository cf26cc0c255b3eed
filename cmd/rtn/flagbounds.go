package main

import (
	"flag"
	"math"
)

// maxFlagInt is the largest magnitude of an integer flag, 2^31 - 1: no
// count or size of rtn comes near it (a run of 2^31 epochs, steps or
// strings would not end), and within it the product of two flags fits in
// an int, so that a huge value is refused by name rather than overflowing
// into a small one, a panic or a run that never ends.
const maxFlagInt = math.MaxInt32

// checkIntFlags refuses, as a usage error naming the flag, an integer
// flag set beyond maxFlagInt in magnitude.
func checkIntFlags(fs *flag.FlagSet) error {
	var err error
	fs.Visit(func(f *flag.Flag) {
		g, ok := f.Value.(flag.Getter)
		if !ok || err != nil {
			return
		}
		var v int64
		switch x := g.Get().(type) {
		case int:
			v = int64(x)
		case int64:
			v = x
		default:
			return
		}
		if v > maxFlagInt || v < -maxFlagInt {
			err = usagef("-%s %d is out of range: an integer flag is at most %d in magnitude", f.Name, v, maxFlagInt)
		}
	})
	return err
}
