package datasets

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"

	"github.com/pkg/errors"
)

// MAT v5 data types (MATLAB "MAT-File Format", table 1-1).
const (
	miINT8       = 1
	miUINT8      = 2
	miINT16      = 3
	miUINT16     = 4
	miINT32      = 5
	miUINT32     = 6
	miSINGLE     = 7
	miDOUBLE     = 9
	miINT64      = 12
	miUINT64     = 13
	miMATRIX     = 14
	miCOMPRESSED = 15
)

// MAT v5 array classes: 1 is a cell array; numeric classes run from 6
// (double) to 15 (uint64).
const (
	mxCellClass    = 1
	mxFirstNumeric = 6
	mxLastNumeric  = 15
)

// matHeaderLen is the length of a MAT v5 file header: 116 bytes of text,
// 8 of subsystem offset, 2 of version and 2 of endian indicator.
const matHeaderLen = 128

// maxMATDepth bounds the nesting of cells inside cells, so that a corrupt
// file cannot recurse without end.
const maxMATDepth = 8

// matArray is one MAT v5 array: a numeric matrix (Data, column-major) or
// a cell array (Cells, column-major), with its name and dimensions.
type matArray struct {
	Name  string
	Class int
	Dims  []int
	Data  []float64
	Cells []*matArray
}

// readMAT parses a whole MAT v5 file held in b and returns its top-level
// variables by name. Only little- and big-endian level 5 files with
// numeric and cell arrays are read; other classes (structs, objects,
// sparse, character) are skipped at the top level and refused inside a
// cell.
func readMAT(b []byte) (map[string]*matArray, error) {
	if len(b) < matHeaderLen {
		return nil, errors.Errorf("%d bytes, shorter than the 128-byte MAT v5 header", len(b))
	}
	if bytes.HasPrefix(b, []byte("MATLAB 7.3")) || bytes.HasPrefix(b, []byte{0x89, 'H', 'D', 'F'}) {
		return nil, errors.Errorf("MAT v7.3 (HDF5) files are not supported; save with -v7")
	}
	var order binary.ByteOrder
	switch string(b[126:128]) {
	case "IM":
		order = binary.LittleEndian
	case "MI":
		order = binary.BigEndian
	default:
		return nil, errors.Errorf("not a MAT v5 file (endian indicator %q)", b[126:128])
	}
	vars := make(map[string]*matArray)
	rest := b[matHeaderLen:]
	off := matHeaderLen
	for len(rest) > 0 {
		typ, data, n, err := matElement(rest, order)
		if err != nil {
			return nil, errors.Errorf("element at byte %d: %v", off, err)
		}
		if typ == miCOMPRESSED {
			raw, err := inflate(data)
			if err != nil {
				return nil, errors.Errorf("compressed element at byte %d: %v", off, err)
			}
			typ, data, _, err = matElement(raw, order)
			if err != nil {
				return nil, errors.Errorf("compressed element at byte %d: %v", off, err)
			}
		}
		if typ == miMATRIX {
			a, err := matMatrix(data, order, 0)
			if err != nil {
				return nil, errors.Errorf("variable at byte %d: %v", off, err)
			}
			if a != nil {
				vars[a.Name] = a
			}
		}
		rest = rest[n:]
		off += n
	}
	return vars, nil
}

// inflate decompresses one zlib stream.
func inflate(data []byte) ([]byte, error) {
	zr, err := zlib.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	defer zr.Close()
	return io.ReadAll(zr)
}

// matElement reads the data element at the start of b and returns its
// type, its payload and the number of bytes it occupies, padding
// included (compressed elements are not padded).
func matElement(b []byte, order binary.ByteOrder) (typ uint32, data []byte, n int, err error) {
	if len(b) < 8 {
		return 0, nil, 0, errors.Errorf("truncated tag (%d bytes left)", len(b))
	}
	first := order.Uint32(b)
	if small := first >> 16; small != 0 {
		// Small data element: type and size share the first word and the
		// payload (at most 4 bytes) the second.
		if small > 4 {
			return 0, nil, 0, errors.Errorf("small element claims %d bytes", small)
		}
		return first & 0xffff, b[4 : 4+small], 8, nil
	}
	size := uint64(order.Uint32(b[4:]))
	if size > uint64(len(b)-8) {
		return 0, nil, 0, errors.Errorf("element of %d bytes, only %d left (truncated file?)", size, len(b)-8)
	}
	n = 8 + int(size)
	if first != miCOMPRESSED && n%8 != 0 {
		n += 8 - n%8
		n = min(n, len(b)) // the last element's padding may be missing
	}
	return first, b[8 : 8+size], n, nil
}

// matMatrix parses the payload of a miMATRIX element: array flags,
// dimensions, name, then the real part of a numeric array or one miMATRIX
// element per cell. It returns nil, nil for an array of a class it does
// not read (a cell array holding one is an error).
func matMatrix(b []byte, order binary.ByteOrder, depth int) (*matArray, error) {
	if len(b) == 0 {
		return &matArray{Class: mxCellClass - 1}, nil // empty cell entry
	}
	if depth > maxMATDepth {
		return nil, errors.Errorf("cells nested deeper than %d", maxMATDepth)
	}
	sub := func(what string) (uint32, []byte, error) {
		typ, data, n, err := matElement(b, order)
		if err != nil {
			return 0, nil, errors.Errorf("%s: %v", what, err)
		}
		b = b[n:]
		return typ, data, nil
	}
	typ, flags, err := sub("array flags")
	if err != nil {
		return nil, err
	}
	if typ != miUINT32 || len(flags) < 8 {
		return nil, errors.Errorf("array flags: type %d with %d bytes, want miUINT32 with 8", typ, len(flags))
	}
	a := &matArray{Class: int(order.Uint32(flags) & 0xff)}
	complexFlag := order.Uint32(flags)&0x0800 != 0
	typ, dims, err := sub("dimensions")
	if err != nil {
		return nil, err
	}
	if typ != miINT32 || len(dims) < 8 || len(dims)%4 != 0 {
		return nil, errors.Errorf("dimensions: type %d with %d bytes, want miINT32 with at least 8", typ, len(dims))
	}
	count := 1
	for i := 0; i < len(dims); i += 4 {
		d := int(int32(order.Uint32(dims[i:])))
		if d < 0 || (d > 0 && count > math.MaxInt32/d) {
			return nil, errors.Errorf("dimension %d is %d", i/4, d)
		}
		a.Dims = append(a.Dims, d)
		count *= d
	}
	typ, name, err := sub("array name")
	if err != nil {
		return nil, err
	}
	if typ != miINT8 && typ != miUINT8 {
		return nil, errors.Errorf("array name of type %d, want miINT8", typ)
	}
	a.Name = string(name)
	switch {
	case a.Class == mxCellClass:
		for i := range count {
			typ, data, err := sub(fmt.Sprintf("cell %d", i))
			if err != nil {
				return nil, err
			}
			if typ != miMATRIX {
				return nil, errors.Errorf("cell %d: element type %d, want miMATRIX", i, typ)
			}
			c, err := matMatrix(data, order, depth+1)
			if err != nil {
				return nil, errors.Errorf("cell %d: %v", i, err)
			}
			if c == nil {
				return nil, errors.Errorf("cell %d: unsupported array class", i)
			}
			a.Cells = append(a.Cells, c)
		}
	case a.Class >= mxFirstNumeric && a.Class <= mxLastNumeric:
		if complexFlag {
			return nil, errors.Errorf("array %q is complex", a.Name)
		}
		typ, data, err := sub("real part")
		if err != nil {
			return nil, err
		}
		if a.Data, err = matNumbers(typ, data, order); err != nil {
			return nil, errors.Errorf("array %q: %v", a.Name, err)
		}
		if len(a.Data) != count {
			return nil, errors.Errorf("array %q: %d values for dimensions %v", a.Name, len(a.Data), a.Dims)
		}
	default:
		return nil, nil
	}
	return a, nil
}

// matNumbers converts a numeric payload of MAT type typ to float64.
func matNumbers(typ uint32, b []byte, order binary.ByteOrder) ([]float64, error) {
	size := map[uint32]int{miINT8: 1, miUINT8: 1, miINT16: 2, miUINT16: 2, miINT32: 4, miUINT32: 4,
		miSINGLE: 4, miDOUBLE: 8, miINT64: 8, miUINT64: 8}[typ]
	if size == 0 {
		return nil, errors.Errorf("data of type %d is not numeric", typ)
	}
	if len(b)%size != 0 {
		return nil, errors.Errorf("%d bytes of type %d, not a multiple of %d", len(b), typ, size)
	}
	out := make([]float64, len(b)/size)
	for i := range out {
		p := b[i*size:]
		switch typ {
		case miINT8:
			out[i] = float64(int8(p[0]))
		case miUINT8:
			out[i] = float64(p[0])
		case miINT16:
			out[i] = float64(int16(order.Uint16(p)))
		case miUINT16:
			out[i] = float64(order.Uint16(p))
		case miINT32:
			out[i] = float64(int32(order.Uint32(p)))
		case miUINT32:
			out[i] = float64(order.Uint32(p))
		case miSINGLE:
			out[i] = float64(math.Float32frombits(order.Uint32(p)))
		case miDOUBLE:
			out[i] = math.Float64frombits(order.Uint64(p))
		case miINT64:
			out[i] = float64(int64(order.Uint64(p)))
		case miUINT64:
			out[i] = float64(order.Uint64(p))
		}
	}
	return out, nil
}

// ReadPianoMAT reads piano rolls from a MATLAB v5 MAT-file in the layout
// of the Boulanger-Lewandowski (2012) distributions: variables traindata,
// validdata and testdata, each a 1 x N cell array of T x 88 matrices
// (any numeric class, usually uint8) with entries 0 or 1, where column k
// is MIDI note 21+k. Compressed (miCOMPRESSED) and plain elements, either
// byte order, are read. A missing variable, a matrix that is not T x 88
// or holds another value than 0 or 1, or a corrupt file gives an error.
func ReadPianoMAT(r io.Reader) (*PianoSplits, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, errors.Errorf("datasets: MAT file: %v", err)
	}
	vars, err := readMAT(b)
	if err != nil {
		return nil, errors.Errorf("datasets: MAT file: %v", err)
	}
	var p PianoSplits
	for _, s := range []struct {
		name string
		dst  *Frames
	}{{"traindata", &p.Train}, {"validdata", &p.Valid}, {"testdata", &p.Test}} {
		v, ok := vars[s.name]
		if !ok {
			return nil, errors.Errorf("datasets: MAT file has no variable %q", s.name)
		}
		if *s.dst, err = matFrames(v); err != nil {
			return nil, errors.Errorf("datasets: MAT variable %q: %v", s.name, err)
		}
	}
	return &p, nil
}

// LoadPianoMAT reads the MAT-file at path (see ReadPianoMAT).
func LoadPianoMAT(path string) (*PianoSplits, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, errors.Errorf("datasets: %v", err)
	}
	defer f.Close()
	p, err := ReadPianoMAT(f)
	if err != nil {
		return nil, errors.Errorf("%v (%s)", err, path)
	}
	return p, nil
}

// matFrames turns a cell array of T x PianoKeys matrices (column-major)
// into step-major frames.
func matFrames(v *matArray) (Frames, error) {
	f := Frames{Width: PianoKeys}
	if v.Class != mxCellClass {
		return f, errors.Errorf("array class %d, want a cell array", v.Class)
	}
	for i, c := range v.Cells {
		if len(c.Dims) != 2 || c.Dims[1] != PianoKeys || c.Dims[0] < 1 || len(c.Data) != c.Dims[0]*PianoKeys {
			return f, errors.Errorf("cell %d has dimensions %v, want T x %d with T >= 1", i, c.Dims, PianoKeys)
		}
		T := c.Dims[0]
		seq := make([]float64, T*PianoKeys)
		for k := range PianoKeys {
			for t := range T {
				x := c.Data[k*T+t]
				if x != 0 && x != 1 {
					return f, errors.Errorf("cell %d frame %d key %d: value %g, want 0 or 1", i, t, k, x)
				}
				seq[t*PianoKeys+k] = x
			}
		}
		f.Seqs = append(f.Seqs, seq)
	}
	return f, nil
}
