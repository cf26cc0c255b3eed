// Command torch-optim writes, as JSON on stdout, the parameters of rtn's
// adamw, nadam and radam after each of 20 steps over a fixed, seeded
// sequence of gradients, with the start and the gradients, so that
// check.py can replay the same steps with torch.optim and report the
// largest difference:
//
//	go run ./scripts/torch-optim | python3 scripts/torch-optim/check.py
package main

import (
	"encoding/json"
	"log"
	"math/rand/v2"
	"os"

	"github.com/rtnlab/rtn/optim"
	"github.com/rtnlab/rtn/params"
)

// steps is the length of each run.
const steps = 20

// tensor is one parameter or gradient: its shape and row-major values.
type tensor struct {
	Name  string    `json:"name"`
	Shape []int     `json:"shape"`
	Data  []float64 `json:"data"`
}

// run is one optimizer configuration with its torch.optim equivalent.
type run struct {
	Optimizer   string         `json:"optimizer"`
	Torch       string         `json:"torch"`
	TorchKwargs map[string]any `json:"torch_kwargs"`
	Start       []tensor       `json:"start"`
	Grads       [][]tensor     `json:"grads"`
	After       [][]tensor     `json:"after"` // rtn's parameters after each step
}

var shapes = []struct {
	name  string
	shape []int
}{{"w", []int{4, 5}}, {"b", []int{7}}, {"s", []int{1}}}

func tensors(p *params.Params) []tensor {
	var out []tensor
	for _, n := range p.Names() {
		out = append(out, tensor{n, p.Shape(n), append([]float64(nil), p.Data(n)...)})
	}
	return out
}

func newParams(rng *rand.Rand, scale float64) *params.Params {
	p := params.New()
	for _, s := range shapes {
		d, err := p.Add(s.name, s.shape...)
		if err != nil {
			log.Fatal(err)
		}
		for i := range d {
			d[i] = scale * rng.NormFloat64()
		}
	}
	return p
}

func main() {
	type cfg struct {
		name, torch string
		c           optim.Config
		kw          map[string]any
	}
	cfgs := []cfg{
		{"adamw", "AdamW", optim.Config{LR: 0.05}, map[string]any{"lr": 0.05}},
		{"adamw", "AdamW", optim.Config{LR: 0.1, Beta1: 0.8, Beta2: 0.99, Eps: 1e-6, DecoupledDecay: 0.3},
			map[string]any{"lr": 0.1, "betas": []float64{0.8, 0.99}, "eps": 1e-6, "weight_decay": 0.3}},
		{"nadam", "NAdam", optim.Config{LR: 0.05}, map[string]any{"lr": 0.05}},
		{"nadam", "NAdam", optim.Config{LR: 0.02, Beta1: 0.95, Beta2: 0.98, MomentumDecay: 0.3, WeightDecay: 0.1},
			map[string]any{"lr": 0.02, "betas": []float64{0.95, 0.98}, "momentum_decay": 0.3, "weight_decay": 0.1}},
		{"radam", "RAdam", optim.Config{LR: 0.05}, map[string]any{"lr": 0.05}},
		{"radam", "RAdam", optim.Config{LR: 0.05, Beta1: 0.5, Beta2: 0.9, Eps: 1e-3, WeightDecay: 0.05},
			map[string]any{"lr": 0.05, "betas": []float64{0.5, 0.9}, "eps": 1e-3, "weight_decay": 0.05}},
	}
	var runs []run
	for i, c := range cfgs {
		rng := rand.New(rand.NewPCG(uint64(i), 17))
		p := newParams(rng, 1)
		o, err := optim.New(c.name, c.c)
		if err != nil {
			log.Fatal(err)
		}
		r := run{Optimizer: c.name, Torch: c.torch, TorchKwargs: c.kw, Start: tensors(p)}
		for range steps {
			g := newParams(rng, 2)
			if err := o.Step(p, g); err != nil {
				log.Fatal(err)
			}
			r.Grads = append(r.Grads, tensors(g))
			r.After = append(r.After, tensors(p))
		}
		runs = append(runs, r)
	}
	if err := json.NewEncoder(os.Stdout).Encode(runs); err != nil {
		log.Fatal(err)
	}
}
