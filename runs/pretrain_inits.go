package runs

import "path/filepath"

// RunPretrainInits runs spec once per initialisation in inits (spec.Init
// is ignored), the runs one after the other from the same seed, and
// returns their reports in the order of inits. Every run is checked
// before the first starts. With an output directory, run i writes to
// Out/inits[i] and, when there are several, curves.csv and curves.png in
// Out hold every run's curves on one plot (the paper's Figure 1).
func RunPretrainInits(spec PretrainSpec, inits []string) ([]*PretrainReport, error) {
	if len(inits) == 0 {
		return nil, fieldErr("Init", nil, "at least one initialisation")
	}
	specs := make([]PretrainSpec, len(inits))
	for i, init := range inits {
		s := spec
		s.Init = init
		if init == "" {
			return nil, fieldErr("Init", init, "autoenc, random or linear")
		}
		if err := s.WithDefaults().Validate(); err != nil {
			return nil, err
		}
		if spec.Out != "" {
			s.Out = filepath.Join(spec.Out, init)
		}
		specs[i] = s
	}
	if err := CheckOutDir("{Out}", spec.Out); err != nil {
		return nil, err
	}
	lock, err := LockOutputs([]string{spec.Out}, nil)
	if err != nil {
		return nil, err
	}
	defer lock.Release()
	reps := make([]*PretrainReport, len(specs))
	for i, s := range specs {
		if reps[i], err = RunPretrain(s); err != nil {
			return nil, err
		}
	}
	if spec.Out != "" && len(reps) > 1 {
		if err := WritePretrainCurves(spec.Out, reps); err != nil {
			return nil, err
		}
	}
	return reps, nil
}
