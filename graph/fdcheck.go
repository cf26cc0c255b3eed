package graph

import (
	"fmt"
	"math"
	"strings"

	"github.com/pkg/errors"
	"github.com/rtnlab/rtn/params"
)

// FDOptions sets the finite-difference checker. The zero value is usable.
//
// The numeric gradient of an entry x is the fourth-order central
// difference
//
//	(8 (f(x+h) - f(x-h)) - (f(x+2h) - f(x-2h))) / 12h,
//
// whose error is O(h^4) from truncation and O(eps/h) from rounding: about
// 1e-12 relative to the gradient's scale at the default step for a smooth
// float64 loss of order one.
type FDOptions struct {
	// Step is the difference step h. If Step is 0, it will be defaulted
	// to 1e-4. A loss with kinks (ReLU, max, abs) near the checked point
	// needs a smaller one.
	Step float64
	// Tol is the largest accepted relative error of an entry,
	// GradientMismatch.RelErr. If Tol is 0, it will be defaulted to 1e-5.
	Tol float64
	// MaxPerParam caps how many entries of each parameter are checked
	// (spread evenly over the tensor). If MaxPerParam is 0, every entry is.
	MaxPerParam int
	// Floor is the smallest denominator of the relative error, as a
	// fraction of the largest |numeric gradient| among the entries
	// checked (GradientReport.Scale): an entry far smaller than the
	// gradient's scale, where finite differences carry mostly rounding
	// noise, is measured against Floor * Scale instead of its own size.
	// If Floor is 0, it will be defaulted to 1e-3.
	Floor float64
	// Atol is an absolute error every entry may have whatever its
	// relative error: the rounding noise of gradients that are exactly
	// zero. If Atol is 0, it will be defaulted to 1e-12.
	Atol float64
}

func (o FDOptions) withDefaults() FDOptions {
	if o.Step == 0 {
		o.Step = 1e-4
	}
	if o.Tol == 0 {
		o.Tol = 1e-5
	}
	if o.Floor == 0 {
		o.Floor = 1e-3
	}
	if o.Atol == 0 {
		o.Atol = 1e-12
	}
	return o
}

// GradientMismatch is one checked entry: its analytic and numeric
// gradients and how far apart they are.
type GradientMismatch struct {
	Param             string
	Index             int
	Analytic, Numeric float64
	// AbsErr is |Analytic - Numeric|.
	AbsErr float64
	// RelErr is AbsErr / max(|Analytic|, |Numeric|, Floor * Scale): 0
	// when all three are 0, NaN when either gradient is NaN.
	RelErr float64
}

// String is "name[index]: analytic a, numeric n (abs e, rel r)".
func (m GradientMismatch) String() string {
	return fmt.Sprintf("%s[%d]: analytic %.8g, numeric %.8g (abs %.2g, rel %.2g)", m.Param, m.Index, m.Analytic, m.Numeric, m.AbsErr, m.RelErr)
}

// GradientReport summarises a gradient check.
type GradientReport struct {
	// Checked is the number of entries compared.
	Checked int
	// Scale is the largest |numeric gradient| among them.
	Scale float64
	// WorstAbs and WorstRel are the entries with the largest absolute and
	// relative errors (a NaN error counts as the largest).
	WorstAbs, WorstRel GradientMismatch
}

// String is one line: the entries checked and the worst errors with
// where they are.
func (r GradientReport) String() string {
	return fmt.Sprintf("%d entries checked, gradient scale %.3g; worst relative error %s; worst absolute error %s", r.Checked, r.Scale, r.WorstRel, r.WorstAbs)
}

// GradientError lists the entries out of tolerance, with the report of
// the whole check.
type GradientError struct {
	Mismatches []GradientMismatch
	Report     GradientReport
}

// Error lists the first few mismatches.
func (e *GradientError) Error() string {
	var s strings.Builder
	fmt.Fprintf(&s, "graph: %d of %d gradient entries disagree with finite differences (worst relative error %.3g)", len(e.Mismatches), e.Report.Checked, e.Report.WorstRel.RelErr)
	for i, m := range e.Mismatches {
		if i == 5 {
			s.WriteString("; ...")
			break
		}
		s.WriteString("; ")
		s.WriteString(m.String())
	}
	return s.String()
}

// CheckGradients compares an analytic gradient with central finite
// differences. loss evaluates the scalar loss at the current values of p;
// grad writes the analytic gradient at the current values of p into its
// argument (a zeroed p.Like()). Entries of p are perturbed in place and
// restored. It returns a *GradientError listing every entry whose
// relative error exceeds opt.Tol (and absolute error opt.Atol), or an
// error from loss or grad.
//
// It works for any model: a gorgonia graph (run the Machine in loss and
// AddGrads in grad), a fused op, or a hand-written kernel. To check what a
// training problem runs, use CheckProblem.
func CheckGradients(p *params.Params, loss func() (float64, error), grad func(g *params.Params) error, opt FDOptions) error {
	_, err := checkGradients(p, loss, grad, opt)
	return err
}

// checkGradients is CheckGradients that also returns the report.
func checkGradients(p *params.Params, loss func() (float64, error), grad func(g *params.Params) error, opt FDOptions) (GradientReport, error) {
	opt = opt.withDefaults()
	g := p.Like()
	if err := grad(g); err != nil {
		return GradientReport{}, errors.Wrap(err, "graph: analytic gradient")
	}
	var all []GradientMismatch
	for _, name := range p.Names() {
		x := p.Data(name)
		ga := g.Data(name)
		stride := 1
		if opt.MaxPerParam > 0 && len(x) > opt.MaxPerParam {
			stride = (len(x) + opt.MaxPerParam - 1) / opt.MaxPerParam
		}
		for i := 0; i < len(x); i += stride {
			num, err := numericGrad(x, i, opt.Step, loss)
			if err != nil {
				return GradientReport{}, errors.Wrapf(err, "graph: loss with %s[%d] moved", name, i)
			}
			all = append(all, GradientMismatch{Param: name, Index: i, Analytic: ga[i], Numeric: num})
		}
	}
	return compareGradients(all, opt)
}

// numericGrad is the fourth-order central difference of loss in x[i]
// with step h (see FDOptions); x[i] is restored.
func numericGrad(x []float64, i int, h float64, loss func() (float64, error)) (float64, error) {
	x0 := x[i]
	defer func() { x[i] = x0 }()
	var f [4]float64
	for k, d := range [4]float64{h, -h, 2 * h, -2 * h} {
		x[i] = x0 + d
		v, err := loss()
		if err != nil {
			return 0, err
		}
		f[k] = v
	}
	return (8*(f[0]-f[1]) - (f[2] - f[3])) / (12 * h), nil
}

// compareGradients fills in the errors of the entries and reports them.
func compareGradients(all []GradientMismatch, opt FDOptions) (GradientReport, error) {
	rep := GradientReport{Checked: len(all)}
	for _, m := range all {
		if a := math.Abs(m.Numeric); a > rep.Scale {
			rep.Scale = a
		}
	}
	floor := opt.Floor * rep.Scale
	var bad []GradientMismatch
	for k := range all {
		m := &all[k]
		m.AbsErr = math.Abs(m.Analytic - m.Numeric)
		den := math.Max(floor, math.Max(math.Abs(m.Analytic), math.Abs(m.Numeric)))
		switch {
		case math.IsNaN(m.AbsErr):
			m.RelErr = math.NaN()
		case den > 0:
			m.RelErr = m.AbsErr / den
		}
		if k == 0 || worse(m.AbsErr, rep.WorstAbs.AbsErr) {
			rep.WorstAbs = *m
		}
		if k == 0 || worse(m.RelErr, rep.WorstRel.RelErr) {
			rep.WorstRel = *m
		}
		if !(m.RelErr <= opt.Tol || m.AbsErr <= opt.Atol) {
			bad = append(bad, *m)
		}
	}
	if len(bad) > 0 {
		return rep, &GradientError{Mismatches: bad, Report: rep}
	}
	return rep, nil
}

// worse reports whether error a is worse than b, NaN being the worst.
func worse(a, b float64) bool { return !math.IsNaN(b) && (math.IsNaN(a) || a > b) }

// CheckMachineGradients runs CheckGradients on a compiled Machine whose
// inputs are already bound: the loss is the machine's loss node and the
// gradient its symbolic gradient.
func CheckMachineGradients(m *Machine, p *params.Params, opt FDOptions) error {
	return CheckGradients(p,
		func() (float64, error) {
			if err := m.Run(); err != nil {
				return 0, err
			}
			return m.Loss(), nil
		},
		func(g *params.Params) error {
			if err := m.Run(); err != nil {
				return err
			}
			return m.AddGrads(g)
		}, opt)
}
