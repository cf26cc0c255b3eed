package runs

import (
	"reflect"
	"slices"
	"strings"
)

// SpectralCommand is one rtn spectral command: a run on a built-in task
// (Single, RunSpectral), the paper's grid (Sweep: Grid, then the rank runs
// of Figure 5, SpectralSweep) or a run on a sequence-data file (Data with
// Data.Data set, RunSpectralData). The settings the three share are read
// from Single: Method and Rank (a built-in run and a data file's), Seed
// and Epochs (every run); SingleSpec, GridSpec, RankSpec and DataSpec copy
// them into the chosen run's spec, whose driver fills its defaults and
// checks it.
//
// Validate reads the fields as given: a field is set when it is not zero,
// and a field of a run the command does not choose is refused (it would
// have no effect). The fields of Data and Grid that the shared settings
// replace (Data.Method, Data.Rank, Data.Seed, Data.Epochs, Data.SaveModel,
// Grid.Seed, Grid.Epochs) and Single.SaveModel stay unset: Out is the
// output of every run.
type SpectralCommand struct {
	// Single is the run on a built-in task, and the shared settings.
	Single SpectralSpec
	// Sweep chooses the paper's grid: Grid's fields (Tasks both, unset
	// fields the paper's grid), then the rank runs (addition task, noise
	// 1, tiht) at the ranks Grid.Ranks, default 2, 3, 4, 5.
	Sweep bool
	Grid  SweepSpec
	// Resume keeps the runs already in Out's CSV files (Sweep only).
	Resume bool
	// Data is the run on a sequence-data file, chosen when Data.Data is
	// set.
	Data SpectralDataSpec
	// Out is the directory of the grid's CSV files and plots (default
	// out/spectral) or the learned model of a single run (default none;
	// see SpectralSpec.SaveModel).
	Out string
}

// spectralMode is a run of rtn spectral, as a bit of a set.
type spectralMode int

const (
	spectralSingle spectralMode = 1 << iota
	spectralSweep
	spectralData
)

// name names the modes m in a message, fields written as {Field}.
func (m spectralMode) name() string {
	switch m {
	case spectralSingle:
		return "a single built-in run"
	case spectralSweep:
		return "{Sweep}"
	case spectralData:
		return "{Data.Data}"
	}
	return "single runs (built-in task or {Data.Data})"
}

// spectralFieldModes gives the runs that read each field of a
// SpectralCommand that some runs do not (the shared settings Single.Seed
// and Single.Epochs, and Out, apply to every run).
var spectralFieldModes = []struct {
	field string
	modes spectralMode
}{
	{"Data.TestFrac", spectralData}, {"Data.ValidFrac", spectralData},
	{"Grid.Methods", spectralSweep}, {"Grid.Noises", spectralSweep}, {"Grid.Ns", spectralSweep},
	{"Grid.Ranks", spectralSweep}, {"Grid.Seeds", spectralSweep}, {"Resume", spectralSweep},
	{"Single.D", spectralSingle}, {"Single.L", spectralSingle}, {"Single.N", spectralSingle}, {"Single.Noise", spectralSingle},
	{"Single.P", spectralSingle}, {"Single.SaveData", spectralSingle}, {"Single.States", spectralSingle}, {"Single.Task", spectralSingle},
	{"Single.Method", spectralSingle | spectralData}, {"Single.Rank", spectralSingle | spectralData},
}

// spectralTwins pairs a field with the one that plays its part in another
// run (Single.Method for one run, Grid.Methods for the grid), for the
// hint of a message.
var spectralTwins = map[string]string{
	"Single.N": "Grid.Ns", "Single.Noise": "Grid.Noises", "Single.Method": "Grid.Methods", "Single.Rank": "Grid.Ranks",
	"Grid.Ns": "Single.N", "Grid.Noises": "Single.Noise", "Grid.Methods": "Single.Method", "Grid.Ranks": "Single.Rank",
	"Grid.Seeds": "Single.Seed",
}

// mode is the run the command chooses.
func (c SpectralCommand) mode() spectralMode {
	switch {
	case c.Data.Data != "":
		return spectralData
	case c.Sweep:
		return spectralSweep
	}
	return spectralSingle
}

// WithDefaults returns the command with the unset fields of the run it
// chooses at their spec's defaults (the shared settings in Single, Out
// out/spectral for the grid). The held-out fractions of a data file stay
// unset: RunSpectralData refuses them, when set, for a file with a split
// of its own.
func (c SpectralCommand) WithDefaults() SpectralCommand {
	if c.Single.Seed == 0 {
		c.Single.Seed = 1
	}
	switch c.mode() {
	case spectralSingle:
		c.Single = c.Single.WithDefaults()
	case spectralSweep:
		g := c.GridSpec().WithDefaults()
		c.Grid.Tasks, c.Grid.Ns, c.Grid.Noises, c.Grid.Methods, c.Grid.Seeds = g.Tasks, g.Ns, g.Noises, g.Methods, g.Seeds
		c.Single.Epochs = g.Epochs
		if c.Out == "" {
			c.Out = "out/spectral"
		}
	case spectralData:
		d := c.DataSpec().WithDefaults()
		c.Single.Method, c.Single.Epochs, c.Data.MaxRank = d.Method, d.Epochs, d.MaxRank
	}
	return c
}

// Validate refuses the grid without Out and, with CheckModes, the grid
// with a data file and a field set of a run the command does not choose
// (a *FieldError), then checks the chosen run's spec (and the rank runs'
// with the grid).
func (c SpectralCommand) Validate() error {
	mode := c.mode()
	switch {
	case mode == spectralSweep && c.Out == "":
		return fieldErr("Out", nil, "a directory with {Sweep} (sweep.csv, ranks.csv and the plots)")
	case c.Single.SaveModel != "" || c.Grid.Seed != 0 || c.Grid.Epochs != 0 || c.Data.Method != "" || c.Data.Rank != 0 ||
		c.Data.Seed != 0 || c.Data.Epochs != 0 || c.Data.SaveModel != "":
		return fieldErr("Single", nil, "the holder of the shared settings (Method, Rank, Seed, Epochs; Out the output)")
	}
	if err := c.CheckModes(); err != nil {
		return err
	}
	switch mode {
	case spectralSweep:
		return firstErr(c.GridSpec().Validate(), c.RankSpec().WithDefaults().Validate())
	case spectralData:
		return c.DataSpec().Validate()
	}
	return c.SingleSpec().Validate()
}

// CheckModes refuses the grid with a data file, and the fields set that
// the run the command chooses does not read, naming those read by the
// same runs as the first together.
// Validate calls it; a command line calls it also before WithDefaults,
// with a flag given as 0 set to Off, so that a flag given for another
// run is refused whatever its value.
func (c SpectralCommand) CheckModes() error {
	mode := c.mode()
	if c.Sweep && mode == spectralData {
		return fieldErr("Sweep", nil, "unset with {Data.Data}: the data file replaces the built-in task")
	}
	v := reflect.ValueOf(c)
	var home spectralMode
	var bad []string
	for _, f := range spectralFieldModes {
		if f.modes&mode != 0 || fieldByPath(v, f.field).IsZero() {
			continue
		}
		if home == 0 {
			home = f.modes
		}
		if f.modes == home {
			bad = append(bad, f.field)
		}
	}
	if len(bad) == 0 {
		return nil
	}
	slices.SortFunc(bad, func(a, b string) int { return strings.Compare(lastPart(a), lastPart(b)) })
	if mode == spectralData && home == spectralSingle {
		return &FieldError{Field: strings.Join(bad, ", "), Want: "unset with {Data.Data}: the data file replaces the built-in task"}
	}
	verb, hint := "it applies", ""
	if len(bad) > 1 {
		verb = "they apply"
	} else if twin, ok := spectralTwins[bad[0]]; ok && appliesIn(twin, mode) {
		hint = " (did you mean {" + twin + "}?)"
	}
	return &FieldError{Field: strings.Join(bad, ", "),
		Want: "unset with " + mode.name() + ": " + verb + " to " + home.name() + " only" + hint}
}

// appliesIn reports whether the field has an effect in mode.
func appliesIn(field string, mode spectralMode) bool {
	for _, f := range spectralFieldModes {
		if f.field == field {
			return f.modes&mode != 0
		}
	}
	return true
}

// fieldByPath is the field of v at path ("Single.N").
func fieldByPath(v reflect.Value, path string) reflect.Value {
	for _, name := range strings.Split(path, ".") {
		v = v.FieldByName(name)
	}
	return v
}

// lastPart is the last name of a field path.
func lastPart(path string) string { return path[strings.LastIndexByte(path, '.')+1:] }

// SingleSpec is the command's run on a built-in task.
func (c SpectralCommand) SingleSpec() SpectralSpec {
	s := c.Single
	s.SaveModel = c.Out
	return s
}

// GridSpec is the command's grid (Sweep): Grid with the shared seed and
// epochs, without the rank runs' ranks.
func (c SpectralCommand) GridSpec() SweepSpec {
	g := c.Grid
	g.Seed, g.Epochs, g.Ranks = c.Single.Seed, c.Single.Epochs, nil
	return g
}

// RankSpec is the grid's rank runs (Figure 5): the addition task at noise
// 1, tiht, at the ranks Grid.Ranks (default 2, 3, 4, 5), over Grid's Ns
// and seeds.
func (c SpectralCommand) RankSpec() SweepSpec {
	g := c.GridSpec()
	g.Tasks, g.Noises, g.Methods, g.Epochs = []string{"addition"}, []float64{1}, []string{"tiht"}, 0
	g.Ranks = c.Grid.Ranks
	if g.Ranks == nil {
		g.Ranks = []int{2, 3, 4, 5}
	}
	return g
}

// DataSpec is the command's run on a sequence-data file.
func (c SpectralCommand) DataSpec() SpectralDataSpec {
	d := c.Data
	d.Method, d.Rank, d.Seed, d.Epochs, d.SaveModel = c.Single.Method, c.Single.Rank, c.Single.Seed, c.Single.Epochs, c.Out
	return d
}
