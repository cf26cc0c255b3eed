package runs

import (
	"os"
	"strings"

	"github.com/rtnlab/rtn/datasets"
	"github.com/rtnlab/rtn/layers/umps"
)

// MaxBond bounds UMPSSpec.Bond.
const MaxBond = 512

// umpsFileDefaults are the defaults of the numeric fields of a UMPSSpec
// on a string file (Format set), chosen in docs/umps.md: the bond chosen
// from the file, grown from a smaller one at the top of the rule's grid,
// 30 epochs at lr 0.03 with noise 0.1 around the identity, patience 3,
// gradients clipped to 0.3, no length-balanced start.
var umpsFileDefaults = UMPSSpec{Bond: BondAuto, GrowFrom: GrowAuto, BatchSize: 50, LR: 0.03, InitNoise: 0.1,
	Patience: 3, Epochs: 30, ClipNorm: 0.3, BalanceEpochs: Off}

// DefaultUMPSFileSpec is what rtn umps train uses, with no flags, on a
// string file (-format): the numeric defaults WithDefaults gives a spec
// with a Format, with P_* normalisation and the best parameters restored
// at each drop. See docs/umps.md for the reasoning.
func DefaultUMPSFileSpec() UMPSSpec {
	s := umpsFileDefaults
	s.Norm, s.RestoreOnDrop = new(umps.AllLengths), new(true)
	return s
}

// WithDefaults returns the spec with its unset fields at their defaults:
// the paper's for the built-in languages and text files, those of
// DefaultUMPSFileSpec for the numeric fields of a string file (Format
// set).
func (s UMPSSpec) WithDefaults() UMPSSpec {
	if s.Format != nil {
		f := umpsFileDefaults
		for _, p := range []struct{ v, d *int }{{&s.Bond, &f.Bond}, {&s.GrowFrom, &f.GrowFrom}, {&s.BatchSize, &f.BatchSize},
			{&s.Patience, &f.Patience}, {&s.Epochs, &f.Epochs}, {&s.BalanceEpochs, &f.BalanceEpochs}} {
			if *p.v == 0 {
				*p.v = *p.d
			}
		}
		for _, p := range []struct{ v, d *float64 }{{&s.LR, &f.LR}, {&s.InitNoise, &f.InitNoise}, {&s.ClipNorm, &f.ClipNorm}} {
			if *p.v == 0 {
				*p.v = *p.d
			}
		}
		if s.ValidFrac == 0 {
			s.ValidFrac = 0.2
		}
	}
	if s.Data == "" && s.Format == nil {
		s.Data = "tomita4"
	}
	def := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	def(&s.Bond, 20)
	def(&s.NTrain, 1000)
	def(&s.NValid, 1000)
	def(&s.Epochs, 300)
	def(&s.Restarts, 1)
	def(&s.Warmup, 5)
	def(&s.BatchSize, 50)
	def(&s.Patience, 5)
	def(&s.BalanceEpochs, 5)
	if s.Seed == 0 {
		s.Seed = 1
	}
	if s.LR == 0 {
		s.LR = 1e-2
		if s.Init == umps.RandomNormal {
			s.LR = 1e-1
		}
	}
	if s.GrowLR == 0 && s.grows() {
		s.GrowLR = s.LR / 100
	}
	if s.GrowNoise == 0 {
		s.GrowNoise = 1e-6
	}
	if s.Norm == nil {
		s.Norm = new(umps.PerLength)
		if s.Format != nil {
			s.Norm = new(umps.AllLengths)
		}
	}
	if s.RestoreOnDrop == nil {
		s.RestoreOnDrop = new(s.Format != nil)
	}
	return s
}

// Validate checks the spec's values (a *FieldError); it reads no file.
func (s UMPSSpec) Validate() error {
	switch {
	case s.Bond == BondAuto && s.Format == nil:
		return fieldErr("Bond", nil, "a number: auto needs a string file ({Format})")
	case s.Bond != BondAuto && (s.Bond < 1 || s.Bond > MaxBond):
		return fieldErr("Bond", s.Bond, "auto or in [1, %d]", MaxBond)
	case s.GrowFrom != GrowAuto && s.GrowFrom != Off && (s.GrowFrom < 0 || (s.Bond != BondAuto && s.GrowFrom >= s.Bond)):
		return fieldErr("GrowFrom", s.GrowFrom, "auto, none or a bond dimension below {Bond}")
	case s.BalanceEpochs < 0 && s.BalanceEpochs != Off:
		return fieldErr("BalanceEpochs", s.BalanceEpochs, ">= 0")
	case s.Norm != nil && *s.Norm != umps.PerLength && *s.Norm != umps.AllLengths:
		return fieldErr("Norm", int(*s.Norm), "umps.PerLength or umps.AllLengths")
	case s.Init != umps.NearIdentity && s.Init != umps.RandomNormal:
		return fieldErr("Init", int(s.Init), "umps.NearIdentity or umps.RandomNormal")
	case !(s.GrowNoise >= 0 && s.GrowNoise <= 1):
		return fieldErr("GrowNoise", s.GrowNoise, "in [0, 1]")
	case s.Alphabet != nil && (s.Format == nil || *s.Format != datasets.Lines):
		return fieldErr("Alphabet", nil, "empty: an alphabet is given for {Format} lines only (pautomac and spice files declare theirs)")
	case s.Format != nil && s.ValidFrac != 0 && !(s.ValidFrac > 0 && s.ValidFrac < 1):
		return fieldErr("ValidFrac", s.ValidFrac, "in (0, 1)")
	case s.Data == "":
		return fieldErr("Data", nil, "a string file (required with {Format})")
	case s.Format == nil && s.ValidFrac != 0:
		return fieldErr("ValidFrac", s.ValidFrac, "unset without {Format} (a built-in language is split by {NTrain} and {NValid})")
	}
	clip := s.ClipNorm
	if clip == Off {
		clip = 0
	}
	return firstErr(
		checkMin("NTrain", s.NTrain, 1),
		checkMin("NValid", s.NValid, 1),
		checkMin("Epochs", s.Epochs, 1),
		checkMin("BatchSize", s.BatchSize, 1),
		checkNonNeg("LR", s.LR),
		checkNonNeg("InitNoise", s.InitNoise),
		checkNonNeg("GrowLR", s.GrowLR),
		checkMin("Patience", s.Patience, 1),
		checkMin("Warmup", s.Warmup, 0),
		checkNonNeg("ClipNorm", clip),
		checkMin("Restarts", s.Restarts, 1),
		checkSeed("Seed", s.Seed),
		s.checkGrowth(),
	)
}

// checkGrowth refuses GrowLR when no model grows.
func (s UMPSSpec) checkGrowth() error {
	if s.grows() {
		return nil
	}
	return checkUnset("GrowLR", s.GrowLR, "unset without {GrowFrom} (the rate of a grown model)")
}

// grows reports whether the spec may grow a model: GrowFrom a bond
// dimension, or GrowAuto with Bond BondAuto.
func (s UMPSSpec) grows() bool {
	return s.GrowFrom > 0 || (s.GrowFrom == GrowAuto && s.Bond == BondAuto)
}

// resolved is the spec as the trainer reads it: Off as 0 (none).
func (s UMPSSpec) resolved() UMPSSpec {
	if s.BalanceEpochs == Off {
		s.BalanceEpochs = 0
	}
	if s.GrowFrom == Off {
		s.GrowFrom = 0
	}
	if s.ClipNorm == Off {
		s.ClipNorm = 0
	}
	return s
}

// checkLanguage refuses, as a *FieldError of Data, a Data without Format
// that names no built-in language, no file, and does not look like a path
// (no '/' or '.'): a mistyped language name (tomita9) rather than a
// missing file. It reads the file system, so TrainUMPS calls it after
// Validate.
func (s UMPSSpec) checkLanguage() error {
	if s.Format != nil || strings.ContainsAny(s.Data, "/.") {
		return nil
	}
	_, _, err := Membership(s.Data)
	if err == nil {
		return nil
	}
	if _, serr := os.Stat(s.Data); serr == nil {
		return nil
	}
	return fieldCause("Data", err)
}
