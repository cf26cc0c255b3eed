package layers

import (
	"slices"
	"strings"

	"github.com/pkg/errors"

	"github.com/rtnlab/rtn/graph"
)

// chooseExecutor is the one rule that picks what runs a Sequence's steps
// for cfg, shared by Problem (training, evaluation) and Predictor (use
// after training), so both run the same arithmetic: the executor cfg
// names, else the first the cell allows in cfg's float type: its
// hand-written kernel, the tape, the graphs (float64
// only). reason says why the graphs run: cfg asks for them, or the tape's
// error naming the op it cannot record.
func (s *Sequence) chooseExecutor(cfg ProblemConfig) (kind, reason string, err error) {
	if cfg.Executor != "" && !slices.Contains(Executors(), cfg.Executor) {
		return "", "", errors.Errorf("layers: unknown executor %q (known: %s)", cfg.Executor, strings.Join(Executors(), ", "))
	}
	if err := graph.CheckDType(cfg.DType); err != nil {
		return "", "", errors.Wrap(err, "layers")
	}
	f32 := cfg.DType == graph.Float32
	hasKernel := s.hasKernel(f32)
	switch cfg.Executor {
	case ExecFused:
		if !hasKernel {
			return "", "", errors.Errorf("layers: executor %q: the cell %T has no %s kernel", ExecFused, s.Cell, dtypeName(cfg.DType))
		}
		return ExecFused, "", nil
	case ExecTape:
		return ExecTape, "", nil
	case ExecGraph:
		if f32 {
			return "", "", errors.Errorf("layers: executor %q runs float64 only, not dtype %s", ExecGraph, graph.Float32)
		}
		return ExecGraph, "ProblemConfig.Executor asks for it", nil
	}
	if hasKernel {
		return ExecFused, "", nil
	}
	_, err = graph.CompileTape(s.Cell, s.Params, 1)
	switch {
	case err == nil:
		return ExecTape, "", nil
	case !errors.Is(err, graph.ErrNotRecorded):
		return "", "", errors.Wrap(err, "layers")
	case f32:
		return "", "", errors.Wrapf(err, "layers: dtype %s runs on the tape or a kernel only", graph.Float32)
	}
	return ExecGraph, err.Error(), nil
}

// hasKernel says whether the cell has a hand-written kernel in float32
// (f32) or float64.
func (s *Sequence) hasKernel(f32 bool) bool {
	if f32 {
		_, ok := s.Cell.(graph.FusedCell32)
		return ok
	}
	_, ok := s.Cell.(graph.FusedCell)
	return ok
}

// dtypeName is dtype with "" read as float64.
func dtypeName(dtype string) string {
	if dtype == "" {
		return graph.Float64
	}
	return dtype
}
