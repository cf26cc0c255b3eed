package pcnn

import (
	"math"

	"github.com/pkg/errors"
	"github.com/rtnlab/rtn/datasets"
)

// CTW is context tree weighting (Willems, Shtarkov and Tjalkens 1995)
// over an alphabet of A symbols with contexts of up to Depth past
// symbols, the paper's text-compression sanity check (section 4). Each
// context node holds a Krichevsky-Trofimov (Dirichlet(1/2)) estimator,
// P(x) = (c_x + 1/2) / (n + A/2); the weighted probability of a node is
// P_w = P_e / 2 + prod_children P_w / 2 (P_w = P_e at depth Depth).
// Positions before the start of the sequence read as an extra padding
// symbol A.
type CTW struct {
	A, Depth int
	nodes    []ctwNode
	child    map[[2]int32]int32 // (parent, symbol) -> child
	ctx      []int              // the last Depth symbols, most recent first
	logW     float64            // log P_w of the root: log-probability of all symbols seen, nats
}

type ctwNode struct {
	counts []int32
	n      int32
	le, lw float64 // log P_e, log P_w
	lc     float64 // sum of the children's log P_w
}

// NewCTW returns an empty CTW predictor.
func NewCTW(alphabet, depth int) (*CTW, error) {
	if alphabet < 2 || depth < 0 {
		return nil, errors.Errorf("pcnn: ctw needs an alphabet >= 2 and a depth >= 0, got %d and %d", alphabet, depth)
	}
	c := &CTW{A: alphabet, Depth: depth, child: map[[2]int32]int32{}, ctx: make([]int, depth)}
	for k := range c.ctx {
		c.ctx[k] = alphabet
	}
	c.nodes = append(c.nodes, ctwNode{counts: make([]int32, alphabet)})
	return c, nil
}

// Update feeds symbol x and returns log P(x | past) in nats.
func (c *CTW) Update(x int) (float64, error) {
	if x < 0 || x >= c.A {
		return 0, errors.Errorf("pcnn: ctw symbol %d outside [0, %d)", x, c.A)
	}
	// The context path: path[d] is the node of depth d.
	path := make([]int32, c.Depth+1)
	for d := 1; d <= c.Depth; d++ {
		key := [2]int32{path[d-1], int32(c.ctx[d-1])}
		id, ok := c.child[key]
		if !ok {
			id = int32(len(c.nodes))
			c.nodes = append(c.nodes, ctwNode{counts: make([]int32, c.A)})
			c.child[key] = id
		}
		path[d] = id
	}
	// Bottom-up: the deepest node's P_w is its P_e; above, the path
	// child's new P_w replaces its old one in the product.
	var childOld, childNew float64
	for d := c.Depth; d >= 0; d-- {
		nd := &c.nodes[path[d]]
		nd.le += math.Log((float64(nd.counts[x]) + 0.5) / (float64(nd.n) + 0.5*float64(c.A)))
		nd.counts[x]++
		nd.n++
		old := nd.lw
		if d == c.Depth {
			nd.lw = nd.le
		} else {
			nd.lc += childNew - childOld
			nd.lw = logMeanExp(nd.le, nd.lc)
		}
		childOld, childNew = old, nd.lw
	}
	lp := c.nodes[0].lw - c.logW
	c.logW = c.nodes[0].lw
	if c.Depth > 0 {
		copy(c.ctx[1:], c.ctx[:c.Depth-1])
		c.ctx[0] = x
	}
	return lp, nil
}

// logMeanExp is log((e^a + e^b) / 2).
func logMeanExp(a, b float64) float64 {
	m := math.Max(a, b)
	return m + math.Log((math.Exp(a-m)+math.Exp(b-m))/2)
}

// CTWBits feeds train, then valid, and returns the bits spent on the
// predicted symbols of valid (a nil mask predicts all), the paper's
// measure for the sanity checks.
func CTWBits(train, valid datasets.Stream, alphabet, depth int) (float64, error) {
	c, err := NewCTW(alphabet, depth)
	if err != nil {
		return 0, err
	}
	for _, x := range train.X {
		if _, err := c.Update(x); err != nil {
			return 0, err
		}
	}
	var bits float64
	for t, x := range valid.X {
		lp, err := c.Update(x)
		if err != nil {
			return 0, err
		}
		if chi(valid, t) {
			bits -= lp / math.Ln2
		}
	}
	return bits, nil
}
