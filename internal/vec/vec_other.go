//go:build !amd64 || purego

package vec

// available is false: the vector loops are amd64 assembly, and the plain
// loops of each function take every value.
const available = false

func add64(d, a, b *float64, n int)              { panic("vec: no assembly") }
func add32(d, a, b *float32, n int)              { panic("vec: no assembly") }
func sub64(d, a, b *float64, n int)              { panic("vec: no assembly") }
func sub32(d, a, b *float32, n int)              { panic("vec: no assembly") }
func mul64(d, a, b *float64, n int)              { panic("vec: no assembly") }
func mul32(d, a, b *float32, n int)              { panic("vec: no assembly") }
func mulAdd64(d, a, b *float64, n int)           { panic("vec: no assembly") }
func mulAdd32(d, a, b *float32, n int)           { panic("vec: no assembly") }
func addTo64(d, a *float64, n int)               { panic("vec: no assembly") }
func addTo32(d, a *float32, n int)               { panic("vec: no assembly") }
func scale64(d, a *float64, s float64, n int)    { panic("vec: no assembly") }
func scale32(d, a *float32, s float32, n int)    { panic("vec: no assembly") }
func scaleAdd64(d, a *float64, s float64, n int) { panic("vec: no assembly") }
func scaleAdd32(d, a *float32, s float32, n int) { panic("vec: no assembly") }

func sigmoidGrad64(d, dy, y *float64, n int)    { panic("vec: no assembly") }
func sigmoidGradAdd64(d, dy, y *float64, n int) { panic("vec: no assembly") }
func sigmoidGrad32(d, dy, y *float32, n int)    { panic("vec: no assembly") }
func sigmoidGradAdd32(d, dy, y *float32, n int) { panic("vec: no assembly") }
func tanhGrad64(d, dy, y *float64, n int)       { panic("vec: no assembly") }
func tanhGradAdd64(d, dy, y *float64, n int)    { panic("vec: no assembly") }
func tanhGrad32(d, dy, y *float32, n int)       { panic("vec: no assembly") }
func tanhGradAdd32(d, dy, y *float32, n int)    { panic("vec: no assembly") }
