// Package spectral learns linear second-order RNNs (2-RNNs) from
// input/output examples by the spectral method of Rabusseau, Li and Precup,
// "Connecting weighted automata and recurrent neural networks through
// spectral learning" (AISTATS 2019), the 2-RNN paper below.
//
// The pieces, in the order of Algorithm 1:
//
//   - RNN is a linear 2-RNN (alpha, A, Omega) and WFA a vector-valued
//     weighted automaton; WFA.RNN and RNN.WFA are the exact conversions of
//     Theorem 2 (one-hot inputs).
//   - Design builds the Kronecker design matrix whose rows are
//     x_1 (x) ... (x) x_l, so that an example of length l is a linear
//     measurement y = H^(l)<<l,1>>^T x of the Hankel tensor H^(l)
//     (Section 4.2). Hankel holds such a tensor.
//   - LeastSquares, NuclearNorm (ADMM with singular value thresholding;
//     NuclearHoldout picks the penalty for noisy data), IHT and TIHT
//     recover H^(l) from the measurements (Algorithm 1, lines 3-12). TT is
//     a tensor train with TT-SVD, rounding and contraction with Kronecker
//     inputs, used by TIHT.
//   - Recover turns H^(L), H^(2L), H^(2L+1) into a linear 2-RNN
//     (Theorem 3), and Learn runs the whole algorithm with the paper's
//     rule for aberrant estimates (the zero function when the estimate
//     fits the training data worse than zero does).
//   - Fit learns from sequences of any lengths (datasets.IOData): the
//     paper's recipe when the lengths are L, 2L, 2L+1, otherwise a
//     prefix/suffix Basis of lengths chosen from the data (ChooseBasis),
//     one Hankel tensor estimate per length it needs, and RecoverBasis,
//     Theorem 3 on that basis. FitSelect picks the rank on validation
//     data; SaveModel and LoadModel keep a model in a .npz file with JSON
//     metadata, bit for bit.
//   - From string samples: StringHankel is the sparse empirical Hankel
//     matrix of a sample in scikit-splearn's four variants (Classic,
//     Prefix, Suffix, Factor) with lrows/lcolumns bases; Factorize takes
//     its truncated SVD (Sparse.TruncatedSVD, randomized above 400 rows
//     and columns, seeded) and Factorization.WFA reads off the spectral
//     WFA of any rank, converted to the string function (FromVariant).
//     WFA.Value (WFA.Values for many strings, each distinct prefix read
//     once: Words), Mass, SpectralRadius, NextSymbol, Sample and Minimize
//     use such automata as distributions; package wfa builds on them.
//   - The tensor-train path never forms a tensor of d^(2L) entries: ALS
//     fits each H^(l) in TT form core by core (optionally on
//     mini-batches), RecoverTT applies Theorem 3 to tensor trains, and
//     LearnTT chains them.
//
// Tensor layout. A tensor of shape d_1 x ... x d_k is stored flat and
// row-major (the last index fastest), so every matricisation
// <<m, k-m>> used in the paper is a reshape of the same data: the first m
// modes index rows. The Kronecker product x_1 (x) ... (x) x_l follows the
// same order (x_1's index is the most significant).
//
// The package depends on gonum for linear algebra and on datasets for the
// data type; it knows nothing about gorgonia. Estimates become initial
// values of the gorgonia 2-RNN cell in layers/twornn.
package spectral
