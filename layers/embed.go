package layers

import (
	"math/rand/v2"

	"github.com/pkg/errors"
	G "gorgonia.org/gorgonia"

	"github.com/rtnlab/rtn/graph"
	"github.com/rtnlab/rtn/params"
)

// EmbedTable is the parameter name of an EmbedCell's table.
const EmbedTable = "embed/E"

// EmbedCell reads symbol codes ([batch, 1]: 0, ..., V-1; see
// datasets.Task.SymbolCodes) and feeds their rows of a learned table
// EmbedTable [V, D] (graph.Builder.Embed) to an inner cell of input width
// D, as torch.nn.Embedding before an RNN. On the tape the lookup is part
// of the input projection: D values per row instead of the V D
// multiplications of a one-hot input times a matrix.
type EmbedCell struct {
	// Inner is the cell (or Stack) that reads the embeddings.
	Inner graph.Cell
	p     *params.Params
	v     int
}

var _ graph.Cell = (*EmbedCell)(nil)

// NewEmbedCell adds the table EmbedTable [symbols, inner.InputSize()] to
// p (zero; see Init) in front of inner.
func NewEmbedCell(p *params.Params, inner graph.Cell, symbols int) (*EmbedCell, error) {
	if symbols < 1 {
		return nil, errors.Errorf("layers: an embedding needs at least one symbol, got %d", symbols)
	}
	if _, err := p.Add(EmbedTable, symbols, inner.InputSize()); err != nil {
		return nil, err
	}
	return &EmbedCell{Inner: inner, p: p, v: symbols}, nil
}

// Init draws the table from N(0, 1), torch.nn.Embedding's default.
func (c *EmbedCell) Init(rng *rand.Rand) error { return c.p.InitNormal(EmbedTable, rng, 1) }

// Symbols is V, the number of codes.
func (c *EmbedCell) Symbols() int { return c.v }

// InputSize implements graph.Cell: one code per row.
func (c *EmbedCell) InputSize() int { return 1 }

// StateSizes implements graph.Cell: the inner cell's.
func (c *EmbedCell) StateSizes() []int { return c.Inner.StateSizes() }

// InitialState implements graph.Cell: the inner cell's.
func (c *EmbedCell) InitialState(b *graph.Builder, batch int) []*G.Node {
	return c.Inner.InitialState(b, batch)
}

// Step implements graph.Cell: the inner step on the codes' rows.
func (c *EmbedCell) Step(b *graph.Builder, x *G.Node, state []*G.Node) []*G.Node {
	return c.Inner.Step(b, b.Embed(x, b.Param(c.p, EmbedTable)), state)
}
