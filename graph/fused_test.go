package graph

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/pkg/errors"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// weightedPower is y_j = c * sum_i w_i x_i^p for a fixed integer code
// vector w (not differentiated) and a scalar c (differentiated): a kernel
// with a NoDiff input, a scalar input and a vector output.
func weightedPower(p int, outLen int) Kernel {
	return Kernel{
		Name:   "test.WeightedPower",
		Key:    "p=" + string(rune('0'+p)),
		Out:    []int{outLen},
		NoDiff: []int{1},
		Forward: func(in [][]float64, y []float64) error {
			x, w, c := in[0], in[1], in[2][0]
			for j := range y {
				for i := range x {
					y[j] += c * w[i] * math.Pow(x[i], float64(p)) / float64(j+1)
				}
			}
			return nil
		},
		Backward: func(in [][]float64, _, dy []float64, g [][]float64) error {
			x, w, c := in[0], in[1], in[2][0]
			if g[1] != nil {
				return errors.New("a NoDiff input got a gradient buffer")
			}
			for j := range dy {
				for i := range x {
					f := w[i] / float64(j+1)
					g[0][i] += dy[j] * c * f * float64(p) * math.Pow(x[i], float64(p-1))
					g[2][0] += dy[j] * f * math.Pow(x[i], float64(p))
				}
			}
			return nil
		},
	}
}

func TestCheckKernelBuiltIns(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 1))
	normal := func(n int) []float64 {
		v := make([]float64, n)
		for i := range v {
			v[i] = 2 * rng.NormFloat64()
		}
		return v
	}
	for _, tc := range []struct {
		name  string
		k     Kernel
		shape []int
	}{
		{"lse-axis0", lseKernel(tensor.Shape{3, 4}, 0), []int{3, 4}},
		{"lse-axis1", lseKernel(tensor.Shape{3, 4}, 1), []int{3, 4}},
		{"lse-vector", lseKernel(tensor.Shape{5}, 0), []int{5}},
		{"logsoftmax", logSoftmaxKernel(tensor.Shape{2, 3, 2}, 1), []int{2, 3, 2}},
		{"log1pexp", log1pExpKernel(tensor.Shape{4, 2}), []int{4, 2}},
		{"reshape", reshapeKernel([]int{2, 4}), []int{4, 2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := tensor.Shape(tc.shape).TotalSize()
			if err := CheckKernel(tc.k, [][]int{tc.shape}, [][]float64{normal(n)}, rng, FDOptions{Tol: opsFDTol}); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestCheckKernelNoDiffAndScalar(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 1))
	k := weightedPower(3, 2)
	err := CheckKernel(k, [][]int{{4}, {4}, {}}, [][]float64{{0.5, -1, 2, 0.1}, {1, 0, 2, 3}, {0.7}}, rng, FDOptions{Tol: opsFDTol})
	if err != nil {
		t.Fatal(err)
	}
	// A wrong gradient is caught.
	bad := k
	bad.Backward = func(in [][]float64, out, dy []float64, g [][]float64) error {
		if err := k.Backward(in, out, dy, g); err != nil {
			return err
		}
		g[0][1] += 1e-3
		return nil
	}
	err = CheckKernel(bad, [][]int{{4}, {4}, {}}, [][]float64{{0.5, -1, 2, 0.1}, {1, 0, 2, 3}, {0.7}}, rng, FDOptions{Tol: opsFDTol})
	var ge *GradientError
	if !errors.As(err, &ge) || len(ge.Mismatches) != 1 || ge.Mismatches[0].Param != "in0" || ge.Mismatches[0].Index != 1 {
		t.Fatalf("a perturbed gradient gave %v", err)
	}
}

func TestFusedHashAndErrors(t *testing.T) {
	b := NewBuilder()
	x := b.Input("x", 4)
	w := b.Input("w", 4)
	c := b.Input("c")
	y3 := b.Fused(weightedPower(3, 2), x, w, c)
	y2 := b.Fused(weightedPower(2, 2), x, w, c)
	if err := b.Err(); err != nil {
		t.Fatal(err)
	}
	if y3 == y2 || y3.Hashcode() == y2.Hashcode() {
		t.Fatal("kernels with different keys were merged")
	}
	if err := CheckHashes(b.Graph()); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		k    Kernel
		in   []*G.Node
		want string
	}{
		{"no-forward", Kernel{Name: "k"}, []*G.Node{x}, "needs a Name and a Forward"},
		{"nil-input", weightedPower(2, 1), []*G.Node{x, nil, c}, "input 1 of test.WeightedPower is nil"},
	} {
		b := NewBuilder()
		if n := b.Fused(tc.k, tc.in...); n != nil || b.Err() == nil || !strings.Contains(b.Err().Error(), tc.want) {
			t.Errorf("%s: node %v, error %v", tc.name, n, b.Err())
		}
	}
	// A kernel without Backward runs forward, and differentiating through
	// it is an error at compile time.
	b = NewBuilder()
	p := NewParams()
	p.Add("x", 2)
	fwd := Kernel{Name: "test.Sum", Forward: func(in [][]float64, y []float64) error { y[0] = in[0][0] + in[0][1]; return nil }}
	loss := b.Fused(fwd, b.Param(p, "x"))
	if _, err := Compile(b, loss, p); err == nil || !strings.Contains(err.Error(), "gradient") {
		t.Fatalf("compiling a gradient through a forward-only kernel: %v", err)
	}
}
