package runs

import (
	"path/filepath"
	"strings"

	"github.com/pkg/errors"

	"github.com/rtnlab/rtn/datasets"
	"github.com/rtnlab/rtn/spectral"
)

// SpectralPredictSpec applies a saved 2-RNN to a sequence-data file (rtn
// spectral predict).
type SpectralPredictSpec struct {
	// Model is a model file written by rtn spectral -out (.npz); Data a
	// sequence-data file (.npz or .csv). Both are required.
	Model, Data string
	// Out, if set, receives the data with y replaced by the predictions
	// (a .npz or .csv file).
	Out string
}

// Validate checks the spec's values (a *FieldError); it reads no file.
func (s SpectralPredictSpec) Validate() error {
	switch ext := strings.ToLower(filepath.Ext(s.Out)); {
	case s.Model == "":
		return fieldErr("Model", nil, "a model file written by rtn spectral -out (required)")
	case s.Data == "":
		return fieldErr("Data", nil, "a sequence-data file (required)")
	case s.Out != "" && ext != ".npz" && ext != ".csv":
		return fieldErr("Out", s.Out, "a .npz or .csv file")
	}
	return nil
}

// SpectralPredictReport is the result of PredictSpectral: the number of
// sequences and the mean squared error of the predictions against the
// file's outputs.
type SpectralPredictReport struct {
	N   int
	MSE float64
}

// PredictSpectral checks the spec and the output (not one of the
// inputs), applies the model to the data, and writes the predictions to
// Out when it is set.
func PredictSpectral(spec SpectralPredictSpec) (*SpectralPredictReport, error) {
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	if err := CheckOutput("{Out}", spec.Out, spec.Model, spec.Data); err != nil {
		return nil, err
	}
	m, _, err := spectral.LoadModel(spec.Model)
	if err != nil {
		return nil, err
	}
	s, err := datasets.ReadIOData(spec.Data)
	if err != nil {
		return nil, err
	}
	if s.In != m.In || s.Out != m.Out {
		return nil, errors.Errorf("%s has d = %d, p = %d but the model %s has d = %d, p = %d", spec.Data, s.In, s.Out, spec.Model, m.In, m.Out)
	}
	pred, err := m.PredictIO(s)
	if err != nil {
		return nil, err
	}
	ss := 0.0
	for i, v := range pred {
		ss += (v - s.Y[i]) * (v - s.Y[i])
	}
	rep := &SpectralPredictReport{N: s.N(), MSE: ss / float64(len(pred))}
	if spec.Out != "" {
		s.Y = pred
		if err := datasets.WriteIOData(spec.Out, s); err != nil {
			return nil, err
		}
	}
	return rep, nil
}
