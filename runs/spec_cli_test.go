package runs

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rtnlab/rtn/datasets"
	"github.com/rtnlab/rtn/layers/umps"
	"github.com/rtnlab/rtn/optim/compare"
)

// TestSpecsRefuseAsTheCommandLine runs each driver on a spec that rtn
// refuses with a usage error: the Go API refuses it too, with the
// command line's message in the fields' Go names (rtn names them by
// flag), before any work.
func TestSpecsRefuseAsTheCommandLine(t *testing.T) {
	splitFile := filepath.Join(t.TempDir(), "split.csv")
	data := datasets.IOData{In: 1, Out: 1, X: [][]float64{{1}, {2}, {3}}, Y: []float64{1, 2, 3},
		Split: []datasets.Part{datasets.PartTrain, datasets.PartValid, datasets.PartTest}}
	if err := datasets.WriteIOData(splitFile, data); err != nil {
		t.Fatal(err)
	}
	small := func(s CompareSpec) CompareSpec {
		s.Model, s.Size, s.Settings, s.LRGrid, s.Seeds, s.Jobs = "2rnn", 20, []compare.Setting{{Optimizer: "sgd"}}, []float64{0.1}, []uint64{1}, 1
		return s
	}
	for _, tc := range []struct {
		name, field, msg string
		run              func() error
	}{
		{"compare negative batch", "Batch", "Batch must be >= 1, or FullBatch for full batch (given as 0 on the command line), got -1", func() error {
			_, err := RunCompare(small(CompareSpec{Batch: -1}))
			return err
		}},
		{"compare shard without out", "Out", "Out must be a directory with Shard", func() error {
			_, err := RunCompare(small(CompareSpec{Shard: compare.Shard{Index: 1, Count: 2}}))
			return err
		}},
		{"umps language name", "Data", "Data: datasets: Tomita grammar 9 does not exist", func() error {
			_, err := TrainUMPS(UMPSSpec{Data: "tomita9"})
			return err
		}},
		{"umps norm", "Norm", "Norm must be umps.PerLength or umps.AllLengths, got 7", func() error {
			_, err := TrainUMPS(UMPSSpec{Data: "tomita4", Norm: new(umps.Norm(7))})
			return err
		}},
		{"umps epochs none", "Epochs", "Epochs must be >= 1, got none", func() error {
			_, err := TrainUMPS(UMPSSpec{Data: "tomita4", Epochs: Off})
			return err
		}},
		{"spectral epochs without training", "Epochs", "Epochs must be unset with Method ls (only tiht+sgd and lstm train for epochs), got 5", func() error {
			_, err := RunSpectral(SpectralSpec{Method: "ls", N: 20, Epochs: 5})
			return err
		}},
		{"sweep epochs without training", "Epochs", "Epochs must be unset with Methods ls,tiht", func() error {
			_, err := SpectralSweep(SweepSpec{Methods: []string{"ls", "tiht"}, Ns: []int{20}, Epochs: 5})
			return err
		}},
		{"spectral data epochs without training", "Epochs", "Epochs must be unset with Method ls", func() error {
			_, err := RunSpectralData(SpectralDataSpec{Data: "x.csv", Method: "ls", Epochs: 5})
			return err
		}},
		{"spectral data own split", "ValidFrac", "ValidFrac must be unset with " + splitFile + ": the file has a split of its own", func() error {
			_, err := RunSpectralData(SpectralDataSpec{Data: splitFile, ValidFrac: 0.2})
			return err
		}},
		{"spectral predict model", "Model", "Model must be a model file written by rtn spectral -out (required)", func() error {
			_, err := PredictSpectral(SpectralPredictSpec{Data: "d.csv"})
			return err
		}},
		{"spectral predict out", "Out", "Out must be a .npz or .csv file", func() error {
			_, err := PredictSpectral(SpectralPredictSpec{Model: "m.npz", Data: "d.csv", Out: "p.txt"})
			return err
		}},
		{"spectral command sweep with data", "Sweep", "Sweep must be unset with Data.Data", func() error {
			return SpectralCommand{Sweep: true, Data: SpectralDataSpec{Data: "x.csv"}}.WithDefaults().Validate()
		}},
		{"spectral command grid without out", "Out", "Out must be a directory with Sweep", func() error {
			return SpectralCommand{Sweep: true}.Validate()
		}},
		{"spectral command single with data", "Single.N, Single.Noise", "Single.N, Single.Noise must be unset with Data.Data: the data file replaces the built-in task", func() error {
			return SpectralCommand{Single: SpectralSpec{N: 5, Noise: 0.1}, Data: SpectralDataSpec{Data: "x.csv"}}.WithDefaults().Validate()
		}},
		{"spectral command grid field in a single run", "Grid.Methods", "Grid.Methods must be unset with a single built-in run: it applies to Sweep only (did you mean Single.Method?)", func() error {
			return SpectralCommand{Grid: SweepSpec{Methods: []string{"ls"}}}.WithDefaults().Validate()
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.run()
			var fe *FieldError
			if !errors.As(err, &fe) || fe.Field != tc.field || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("error %v, want a *FieldError of %s saying %q", err, tc.field, tc.msg)
			}
		})
	}
}

// TestUMPSFileDefaults checks that WithDefaults gives a string file's
// spec the defaults rtn umps train -format uses with no other flag
// (DefaultUMPSFileSpec's), a built-in language the paper's, and that a
// value set, the built-in one included, is kept.
func TestUMPSFileDefaults(t *testing.T) {
	file := UMPSSpec{Data: "s.txt", Format: new(datasets.Lines)}.WithDefaults()
	want := DefaultUMPSFileSpec()
	switch {
	case *file.Norm != *want.Norm || *file.RestoreOnDrop != *want.RestoreOnDrop:
		t.Errorf("file: norm %v restore %v, want %v %v", *file.Norm, *file.RestoreOnDrop, *want.Norm, *want.RestoreOnDrop)
	case file.Bond != want.Bond || file.GrowFrom != want.GrowFrom || file.Epochs != want.Epochs || file.Patience != want.Patience ||
		file.LR != want.LR || file.InitNoise != want.InitNoise || file.ClipNorm != want.ClipNorm || file.BalanceEpochs != want.BalanceEpochs:
		t.Errorf("file defaults %+v, want those of %+v", file, want)
	}
	builtin := UMPSSpec{}.WithDefaults()
	if *builtin.Norm != umps.PerLength || *builtin.RestoreOnDrop || builtin.Epochs != 300 || builtin.BalanceEpochs != 5 {
		t.Errorf("built-in defaults: norm %v restore %v epochs %d balance %d", *builtin.Norm, *builtin.RestoreOnDrop, builtin.Epochs, builtin.BalanceEpochs)
	}
	set := UMPSSpec{Data: "s.txt", Format: new(datasets.Lines), Norm: new(umps.PerLength), RestoreOnDrop: new(false), BalanceEpochs: 5}.WithDefaults()
	if *set.Norm != umps.PerLength || *set.RestoreOnDrop || set.BalanceEpochs != 5 {
		t.Errorf("set on a file: norm %v restore %v balance %d, want n, false, 5", *set.Norm, *set.RestoreOnDrop, set.BalanceEpochs)
	}
}

// TestSpectralCommandRuns checks that the command copies its shared
// settings into the run it chooses and that its defaults are the specs'.
func TestSpectralCommandRuns(t *testing.T) {
	c := SpectralCommand{Single: SpectralSpec{Method: "tiht+sgd", Rank: 3, Seed: 7, Epochs: 4}, Out: "m.npz", Data: SpectralDataSpec{Data: "d.csv"}}
	if d := c.DataSpec(); d.Method != "tiht+sgd" || d.Rank != 3 || d.Seed != 7 || d.Epochs != 4 || d.SaveModel != "m.npz" {
		t.Errorf("data spec %+v", d)
	}
	sweep := SpectralCommand{Sweep: true}.WithDefaults()
	if err := sweep.Validate(); err != nil {
		t.Fatal(err)
	}
	g, want := sweep.GridSpec(), SweepSpec{}.WithDefaults()
	if sweep.Out != "out/spectral" || g.Epochs != want.Epochs || g.Seeds != want.Seeds || len(g.Ns) != len(want.Ns) {
		t.Errorf("grid %+v (out %q), want the paper's grid %+v", g, sweep.Out, want)
	}
	if r := sweep.RankSpec(); len(r.Ranks) != 4 || r.Epochs != 0 || r.Methods[0] != "tiht" {
		t.Errorf("rank runs %+v", r)
	}
	if s := (SpectralCommand{}).WithDefaults(); s.Validate() != nil || s.SingleSpec().Epochs != 0 || s.SingleSpec().N != 1000 {
		t.Errorf("single run %+v: %v", s.SingleSpec(), s.Validate())
	}
}

// TestSpectralOutputsRefused checks that RunSpectral refuses, before any
// work, the outputs rtn spectral refuses: a model path that is neither a
// directory nor a .npz file, and a data file that is the model file.
func TestSpectralOutputsRefused(t *testing.T) {
	dir := t.TempDir()
	npz := filepath.Join(dir, "a.npz")
	for _, tc := range []struct {
		name, msg string
		spec      SpectralSpec
	}{
		{"model extension", "SaveModel must be a directory or a .npz file", SpectralSpec{Method: "ls", N: 60, SaveModel: filepath.Join(dir, "x.json")}},
		{"data is the model", "SaveData " + npz + " is also the model file of SaveModel", SpectralSpec{Method: "ls", N: 60, SaveModel: npz, SaveData: npz}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := RunSpectral(tc.spec)
			var pe *PathError
			if !errors.As(err, &pe) || !pe.Usage || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("error %v, want a usage *PathError saying %q", err, tc.msg)
			}
		})
	}
}

// TestSpectralTuneOutputsRefused checks that TuneSpectral refuses, before
// it reads the model, an output directory whose files would overwrite an
// input, naming Out or, without Out, Resume.
func TestSpectralTuneOutputsRefused(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "model.npz")
	if err := os.WriteFile(model, []byte("a model"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, msg string
		spec      SpectralTuneSpec
	}{
		{"out", "Out " + model, SpectralTuneSpec{Model: model, Data: "d.csv", Out: dir}},
		{"resume", "Resume " + model, SpectralTuneSpec{Model: model, Data: "d.csv", Resume: dir}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := TuneSpectral(tc.spec)
			var pe *PathError
			if !errors.As(err, &pe) || !pe.Usage || !strings.HasPrefix(err.Error(), tc.msg) {
				t.Fatalf("error %v, want a usage *PathError starting %q", err, tc.msg)
			}
		})
	}
}

// TestCompareOutRefused checks that RunCompare refuses, before any run,
// an Out that is a file, as the command line's -out is refused.
func TestCompareOutRefused(t *testing.T) {
	file := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := RunCompare(CompareSpec{Model: "2rnn", Out: file})
	var pe *PathError
	if !errors.As(err, &pe) || !strings.Contains(err.Error(), "is not a directory") {
		t.Fatalf("error %v, want a *PathError saying the output is not a directory", err)
	}
}
