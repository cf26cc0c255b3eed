package datasets

import (
	"math/rand/v2"

	"github.com/pkg/errors"
)

// SyntheticPianoConfig sets the size of a synthetic piano-roll data set.
// The zero value is ready to use.
type SyntheticPianoConfig struct {
	// Train, Valid and Test are the numbers of sequences per split. If
	// zero, they will be defaulted to 60, 15 and 15.
	Train, Valid, Test int
	// MinLen and MaxLen bound the number of frames of a sequence (drawn
	// uniformly). If zero, they will be defaulted to 48 and 128.
	MinLen, MaxLen int
	// Inner is the number of inner chord voices between the bass and the
	// melody. If zero, it will be defaulted to 2.
	Inner int
}

// withDefaults fills in the zero fields.
func (c SyntheticPianoConfig) withDefaults() SyntheticPianoConfig {
	def := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	def(&c.Train, 60)
	def(&c.Valid, 15)
	def(&c.Test, 15)
	def(&c.MinLen, 48)
	def(&c.MaxLen, 128)
	def(&c.Inner, 2)
	return c
}

// progression[d] lists the scale degrees (0 = tonic) that may follow
// degree d, a small model of functional harmony (tonic, subdominant,
// dominant); the next chord is drawn uniformly from the list.
var progression = [7][]int{
	{3, 4, 5, 1, 4}, // I -> IV, V, vi, ii, V
	{4, 4, 6},       // ii -> V, V, vii
	{5, 3},          // iii -> vi, IV
	{4, 0, 1, 4},    // IV -> V, I, ii, V
	{0, 0, 5, 3},    // V -> I, I, vi, IV
	{3, 1, 4},       // vi -> IV, ii, V
	{0, 0},          // vii -> I
}

// majorScale and minorScale are semitone offsets of the seven degrees
// (the minor scale is harmonic minor, with the raised leading note).
var (
	majorScale = [7]int{0, 2, 4, 5, 7, 9, 11}
	minorScale = [7]int{0, 2, 3, 5, 7, 8, 11}
)

// SyntheticPiano draws a polyphonic piano-roll data set from rng: each
// sequence is in C major or C minor (like the real sets, which are
// transposed to C), follows a random walk over diatonic triads
// (progression table above) whose chords last 2, 4 or 8 frames, and
// sounds a bass on the chord root (MIDI 36-47), cfg.Inner inner voices on
// chord tones from middle C (MIDI 60) up, and a melody moving by scale
// steps in MIDI 60-83 with notes of 1 to 4 frames and occasional rests. Frames have
// PianoKeys keys. The same rng state gives the same data bit for bit.
func SyntheticPiano(cfg SyntheticPianoConfig, rng *rand.Rand) (*PianoSplits, error) {
	c := cfg.withDefaults()
	switch {
	case rng == nil:
		return nil, errors.Errorf("datasets: synthetic piano: nil rng")
	case c.Train < 1 || c.Valid < 0 || c.Test < 0:
		return nil, errors.Errorf("datasets: synthetic piano: %d/%d/%d sequences, want train >= 1 and the others >= 0", c.Train, c.Valid, c.Test)
	case c.MinLen < 2 || c.MaxLen < c.MinLen:
		return nil, errors.Errorf("datasets: synthetic piano: lengths %d..%d, want 2 <= MinLen <= MaxLen", c.MinLen, c.MaxLen)
	case c.Inner < 0 || c.Inner > 6:
		return nil, errors.Errorf("datasets: synthetic piano: %d inner voices, want 0..6", c.Inner)
	}
	p := &PianoSplits{}
	for _, s := range []struct {
		n   int
		dst *Frames
	}{{c.Train, &p.Train}, {c.Valid, &p.Valid}, {c.Test, &p.Test}} {
		s.dst.Width = PianoKeys
		for range s.n {
			T := c.MinLen + rng.IntN(c.MaxLen-c.MinLen+1)
			s.dst.Seqs = append(s.dst.Seqs, synthSong(T, c.Inner, rng))
		}
	}
	return p, nil
}

// synthSong draws one T-frame song (see SyntheticPiano).
func synthSong(T, inner int, rng *rand.Rand) []float64 {
	scale := majorScale
	if rng.IntN(2) == 1 {
		scale = minorScale
	}
	// pitch returns the MIDI note of scale degree d (any integer, octaves
	// folded in) above C of octave base.
	pitch := func(base, d int) int {
		o, r := d/7, d%7
		if r < 0 {
			o, r = o-1, r+7
		}
		return base + 12*o + scale[r]
	}
	roll := make([]float64, T*PianoKeys)
	on := func(t, note int) {
		if k := note - LowestPianoNote; k >= 0 && k < PianoKeys {
			roll[t*PianoKeys+k] = 1
		}
	}
	degree := 0
	melody := 2*7 + 2*rng.IntN(2) // scale degree above C2: C4 or E4
	chordLeft, noteLeft, rest := 0, 0, false
	durations := []int{2, 4, 4, 8}
	for t := range T {
		if chordLeft == 0 {
			if t > 0 {
				next := progression[degree]
				degree = next[rng.IntN(len(next))]
			}
			chordLeft = durations[rng.IntN(len(durations))]
		}
		if noteLeft == 0 {
			// Step by -2..2 scale degrees, pulled back into range.
			melody += rng.IntN(5) - 2
			melody = max(min(melody, 4*7-1), 2*7)
			noteLeft = 1 + rng.IntN(4)
			rest = rng.IntN(10) == 0
		}
		on(t, pitch(36, degree))
		for v := range inner {
			on(t, pitch(48, 7+degree+2*v))
		}
		if !rest {
			on(t, pitch(36, melody))
		}
		chordLeft--
		noteLeft--
	}
	return roll
}
