// Package fuzzcheck holds what the fuzz targets of rtn's readers and
// specs share: a bound on the memory a call may allocate, so that a
// target fails on a declared size that a reader trusts before the input
// holds it (a header asking for gigabytes), not only on a panic.
//
//	f.Fuzz(func(t *testing.T, b []byte) {
//		fuzzcheck.Bounded(t, fuzzcheck.Limit(len(b), 64), func() {
//			datasets.ReadStrings(bytes.NewReader(b), datasets.Lines, nil)
//		})
//	})
package fuzzcheck
