package pfa

import (
	"math"
	"time"
)

// EM accelerations of TrainConfig.EMAccel.
const (
	// EMSquarem extrapolates two Baum-Welch steps by SQUAREM (see EM).
	EMSquarem = "squarem"
	// EMPlain runs plain Baum-Welch, one update per pass.
	EMPlain = "plain"
)

// EMStep is one accepted EM iterate: the number of passes over the
// training strings run so far and the iterate's training loss (nats per
// string).
type EMStep struct {
	Passes    int     `json:"passes"`
	TrainLoss float64 `json:"train_loss"`
}

// EM trains start by Baum-Welch on the strings train and returns the
// model of the best validation loss. A pass is one E-step over the whole
// training set (the expected counts and the training likelihood at one
// point); cfg.Epochs caps the passes. The validation loss is read after
// each plain update (EMPlain, the default) or each SQUAREM cycle
// (EMSquarem); EM stops after cfg.Patience readings (default 3) without a
// validation loss better by more than cfg.Tolerance (relative), at the
// cap or at cfg.Deadline. It reads EMAccel, Epochs, Patience, Tolerance,
// Jobs and Deadline of cfg.
//
// SQUAREM (Varadhan and Roland 2008, "Simple and globally convergent
// methods for accelerating the convergence of any EM algorithm", scheme
// S3 with the adaptive step bound of their SQUAREM package): from the
// iterate x with t1 = F(x) and t2 = F(t1) (F the Baum-Welch update),
// r = t1 - x and v = t2 - 2 t1 + x, the step s = |r| / |v|, clamped to
// [1, sMax], gives x' = x + 2 s r + s^2 v (s = 1 is t2, two plain
// steps). The parameters are extrapolated in the space of the log
// probabilities (the model's logits, each row then floored at emFloor
// and renormalised): every extrapolated point is a valid automaton, with
// no clamping of negative probabilities, and a parameter that EM drives
// geometrically towards 0 moves along a straight line there, which is
// where plain EM is slowest. The pass at x' gives both its likelihood
// and F(x'), the next cycle's t1, so a cycle costs two passes. x' is
// accepted when its training likelihood is at least t1's (so at least
// x's: every accepted iterate is monotone); otherwise the cycle steps
// back to the plain step t1 (whose counts the cycle already holds). sMax
// starts at 1 and is multiplied by 4 when an accepted step reached it,
// divided by 4 (not below 1) when a rejected one did.
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
	r := &emRun{p: p, cfg: cfg, patience: patience, rep: &Report{Method: "em/" + cfg.EMAccel}}
	r.rep.StartValid, _ = p.ValidationLoss()
	if cfg.EMAccel == EMPlain {
		r.plain()
	} else {
		r.squarem()
	}
	best, loss := p.Best()
	r.rep.BestValid = loss
	r.rep.Seconds = time.Since(began).Seconds()
	return best, r.rep, nil
}

// emRun is one EM run: its problem, its passes and its stopping rule.
type emRun struct {
	p        *Problem
	cfg      TrainConfig
	rep      *Report
	patience int
	// passes counts the E-steps over the training set; since the
	// validation readings in a row without improvement.
	passes, since int
}

// pass runs the E-step at the model's current logits and returns the
// training loss (nats per string, +Inf when a string is impossible); the
// counts are left in p.st.
func (r *emRun) pass() float64 {
	r.p.sync()
	r.p.stats(nil, true)
	r.passes++
	if r.p.st.Impossible > 0 {
		return math.Inf(1)
	}
	return -r.p.st.LogLik / r.p.st.Weight
}

// done reads the validation loss of the model's current logits and
// reports whether EM should stop: after patience readings without
// improvement, an impossible validation string or the deadline.
func (r *emRun) done() bool {
	before := r.p.bestLoss
	l, _ := r.p.ValidationLoss()
	r.rep.Epochs = r.passes
	if l < before {
		r.rep.BestEpoch = r.passes
	}
	if l < before-r.cfg.Tolerance*math.Abs(before) {
		r.since = 0
	} else {
		r.since++
	}
	if !r.cfg.Deadline.IsZero() && time.Now().After(r.cfg.Deadline) {
		r.rep.Deadline = true
		return true
	}
	return math.IsInf(l, 1) || r.since >= r.patience
}

// plain runs one Baum-Welch update per pass.
func (r *emRun) plain() {
	p := r.p
	for r.passes < r.cfg.Epochs {
		l := r.pass()
		p.m.emUpdate(&p.st, p.counts)
		p.syncParams()
		r.rep.Trace = append(r.rep.Trace, EMStep{r.passes, l})
		if r.done() {
			return
		}
	}
}

// squarem runs SQUAREM cycles (see EM) while two passes remain, then a
// plain step; the update from the last iterate's counts ends the run.
func (r *emRun) squarem() {
	p := r.p
	x, t1, t2, xp, tp := p.logits(), p.logits(), p.logits(), p.logits(), p.logits()
	lx := r.pass()
	p.mStep(t1)
	r.rep.Trace = append(r.rep.Trace, EMStep{r.passes, lx})
	sMax := 1.0
	for {
		if r.passes >= r.cfg.Epochs {
			// The last update is free: t1 = F(x) from x's counts.
			p.setLogits(t1)
			r.done()
			return
		}
		if r.cfg.Epochs-r.passes < 2 {
			// One pass left: a plain step, x = t1.
			x, t1 = t1, x
			p.setLogits(x)
			lx = r.pass()
			p.mStep(t1)
		} else {
			p.setLogits(t1)
			l1 := r.pass()
			p.mStep(t2)
			s := squaremStep(x, t1, t2, sMax)
			p.extrapolate(xp, x, t1, t2, s)
			p.setLogits(xp)
			lp := r.pass()
			p.mStep(tp)
			if lp <= l1 {
				x, xp, t1, tp, lx = xp, x, tp, t1, lp
				if s == sMax {
					sMax *= squaremGrow
				}
			} else {
				// Step back to the plain step t1, whose update is t2.
				x, t1, t2, lx = t1, t2, x, l1
				if s == sMax {
					sMax = max(1, sMax/squaremGrow)
				}
			}
		}
		r.rep.Trace = append(r.rep.Trace, EMStep{r.passes, lx})
		if r.passes < r.cfg.Epochs {
			p.setLogits(x)
			if r.done() {
				return
			}
		}
	}
}

// squaremGrow is the factor of the step bound's changes (mstep = 4 of
// the SQUAREM package).
const squaremGrow = 4

// squaremStep is SQUAREM's S3 step length |r| / |v| with r = t1 - x and
// v = t2 - 2 t1 + x over all the logits, clamped to [1, sMax] (1 when v
// is 0).
func squaremStep(x, t1, t2 [][]float64, sMax float64) float64 {
	rr, vv := 0.0, 0.0
	for i := range x {
		for j, v0 := range x[i] {
			r := t1[i][j] - v0
			v := t2[i][j] - 2*t1[i][j] + v0
			rr += r * r
			vv += v * v
		}
	}
	if !(vv > 0) {
		return 1
	}
	return min(max(math.Sqrt(rr/vv), 1), sMax)
}

// extrapolate writes x + 2 s r + s^2 v (r = t1 - x, v = t2 - 2 t1 + x)
// into dst, each softmax row then floored at emFloor below its largest
// entry and renormalised to log probabilities; s = 1 copies t2.
func (p *Problem) extrapolate(dst, x, t1, t2 [][]float64, s float64) {
	for i, b := range p.m.blocks() {
		if s == 1 {
			copy(dst[i], t2[i])
			continue
		}
		for j, v0 := range x[i] {
			r := t1[i][j] - v0
			v := t2[i][j] - 2*t1[i][j] + v0
			dst[i][j] = v0 + 2*s*r + s*s*v
		}
		for k := 0; k < b.rows; k++ {
			logNormalise(dst[i][k*b.cols : (k+1)*b.cols])
		}
	}
}

// logNormalise floors the logits l at log(emFloor) below the largest and
// shifts them to log probabilities (their exponentials sum to 1).
func logNormalise(l []float64) {
	mx := math.Inf(-1)
	for _, v := range l {
		mx = max(mx, v)
	}
	floor := math.Log(emFloor)
	s := 0.0
	for j, v := range l {
		l[j] = max(v-mx, floor)
		s += math.Exp(l[j])
	}
	ls := math.Log(s)
	for j := range l {
		l[j] -= ls
	}
}

// logits returns a copy of the model's logits, one slice per block.
func (p *Problem) logits() [][]float64 {
	out := p.m.newBlockBuffers()
	for i, b := range p.m.blocks() {
		copy(out[i], *b.data)
	}
	return out
}

// setLogits sets the model's logits (and the parameters) to src.
func (p *Problem) setLogits(src [][]float64) {
	for i, b := range p.m.blocks() {
		copy(*b.data, src[i])
	}
	p.syncParams()
}

// syncParams copies the model's logits into the parameters.
func (p *Problem) syncParams() {
	for _, b := range p.m.blocks() {
		copy(p.params.Data(b.name), *b.data)
	}
}

// mStep writes the Baum-Welch update of the counts in p.st, from the
// model's current logits, into dst, as log probabilities.
func (p *Problem) mStep(dst [][]float64) {
	p.m.emUpdateInto(&p.st, p.counts, dst)
}
