// Package autoenc is the linear autoencoder for sequences of Pasa and
// Sperduti, "Pre-training of recurrent neural networks via linear
// autoencoders" (NIPS 2014): the encoder
//
//	y_t = A x_t + B y_{t-1},  y_0 = 0            (eq. 2)
//
// and the decoder [x_t; y_{t-1}] = C y_t with C = [A^T; B^T] (eq. 3), for
// input vectors x_t of width k and states y_t of width p.
//
// The weights come from the singular value decomposition Xi = V Lambda U^T
// of the data matrix Xi of reversed subsequences (section 2): row (q, t)
// of Xi is [x_t^q, x_{t-1}^q, ..., x_1^q, 0, ..., 0] for time t of sequence
// q, with as many k-wide column blocks as the longest sequence has steps.
// Then A = U_1^T (the first k rows of U, transposed) and B = Q^T with
// Q = Lambda V^T R^T V Lambda^{-1}, R the within-sequence shift.
//
//   - ClosedForm builds Xi densely and takes its exact SVD (small data):
//     with p = rank(Xi) the decoder run from the last state reconstructs
//     every input exactly.
//   - Refine solves the slack formulation of eq. (5) for p < rank(Xi) by
//     the alternating procedure of section 2.1.
//   - Approximate computes V and Lambda by Algorithms 1-3 (section 3.1),
//     slice by slice in reverse order, never forming Xi; its memory is
//     O(rows x (k + p)).
//   - Pretrain turns a model into the initial weights of an Elman RNN with
//     symmetric-sigmoid (or identity) units and fits the output weights
//     by least squares (section 3).
//
// Approximate and Pretrain share their work among the cores
// (GOMAXPROCS) in a fixed way: the same data give the same bits on any
// number of cores.
//
// Sequences are stored flat and step-major, as in package datasets: step t
// of a sequence of width k is seq[t*k:(t+1)*k]. Matrices are gonum
// *mat.Dense in the paper's orientation (A is p x k). The package does not
// depend on gorgonia.
package autoenc
