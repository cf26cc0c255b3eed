package pfa

import (
	"math"
	"time"
)

// EM trains start by Baum-Welch on the strings train (the full set each
// iteration), stopping after cfg.Patience iterations (default 3) without
// a better validation loss or after cfg.Epochs iterations, and returns the
// model of the best validation loss. It reads Epochs, Patience, Jobs and
// Deadline of cfg.
func EM(start *Model, train, valid [][]int, cfg TrainConfig) (*Model, *Report, error) {
	patience := cfg.Patience
	if patience == 0 {
		patience = 3
	}
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, nil, err
	}
	began := time.Now()
	p, err := NewProblem(start, train, valid, cfg.Jobs)
	if err != nil {
		return nil, nil, err
	}
	rep := &Report{Method: "em"}
	rep.StartValid, _ = p.ValidationLoss()
	since := 0
	for it := 1; it <= cfg.Epochs && since < patience; it++ {
		p.sync()
		p.ev.Stats(p.probs, p.train, p.tw, nil, true, &p.st)
		p.m.emUpdate(&p.st, p.counts)
		for _, b := range p.m.blocks() {
			copy(p.params.Data(b.name), *b.data)
		}
		before := p.bestLoss
		l, _ := p.ValidationLoss()
		rep.Epochs = it
		if l < before {
			rep.BestEpoch, since = it, 0
		} else {
			since++
		}
		if math.IsInf(l, 1) {
			break
		}
		if !cfg.Deadline.IsZero() && time.Now().After(cfg.Deadline) {
			rep.Deadline = true
			break
		}
	}
	best, loss := p.Best()
	rep.BestValid = loss
	rep.Seconds = time.Since(began).Seconds()
	return best, rep, nil
}
