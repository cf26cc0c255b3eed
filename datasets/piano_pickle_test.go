package datasets

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// writePickle encodes splits as the original data sets do (protocol 2: a
// dict of lists of lists of tuples of numpy int64 scalars), using only the
// opcodes those files use.
func writePickle(p *PianoSplits) []byte {
	var b bytes.Buffer
	str := func(s string) { b.WriteByte('U'); b.WriteByte(byte(len(s))); b.WriteString(s) }
	b.Write([]byte{0x80, 2, '}', '('})
	for _, s := range []struct {
		key string
		f   Frames
	}{{"train", p.Train}, {"valid", p.Valid}, {"test", p.Test}} {
		str(s.key)
		b.WriteString("](")
		for i := range s.f.Seqs {
			b.WriteString("](")
			for t := range s.f.Steps(i) {
				b.WriteByte('(')
				for k, v := range s.f.Frame(i, t) {
					if v != 1 {
						continue
					}
					b.WriteString("cnumpy.core.multiarray\nscalar\n")
					b.WriteString("cnumpy\ndtype\n")
					str("i8")
					b.WriteString("K\x00K\x01\x87R") // dtype('i8', 0, 1)
					b.WriteString("(K\x03U\x01<NNNJ\xff\xff\xff\xffJ\xff\xff\xff\xffK\x00tb")
					raw := make([]byte, 8)
					binary.LittleEndian.PutUint64(raw, uint64(k+LowestPianoNote))
					str(string(raw))
					b.WriteString("\x86R")
				}
				b.WriteByte('t')
			}
			b.WriteByte('e')
		}
		b.WriteByte('e')
	}
	b.WriteString("u.")
	return b.Bytes()
}

func TestReadPianoPickleRoundTrip(t *testing.T) {
	p := smallSplits(t)
	got, err := ReadPianoPickle(bytes.NewReader(writePickle(p)))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, p) {
		t.Error("pickle round trip differs")
	}
}

// TestReadPianoPickleBad checks that truncated and corrupt pickles give
// one-line errors and never panic.
func TestReadPianoPickleBad(t *testing.T) {
	good := writePickle(smallSplits(t))
	for n := 0; n < len(good); n++ {
		if _, err := ReadPianoPickle(bytes.NewReader(good[:n])); err == nil {
			t.Fatalf("truncated to %d of %d bytes: no error", n, len(good))
		} else if strings.Contains(err.Error(), "\n") {
			t.Fatalf("multi-line error %q", err)
		}
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for range 500 {
		bad := bytes.Clone(good)
		bad[rng.IntN(len(bad))] ^= byte(1 + rng.IntN(255))
		ReadPianoPickle(bytes.NewReader(bad)) // must not panic
	}
	for name, b := range map[string][]byte{
		"not a dict":  []byte("\x80\x02]."),
		"no test key": []byte("\x80\x02}(U\x05train]U\x05valid]u."),
		"note 109":    []byte("\x80\x02}(U\x05train]](Km\x85eaU\x05valid]U\x04test]u."),
		"float note":  []byte("\x80\x02}(U\x05train]](G@N\x00\x00\x00\x00\x00\x00\x85eaU\x05valid]U\x04test]u."),
		"other class": []byte("\x80\x02cos\nsystem\n."),
	} {
		if _, err := ReadPianoPickle(bytes.NewReader(b)); err == nil {
			t.Errorf("%s: no error", name)
		} else {
			t.Logf("%s: %v", name, err)
		}
	}
}

// FuzzReadPianoPickle checks that no input makes the pickle reader panic.
func FuzzReadPianoPickle(f *testing.F) {
	f.Add(writePickle(smallSplits(f)))
	f.Fuzz(func(t *testing.T, b []byte) {
		ReadPianoPickle(bytes.NewReader(b))
	})
}
