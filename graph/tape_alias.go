package graph

// Gradient aliasing: an op that passes its output's gradient on unchanged
// to an argument (Add, Sub's first argument, AddRow's matrix, Shift,
// Reshape, and the seed of an output) needs no copy when that argument
// receives no other contribution: the argument's gradient is then the
// same memory as the one it comes from.
//
// This is safe because the backward pass runs each node's
// vector-Jacobian products once its gradient is complete (every
// contribution comes from a node after it), no op writes into the
// gradient it reads, and an aliased gradient has no other writer.

// passesGradient says whether node n passes its gradient to argument k
// unchanged (same size, contiguous).
func (n *tnode[F]) passesGradient(k int) bool {
	switch n.op {
	case opAdd, opShift, opReshape:
		return true
	case opSub, opAddRow:
		return k == 0
	}
	return false
}

// aliasGradients drops the backward steps that copy a gradient unchanged
// into one that nothing else writes, and records the alias instead
// (galias: the node whose gradient it is; gseed: the output whose
// incoming gradient it is).
func (pr *tapeProgram[F]) aliasGradients() {
	writes := make([]int, len(pr.nodes))
	for _, s := range pr.bsteps {
		switch s.kind {
		case bSeed, bZero:
			writes[s.n]++
		case bVJP:
			writes[pr.nodes[s.n].in[s.k]]++
		}
	}
	aliasable := func(i int) bool {
		n := pr.nodes[i]
		return writes[i] == 1 && n.op != opParam && n.class != clsState
	}
	kept := pr.bsteps[:0]
	for _, s := range pr.bsteps {
		switch {
		case s.kind == bSeed && aliasable(s.n) && !s.acc:
			pr.nodes[s.n].gseed = s.k
		case s.kind == bVJP && !s.acc && pr.nodes[s.n].passesGradient(s.k) && aliasable(pr.nodes[s.n].in[s.k]):
			pr.nodes[pr.nodes[s.n].in[s.k]].galias = s.n
		default:
			kept = append(kept, s)
		}
	}
	pr.bsteps = kept
}

// bindGradients points g[id] at every node's gradient for a backward pass
// from the output gradients gout into the input states' gin and the
// parameters' grads; aliased gradients come after the ones they alias
// (a node's consumers come after it), so nodes go in reverse order.
func (pr *tapeProgram[F]) bindGradients(gout, gin [][]F, grads Grads[F]) [][]F {
	g := pr.grads
	for id := len(pr.nodes) - 1; id >= 0; id-- {
		n := pr.nodes[id]
		switch {
		case !n.grad:
			g[id] = nil
		case n.op == opParam:
			g[id] = grads.Data(n.name)
		case n.class == clsState:
			g[id] = gin[n.loc[phBwd].i]
		case n.gseed >= 0:
			g[id] = gout[n.gseed][:n.size()]
		case n.galias >= 0:
			g[id] = g[n.galias][:n.size()]
		default:
			g[id] = n.gbuf
		}
	}
	return g
}
