// Package wfa learns weighted finite automata (WFAs) from samples of
// strings and uses them as probability models: the user-facing side of the
// string half of the 2-RNN paper (Rabusseau, Li and Precup, AISTATS 2019),
// with scikit-splearn's feature set and the paper's spectral-then-gradient
// recipe.
//
//   - Fit estimates a sparse Hankel matrix (spectral.StringHankel: classic,
//     prefix, suffix or factor, with lrows/lcolumns bases), takes its
//     truncated SVD and returns the spectral WFA. With no rank it selects
//     the variant, basis and rank on a validation split of the training
//     strings, by the validation log-loss of the floored values over the
//     automaton's mass (ValidZLL), rejecting automata that diverge
//     (spectral radius of sum_s A_s >= 1), have a mass far from 1 or floor
//     more than a small share of the validation strings. By default the
//     result is a mixture of up to 8 of the best candidates (Mix: a
//     block-diagonal WFA), with weights fitted on the validation strings,
//     when it beats the best single candidate there by more than one
//     standard error of the gain (Config.Mixture, Config.MixtureSE).
//     FitSpec fits one configuration; FitSpecs several, from one Hankel
//     build per variant, as Fit's mixture does.
//   - Predict returns the model's probabilities under the floor rule
//     (max(f(x), Floor)); Score computes the PAutomaC perplexity against a
//     solution file, LogLoss the per-symbol log-loss without one, and
//     Rank and NDCG5 the SPiCe next-symbol ranking. Strings read for a
//     model take its alphabet (datasets.ReadStringsFile(path, format,
//     m.Alphabet)), so that their symbol ids are the model's whatever the
//     file's format; Finetune maps the ids of its strings by name itself
//     (Model.Encode).
//   - Finetune turns the WFA into a linear 2-RNN (Theorem 2) and trains it
//     on the strings' log-likelihood under its next-symbol probabilities
//     (weights taken in absolute value and normalised, except that a
//     string of value not above 0 costs the floor's cost or more; exactly
//     log f(x) - log alpha^T (I - S)^-1 omega where no next-symbol weight
//     is negative; see Likelihood), with any optimizer of the optim
//     registry and early stopping on validation, and keeps the start
//     unless the trained automaton is no worse under the floor rule
//     (EvalSet.ZLL) on the validation strings and on all the strings
//     (FinetuneConfig.Check CheckNone turns the check off).
//   - Model files are JSON and round-trip bit for bit.
//
// A minimal example:
//
//	train, _ := datasets.ReadStringsFile("1.pautomac.train", datasets.PAutomaC, nil)
//	m, _, _ := wfa.Fit(train, wfa.Config{Seed: 1})
//	test, _ := datasets.ReadStringsFile("1.pautomac.test", datasets.PAutomaC, m.Alphabet)
//	solution, _ := datasets.ReadSolutionFile("1.pautomac_solution.txt")
//	q := m.Predict(test.Seqs)
//	score, _ := losses.PAutomaCPerplexity(solution, q)
package wfa
