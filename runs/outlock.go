package runs

import (
	"github.com/rtnlab/rtn/internal/outlock"
	"github.com/rtnlab/rtn/spectral"
)

// OutputLock holds the exclusive locks on a run's outputs (LockOutputs)
// until its Release.
type OutputLock = outlock.Lock

// LockedError is the error of a run whose output directory or file
// another run, in this process or another, is writing. It names the
// holder: its PID, host and command line.
type LockedError = outlock.HeldError

// LockOutputs takes the exclusive locks on the output directories dirs
// and the output files files (empty names are skipped), creating the
// missing directories, and fails with a *LockedError when another run
// holds one. Every driver of this package that writes files takes its
// outputs' locks before any work and holds them until it returns (Train,
// TrainUMPS, RunPCNN, RunPretrain, RunSpectral, RunSpectralData,
// TuneSpectral, LearnWFA, FinetuneWFA); a program that writes the outputs of its own experiment
// (a sweep, an optimizer comparison) calls LockOutputs itself. Release
// removes the lock files, and the directories LockOutputs created when
// the run left them empty. A lock whose process died (killed, out of
// memory) is taken over.
func LockOutputs(dirs, files []string) (*OutputLock, error) {
	return outlock.Acquire(dirs, files)
}

// lockModel takes the lock of a saved spectral model's output: the
// directory of model.npz and model.json, or the FILE.npz whose
// FILE.json goes with it. It also locks the data file saveData ("" for
// none).
func lockModel(saveModel, saveData string) (*OutputLock, error) {
	var dirs, files []string
	if np, _ := spectral.ModelPaths(saveModel); saveModel != "" && np != saveModel {
		dirs = append(dirs, saveModel)
	} else {
		files = append(files, saveModel)
	}
	return LockOutputs(dirs, append(files, saveData))
}
