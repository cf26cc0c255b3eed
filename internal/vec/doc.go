// Package vec holds the small vector kernels that rtn's numerical
// packages (spectral, wfa) share, written so that their results are the
// same bits whichever path computes them.
package vec
