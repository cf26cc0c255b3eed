package graph

import (
	"fmt"
	"math"
	"strings"

	"github.com/pkg/errors"
	"github.com/rtnlab/rtn/params"
)

// FDOptions sets the finite-difference checker. The zero value is usable.
type FDOptions struct {
	// Step is the central-difference step h. If Step is 0, it will be
	// defaulted to 1e-6 (a good compromise for float64: error O(h^2) from
	// truncation, O(eps/h) from rounding).
	Step float64
	// Tol is the largest accepted error |analytic - numeric| /
	// max(1, |analytic|, |numeric|). If Tol is 0, it will be defaulted to 1e-5.
	Tol float64
	// MaxPerParam caps how many entries of each parameter are checked
	// (spread evenly over the tensor). If MaxPerParam is 0, every entry is.
	MaxPerParam int
}

// GradientMismatch describes one entry whose analytic and numeric
// gradients disagree.
type GradientMismatch struct {
	Param             string
	Index             int
	Analytic, Numeric float64
}

// GradientError lists the mismatches found by CheckGradients.
type GradientError struct{ Mismatches []GradientMismatch }

// Error lists the first few mismatches.
func (e *GradientError) Error() string {
	var s strings.Builder
	fmt.Fprintf(&s, "graph: %d gradient entries disagree with finite differences", len(e.Mismatches))
	for i, m := range e.Mismatches {
		if i == 5 {
			s.WriteString("; ...")
			break
		}
		fmt.Fprintf(&s, "; %s[%d]: analytic %.8g, numeric %.8g", m.Param, m.Index, m.Analytic, m.Numeric)
	}
	return s.String()
}

// CheckGradients compares an analytic gradient with central finite
// differences. loss evaluates the scalar loss at the current values of p;
// grad writes the analytic gradient at the current values of p into its
// argument (a zeroed p.Like()). Entries of p are perturbed in place and
// restored. It returns a *GradientError listing every entry out of
// tolerance, or an error from loss or grad.
//
// It works for any model: a gorgonia graph (run the Machine in loss and
// AddGrads in grad), a fused op, or a hand-written kernel.
func CheckGradients(p *params.Params, loss func() (float64, error), grad func(g *params.Params) error, opt FDOptions) error {
	h := opt.Step
	if h == 0 {
		h = 1e-6
	}
	tol := opt.Tol
	if tol == 0 {
		tol = 1e-5
	}
	g := p.Like()
	if err := grad(g); err != nil {
		return errors.Wrap(err, "graph: analytic gradient")
	}
	var bad []GradientMismatch
	for _, name := range p.Names() {
		x := p.Data(name)
		ga := g.Data(name)
		stride := 1
		if opt.MaxPerParam > 0 && len(x) > opt.MaxPerParam {
			stride = (len(x) + opt.MaxPerParam - 1) / opt.MaxPerParam
		}
		for i := 0; i < len(x); i += stride {
			x0 := x[i]
			x[i] = x0 + h
			fp, err := loss()
			if err != nil {
				x[i] = x0
				return errors.Wrap(err, "graph: loss at x+h")
			}
			x[i] = x0 - h
			fm, err := loss()
			x[i] = x0
			if err != nil {
				return errors.Wrap(err, "graph: loss at x-h")
			}
			num := (fp - fm) / (2 * h)
			scale := math.Max(1, math.Max(math.Abs(num), math.Abs(ga[i])))
			if !(math.Abs(num-ga[i])/scale <= tol) {
				bad = append(bad, GradientMismatch{Param: name, Index: i, Analytic: ga[i], Numeric: num})
			}
		}
	}
	if len(bad) > 0 {
		return &GradientError{Mismatches: bad}
	}
	return nil
}

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
