package npz

import (
	"archive/zip"
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/pkg/errors"
)

// Array is one named array: Shape (C order) and its values as float64.
// Int marks an integer array, written as '<i8'; every value must then be
// an integer of magnitude below 2^53.
type Array struct {
	// Name is the entry name without ".npy".
	Name string
	// Shape is the array's shape; empty for a scalar.
	Shape []int
	// Data holds the values in row-major order.
	Data []float64
	// Int writes the array as int64.
	Int bool
}

const (
	magic     = "\x93NUMPY"
	align     = 64
	maxHeader = 1 << 20
	chunk     = 1 << 16
	metaEntry = "meta.json"
)

// zipTime is the modification time of every entry, so that equal
// contents give byte-identical files.
var zipTime = time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC)

// Write writes the arrays (in order) and, unless meta is nil, a
// "meta.json" entry holding json.Marshal(meta), to path atomically: a
// temporary file in the same directory is renamed over path only once it
// is complete, so a failed write leaves no partial file.
func Write(path string, meta any, arrays []Array) error {
	var mj []byte
	if meta != nil {
		var err error
		if mj, err = json.Marshal(meta); err != nil {
			return errors.Wrapf(err, "npz: %s: encoding metadata", path)
		}
	}
	for _, a := range arrays {
		n, err := size(a.Shape)
		if err != nil || n != len(a.Data) {
			return errors.Errorf("npz: %s: array %s of shape %v holds %d values", path, a.Name, a.Shape, len(a.Data))
		}
	}
	return WriteFileAtomic(path, func(w io.Writer) error {
		zw := zip.NewWriter(w)
		if mj != nil {
			if err := entry(zw, metaEntry, func(w io.Writer) error { _, err := w.Write(mj); return err }); err != nil {
				return err
			}
		}
		for _, a := range arrays {
			if err := entry(zw, a.Name+".npy", func(w io.Writer) error { return writeNPY(w, a) }); err != nil {
				return errors.Wrapf(err, "npz: %s: array %s", path, a.Name)
			}
		}
		return errors.Wrapf(zw.Close(), "npz: %s", path)
	})
}

func entry(zw *zip.Writer, name string, write func(io.Writer) error) error {
	w, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Store, Modified: zipTime})
	if err != nil {
		return err
	}
	return write(w)
}

// WriteFileAtomic fills a temporary file next to path through write and
// renames it over path, so that path holds its old content or the whole
// new one; on any error the temporary file is removed.
func WriteFileAtomic(path string, write func(io.Writer) error) (err error) {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return errors.Wrapf(err, "npz: writing %s", path)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	bw := bufio.NewWriterSize(f, 1<<16)
	if err = write(bw); err != nil {
		return err
	}
	if err = bw.Flush(); err == nil {
		err = f.Chmod(0o644)
	}
	if err == nil {
		err = f.Sync()
	}
	if err == nil {
		err = f.Close()
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	return errors.Wrapf(err, "npz: writing %s", path)
}

func size(shape []int) (int, error) {
	n := 1
	for _, d := range shape {
		if d < 0 || (d > 0 && n > math.MaxInt/8/d) {
			return 0, errors.Errorf("bad shape %v", shape)
		}
		n *= d
	}
	return n, nil
}

// writeNPY writes a as an NPY 1.0 array, padded as numpy pads its header.
func writeNPY(w io.Writer, a Array) error {
	descr := "<f8"
	if a.Int {
		descr = "<i8"
	}
	var s strings.Builder
	s.WriteString("{'descr': '" + descr + "', 'fortran_order': False, 'shape': (")
	for i, d := range a.Shape {
		if i > 0 {
			s.WriteString(", ")
		}
		s.WriteString(strconv.Itoa(d))
	}
	if len(a.Shape) == 1 {
		s.WriteString(",")
	}
	s.WriteString("), }")
	hlen := s.Len() + 1
	pad := (align - (len(magic)+4+hlen)%align) % align
	var hdr bytes.Buffer
	hdr.WriteString(magic)
	hdr.Write([]byte{1, 0})
	hdr.Write(binary.LittleEndian.AppendUint16(nil, uint16(hlen+pad)))
	hdr.WriteString(s.String())
	hdr.Write(bytes.Repeat([]byte{' '}, pad))
	hdr.WriteByte('\n')
	if _, err := w.Write(hdr.Bytes()); err != nil {
		return err
	}
	buf := make([]byte, 0, 8*min(len(a.Data), chunk))
	for lo := 0; lo < len(a.Data); lo += chunk {
		buf = buf[:0]
		for _, v := range a.Data[lo:min(lo+chunk, len(a.Data))] {
			u := math.Float64bits(v)
			if a.Int {
				if v != math.Trunc(v) || math.Abs(v) >= 1<<53 {
					return errors.Errorf("value %g is not an integer", v)
				}
				u = uint64(int64(v))
			}
			buf = binary.LittleEndian.AppendUint64(buf, u)
		}
		if _, err := w.Write(buf); err != nil {
			return err
		}
	}
	return nil
}

// Read reads every array of the .npz file at path, in archive order, and
// unmarshals its "meta.json" entry into meta when both exist. Entries
// other than NPY arrays and meta.json are an error, as are unsupported
// dtypes, Fortran order and truncated data; errors name the file and the
// entry.
func Read(path string, meta any) ([]Array, error) {
	zr, err := zip.OpenReader(path)
	if err != nil {
		return nil, errors.Errorf("npz: %s: not a readable .npz (zip) file: %v", path, err)
	}
	defer zr.Close()
	var out []Array
	for _, ze := range zr.File {
		if ze.Name == metaEntry {
			if meta != nil {
				if err := readMeta(ze, meta); err != nil {
					return nil, errors.Errorf("npz: %s: %s: %v", path, metaEntry, err)
				}
			}
			continue
		}
		name, ok := strings.CutSuffix(ze.Name, ".npy")
		if !ok || name == "" {
			return nil, errors.Errorf("npz: %s: unexpected entry %q (want <name>.npy or meta.json)", path, ze.Name)
		}
		a, err := readEntry(ze)
		if err != nil {
			return nil, errors.Errorf("npz: %s: array %s: %v", path, name, err)
		}
		a.Name = name
		out = append(out, a)
	}
	return out, nil
}

func readMeta(ze *zip.File, meta any) error {
	rc, err := ze.Open()
	if err != nil {
		return err
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, 64*maxHeader))
	if err != nil {
		return err
	}
	return json.Unmarshal(b, meta)
}

type dtype struct {
	size int
	conv func([]byte) float64
	int  bool
}

var dtypes = map[string]dtype{
	"<f8": {8, func(b []byte) float64 { return math.Float64frombits(binary.LittleEndian.Uint64(b)) }, false},
	"<f4": {4, func(b []byte) float64 { return float64(math.Float32frombits(binary.LittleEndian.Uint32(b))) }, false},
	"<i8": {8, func(b []byte) float64 { return float64(int64(binary.LittleEndian.Uint64(b))) }, true},
	"<i4": {4, func(b []byte) float64 { return float64(int32(binary.LittleEndian.Uint32(b))) }, true},
	"|u1": {1, func(b []byte) float64 { return float64(b[0]) }, true},
	"|b1": {1, func(b []byte) float64 { return float64(b[0] & 1) }, true},
}

// headerRE matches the dictionary numpy writes in an NPY header.
var headerRE = regexp.MustCompile(`^\{\s*'descr'\s*:\s*'([^']*)'\s*,\s*'fortran_order'\s*:\s*(True|False)\s*,\s*'shape'\s*:\s*\(([0-9,\sL]*)\)\s*,?\s*\}\s*$`)

func readEntry(ze *zip.File) (Array, error) {
	rc, err := ze.Open()
	if err != nil {
		return Array{}, err
	}
	defer rc.Close()
	r := io.LimitReader(rc, int64(ze.UncompressedSize64))
	var pre [10]byte
	if _, err := io.ReadFull(r, pre[:8]); err != nil || string(pre[:6]) != magic {
		return Array{}, errors.New("not an NPY array")
	}
	var hlen int
	switch pre[6] {
	case 1:
		if _, err := io.ReadFull(r, pre[8:10]); err != nil {
			return Array{}, errors.New("short header")
		}
		hlen = int(binary.LittleEndian.Uint16(pre[8:10]))
	case 2, 3:
		var b [4]byte
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return Array{}, errors.New("short header")
		}
		hlen = int(binary.LittleEndian.Uint32(b[:]))
	default:
		return Array{}, errors.Errorf("unsupported NPY version %d", pre[6])
	}
	if hlen > maxHeader {
		return Array{}, errors.Errorf("header of %d bytes is too long", hlen)
	}
	h := make([]byte, hlen)
	if _, err := io.ReadFull(r, h); err != nil {
		return Array{}, errors.New("short header")
	}
	m := headerRE.FindStringSubmatch(strings.TrimRight(string(h), " \n\x00"))
	if m == nil {
		return Array{}, errors.Errorf("bad NPY header %q", strings.TrimSpace(string(h)))
	}
	dt, ok := dtypes[m[1]]
	if !ok {
		return Array{}, errors.Errorf("unsupported dtype %q (want <f8, <f4, <i8, <i4, |u1 or |b1)", m[1])
	}
	if m[2] == "True" {
		return Array{}, errors.New("fortran_order True is not supported (save a C-contiguous array)")
	}
	a := Array{Int: dt.int}
	for _, f := range strings.Split(m[3], ",") {
		f = strings.TrimSuffix(strings.TrimSpace(f), "L")
		if f == "" {
			continue
		}
		d, err := strconv.Atoi(f)
		if err != nil {
			return Array{}, errors.Errorf("bad shape entry %q", f)
		}
		a.Shape = append(a.Shape, d)
	}
	n, err := size(a.Shape)
	if err != nil {
		return Array{}, err
	}
	if uint64(n)*uint64(dt.size) > ze.UncompressedSize64 {
		return Array{}, errors.Errorf("shape %v needs %d bytes, the entry holds %d", a.Shape, n*dt.size, ze.UncompressedSize64)
	}
	a.Data = make([]float64, 0, n)
	buf := make([]byte, dt.size*min(n, chunk))
	for len(a.Data) < n {
		k := min(n-len(a.Data), chunk)
		if _, err := io.ReadFull(r, buf[:k*dt.size]); err != nil {
			return Array{}, errors.Errorf("data ends after fewer than %d values", n)
		}
		for i := range k {
			a.Data = append(a.Data, dt.conv(buf[i*dt.size:]))
		}
	}
	return a, nil
}
