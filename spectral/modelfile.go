package spectral

import (
	"github.com/pkg/errors"

	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/rtnlab/rtn/params"
)

// ModelFormat names the linear 2-RNN model files in their metadata.
const ModelFormat = "rtn-linear-2rnn"

// ModelInfo is the metadata of a model file, stored as "meta.json" in
// the .npz and as a .json file next to it.
type ModelInfo struct {
	// Format is ModelFormat; States, In and Out are n, d and p.
	Format string `json:"format"`
	States int    `json:"states"`
	In     int    `json:"in"`
	Out    int    `json:"out"`
	// Method, Basis, Data and Seed say how the model was learned (free
	// text for a model built otherwise).
	Method string `json:"method,omitempty"`
	Basis  string `json:"basis,omitempty"`
	Data   string `json:"data,omitempty"`
	Seed   uint64 `json:"seed,omitempty"`
	// TrainMSE is the training MSE reported when the model was saved.
	TrainMSE float64 `json:"train_mse"`
	// ZeroFallback reports that the model is the zero function.
	ZeroFallback bool `json:"zero_fallback,omitempty"`
}

// ModelPaths returns the .npz and .json paths of a model saved under
// path: path itself and path with a .json extension when it ends in
// .npz, otherwise path/model.npz and path/model.json (path is then a
// directory).
func ModelPaths(path string) (npzPath, jsonPath string) {
	if strings.EqualFold(filepath.Ext(path), ".npz") {
		return path, strings.TrimSuffix(path, filepath.Ext(path)) + ".json"
	}
	return filepath.Join(path, "model.npz"), filepath.Join(path, "model.json")
}

// SaveModel writes m to the .npz file npzPath (arrays alpha [n],
// A [n, d, n] and omega [p, n], float64, plus info as meta.json) and
// info to jsonPath, both atomically. Loading gives m back bit for bit.
func SaveModel(npzPath, jsonPath string, m RNN, info ModelInfo) error {
	if npzPath == "" || jsonPath == "" {
		return errors.Errorf("spectral: saving a model needs both file names, got %q and %q (ModelPaths gives them)", npzPath, jsonPath)
	}
	if err := m.Validate(); err != nil {
		return err
	}
	info.Format, info.States, info.In, info.Out = ModelFormat, m.States, m.In, m.Out
	n, d, p := m.States, m.In, m.Out
	err := params.WriteArrays(npzPath, info, []params.Array{
		{Name: "alpha", Shape: []int{n}, Data: m.Alpha},
		{Name: "A", Shape: []int{n, d, n}, Data: m.A},
		{Name: "omega", Shape: []int{p, n}, Data: m.Omega},
	})
	if err != nil {
		return errors.Wrap(err, "spectral: saving the model")
	}
	js, err := json.MarshalIndent(info, "", "  ")
	if err != nil {
		return errors.Wrap(err, "spectral")
	}
	if err := params.WriteFileAtomic(jsonPath, func(w io.Writer) error {
		_, err := w.Write(append(js, '\n'))
		return err
	}); err != nil {
		return errors.Wrap(err, "spectral: saving the model metadata")
	}
	return nil
}

// LoadModel reads a model file written by SaveModel (only the .npz is
// needed). A file of another kind, or with arrays of the wrong shapes,
// is an error naming the file.
func LoadModel(path string) (RNN, ModelInfo, error) {
	var info ModelInfo
	arrays, err := params.ReadArrays(path, &info)
	if err != nil {
		return RNN{}, ModelInfo{}, errors.Wrap(err, "spectral")
	}
	if info.Format != ModelFormat {
		return RNN{}, ModelInfo{}, errors.Errorf("spectral: %s: not a linear 2-RNN model file (format %q, want %q)", path, info.Format, ModelFormat)
	}
	n, d, p := info.States, info.In, info.Out
	m := RNN{States: n, In: d, Out: p}
	want := map[string][]int{"alpha": {n}, "A": {n, d, n}, "omega": {p, n}}
	for _, a := range arrays {
		shape, ok := want[a.Name]
		if !ok || fmt.Sprint(shape) != fmt.Sprint(a.Shape) {
			return RNN{}, ModelInfo{}, errors.Errorf("spectral: %s: array %s of shape %v, want alpha %v, A %v and omega %v",
				path, a.Name, a.Shape, want["alpha"], want["A"], want["omega"])
		}
		switch a.Name {
		case "alpha":
			m.Alpha = a.Data
		case "A":
			m.A = a.Data
		case "omega":
			m.Omega = a.Data
		}
	}
	if err := m.Validate(); err != nil {
		return RNN{}, ModelInfo{}, errors.Wrapf(err, "spectral: %s", path)
	}
	return m, info, nil
}
