package runs

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/pkg/errors"

	"github.com/rtnlab/rtn/optim"
	"github.com/rtnlab/rtn/optim/compare"
)

// CompareAliases are optimizer names of ParseCompareOptimizers that stand
// for a registered optimizer with preset settings: momentum and nesterov
// (SGD with momentum 0.9, plain or Nesterov).
var CompareAliases = map[string]compare.Setting{
	"momentum": {Name: "momentum", Optimizer: "sgd", Config: optim.Config{Momentum: 0.9}},
	"nesterov": {Name: "nesterov", Optimizer: "sgd", Config: optim.Config{Momentum: 0.9, Nesterov: true}},
}

// CompareOptimizerNames lists the names ParseCompareOptimizers accepts:
// compare.Names and CompareAliases, sorted.
func CompareOptimizerNames() []string {
	n := compare.Names()
	for a := range CompareAliases {
		n = append(n, a)
	}
	slices.Sort(n)
	return n
}

func knownOptimizers() string { return strings.Join(CompareOptimizerNames(), ", ") }

// ParseCompareOptimizers reads the optimizers of rtn compare -optimizers:
// comma-separated items NAME[:key=value...] (keys lr, momentum, nesterov,
// beta1, beta2, rho, eps, wd, clip, dwd, momentum_decay, warmup_steps,
// block, precondition_every, matrix_eps, grafting, schedule, ar, as); a
// value may hold colons (schedule=step:10:0.5). The error is a
// *FieldError of field Settings.
func ParseCompareOptimizers(s string) ([]compare.Setting, error) {
	var out []compare.Setting
	names := map[string]bool{}
	for _, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			return nil, compareErr("Settings", "has an empty item in %q", s)
		}
		toks := strings.Split(item, ":")
		name := toks[0]
		st, ok := CompareAliases[name]
		if !ok {
			if !slices.Contains(compare.Names(), name) {
				return nil, compareErr("Settings", "names an unknown optimizer %q (known: %s)", name, knownOptimizers())
			}
			st = compare.Setting{Name: name, Optimizer: name}
		}
		var kvs []string
		for _, t := range toks[1:] {
			if strings.Contains(t, "=") || len(kvs) == 0 {
				kvs = append(kvs, t)
			} else {
				kvs[len(kvs)-1] += ":" + t
			}
		}
		for _, kv := range kvs {
			if err := setOption(&st, kv); err != nil {
				return nil, compareErr("Settings", "%s: %v", item, err)
			}
		}
		if err := st.Validate(); err != nil {
			return nil, compareErr("Settings", "%s: %v", item, err)
		}
		if names[st.Name] {
			return nil, compareErr("Settings", "names %q twice: name the variants with as=LABEL", st.Name)
		}
		names[st.Name] = true
		out = append(out, st)
	}
	return out, nil
}

// setOption applies one key=value of an -optimizers item.
func setOption(st *compare.Setting, kv string) error {
	k, v, ok := strings.Cut(kv, "=")
	if !ok {
		return errors.Errorf("%q is not key=value", kv)
	}
	c := &st.Config
	floats := map[string]*float64{"lr": &c.LR, "momentum": &c.Momentum, "beta1": &c.Beta1, "beta2": &c.Beta2,
		"rho": &c.Rho, "eps": &c.Eps, "wd": &c.WeightDecay, "clip": &c.ClipNorm, "dwd": &c.DecoupledDecay,
		"momentum_decay": &c.MomentumDecay, "matrix_eps": &c.MatrixEps}
	ints := map[string]*int{"warmup_steps": &c.WarmupSteps, "block": &c.MaxPreconditionerDim, "precondition_every": &c.PreconditionFrequency}
	switch {
	case floats[k] != nil:
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || !(f >= 0) || math.IsInf(f, 0) {
			return errors.Errorf("%s must be a finite number >= 0, got %q", k, v)
		}
		*floats[k] = f
	case ints[k] != nil:
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return errors.Errorf("%s must be an integer >= 0, got %q", k, v)
		}
		*ints[k] = n
	case k == "grafting":
		if v != "adam" && v != "none" {
			return errors.Errorf("grafting must be adam or none, got %q", v)
		}
		c.Grafting = v
	case k == "nesterov" || k == "ar":
		b, err := strconv.ParseBool(v)
		if err != nil {
			return errors.Errorf("%s must be true or false, got %q", k, v)
		}
		if k == "ar" {
			st.AcceptReject = b
			if b && st.Name == st.Optimizer {
				st.Name += "+ar"
			}
		} else {
			c.Nesterov = b
		}
	case k == "schedule":
		if err := checkSchedule("schedule", v); err != nil {
			return err
		}
		st.Schedule = v
	case k == "as":
		if !compare.ValidName(v) {
			return errors.Errorf("as must be letters, digits and -_.+, got %q", v)
		}
		st.Name = v
	default:
		return errors.Errorf("unknown key %q (known: lr, momentum, nesterov, beta1, beta2, rho, eps, wd, clip, dwd, momentum_decay, warmup_steps, block, precondition_every, matrix_eps, grafting, schedule, ar, as)", k)
	}
	return nil
}

// ParseLRGrid reads a learning-rate grid: LO:HI:N gives N rates spaced
// evenly in log scale from LO to HI (rounded to 12 significant digits, so
// that 1e-3:1:4 is exactly 0.001, 0.01, 0.1, 1); otherwise a
// comma-separated list of distinct rates. "" is nil. The error is a
// *FieldError of field LRGrid.
func ParseLRGrid(s string) ([]float64, error) {
	if s == "" {
		return nil, nil
	}
	bad := func() error {
		return compareErr("LRGrid", "must be LO:HI:N with 0 < LO <= HI and N >= 1, or a list of positive rates, got %q", s)
	}
	if parts := strings.Split(s, ":"); len(parts) == 3 {
		lo, err1 := strconv.ParseFloat(parts[0], 64)
		hi, err2 := strconv.ParseFloat(parts[1], 64)
		n, err3 := strconv.Atoi(parts[2])
		if err1 != nil || err2 != nil || err3 != nil || !(lo > 0) || !(hi >= lo) || math.IsInf(hi, 0) || n < 1 || n > 1000 {
			return nil, bad()
		}
		if n == 1 {
			return []float64{lo}, nil
		}
		out := make([]float64, n)
		a, b := math.Log10(lo), math.Log10(hi)
		for i := range out {
			v := math.Pow(10, a+(b-a)*float64(i)/float64(n-1))
			out[i], _ = strconv.ParseFloat(strconv.FormatFloat(v, 'g', 12, 64), 64)
		}
		return out, nil
	}
	var out []float64
	seen := map[float64]bool{}
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || !(v > 0) || math.IsInf(v, 0) || seen[v] {
			return nil, bad()
		}
		seen[v] = true
		out = append(out, v)
	}
	return out, nil
}

// ParseSeeds reads seeds: N means 1..N, a list names the seeds. The
// error is a *FieldError of field Seeds.
func ParseSeeds(s string) ([]uint64, error) {
	bad := compareErr("Seeds", "must be a count N >= 1 or a list of distinct seeds >= 1, got %q", s)
	if !strings.Contains(s, ",") {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > 10000 {
			return nil, bad
		}
		out := make([]uint64, n)
		for i := range out {
			out[i] = uint64(i + 1)
		}
		return out, nil
	}
	var out []uint64
	seen := map[uint64]bool{}
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.ParseUint(strings.TrimSpace(f), 10, 64)
		if err != nil || v == 0 || seen[v] {
			return nil, bad
		}
		seen[v] = true
		out = append(out, v)
	}
	return out, nil
}
