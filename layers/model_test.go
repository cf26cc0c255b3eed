package layers_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rtnlab/rtn/layers"
	"github.com/rtnlab/rtn/optim"
)

// TestModelSaveLoad trains every registered model (the user cell of this
// package included) for an epoch, saves it, loads it back and checks that
// the configuration, every parameter and the test loss are the same bits.
func TestModelSaveLoad(t *testing.T) {
	const v, hidden = 3, 4
	rng := rand.New(rand.NewPCG(5, 5))
	task := symbolTask(t, v, rng)
	task.Test = task.Train[:2]
	for _, c := range modelCases() {
		t.Run(fmt.Sprintf("%s-%d", c.cell, c.layers), func(t *testing.T) {
			m := newTestModel(t, c, task, hidden, 3)
			m.Config.Input, m.Config.Symbols = layers.InputNextSymbol, []string{"a", "b", "c"}
			m.Config.Source = &layers.DataSource{Task: task.Name, Seed: 5}
			prob, err := layers.NewProblem(m.Seq, task, m.Config.ProblemConfig())
			if err != nil {
				t.Fatal(err)
			}
			opt, err := optim.New("adam", optim.Config{LR: 0.05})
			if err != nil {
				t.Fatal(err)
			}
			tr, err := optim.NewTrainer(prob, opt, optim.TrainConfig{Epochs: 1, BatchSize: 2, Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := tr.Run(); err != nil {
				t.Fatal(err)
			}
			want, err := prob.TestLoss()
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			if err := m.Save(dir); err != nil {
				t.Fatal(err)
			}
			got, err := layers.LoadModel(dir)
			if err != nil {
				t.Fatal(err)
			}
			a, _ := json.Marshal(m.Config)
			b, _ := json.Marshal(got.Config)
			if string(a) != string(b) {
				t.Errorf("config %s, saved %s", b, a)
			}
			compareGrads(t, "loaded parameters", m.Seq.Params, got.Seq.Params, m.Seq.Params, 0)
			prob2, err := layers.NewProblem(got.Seq, task, got.Config.ProblemConfig())
			if err != nil {
				t.Fatal(err)
			}
			if l, err := prob2.TestLoss(); err != nil || l != want {
				t.Errorf("test loss after loading %.17g (%v), before %.17g", l, err, want)
			}
		})
	}
}

// TestLoadModelErrors checks that a missing or damaged model directory is
// an error naming the file and the field or parameter.
func TestLoadModelErrors(t *testing.T) {
	task := symbolTask(t, 3, rand.New(rand.NewPCG(1, 1)))
	m := newTestModel(t, modelCase{"lstm", 1}, task, 4, 1)
	good := t.TempDir()
	if err := m.Save(good); err != nil {
		t.Fatal(err)
	}
	edit := func(f func(map[string]any)) func(string) error {
		return func(dir string) error {
			path := filepath.Join(dir, layers.ModelConfigFile)
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			var cfg map[string]any
			if err := json.Unmarshal(data, &cfg); err != nil {
				return err
			}
			f(cfg)
			data, _ = json.Marshal(cfg)
			return os.WriteFile(path, data, 0o644)
		}
	}
	write := func(name, text string) func(string) error {
		return func(dir string) error { return os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644) }
	}
	for _, c := range []struct {
		name   string
		damage func(dir string) error
		want   []string
	}{
		{"no config", func(dir string) error { return os.Remove(filepath.Join(dir, layers.ModelConfigFile)) }, []string{layers.ModelConfigFile, "not a model directory"}},
		{"no parameters", func(dir string) error { return os.Remove(filepath.Join(dir, layers.ModelParamsFile)) }, []string{layers.ModelParamsFile}},
		{"not JSON", write(layers.ModelConfigFile, "{\"cell\": "), []string{layers.ModelConfigFile, "not a model config"}},
		{"unknown cell", edit(func(c map[string]any) { c["cell"] = "mystery" }), []string{layers.ModelConfigFile, `"cell"`, "mystery", "lstm"}},
		{"format", edit(func(c map[string]any) { c["format"] = "other/2" }), []string{`"format"`, "other/2"}},
		{"kind", edit(func(c map[string]any) { c["kind"] = "ordinal" }), []string{`"kind"`, "ordinal"}},
		{"hidden", edit(func(c map[string]any) { c["config"].(map[string]any)["hidden"] = 5 }), []string{layers.ModelParamsFile, "lstm/W", "shape"}},
		{"layers", edit(func(c map[string]any) { c["layers"] = 2 }), []string{layers.ModelParamsFile, "lstm/0/W"}},
		{"zero out", edit(func(c map[string]any) { c["out"] = 0 }), []string{`"out"`}},
		{"input", edit(func(c map[string]any) { c["input"] = layers.InputNextSymbol; c["out"] = 2 }), []string{`"input"`}},
		{"symbols", edit(func(c map[string]any) { c["symbols"] = []string{"a"} }), []string{`"symbols"`}},
		{"executor", edit(func(c map[string]any) { c["executor"] = "gpu" }), []string{`"executor"`, "gpu"}},
		{"activation", edit(func(c map[string]any) { c["config"].(map[string]any)["activation"] = "tanh" }), []string{"no activation"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			for _, f := range []string{layers.ModelConfigFile, layers.ModelParamsFile} {
				data, err := os.ReadFile(filepath.Join(good, f))
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, f), data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if err := c.damage(dir); err != nil {
				t.Fatal(err)
			}
			_, err := layers.LoadModel(dir)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not name %q", err, w)
				}
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error %q spans lines", err)
			}
		})
	}
	if _, err := layers.LoadModel(filepath.Join(good, "missing")); err == nil {
		t.Error("a missing directory loaded")
	}
}
