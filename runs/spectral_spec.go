package runs

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
)

// checkFracs checks the held-out fractions of a file with no split of its
// own (after WithDefaults: Off is none).
func checkFracs(valid, test float64) error {
	if valid == Off {
		valid = 0
	}
	if test == Off {
		test = 0
	}
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
	return firstErr(s.validateTraining(), checkFracs(s.ValidFrac, s.TestFrac))
}

// validateTraining checks the fields TuneRNN reads.
func (s SpectralTuneSpec) validateTraining() error {
	return firstErr(
		checkOptimizer(s.Optimizer, s.Optim, s.Schedule),
		checkMin("Epochs", s.Epochs, 1),
		checkMin("Batch", s.Batch, 1),
		checkPatience("Patience", s.Patience),
		checkSeed("Seed", s.Seed),
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

// MaxSpectralN bounds SpectralSpec.N: the dense methods hold an
// N x d^(2L+1) design matrix.
const MaxSpectralN = 1_000_000

// maxDesign bounds the entries N d^(2L+1) of the dense methods' design
// matrix.
const maxDesign = 1 << 26

// WithDefaults returns the spec with its unset fields at their defaults.
func (s SpectralSpec) WithDefaults() SpectralSpec {
	s.Task = cmpOr(s.Task, "random2rnn")
	s.Method = cmpOr(s.Method, "tiht")
	for _, p := range []struct {
		v *int
		d int
	}{{&s.N, 1000}, {&s.L, 2}, {&s.D, 3}, {&s.P, 2}, {&s.States, 5}, {&s.TestN, 1000}} {
		if *p.v == 0 {
			*p.v = p.d
		}
	}
	if s.Epochs == 0 && trainsForEpochs(s.Method) {
		s.Epochs = defaultSpectralEpochs
	}
	if s.Seed == 0 {
		s.Seed = 1
	}
	return s
}

// defaultSpectralEpochs is the default epoch cap of the spectral methods
// that train for epochs.
const defaultSpectralEpochs = 100

// trainsForEpochs reports whether a spectral method trains for epochs
// (tiht+sgd fine-tunes the TIHT estimate, lstm trains an LSTM): the
// others leave Epochs unset.
func trainsForEpochs(method string) bool { return method == "tiht+sgd" || method == "lstm" }

// checkEpochs refuses Epochs below 1 for a method that trains for epochs
// and Epochs set for one that does not; how names the methods ("{Method}
// ls").
func checkEpochs(epochs int, trains bool, how string) error {
	if trains {
		return checkMin("Epochs", epochs, 1)
	}
	return checkUnset("Epochs", epochs, "unset with %s (only tiht+sgd and lstm train for epochs)", how)
}

// Validate checks the spec's values (a *FieldError); it reads no file.
func (s SpectralSpec) Validate() error {
	switch {
	case s.Task != "random2rnn" && s.Task != "addition":
		return fieldErr("Task", s.Task, "random2rnn or addition")
	case !contains(SpectralMethods, s.Method):
		return fieldErr("Method", s.Method, "one of %s", strings.Join(SpectralMethods, ", "))
	case s.Task == "addition" && (s.D != 3 || s.P != 2 || s.States != 5):
		return fieldErr("D, P, States", []int{s.D, s.P, s.States}, "3, 2, 5: they apply to {Task} random2rnn only")
	case s.SaveModel != "" && s.Method == "lstm":
		return fieldErr("SaveModel", s.SaveModel, "empty with {Method} lstm, which learns no 2-RNN")
	}
	if ext := strings.ToLower(filepath.Ext(s.SaveData)); s.SaveData != "" && ext != ".npz" && ext != ".csv" {
		return fieldErr("SaveData", s.SaveData, "a .npz or .csv file")
	}
	err := firstErr(
		checkRange("N", s.N, 1, MaxSpectralN),
		checkNonNeg("Noise", s.Noise),
		checkRange("L", s.L, 1, 8),
		checkMin("Rank", s.Rank, 0),
		checkMin("D", s.D, 1),
		checkMin("P", s.P, 1),
		checkMin("States", s.States, 1),
		checkEpochs(s.Epochs, trainsForEpochs(s.Method), "{Method} "+s.Method),
		checkMin("TestN", s.TestN, 1),
		checkSeed("Seed", s.Seed),
	)
	if err != nil {
		return err
	}
	d := s.inputs()
	if dl := math.Pow(float64(d), float64(s.L)); float64(s.Rank) > dl {
		return fieldErr("Rank", s.Rank, "at most the Hankel matricisation's d^L = %g", dl)
	}
	if dense, big := s.designTooLarge(); big {
		return fieldErr("N", s.N, "at most %g for {Method} %s at {L} %d: its N x d^(2L+1) design matrix, too large (use tt-als)", math.Floor(maxDesign/dense), s.Method, s.L)
	}
	return nil
}

// inputs is the input dimension d of the task.
func (s SpectralSpec) inputs() int {
	if s.Task == "addition" {
		return 3
	}
	return s.D
}

// designTooLarge reports the columns d^(2L+1) of the dense design matrix
// and whether its N rows pass the dense methods' cap.
func (s SpectralSpec) designTooLarge() (float64, bool) {
	dense := math.Pow(float64(s.inputs()), float64(2*s.L+1))
	return dense, s.Method != "tt-als" && s.Method != "tt-tiht" && dense*float64(s.N) > maxDesign
}

// EstimateMemory counts the target 2-RNN (States^2 D), the training
// sequences of lengths L, 2L, 2L+1 and their outputs, the dense design
// matrix and Hankel tensor, and the test set.
func (s SpectralSpec) EstimateMemory() (MemoryEstimate, error) {
	d, p, S := float64(s.D), float64(s.P), float64(s.States)
	n, L := float64(s.N), float64(s.L)
	target := S*d*S + S*p + 2*S
	data := n*(5*L+1)*d + 3*n*p + float64(s.TestN)*(6*d+p)
	dense := math.Pow(d, 2*L+1)
	if s.Method == "tt-als" || s.Method == "tt-tiht" {
		dense = 0
	}
	return MemoryEstimate{What: fmt.Sprintf("{States} %d {P} %d {D} %d {N} %d", s.States, s.P, s.D, s.N),
		Bytes: float64s(4*target + 2*data + n*dense + 4*dense*p)}, nil
}

// Underdetermined returns the fewest training examples of length 2L+1
// that give the method as many equations (N p) as it has unknowns, and
// what those unknowns are; 0 when the method has no such count (lstm). A
// run with N below it fits an underdetermined system.
func (s SpectralSpec) Underdetermined() (int, string) {
	d, p := float64(s.D), float64(s.P)
	R := float64(s.Rank)
	if s.Task == "addition" {
		d, p = 3, 2
		if R == 0 {
			R = 2
		}
	} else if R == 0 {
		R = float64(s.States)
	}
	L := float64(s.L)
	var unknowns float64
	var what string
	switch s.Method {
	case "ls":
		unknowns, what = math.Pow(d, 2*L+1)*p, "d^(2L+1) p Hankel entries"
	case "nuclear", "iht", "tiht", "tiht+sgd":
		rows, cols := math.Pow(d, L), math.Pow(d, L+1)*p
		unknowns, what = R*(rows+cols-R), "R (d^L + d^(L+1) p - R) degrees of freedom of the rank-R Hankel matrix"
	case "tt-als", "tt-tiht":
		unknowns, what = (2*L+1)*R*R*d+R*p, "(2L+1) R^2 d + R p tensor-train values"
	default:
		return 0, ""
	}
	return int(math.Ceil(unknowns / p)), what
}

// WithDefaults returns the spec with its unset fields at the paper's grid
// (Figures 3-5): both tasks, N from 20 to 20,000, noise 0, 0.1 and 1, the
// methods ls, nuclear, iht, tiht, tiht+sgd and lstm, 5 seeds from 1.
func (s SweepSpec) WithDefaults() SweepSpec {
	if s.Tasks == nil {
		s.Tasks = []string{"random2rnn", "addition"}
	}
	if s.Ns == nil {
		s.Ns = []int{20, 40, 80, 160, 320, 640, 1280, 2560, 5000, 10000, 20000}
	}
	if s.Noises == nil {
		s.Noises = []float64{0, 0.1, 1}
	}
	if s.Methods == nil {
		s.Methods = []string{"ls", "nuclear", "iht", "tiht", "tiht+sgd", "lstm"}
	}
	if s.Seeds == 0 {
		s.Seeds = 5
	}
	if s.Seed == 0 {
		s.Seed = 1
	}
	if s.Epochs == 0 && s.trains() {
		s.Epochs = defaultSpectralEpochs
	}
	return s
}

// trains reports whether a method of the grid trains for epochs.
func (s SweepSpec) trains() bool { return slices.ContainsFunc(s.Methods, trainsForEpochs) }

// runEpochs is the Epochs of the grid's runs of method.
func (s SweepSpec) runEpochs(method string) int {
	if trainsForEpochs(method) {
		return s.Epochs
	}
	return 0
}

// Validate checks every value of the grid (a *FieldError), and each run
// of the largest N of each method as RunSpectral would.
func (s SweepSpec) Validate() error {
	for _, t := range s.Tasks {
		if t != "random2rnn" && t != "addition" {
			return fieldErr("Tasks", t, "random2rnn or addition")
		}
	}
	for _, n := range s.Ns {
		if err := checkRange("Ns", n, 1, MaxSpectralN); err != nil {
			return err
		}
	}
	for _, v := range s.Noises {
		if err := checkNonNeg("Noises", v); err != nil {
			return err
		}
	}
	for _, m := range s.Methods {
		if !contains(SpectralMethods, m) {
			return fieldErr("Methods", m, "one of %s", strings.Join(SpectralMethods, ", "))
		}
	}
	for _, r := range s.Ranks {
		if err := checkRange("Ranks", r, 1, 9); err != nil { // d^L for the addition task
			return err
		}
	}
	if err := firstErr(checkMin("Seeds", s.Seeds, 1), checkSeed("Seed", s.Seed),
		checkEpochs(s.Epochs, s.trains(), "{Methods} "+strings.Join(s.Methods, ","))); err != nil {
		return err
	}
	for _, run := range s.largest() {
		if dense, big := run.designTooLarge(); big {
			return fieldErr("Ns", run.N, "at most %g with {Methods} %s: its N x d^(2L+1) design matrix is too large (use tt-als)", math.Floor(maxDesign/dense), run.Method)
		}
	}
	return nil
}

// largest is a run of the largest N of each method, the grid's biggest.
func (s SweepSpec) largest() []SpectralSpec {
	var out []SpectralSpec
	if len(s.Ns) == 0 {
		return nil
	}
	for _, m := range s.Methods {
		out = append(out, SpectralSpec{Method: m, N: slices.Max(s.Ns), Epochs: s.runEpochs(m), Seed: s.Seed}.WithDefaults())
	}
	return out
}

// EstimateMemory is the largest estimate of the grid's runs.
func (s SweepSpec) EstimateMemory() (MemoryEstimate, error) {
	var est MemoryEstimate
	for _, run := range s.largest() {
		if e, _ := run.EstimateMemory(); e.Bytes > est.Bytes {
			est = e
		}
	}
	return est, nil
}

// WithDefaults returns the spec with its unset fields at their defaults.
func (s SpectralDataSpec) WithDefaults() SpectralDataSpec {
	s.Method = cmpOr(s.Method, "tiht")
	if s.Seed == 0 {
		s.Seed = 1
	}
	if s.Epochs == 0 && s.Method == "tiht+sgd" {
		s.Epochs = defaultSpectralEpochs
	}
	if s.MaxRank == 0 {
		s.MaxRank = 10
	}
	s.ValidFrac, s.TestFrac = fracDefault(s.ValidFrac), fracDefault(s.TestFrac)
	return s
}

// Validate checks the spec's values (a *FieldError); it reads no file.
func (s SpectralDataSpec) Validate() error {
	if !contains(SpectralDataMethods, s.Method) {
		return fieldErr("Method", s.Method, "one of %s with data", strings.Join(SpectralDataMethods, ", "))
	}
	return firstErr(
		checkMin("Rank", s.Rank, 0),
		checkMin("MaxRank", s.MaxRank, 1),
		checkSeed("Seed", s.Seed),
		checkEpochs(s.Epochs, s.Method == "tiht+sgd", "{Method} "+s.Method),
		checkFracs(s.ValidFrac, s.TestFrac),
	)
}
