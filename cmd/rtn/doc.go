// Command rtn trains, samples and benchmarks recurrent tensor models and
// reproduces the experiments of the papers rtn implements.
//
// Usage:
//
//	rtn <command> [flags]
//	rtn <command> <subcommand> [flags]   (umps, wfa, strings, spectral predict|finetune)
//
// The commands, as "rtn help" (or "rtn -h") lists them:
//
//	bench      time training steps of the built-in models
//	compare    compare optimizers on a model: tuned learning rates, seeds, curves, shards
//	eval       log-likelihood of data under a model trained by rtn train -out
//	pcnn       train RNN / CNN / PCNN models with Riemannian metrics (Ollivier)
//	predict    per-step next-symbol probabilities of a trained model, as CSV
//	pretrain   linear-autoencoder pre-training of RNNs on piano rolls (Pasa and Sperduti)
//	reproduce  run the papers' headline experiments and write a summary
//	sample     draw strings from a model trained by rtn train -out
//	spectral   learn linear 2-RNNs from Hankel tensors (spectral, IHT, TIHT, +SGD); predict, finetune
//	strings    the default string learner (PFA or HMM from a spectral start, chosen on validation): fit, score, sample, rank
//	train      train a registered cell (rnn, lstm, gru, 2rnn, tensor cells; stacked) on a built-in task or a text file
//	umps       u-MPS Born machines: train, sample, prob, complete, eval, score
//	version    print the version
//	wfa        weighted automata from strings: learn, score, finetune, rank, sample, minimize, dot, sweep
//
// "rtn <command> -h" lists a command's flags, and "rtn umps -h" and
// "rtn wfa -h" their subcommands. Results go to stdout (a table, or one
// JSON object with -json); progress and logs go to stderr. The exit status
// is 0 on success, 2 on a usage error, 130 after SIGINT or SIGTERM and 1
// on any other failure (docs/robustness.md). docs/cli.md is the reference
// of every flag.
package main
