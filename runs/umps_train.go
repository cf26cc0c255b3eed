package runs

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"

	"github.com/pkg/errors"

	"github.com/rtnlab/rtn/datasets"
	"github.com/rtnlab/rtn/layers/umps"
	"github.com/rtnlab/rtn/optim"
	"github.com/rtnlab/rtn/params"
)

// TrainUMPS trains spec.Restarts u-MPS initialisations (each twice,
// without and with a length-balanced start, when spec.BalanceEpochs > 0)
// and keeps the best by validation NLL. Unset fields take the paper's
// settings: NLL (per length, log P_n, unless spec.Norm says P_*), Adam lr
// 1e-2 (1e-1 from an N(0, 1/D) core; see UMPSSpec.LR), batch 50, early
// stopping with warm-up 5 and patience 5, the learning rate divided by 10
// at each plateau with the optimizer re-initialised, stop at the third
// plateau, best parameters by validation NLL. DefaultUMPSFileSpec holds
// the settings for string files.
func TrainUMPS(spec UMPSSpec) (*UMPSReport, error) {
	spec = spec.WithDefaults()
	if err := firstErr(spec.Validate(), spec.checkLanguage()); err != nil {
		return nil, err
	}
	if err := CheckOutDir("{Out}", spec.Out); err != nil {
		return nil, err
	}
	if err := checkEstimate(spec.EstimateMemory()); err != nil {
		return nil, err
	}
	spec = spec.resolved()
	lock, err := LockOutputs([]string{spec.Out}, nil)
	if err != nil {
		return nil, err
	}
	defer lock.Release()
	// The bond rule reads its own sample of the file, before the training
	// strings are read, so the two are never held at once. It has its own
	// generator (BondRule.WFA.Seed), so a run with the bond it chooses
	// given as a number trains the same model.
	sample, sampleAlphabet, err := bondSample(spec)
	if err != nil {
		return nil, err
	}
	bond, err := chooseBond(&spec, sample, sampleAlphabet)
	if err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(spec.Seed, 0x756d7073))
	train, valid, alphabet, err := umpsSpecData(spec, rng)
	if err != nil {
		return nil, err
	}
	meta := umps.ModelMeta{Kind: "umps", Data: spec.Data, Alphabet: alphabet, Bond: spec.Bond, Norm: spec.Norm.String()}
	if *spec.Norm == umps.PerLength {
		lengths := make([]int, len(train))
		for i, s := range train {
			lengths[i] = len(s)
		}
		if meta.Lengths, err = umps.FitLengths(lengths); err != nil {
			return nil, err
		}
	}
	variants := []int{0}
	if spec.BalanceEpochs > 0 {
		variants = append(variants, spec.BalanceEpochs)
	}
	var best *UMPSReport
	for k := 0; k < spec.Restarts; k++ {
		for _, b := range variants {
			dir := spec.Out
			if dir != "" && spec.Restarts*len(variants) > 1 {
				name := fmt.Sprintf("restart%d", k+1)
				if b > 0 {
					name += "-balanced"
				}
				dir = filepath.Join(dir, name)
			}
			run := spec
			run.BalanceEpochs = b
			rep, err := trainOnce(run, train, valid, meta, rand.New(rand.NewPCG(spec.Seed, 0x696e6974+uint64(k))), dir)
			if err != nil {
				return nil, err
			}
			if best == nil || rep.ValidNLL < best.ValidNLL {
				best = rep
			}
		}
	}
	if err := finishReport(best, meta, valid); err != nil {
		return nil, err
	}
	best.SpectralRank, best.BondSeconds, best.Spectral = bond.Rank, bond.Seconds, bond.WFA
	if spec.Out != "" {
		if err := umps.SaveModel(filepath.Join(spec.Out, "model.npz"), meta, best.Params); err != nil {
			return nil, err
		}
	}
	return best, nil
}

// finishReport bakes the contraction into rep.Params (umps.Contracted)
// and fills in the model's metadata, length model and ValidNLLAll.
func finishReport(rep *UMPSReport, meta umps.ModelMeta, valid [][]int) error {
	m, err := umps.Contracted(rep.Params)
	if err != nil {
		return err
	}
	if rep.Params, err = umps.NewParamsFrom(m); err != nil {
		return err
	}
	rep.Meta, rep.LengthModel = meta, meta.LengthModelName()
	rep.ValidNLLAll, err = meanNLLAll(meta.Distribution(m), valid)
	return err
}

// umpsSpecData returns the training and validation strings of spec and
// the alphabet: a string file when spec.Format is set, else UMPSData.
func umpsSpecData(spec UMPSSpec, rng *rand.Rand) (train, valid [][]int, alphabet []string, err error) {
	if spec.Format == nil {
		return UMPSData(spec.Data, spec.NTrain, spec.NValid, rng)
	}
	seqs, alphabet, err := ReadUMPSStrings(spec.Data, *spec.Format, spec.Alphabet)
	if err != nil {
		return nil, nil, nil, err
	}
	if len(alphabet) == 0 {
		return nil, nil, nil, errors.Errorf("%s: empty alphabet", spec.Data)
	}
	train, valid, err = splitValid(seqs, spec.ValidFrac, rng)
	if err != nil {
		return nil, nil, nil, errors.Wrap(err, spec.Data)
	}
	return train, valid, alphabet, nil
}

// bondSample returns the strings the bond rule reads and their alphabet:
// BondRule.MaxStrings of the file's strings, evenly spaced in file order
// (datasets.ReadStringsSampleFile), when spec chooses its bond from a
// string file, else nil. It checks first what the training strings will
// need (an alphabet, enough strings for the validation split), so that a
// file that cannot be trained on fails before the rule runs.
func bondSample(spec UMPSSpec) ([][]int, []string, error) {
	if spec.Bond != BondAuto || spec.Format == nil {
		return nil, nil, nil
	}
	n := spec.BondRule.MaxStrings
	if n == 0 {
		n = DefaultBondStrings
	}
	if n < 0 {
		return nil, nil, errors.Errorf("%s: bond rule: max strings %d, want >= 0", spec.Data, n)
	}
	s, total, err := datasets.ReadStringsSampleFile(spec.Data, *spec.Format, spec.Alphabet, n)
	if err != nil {
		return nil, nil, err
	}
	if len(s.Alphabet) == 0 {
		return nil, nil, errors.Errorf("%s: empty alphabet", spec.Data)
	}
	if _, err := validCount(total, spec.ValidFrac); err != nil {
		return nil, nil, errors.Wrap(err, spec.Data)
	}
	return s.Seqs, s.Alphabet, nil
}

// meanNLLAll is -(1/N) sum log P(s) under p, nats per string.
func meanNLLAll(p umps.Distribution, seqs [][]int) (float64, error) {
	lp, err := p.LogProbs(seqs)
	if err != nil {
		return 0, err
	}
	s := 0.0
	for _, v := range lp {
		s -= v
	}
	return s / float64(len(seqs)), nil
}

// trainOnce trains one initialisation drawn from rng; dir, if not empty,
// receives its checkpoint and metrics (and, with spec.GrowFrom, the
// smaller model's in dir/grow-from-N).
func trainOnce(spec UMPSSpec, train, valid [][]int, meta umps.ModelMeta, rng *rand.Rand, dir string) (*UMPSReport, error) {
	p, grown, err := startParams(&spec, train, valid, meta, rng, dir)
	if err != nil {
		return nil, err
	}
	if *spec.Norm == umps.AllLengths && !p.Has(umps.ParamGamma) {
		return nil, errors.New("runs: a P_* start without the contraction bound")
	}
	var balanced *umps.Problem
	if *spec.Norm == umps.AllLengths {
		if balanced, err = umps.NewProblem(p, train, valid, umps.PerLength); err != nil {
			return nil, err
		}
	}
	prob, err := umps.NewProblem(p, train, valid, *spec.Norm)
	if err != nil {
		return nil, err
	}
	if balanced == nil {
		balanced = prob
	}
	if dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
	}
	pre, err := balancedStart(spec, balanced, meta, dir)
	if err != nil {
		return nil, err
	}
	opt, err := optim.New("adam", optim.Config{LR: spec.LR, ClipNorm: spec.ClipNorm})
	if err != nil {
		return nil, err
	}
	cfg := optim.TrainConfig{
		Epochs: spec.Epochs, BatchSize: spec.BatchSize, Seed: spec.Seed,
		Patience: spec.Patience, Warmup: spec.Warmup, MaxDrops: 3, ResetOnDrop: true, RestoreOnDrop: *spec.RestoreOnDrop,
		Progress: spec.Progress, Meta: meta,
	}
	if dir != "" {
		cfg.CheckpointPath = filepath.Join(dir, "checkpoint.npz")
		cfg.MetricsPath = filepath.Join(dir, "metrics.jsonl")
	}
	tr, err := optim.NewTrainer(prob, opt, cfg)
	if err != nil {
		return nil, err
	}
	res, err := tr.Run()
	if err != nil {
		return nil, err
	}
	rep := &UMPSReport{Data: spec.Data, Bond: spec.Bond, NTrain: len(train), NValid: len(valid),
		Epochs: pre.Epochs + res.Epochs, BestEpoch: pre.Epochs + res.BestEpoch, Seconds: pre.Seconds + res.Seconds,
		BalanceEpochs: spec.BalanceEpochs, Params: p, Meta: meta, Grown: grown}
	if rep.TrainNLL, err = umps.MeanNLL(p, train, *spec.Norm); err != nil {
		return nil, err
	}
	if rep.ValidNLL, err = umps.MeanNLL(p, valid, *spec.Norm); err != nil {
		return nil, err
	}
	return rep, nil
}

// startParams returns the parameters trainOnce starts from: a new core
// drawn from rng, or, with spec.GrowFrom, the model of that bond
// dimension trained by trainOnce from the same generator and grown into
// spec.Bond, whose report it also returns (spec then loses its
// length-balanced start, the grown core not being at the uniform model,
// and takes GrowLR as its learning rate).
func startParams(spec *UMPSSpec, train, valid [][]int, meta umps.ModelMeta, rng *rand.Rand, dir string) (*params.Params, *UMPSReport, error) {
	if spec.GrowFrom > 0 {
		small, smeta, sdir := *spec, meta, ""
		small.Bond, small.GrowFrom, smeta.Bond = spec.GrowFrom, 0, spec.GrowFrom
		if dir != "" {
			sdir = filepath.Join(dir, fmt.Sprintf("grow-from-%d", spec.GrowFrom))
		}
		rep, err := trainOnce(small, train, valid, smeta, rng, sdir)
		if err != nil {
			return nil, nil, errors.Wrapf(err, "the bond dimension %d to grow from", spec.GrowFrom)
		}
		sd := spec.GrowNoise
		// Grown before finishReport bakes the contraction in, so that a
		// P_* core keeps its bound.
		p, err := umps.GrowParams(rep.Params, spec.Bond, sd, rng)
		if err == nil {
			err = finishReport(rep, smeta, valid)
		}
		spec.BalanceEpochs = 0
		spec.LR = spec.GrowLR
		return p, rep, err
	}
	p, err := umps.NewParams(spec.Bond, len(meta.Alphabet), spec.Init, rng)
	if err != nil {
		return nil, nil, err
	}
	if spec.InitNoise > 0 && spec.Init == umps.NearIdentity {
		initNoise(p, spec.InitNoise, rng)
	}
	if *spec.Norm == umps.AllLengths {
		// The contracted core (umps.ContractCore) keeps Z_* finite; its
		// bound starts at the ratio of a geometric length distribution
		// with the training mean, and the length-balanced start, if any,
		// trains the same core on P_n (blind to the scale) first.
		if err := umps.AddGamma(p, geometricRatio(train)); err != nil {
			return nil, nil, err
		}
	}
	return p, nil, nil
}

// geometricRatio is q = mu/(mu+1) for the mean length mu of seqs (the
// geometric distribution with that mean), kept in [0.05, 0.99].
func geometricRatio(seqs [][]int) float64 {
	sum := 0.0
	for _, s := range seqs {
		sum += float64(len(s))
	}
	mu := sum / float64(len(seqs))
	return min(max(mu/(mu+1), 0.05), 0.99)
}

// balancedStart runs the spec.BalanceEpochs length-balanced epochs that
// precede the paper's training (nothing when there are none): Adam at
// spec.LR, constant, no early stopping, ending at the best parameters by
// validation NLL (the initial ones included). dir, if not empty,
// receives their metrics in balanced.jsonl.
func balancedStart(spec UMPSSpec, prob *umps.Problem, meta umps.ModelMeta, dir string) (*optim.Result, error) {
	if spec.BalanceEpochs == 0 {
		return &optim.Result{}, nil
	}
	lb, err := prob.Balanced()
	if err != nil {
		return nil, err
	}
	opt, err := optim.New("adam", optim.Config{LR: spec.LR, ClipNorm: spec.ClipNorm})
	if err != nil {
		return nil, err
	}
	cfg := optim.TrainConfig{Epochs: spec.BalanceEpochs, BatchSize: spec.BatchSize, Seed: spec.Seed, Progress: spec.Progress, Meta: meta}
	if dir != "" {
		cfg.MetricsPath = filepath.Join(dir, "balanced.jsonl")
	}
	tr, err := optim.NewTrainer(lb, opt, cfg)
	if err != nil {
		return nil, err
	}
	return tr.Run()
}

// initNoise redraws the core as the identity plus N(0, sd^2) entries in
// every slice A(c).
func initNoise(p *params.Params, sd float64, rng *rand.Rand) {
	A := p.Data(umps.ParamA)
	sh := p.Shape(umps.ParamA)
	D, d := sh[0], sh[1]
	for i := 0; i < D; i++ {
		for c := 0; c < d; c++ {
			for j := 0; j < D; j++ {
				v := sd * rng.NormFloat64()
				if i == j {
					v++
				}
				A[(i*d+c)*D+j] = v
			}
		}
	}
}
