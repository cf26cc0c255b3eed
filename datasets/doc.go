// Package datasets holds rtn's sequence data: raw sequence types, supervised
// sequence tasks, splits, deterministic shuffling, length bucketing, padded
// minibatches with masks, truncated-BPTT chunks, a plain-text loader and
// synthetic generators with exact likelihoods.
//
// The layers, from raw data to what a model consumes:
//
//   - Symbols, Vectors and Frames are raw sequence collections: discrete
//     symbols over an alphabet, real vectors, and binary frames (piano
//     rolls). Each has a Validate method.
//   - Example and Task describe a supervised sequence task: per-step inputs
//     and targets, a TargetKind (Categorical, Binary, Real), the
//     train/validation/test split and, for synthetic tasks, the best
//     achievable loss. NextSymbol, NextFrame and NextVector build the usual
//     next-step prediction tasks from raw sequences.
//   - Batch is a padded minibatch in step-major layout with a mask;
//     MakeBatch builds one, Chunks cuts it for truncated backpropagation
//     through time. Shuffle, Split, SplitExamples, ShuffledBatches and
//     BucketBatches choose which examples go where.
//   - LoadText and LoadTextFile read one symbol sequence per line, each
//     character a symbol by default. ReadStrings and ReadStringsFile read
//     string samples in the PAutomaC, SPiCe and lines formats
//     (StringFormat; given an alphabet, symbols are looked up by name),
//     ReadSolution a PAutomaC solution file, WriteStrings writes a sample;
//     IOData and ReadIOData hold input/output sequences of any lengths for
//     2-RNN regression (CSV and .npz).
//   - PDFA is a probabilistic deterministic finite automaton; PFATask turns
//     a random one into the built-in next-symbol task of `rtn train`, with
//     its exact optimal loss.
//   - The papers' data: input/output examples of one length for 2-RNN
//     regression (TwoRNNData; the targets that generate them are
//     spectral.RNNs, see spectral.RandomTwoRNN); Tomita grammars 1-7 and
//     Motzkin words with exact membership and uniform sampling (Tomita,
//     TomitaData, MotzkinCounter, MotzkinData); the polyphonic piano rolls
//     from MATLAB v5 MAT-files and the original pickle (LoadPiano) and a
//     seeded synthetic piano-roll generator; the Riemannian paper's symbol
//     streams with exact log-likelihoods (AlphabetInsertions,
//     SyntheticMusic, DistantXOR, AnBn, Stream).
//
// Conventions. Every stochastic function takes a *rand.Rand from
// math/rand/v2 and draws from nothing else, so the same seed gives the same
// result bit for bit. Sequences are stored flat and step-major: step t of a
// sequence of width w occupies elements [t*w, (t+1)*w). Losses are in nats;
// a per-step loss is the sum over all unpadded steps divided by their
// number (Batch.Steps), not a mean of per-sequence means.
//
// The package knows nothing about gorgonia; its only dependencies outside
// the standard library are pkg/errors and gopickle (for the pickle format).
//
// A typical epoch:
//
//	task, _, err := datasets.PFATask(datasets.PFAConfig{}, rng)
//	if err != nil { ... }
//	groups := datasets.BucketBatches(datasets.Lengths(task.Train), 32, rng)
//	batches, err := datasets.MakeBatches(task, task.Train, groups)
//	for _, b := range batches {
//		for _, c := range b.Chunks(50) {
//			// feed c.X[t], c.Y[t], c.Mask[t] for t < c.T, carrying state
//		}
//	}
package datasets
