package autoenc

import (
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestRotateSplit checks that rotate gives the same bits when a sweep is
// shared among goroutines by ranges of columns as when it runs on one.
func TestRotateSplit(t *testing.T) {
	const n = 300
	rng := rand.New(rand.NewPCG(13, 13))
	z := make([]float64, n*n)
	for i := range z {
		z[i] = rng.NormFloat64()
	}
	cs := make([]float64, 2*n)
	for i := range n {
		a := rng.Float64() * 2 * math.Pi
		cs[2*i], cs[2*i+1] = math.Cos(a), math.Sin(a)
	}
	want := append([]float64(nil), z...)
	for i := n - 2; i >= 3; i-- {
		c, s := cs[2*i], cs[2*i+1]
		for k := range n {
			x, y := want[i*n+k], want[(i+1)*n+k]
			want[(i+1)*n+k] = s*x + c*y
			want[i*n+k] = c*x - s*y
		}
	}
	if (n-1-3)*n < rotateSerial {
		t.Fatalf("a %d x %d sweep stays serial", n-4, n)
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(3))
	rotate(z, n, 3, n-1, cs)
	for i := range z {
		if z[i] != want[i] {
			t.Fatalf("element %d: split %v, serial %v", i, z[i], want[i])
		}
	}
}

// TestSymEigLarge checks symEig where its rotations are split, on a
// 200 x 200 Gram matrix, against the SVD.
func TestSymEigLarge(t *testing.T) {
	const n = 200
	rng := rand.New(rand.NewPCG(14, 14))
	x := mat.NewDense(n, n, nil)
	for i := range n {
		for j := range n {
			x.Set(i, j, rng.NormFloat64())
		}
	}
	var g mat.SymDense
	g.SymOuterK(1, x)
	vals, rows, ok := symEig(&g)
	if !ok {
		t.Fatal("no convergence")
	}
	var svd mat.SVD
	if !svd.Factorize(&g, mat.SVDNone) {
		t.Fatal("SVD did not converge")
	}
	sv := svd.Values(nil)
	for j := range n {
		if math.Abs(vals[j]-sv[j]) > 1e-11*sv[0] {
			t.Errorf("value %d: eig %.15g, SVD %.15g", j, vals[j], sv[j])
		}
	}
	// Residual |g v - lambda v| of every eigenvector.
	worst := 0.0
	for j := range n {
		v := mat.NewVecDense(n, rows[j*n:(j+1)*n])
		var gv mat.VecDense
		gv.MulVec(&g, v)
		gv.AddScaledVec(&gv, -vals[j], v)
		worst = max(worst, mat.Norm(&gv, 2)/sv[0])
	}
	t.Logf("worst relative residual %.3g", worst)
	if worst > 1e-12 {
		t.Errorf("worst relative residual %.3g", worst)
	}
}
