package layers_test

import (
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	G "gorgonia.org/gorgonia"

	"github.com/rtnlab/rtn/graph"
	"github.com/rtnlab/rtn/layers"
	_ "github.com/rtnlab/rtn/layers/rnn"
	_ "github.com/rtnlab/rtn/layers/twornn"
	"github.com/rtnlab/rtn/params"
)

// testCell is the name of userCell registered by this test package: a
// user's cell, trained, saved and loaded like a built-in one.
const testCell = "diag-test"

func init() {
	layers.RegisterCell(testCell, func(p *params.Params, name string, cfg layers.CellConfig, rng *rand.Rand) (graph.Cell, error) {
		if err := cfg.CheckUnused(testCell, "activation", "rank", "order", "lags"); err != nil {
			return nil, err
		}
		c := &userCell{p: p, in: cfg.In, hidden: cfg.Hidden, prefix: name + "/"}
		for _, s := range []struct {
			n     string
			shape []int
		}{{"W", []int{cfg.In, cfg.Hidden}}, {"d", []int{cfg.Hidden}}, {"b", []int{cfg.Hidden}}} {
			if _, err := p.Add(c.prefix+s.n, s.shape...); err != nil {
				return nil, err
			}
			if err := p.InitNormal(c.prefix+s.n, rng, 0.5); err != nil {
				return nil, err
			}
		}
		return c, nil
	})
}

// userCell is DiagCell with its parameters named under a prefix, as a
// registered cell's factory names them:
//
//	h_t = tanh(x_t W + h_{t-1} * d + b),  h_0 = 0.
type userCell struct {
	p          *params.Params
	in, hidden int
	prefix     string
}

func (c *userCell) InputSize() int    { return c.in }
func (c *userCell) StateSizes() []int { return []int{c.hidden} }

func (c *userCell) InitialState(b *graph.Builder, batch int) []*G.Node {
	return []*G.Node{b.ZeroState(batch, c.hidden)}
}

func (c *userCell) Step(b *graph.Builder, x *G.Node, h []*G.Node) []*G.Node {
	z := b.Add(b.Mul(x, b.Param(c.p, c.prefix+"W")), b.MulRow(h[0], b.Param(c.p, c.prefix+"d")))
	return []*G.Node{b.Tanh(b.AddRow(z, b.Param(c.p, c.prefix+"b")))}
}

func TestRegistry(t *testing.T) {
	names := layers.CellNames()
	for _, want := range []string{"2rnn", "gru", "lstm", "rnn", testCell} {
		if !slices.Contains(names, want) {
			t.Errorf("CellNames() = %v, lacks %q", names, want)
		}
	}
	if !slices.IsSorted(names) {
		t.Errorf("CellNames() = %v, not sorted", names)
	}
	rng := rand.New(rand.NewPCG(1, 1))
	cases := []struct {
		name, model string
		cfg         layers.CellConfig
		want        string // in the error; "" for none
	}{
		{"lstm", "lstm", layers.CellConfig{In: 3, Hidden: 4}, ""},
		{"rnn default activation", "rnn", layers.CellConfig{In: 3, Hidden: 4}, ""},
		{"rnn identity", "rnn", layers.CellConfig{In: 3, Hidden: 4, Activation: "identity"}, ""},
		{"2rnn", "2rnn", layers.CellConfig{In: 3, Hidden: 4}, ""},
		{"user cell", testCell, layers.CellConfig{In: 3, Hidden: 4}, ""},
		{"unknown", "transformer", layers.CellConfig{In: 3, Hidden: 4}, `unknown cell "transformer"`},
		{"lstm activation", "lstm", layers.CellConfig{In: 3, Hidden: 4, Activation: "tanh"}, "no activation"},
		{"gru rank", "gru", layers.CellConfig{In: 3, Hidden: 4, Rank: 2}, "no rank"},
		{"rnn logistic", "rnn", layers.CellConfig{In: 3, Hidden: 4, Activation: "logistic"}, "logistic"},
		{"2rnn leaky", "2rnn", layers.CellConfig{In: 3, Hidden: 4, Activation: "leakyrelu"}, "leakyrelu"},
		{"zero hidden", "lstm", layers.CellConfig{In: 3}, "hidden width"},
		{"zero input", "rnn", layers.CellConfig{Hidden: 3}, "input width"},
		{"negative lags", "rnn", layers.CellConfig{In: 1, Hidden: 3, Lags: -1}, "lags"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := params.New()
			cell, err := layers.NewCell(c.model, p, c.model, c.cfg, rng)
			if c.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				if cell.InputSize() != c.cfg.In || cell.StateSizes()[0] != c.cfg.Hidden {
					t.Errorf("cell of input %d, state %v for %+v", cell.InputSize(), cell.StateSizes(), c.cfg)
				}
				if p.Len() == 0 || !strings.HasPrefix(p.Names()[0], c.model+"/") {
					t.Errorf("parameters %v not named after %q", p.Names(), c.model)
				}
				if p.Norm() == 0 {
					t.Error("the factory left the parameters at zero")
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one containing %q", err, c.want)
			}
		})
	}
	var unknown *layers.UnknownCellError
	if _, err := layers.NewCell("nope", params.New(), "x", layers.CellConfig{In: 1, Hidden: 1}, rng); !errors.As(err, &unknown) || unknown.Name != "nope" {
		t.Errorf("unknown cell: %v, want an *UnknownCellError", err)
	}
}

func TestRegisterCellPanics(t *testing.T) {
	f := func(*params.Params, string, layers.CellConfig, *rand.Rand) (graph.Cell, error) { return nil, nil }
	for _, c := range []struct {
		name string
		f    layers.CellFactory
	}{{"lstm", f}, {testCell, f}, {"", f}, {"a/b", f}, {"fresh", nil}} {
		t.Run(c.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Errorf("RegisterCell(%q) did not panic", c.name)
				}
			}()
			layers.RegisterCell(c.name, c.f)
		})
	}
}

// TestCheckCellConfig checks that the cheap check gives NewCell's answer
// without the sizes: large widths are not built.
func TestCheckCellConfig(t *testing.T) {
	for _, c := range []struct {
		model string
		cfg   layers.CellConfig
		ok    bool
	}{
		{"gru", layers.CellConfig{}, true},
		{"lstm", layers.CellConfig{In: 1 << 20, Hidden: 1 << 20}, true},
		{"rnn", layers.CellConfig{Activation: "symsigmoid"}, true},
		{"lstm", layers.CellConfig{Activation: "tanh"}, false},
		{"2rnn", layers.CellConfig{Lags: 2}, false},
		{"nope", layers.CellConfig{}, false},
	} {
		if err := layers.CheckCellConfig(c.model, c.cfg); (err == nil) != c.ok {
			t.Errorf("%s %+v: error %v, want ok %v", c.model, c.cfg, err, c.ok)
		}
	}
}
