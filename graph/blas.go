package graph

// BLASBackend names the BLAS every dense kernel runs on: gonum's pure-Go
// implementation by default, the system OpenBLAS when built with
// -tags openblas (which needs libopenblas-dev and cgo).
func BLASBackend() string { return blasBackend }
