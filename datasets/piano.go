package datasets

import (
	"math"
	"path/filepath"
	"strings"

	"github.com/pkg/errors"
)

// PianoKeys is the width of a piano roll: the 88 keys from A0 (MIDI note
// 21) to C8 (MIDI note 108).
const PianoKeys = 88

// LowestPianoNote is the MIDI note number of key 0 (A0).
const LowestPianoNote = 21

// PianoSplits holds a piano-roll data set with its fixed train,
// validation and test split (the Boulanger-Lewandowski 2012 splits for
// the real data sets). Each split's frames have Width PianoKeys.
type PianoSplits struct {
	Train, Valid, Test Frames
}

// PianoDataSets maps the data set names accepted by LoadPiano to their
// MAT-file names in the polyphonic data directory.
var PianoDataSets = map[string]string{
	"jsb":        "JSB_Chorales.mat",
	"nottingham": "Nottingham.mat",
	"muse":       "MuseData.mat",
	"piano":      "Piano_midi.mat",
}

// LoadPiano reads the data set name ("jsb", "nottingham", "muse" or
// "piano", see PianoDataSets) from its MAT-file in dir.
func LoadPiano(dir, name string) (*PianoSplits, error) {
	file, ok := PianoDataSets[strings.ToLower(name)]
	if !ok {
		return nil, errors.Errorf("datasets: unknown piano-roll data set %q (want jsb, nottingham, muse or piano)", name)
	}
	return LoadPianoMAT(filepath.Join(dir, file))
}

// Validate checks that every split is a valid set of 88-key frames and
// that the training split is not empty.
func (p *PianoSplits) Validate() error {
	if len(p.Train.Seqs) == 0 {
		return errors.Errorf("datasets: piano rolls: empty training split")
	}
	for _, s := range []struct {
		name string
		f    Frames
	}{{"train", p.Train}, {"valid", p.Valid}, {"test", p.Test}} {
		if s.f.Width != PianoKeys {
			return errors.Errorf("datasets: piano rolls: %s split has %d keys, want %d", s.name, s.f.Width, PianoKeys)
		}
		if err := s.f.Validate(); err != nil {
			return errors.Errorf("datasets: piano rolls: %s split: %v", s.name, err)
		}
	}
	return nil
}

// NumFrames is the total number of frames of f.
func (f Frames) NumFrames() int {
	n := 0
	for i := range f.Seqs {
		n += f.Steps(i)
	}
	return n
}

// Task builds the Binary next-frame task of the pre-training paper
// (section 4): input frame t, target frame t+1, In = Out = 88, keeping
// the data set's own split (see FrameExamples). Sequences of a single
// frame have no target and are dropped. The examples share memory with p.
func (p *PianoSplits) Task(name string) (*Task, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	t := &Task{Name: name, In: PianoKeys, Out: PianoKeys, Kind: Binary, OptimalLoss: math.NaN()}
	for _, s := range []struct {
		f   Frames
		dst *[]Example
	}{{p.Train, &t.Train}, {p.Valid, &t.Valid}, {p.Test, &t.Test}} {
		long := Frames{Width: s.f.Width}
		for i, seq := range s.f.Seqs {
			if s.f.Steps(i) >= 2 {
				long.Seqs = append(long.Seqs, seq)
			}
		}
		exs, err := FrameExamples(long)
		if err != nil {
			return nil, err
		}
		*s.dst = exs
	}
	if len(t.Train) == 0 {
		return nil, errors.Errorf("datasets: piano rolls: no training sequence has 2 frames")
	}
	return t, nil
}
