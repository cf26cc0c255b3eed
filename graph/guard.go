package graph

import (
	"github.com/pkg/errors"
	G "gorgonia.org/gorgonia"
)

// CheckHashes returns an error if two different nodes of g share a hash
// code. gorgonia's compiler deduplicates nodes by a 32-bit hash with no
// equality check, so such a pair is silently merged into one node: a crash
// on a shape mismatch at best, a wrong result otherwise. The chance grows
// like n^2/2^33 for n nodes (about 3% at 17k nodes); keep graphs small
// (truncated BPTT) and rebuild with different names if this fires.
func CheckHashes(g *G.ExprGraph) error {
	seen := map[uint32]*G.Node{}
	for _, n := range g.AllNodes() {
		h := n.Hashcode()
		if o, ok := seen[h]; ok && o != n {
			return errors.Errorf("graph: nodes %q and %q share hash %#x; gorgonia would merge them silently (rename one or split the graph)", o.Name(), n.Name(), h)
		}
		seen[h] = n
	}
	return nil
}
