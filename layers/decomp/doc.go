// Package decomp holds decomposed weight tensors for recurrent tensor
// models: CP (rank R), Tucker and tensor-train (TT ranks) factorisations
// of a tensor W [d_1, ..., d_N, out] with N input modes, as parameters of
// a params.Params set.
//
// Each applies W to a Kronecker-structured input without forming it:
// Apply(b, x_1, ..., x_N) is sum W[i_1, ..., i_N, j] x_1[i_1] ... x_N[i_N]
// for every row, written with graph.Builder's public ops (Mul, Hadamard,
// Kron, Einsum), so it runs on the tape like any cell. Init draws the
// factors so that W's entries have the variance a full weight of the same
// initial scale would have. A second-order cell's transition tensor
// applied to (h_{t-1}, x_t) is the typical use:
//
//	w, _ := decomp.NewCP(p, "cell/A", []int{hidden, in}, hidden, rank)
//	w.Init(rng, 1/math.Sqrt(float64(hidden*in)))
//	...
//	pre := w.Apply(b, h, x) // [batch, hidden]
package decomp
