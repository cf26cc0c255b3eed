package graph

import (
	"gorgonia.org/tensor"

	"github.com/rtnlab/rtn/params"
)

// tensorOf returns a tensor view of the parameter called name in p, sharing
// its memory, or nil when p has no such parameter.
func tensorOf(p *params.Params, name string) *tensor.Dense {
	d := p.Data(name)
	if d == nil {
		return nil
	}
	return tensor.New(tensor.WithShape(p.Shape(name)...), tensor.WithBacking(d))
}
