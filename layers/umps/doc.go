// Package umps is the uniform matrix product state (u-MPS) Born machine of
// the paper "Tensor networks for probabilistic sequence modeling": a core
// tensor A (D x d x D) and boundary vectors alpha, omega give every string s
// the amplitude f(s) = alpha^T A(s_1)...A(s_n) omega and the probability
// f(s)^2 / Z.
//
// It holds, in plain Go (matrix products on graph.Gemm, vector products on
// gonum's BLAS):
//
//   - amplitudes in the log domain, sequentially (O(n D^2)) and by the
//     log-depth parallel product over all cores (MPS.LogAmplitudesParallel),
//     with exact power-of-two rescaling so lengths of 10,000 and more stay
//     finite;
//   - the normalisers Z_n for all lengths at once (MPS.LogZn), Z_* (the sum
//     over all lengths, Transfer.LogZStar) and Z_R for a regular expression
//     over the alphabet (CompileRegex, Transfer.LogZ), through the
//     transfer-operator algebra of the paper's Table 1, with an error where
//     a sum diverges (spectral radius >= 1);
//   - probability queries log P_n(s), log P_*(s) and log P_*(s in R);
//   - sampling: Algorithm 1 for unambiguous regexes (Transfer.Sample, with
//     the special cases SampleLength, FillIn and the full conditional
//     distribution of one missing symbol, Complete), and exact sampling for
//     any regex through its DFA (Transfer.NewExactSampler);
//   - fused gorgonia ops for training, each with its gradient: the batched
//     log-amplitude chain (LogAmp2), log Z_n (LogZn), log Z_* (LogZStar)
//     and log Z_R (LogZRegex), and the contracted core (ContractCore)
//     whose transfer operator stays below spectral radius 1, so that P_*
//     training cannot diverge; NLL, the compiled likelihood graph;
//     Problem, the likelihood as an optim.Problem for optim's
//     Trainer; and LengthBalanced, the same with minibatches holding every
//     length equally often, which parity languages need to leave the
//     uniform model they start at.
//
// A model trained per length becomes a distribution over all strings with
// a LengthModel fitted on the training lengths (FitLengths): Distribution
// gives P(s) = pi(|s|) P_|s|(s), the probability of any regex and exact
// conditional samples for it (through the regex's DFA, one sweep over
// lengths); without a length model Distribution is P_*, with Algorithm 1
// or the DFA sampler chosen by SampleAuto.
//
// Which sampler a regex takes. Algorithm 1 and Table 1 count a string once
// per way it matches, so they are exact only for unambiguous regexes:
// Transfer.Sample checks Regex.Ambiguous (position-automaton test plus
// empty-string multiplicities) and refuses an ambiguous regex. The DFA
// sampler determinises the regex, so every string has one path, and is
// exact for every regex, at a cost of O((S D^2)^3) for S DFA states. Z_R
// from Transfer.LogZ follows Table 1 (matches counted); ExactSampler.LogZ
// is the mass of the language itself.
//
// A typical use:
//
//	m, _ := umps.New(20, 2, umps.NearIdentity, rand.New(rand.NewPCG(1, 2)))
//	r, _ := umps.CompileRegex("1(0|1){8}0", "01")
//	t, _ := umps.NewTransfer(m)
//	logZR, err := t.LogZ(r)
//	strs, err := t.Sample(r, 10, rand.New(rand.NewPCG(3, 4)))
package umps
