package datasets

import (
	"bytes"
	"encoding/binary"
	"io"
	"os"

	"github.com/nlpodyssey/gopickle/pickle"
	"github.com/nlpodyssey/gopickle/types"
	"github.com/pkg/errors"
)

// ReadPianoPickle reads piano rolls from the original Python pickle of
// the Boulanger-Lewandowski (2012) distributions (protocol 2): a dict
// {"train", "valid", "test"} of lists of sequences, each a list of frames,
// each a tuple (or list) of the MIDI note numbers sounding, 21..108, as
// Python ints or numpy int64 scalars. A missing key, a note out of range,
// an unexpected object or a corrupt file gives an error.
func ReadPianoPickle(r io.Reader) (p *PianoSplits, err error) {
	defer func() {
		// gopickle indexes its stack without checks on some corrupt
		// inputs; turn such a failure into an error.
		if e := recover(); e != nil {
			p, err = nil, errors.Errorf("datasets: pickle: corrupt data (%v)", e)
		}
	}()
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, errors.Errorf("datasets: pickle: %v", err)
	}
	if err := scanPickle(b); err != nil {
		return nil, errors.Errorf("datasets: pickle: %v", err)
	}
	u := pickle.NewUnpickler(bytes.NewReader(b))
	u.FindClass = numpyClass
	obj, err := u.Load()
	if err != nil {
		return nil, errors.Errorf("datasets: pickle: %v", err)
	}
	d, ok := obj.(*types.Dict)
	if !ok {
		return nil, errors.Errorf("datasets: pickle: top-level object is %T, want a dict", obj)
	}
	p = &PianoSplits{}
	for _, s := range []struct {
		key string
		dst *Frames
	}{{"train", &p.Train}, {"valid", &p.Valid}, {"test", &p.Test}} {
		v, ok := d.Get(s.key)
		if !ok {
			return nil, errors.Errorf("datasets: pickle has no key %q", s.key)
		}
		if *s.dst, err = pickleFrames(v); err != nil {
			return nil, errors.Errorf("datasets: pickle %q: %v", s.key, err)
		}
	}
	return p, nil
}

// LoadPianoPickle reads the pickle at path (see ReadPianoPickle).
func LoadPianoPickle(path string) (*PianoSplits, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, errors.Errorf("datasets: %v", err)
	}
	defer f.Close()
	p, err := ReadPianoPickle(f)
	if err != nil {
		return nil, errors.Errorf("%v (%s)", err, path)
	}
	return p, nil
}

// pickleFrames converts a list of sequences of note tuples into frames.
func pickleFrames(v any) (Frames, error) {
	f := Frames{Width: PianoKeys}
	seqs, ok := pyItems(v)
	if !ok {
		return f, errors.Errorf("%T, want a list of sequences", v)
	}
	for i, s := range seqs {
		frames, ok := pyItems(s)
		if !ok || len(frames) == 0 {
			return f, errors.Errorf("sequence %d: %T of length %d, want a non-empty list of frames", i, s, len(frames))
		}
		seq := make([]float64, len(frames)*PianoKeys)
		for t, fr := range frames {
			notes, ok := pyItems(fr)
			if !ok {
				return f, errors.Errorf("sequence %d frame %d: %T, want a tuple of notes", i, t, fr)
			}
			for _, n := range notes {
				note, ok := pyInt(n)
				if !ok {
					return f, errors.Errorf("sequence %d frame %d: note %v is a %T, want an integer", i, t, n, n)
				}
				k := note - LowestPianoNote
				if k < 0 || k >= PianoKeys {
					return f, errors.Errorf("sequence %d frame %d: note %v, want a MIDI number in [%d, %d]",
						i, t, n, LowestPianoNote, LowestPianoNote+PianoKeys-1)
				}
				seq[t*PianoKeys+int(k)] = 1
			}
		}
		f.Seqs = append(f.Seqs, seq)
	}
	return f, nil
}

// pyItems returns the elements of a Python list or tuple.
func pyItems(v any) ([]any, bool) {
	switch x := v.(type) {
	case *types.List:
		return *x, true
	case *types.Tuple:
		return *x, true
	}
	return nil, false
}

// pyInt returns the value of a Python int or a decoded numpy scalar.
func pyInt(v any) (int64, bool) {
	switch x := v.(type) {
	case int:
		return int64(x), true
	case int64:
		return x, true
	case npScalar:
		return int64(x), true
	}
	return 0, false
}

// numpyClass resolves the two numpy globals the pickles reference:
// numpy.dtype and numpy.core.multiarray.scalar.
func numpyClass(module, name string) (any, error) {
	switch {
	case module == "numpy" && name == "dtype":
		return npDtypeClass{}, nil
	case (module == "numpy.core.multiarray" || module == "numpy._core.multiarray") && name == "scalar":
		return npScalarFunc{}, nil
	}
	return nil, errors.Errorf("unsupported global %s.%s", module, name)
}

// npDtype is the part of a numpy dtype the pickles need: its type code
// ("i8") and byte order ("<", ">", "|" or "=").
type npDtype struct {
	code, order string
}

// npDtypeClass builds an npDtype from numpy.dtype(code, align, copy).
type npDtypeClass struct{}

// Call implements types.Callable.
func (npDtypeClass) Call(args ...any) (any, error) {
	if len(args) == 0 {
		return nil, errors.Errorf("numpy.dtype called with no arguments")
	}
	code, ok := args[0].(string)
	if !ok {
		return nil, errors.Errorf("numpy.dtype code is %T, want a string", args[0])
	}
	return &npDtype{code: code, order: "<"}, nil
}

// PySetState implements types.PyStateSettable: state is the tuple
// (version, byteorder, ...).
func (d *npDtype) PySetState(state any) error {
	s, ok := pyItems(state)
	if !ok || len(s) < 2 {
		return errors.Errorf("numpy.dtype state %T, want a tuple", state)
	}
	if o, ok := s[1].(string); ok {
		d.order = o
	}
	return nil
}

// npScalar is a decoded numpy integer scalar.
type npScalar int64

// npScalarFunc decodes numpy.core.multiarray.scalar(dtype, raw bytes) for
// 1-, 2-, 4- and 8-byte signed and unsigned integers.
type npScalarFunc struct{}

// Call implements types.Callable.
func (npScalarFunc) Call(args ...any) (any, error) {
	if len(args) != 2 {
		return nil, errors.Errorf("numpy scalar with %d arguments, want 2", len(args))
	}
	d, ok := args[0].(*npDtype)
	if !ok {
		return nil, errors.Errorf("numpy scalar dtype is %T", args[0])
	}
	var raw []byte
	switch b := args[1].(type) {
	case string:
		raw = []byte(b)
	case []byte:
		raw = b
	default:
		return nil, errors.Errorf("numpy scalar data is %T, want bytes", args[1])
	}
	if len(d.code) != 2 || (d.code[0] != 'i' && d.code[0] != 'u') || int(d.code[1]-'0') != len(raw) {
		return nil, errors.Errorf("numpy scalar of dtype %q with %d bytes: only integers are supported", d.code, len(raw))
	}
	var order binary.ByteOrder = binary.LittleEndian
	if d.order == ">" {
		order = binary.BigEndian
	}
	var u uint64
	switch len(raw) {
	case 1:
		u = uint64(raw[0])
	case 2:
		u = uint64(order.Uint16(raw))
	case 4:
		u = uint64(order.Uint32(raw))
	case 8:
		u = order.Uint64(raw)
	default:
		return nil, errors.Errorf("numpy scalar of %d bytes", len(raw))
	}
	if d.code[0] == 'i' {
		shift := 64 - 8*uint(len(raw))
		return npScalar(int64(u<<shift) >> shift), nil
	}
	return npScalar(int64(u)), nil
}

// pickleArgs gives, for each pickle opcode, the size of its argument: a
// fixed byte count (>= 0), argLine (newline-terminated), arg2Lines, or
// argLenN (an N-byte little-endian length, then that many bytes).
var pickleArgs = func() map[byte]int {
	m := map[byte]int{}
	for _, op := range []byte("(.012NRabdelostu})]\x81\x85\x86\x87\x88\x89\x90\x91\x92\x93\x94\x97\x98") {
		m[op] = 0
	}
	for _, op := range []byte("Kqh\x80\x82") {
		m[op] = 1
	}
	for _, op := range []byte("M\x83") {
		m[op] = 2
	}
	for _, op := range []byte("Jrj\x84") {
		m[op] = 4
	}
	for _, op := range []byte("G\x95") {
		m[op] = 8
	}
	for _, op := range []byte("ILFSVPgp") {
		m[op] = argLine
	}
	for _, op := range []byte("ci") {
		m[op] = arg2Lines
	}
	for _, op := range []byte("UC\x8c\x8a") {
		m[op] = argLen1
	}
	for _, op := range []byte("TXB\x8b") {
		m[op] = argLen4
	}
	for _, op := range []byte("\x8d\x8e\x96") {
		m[op] = argLen8
	}
	return m
}()

const (
	argLine = -1 - iota
	arg2Lines
	argLen1
	argLen4
	argLen8
)

// scanPickle walks the opcodes of a pickle without running them and
// reports an unknown opcode, an argument running past the end of b or a
// missing STOP. It guards the unpickler against corrupt lengths, which it
// would otherwise try to allocate.
func scanPickle(b []byte) error {
	for i := 0; i < len(b); {
		op := b[i]
		kind, ok := pickleArgs[op]
		if !ok {
			return errors.Errorf("unknown opcode 0x%02x at byte %d", op, i)
		}
		i++
		if op == '.' {
			return nil
		}
		var n uint64
		switch kind {
		case argLine, arg2Lines:
			lines := 1
			if kind == arg2Lines {
				lines = 2
			}
			for ; lines > 0; lines-- {
				j := bytes.IndexByte(b[i:], '\n')
				if j < 0 {
					return errors.Errorf("opcode %q at byte %d: unterminated line", op, i-1)
				}
				i += j + 1
			}
			continue
		case argLen1, argLen4, argLen8:
			w := map[int]int{argLen1: 1, argLen4: 4, argLen8: 8}[kind]
			if len(b)-i < w {
				return errors.Errorf("opcode %q at byte %d: truncated length", op, i-1)
			}
			le := make([]byte, 8)
			copy(le, b[i:i+w])
			n = binary.LittleEndian.Uint64(le)
			i += w
		default:
			n = uint64(kind)
		}
		if n > uint64(len(b)-i) {
			return errors.Errorf("opcode %q at byte %d: argument of %d bytes, only %d left (truncated file?)", op, i-1, n, len(b)-i)
		}
		i += int(n)
	}
	return errors.Errorf("no STOP opcode (truncated file?)")
}
