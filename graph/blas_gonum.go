//go:build !openblas

package graph

const blasBackend = "gonum (pure Go)"
