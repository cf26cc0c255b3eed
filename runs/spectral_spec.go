package runs

// checkFracs checks the held-out fractions of a file with no split of its
// own (after WithDefaults: Off is none).
func checkFracs(valid, test float64) error {
	switch {
	case !(valid >= 0 && valid < 1):
		return fieldErr("ValidFrac", valid, "in [0, 1) (Off for none)")
	case !(test >= 0 && test < 1):
		return fieldErr("TestFrac", test, "in [0, 1) (Off for none)")
	case valid+test >= 1:
		return fieldErr("ValidFrac, TestFrac", valid+test, "below 1 together")
	}
	return nil
}

// fracDefault is a held-out fraction with its default: 0.1 when unset, 0
// for Off.
func fracDefault(v float64) float64 {
	switch v {
	case 0:
		return 0.1
	case Off:
		return 0
	}
	return v
}

// WithDefaults returns the spec with its unset fields at their defaults.
func (s SpectralTuneSpec) WithDefaults() SpectralTuneSpec {
	if s.Optimizer == "" {
		s.Optimizer = "adam"
	}
	if s.Epochs == 0 {
		s.Epochs = 100
	}
	if s.Batch == 0 {
		s.Batch = 100
	}
	if s.Patience == 0 {
		s.Patience = 5
	}
	if s.Seed == 0 {
		s.Seed = 1
	}
	s.ValidFrac, s.TestFrac = fracDefault(s.ValidFrac), fracDefault(s.TestFrac)
	if s.Out == "" {
		s.Out = s.Resume
	}
	return s
}

// Validate checks the spec's values (a *FieldError); it reads no file.
func (s SpectralTuneSpec) Validate() error {
	switch {
	case s.Model == "":
		return fieldErr("Model", nil, "a model file (rtn spectral -out)")
	case s.Data == "":
		return fieldErr("Data", nil, "a sequence-data file")
	}
	return firstErr(
		checkOptimizer(s.Optimizer, s.Optim, s.Schedule),
		checkMin("Epochs", s.Epochs, 1),
		checkMin("Batch", s.Batch, 1),
		checkPatience("Patience", s.Patience),
		checkSeed("Seed", s.Seed),
		checkFracs(s.ValidFrac, s.TestFrac),
	)
}

// checkPatience refuses a patience below 1 other than Off.
func checkPatience(field string, v int) error {
	if v < 1 && v != Off {
		return fieldErr(field, v, ">= 1, or Off for none")
	}
	return nil
}

// trainerPatience is a patience for optim.TrainConfig, where 0 is none.
func trainerPatience(v int) int { return max(v, 0) }
