//go:build amd64 && !purego

package vec

import "github.com/rtnlab/rtn/internal/gemm"

// available is whether the assembly runs here: the processor has AVX
// (gemm.Available also asks for FMA, which every AVX2 processor has).
var available = gemm.Available()

// The assembly loops over n values, n a positive multiple of the vector
// width (4 float64s, 8 float32s).

//go:noescape
func add64(d, a, b *float64, n int)

//go:noescape
func add32(d, a, b *float32, n int)

//go:noescape
func sub64(d, a, b *float64, n int)

//go:noescape
func sub32(d, a, b *float32, n int)

//go:noescape
func mul64(d, a, b *float64, n int)

//go:noescape
func mul32(d, a, b *float32, n int)

//go:noescape
func mulAdd64(d, a, b *float64, n int)

//go:noescape
func mulAdd32(d, a, b *float32, n int)

//go:noescape
func addTo64(d, a *float64, n int)

//go:noescape
func addTo32(d, a *float32, n int)

//go:noescape
func scale64(d, a *float64, s float64, n int)

//go:noescape
func scale32(d, a *float32, s float32, n int)

//go:noescape
func scaleAdd64(d, a *float64, s float64, n int)

//go:noescape
func scaleAdd32(d, a *float32, s float32, n int)

//go:noescape
func sigmoidGrad64(d, dy, y *float64, n int)

//go:noescape
func sigmoidGradAdd64(d, dy, y *float64, n int)

//go:noescape
func sigmoidGrad32(d, dy, y *float32, n int)

//go:noescape
func sigmoidGradAdd32(d, dy, y *float32, n int)

//go:noescape
func tanhGrad64(d, dy, y *float64, n int)

//go:noescape
func tanhGradAdd64(d, dy, y *float64, n int)

//go:noescape
func tanhGrad32(d, dy, y *float32, n int)

//go:noescape
func tanhGradAdd32(d, dy, y *float32, n int)
