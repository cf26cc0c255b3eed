// Package npz reads and writes numpy .npz archives of named arrays
// without depending on gorgonia, for the packages (datasets, spectral)
// that must not: a zip archive of NPY files, numbered arrays written as
// little-endian float64 ('<f8') or int64 ('<i8'), read back from any of
// '<f8', '<f4', '<i8', '<i4', '|u1' and '|b1', plus an optional
// "meta.json" entry. numpy.load reads the files this package writes.
package npz
