package graph

import (
	"gorgonia.org/tensor"

	"github.com/rtnlab/rtn/params"
)

// Params is params.Params: named float64 tensors living outside any graph.
// Builder.Param binds one of them to a node that shares its memory.
type Params = params.Params

// NewParams returns an empty parameter set (params.New).
func NewParams() *Params { return params.New() }

// MaxParamSize is params.MaxSize.
const MaxParamSize = params.MaxSize

// Checkpoint files are params' .npz files.
var (
	SaveNPZ         = params.SaveNPZ
	LoadNPZ         = params.LoadNPZ
	WriteNPY        = params.WriteNPY
	ReadNPY         = params.ReadNPY
	WriteFileAtomic = params.WriteFileAtomic
	LoadParamsInto  = params.LoadInto
)

// tensorOf returns a tensor view of the parameter called name in p, sharing
// its memory, or nil when p has no such parameter.
func tensorOf(p *Params, name string) *tensor.Dense {
	d := p.Data(name)
	if d == nil {
		return nil
	}
	return tensor.New(tensor.WithShape(p.Shape(name)...), tensor.WithBacking(d))
}
