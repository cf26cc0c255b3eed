package layers_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/rtnlab/rtn/layers"
	_ "github.com/rtnlab/rtn/layers/rnn"
	_ "github.com/rtnlab/rtn/layers/tensorcell"
	_ "github.com/rtnlab/rtn/layers/twornn"
)

// TestModelSize checks that ModelConfig.Size counts what NewModel builds,
// for every built-in cell, with defaults, stacks and an embedding.
func TestModelSize(t *testing.T) {
	for _, cell := range []string{"rnn", "lstm", "gru", "2rnn", "cp2rnn", "hotrnn", "mirnn", "mpscell"} {
		for _, mc := range []layers.ModelConfig{
			{Config: layers.CellConfig{In: 5, Hidden: 4}, Layers: 1, Out: 4, Kind: "categorical"},
			{Config: layers.CellConfig{In: 5, Hidden: 3}, Layers: 3, Out: 4, Kind: "categorical", Input: layers.InputNextSymbol, Embed: 2},
		} {
			mc.Cell = cell
			t.Run(fmt.Sprintf("%s/%d", cell, mc.Layers), func(t *testing.T) {
				m, err := layers.NewModel(mc, rand.New(rand.NewPCG(1, 1)))
				if err != nil {
					t.Fatal(err)
				}
				got, ok := mc.Size()
				if want := float64(m.Seq.Params.Size()); !ok || got != want {
					t.Errorf("Size %v (ok %v), the model holds %v", got, ok, want)
				}
			})
		}
	}
	for _, c := range []layers.CellConfig{{In: 3, Hidden: 5, Rank: 2}, {In: 3, Hidden: 4, Order: 3, Lags: 3, Rank: 2}} {
		model := map[int]string{2: "cp2rnn", 3: "hotrnn"}[max(c.Order, 2)]
		m, err := layers.NewModel(layers.ModelConfig{Cell: model, Config: c, Out: 2, Kind: "categorical"}, rand.New(rand.NewPCG(1, 1)))
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := (layers.ModelConfig{Cell: model, Config: c, Out: 2}).Size(); got != float64(m.Seq.Params.Size()) {
			t.Errorf("%s %+v: Size %v, built %v", model, c, got, m.Seq.Params.Size())
		}
	}
}
