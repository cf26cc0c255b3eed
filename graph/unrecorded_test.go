package graph

import (
	"strings"
	"testing"

	"github.com/pkg/errors"
	"github.com/rtnlab/rtn/params"
	G "gorgonia.org/gorgonia"
)

// TestNotRecordedNamesTheCall checks that the tape's refusal of a node
// outside its record says which call made it: Builder.Do with its name,
// Builder.Fused with its kernel, or gorgonia directly with the op.
func TestNotRecordedNamesTheCall(t *testing.T) {
	cases := []struct {
		name string
		make func(b *Builder, a *G.Node) *G.Node
		want string
	}{
		{"do", func(b *Builder, a *G.Node) *G.Node {
			return b.Do("my-tanh", func() (*G.Node, error) { return G.Tanh(a) })
		}, `Builder.Do("my-tanh") made node`},
		{"fused", func(b *Builder, a *G.Node) *G.Node {
			k := Kernel{Name: "test.Sum", Out: []int{1}, Forward: func(in [][]float64, y []float64) error {
				for _, v := range in[0] {
					y[0] += v
				}
				return nil
			}}
			return b.Fused(k, a)
		}, `Builder.Fused(kernel "test.Sum") made node`},
		{"gorgonia", func(b *Builder, a *G.Node) *G.Node {
			n, err := G.Tanh(a)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}, "was made by gorgonia directly"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := params.New()
			if _, err := p.Add("a", 2, 3); err != nil {
				t.Fatal(err)
			}
			b := NewBuilder()
			out := tc.make(b, b.Param(p, "a"))
			if err := b.Err(); err != nil {
				t.Fatal(err)
			}
			_, err := newTapeProgram(b, []*G.Node{out}, nil, nil, p, Weights[float64]{}, false)
			if !errors.Is(err, ErrNotRecorded) {
				t.Fatalf("error %v, want ErrNotRecorded", err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not say %q", err, tc.want)
			}
		})
	}
}
