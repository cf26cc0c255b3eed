package params

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
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/pkg/errors"
)

// Checkpoints are .npz files: a zip archive of .npy arrays, readable by
// numpy.load. Entry "meta.json" holds caller metadata; entry
// "<set>/<param>.npy" holds one tensor of one named parameter set.

const (
	npyMagic     = "\x93NUMPY"
	npyAlign     = 64      // numpy aligns the data to 64 bytes (format.ARRAY_ALIGN)
	npyGrowth    = 21      // numpy's GROWTH_AXIS_MAX_DIGITS: spare header room for the first axis
	npyMaxHeader = 1 << 20 // larger headers are taken as corruption
	npyChunk     = 1 << 16 // values read per chunk, so a lying header cannot force a huge allocation
	metaEntry    = "meta.json"
	npyExt       = ".npy"
	paramsSet    = "params" // the set written by Params.Save
)

// zipTime is the modification time of every entry, fixed so that equal
// contents give byte-identical files.
var zipTime = time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC)

// WriteNPY writes data, a row-major (C order) array of the given shape, as
// an NPY format version 1.0 file of dtype '<f8' (little-endian float64),
// byte for byte as numpy.save writes it. An empty shape is a scalar.
func WriteNPY(w io.Writer, shape []int, data []float64) error {
	n, err := shapeSize(shape)
	if err != nil {
		return err
	}
	if n != len(data) {
		return errors.Errorf("params: npy: shape %v holds %d values, got %d", shape, n, len(data))
	}
	if _, err := w.Write(npyHeader(shape)); err != nil {
		return errors.Wrap(err, "params: npy: writing header")
	}
	buf := make([]byte, 8*min(len(data), npyChunk))
	for len(data) > 0 {
		k := min(len(data), npyChunk)
		for i, v := range data[:k] {
			binary.LittleEndian.PutUint64(buf[8*i:], math.Float64bits(v))
		}
		if _, err := w.Write(buf[:8*k]); err != nil {
			return errors.Wrap(err, "params: npy: writing data")
		}
		data = data[k:]
	}
	return nil
}

// npyHeader returns the magic string, version, header length and the
// header dictionary, padded as numpy pads it: spare spaces for the first
// axis to grow, then spaces and a newline up to a 64-byte boundary.
func npyHeader(shape []int) []byte {
	var s strings.Builder
	s.WriteString("{'descr': '<f8', 'fortran_order': False, 'shape': (")
	for i, d := range shape {
		if i > 0 {
			s.WriteString(", ")
		}
		s.WriteString(strconv.Itoa(d))
	}
	if len(shape) == 1 {
		s.WriteString(",")
	}
	s.WriteString("), }")
	if len(shape) > 0 {
		s.WriteString(strings.Repeat(" ", npyGrowth-len(strconv.Itoa(shape[0]))))
	}
	hlen := s.Len() + 1 // the final newline
	pad := npyAlign - (len(npyMagic)+2+2+hlen)%npyAlign
	if pad == npyAlign {
		pad = 0
	}
	out := make([]byte, 0, len(npyMagic)+4+hlen+pad)
	out = append(out, npyMagic...)
	out = append(out, 1, 0)
	out = binary.LittleEndian.AppendUint16(out, uint16(hlen+pad))
	out = append(out, s.String()...)
	out = append(out, bytes.Repeat([]byte{' '}, pad)...)
	return append(out, '\n')
}

// shapeSize returns the number of values of an array of the given shape,
// failing on a negative dimension or an overflowing size.
func shapeSize(shape []int) (int, error) {
	n := 1
	for _, d := range shape {
		if d < 0 {
			return 0, errors.Errorf("params: npy: negative dimension in shape %v", shape)
		}
		if d > 0 && n > math.MaxInt/8/d {
			return 0, errors.Errorf("params: npy: shape %v is too large", shape)
		}
		n *= d
	}
	return n, nil
}

// npyDtype describes an element type ReadNPY converts to float64.
type npyDtype struct {
	size int
	conv func([]byte) float64
}

var npyDtypes = map[string]npyDtype{
	"<f8": {8, func(b []byte) float64 { return math.Float64frombits(binary.LittleEndian.Uint64(b)) }},
	"<f4": {4, func(b []byte) float64 { return float64(math.Float32frombits(binary.LittleEndian.Uint32(b))) }},
	"<i8": {8, func(b []byte) float64 { return float64(int64(binary.LittleEndian.Uint64(b))) }},
	"<i4": {4, func(b []byte) float64 { return float64(int32(binary.LittleEndian.Uint32(b))) }},
	"|u1": {1, func(b []byte) float64 { return float64(b[0]) }},
	"|b1": {1, func(b []byte) float64 {
		if b[0] != 0 {
			return 1
		}
		return 0
	}},
}

// ReadNPY reads one NPY array (format versions 1.0, 2.0 and 3.0) in C
// order and returns its shape and values converted to float64. It accepts
// the dtypes '<f8', '<f4', '<i8', '<i4', '|u1' and '|b1' (booleans become
// 0 and 1) and rejects Fortran-ordered arrays, other dtypes and malformed
// headers with a one-line error. It reads exactly the array's bytes.
func ReadNPY(r io.Reader) (shape []int, data []float64, err error) {
	header, err := readNPYHeader(r)
	if err != nil {
		return nil, nil, err
	}
	descr, fortran, shape, err := parseNPYHeader(header)
	if err != nil {
		return nil, nil, err
	}
	dt, ok := npyDtypes[descr]
	if !ok {
		return nil, nil, errors.Errorf("params: npy: unsupported dtype %q (want <f8, <f4, <i8, <i4, |u1 or |b1)", descr)
	}
	if fortran {
		return nil, nil, errors.New("params: npy: fortran_order True is not supported (save a C-contiguous array)")
	}
	n, err := shapeSize(shape)
	if err != nil {
		return nil, nil, err
	}
	data = make([]float64, 0, min(n, npyChunk))
	buf := make([]byte, dt.size*min(n, npyChunk))
	for len(data) < n {
		k := min(n-len(data), npyChunk)
		if got, err := io.ReadFull(r, buf[:k*dt.size]); err != nil {
			return nil, nil, errors.Errorf("params: npy: data ends after %d of %d values: %v", len(data)+got/dt.size, n, err)
		}
		for i := 0; i < k; i++ {
			data = append(data, dt.conv(buf[i*dt.size:]))
		}
	}
	return shape, data, nil
}

// readNPYHeader checks the magic string and version and returns the
// header dictionary text.
func readNPYHeader(r io.Reader) (string, error) {
	var pre [8]byte
	if _, err := io.ReadFull(r, pre[:]); err != nil {
		return "", errors.Wrap(err, "params: npy: short file")
	}
	if string(pre[:6]) != npyMagic {
		return "", errors.Errorf("params: npy: bad magic string %q", pre[:6])
	}
	var hlen int
	switch pre[6] {
	case 1:
		var b [2]byte
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return "", errors.Wrap(err, "params: npy: short header")
		}
		hlen = int(binary.LittleEndian.Uint16(b[:]))
	case 2, 3:
		var b [4]byte
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return "", errors.Wrap(err, "params: npy: short header")
		}
		hlen = int(binary.LittleEndian.Uint32(b[:]))
	default:
		return "", errors.Errorf("params: npy: unsupported format version %d.%d", pre[6], pre[7])
	}
	if hlen > npyMaxHeader {
		return "", errors.Errorf("params: npy: header of %d bytes is too long", hlen)
	}
	h := make([]byte, hlen)
	if _, err := io.ReadFull(r, h); err != nil {
		return "", errors.Wrap(err, "params: npy: short header")
	}
	return string(h), nil
}

// parseNPYHeader parses numpy's header, a Python dict literal with
// exactly the keys 'descr' (a string), 'fortran_order' (a bool) and
// 'shape' (a tuple of non-negative ints).
func parseNPYHeader(h string) (descr string, fortran bool, shape []int, err error) {
	p := &pyParser{s: strings.TrimRight(h, " \n\x00")}
	d, err := p.dict()
	if err == nil && p.i != len(p.s) {
		err = errors.Errorf("trailing %q", p.s[p.i:])
	}
	if err != nil {
		return "", false, nil, errors.Wrapf(err, "params: npy: bad header %q", h)
	}
	bad := func(msg string) error { return errors.Errorf("params: npy: bad header %q: %s", h, msg) }
	if len(d) != 3 {
		return "", false, nil, bad("want exactly the keys descr, fortran_order, shape")
	}
	var ok bool
	if descr, ok = d["descr"].(string); !ok {
		return "", false, nil, bad("descr is not a string")
	}
	if fortran, ok = d["fortran_order"].(bool); !ok {
		return "", false, nil, bad("fortran_order is not a bool")
	}
	if shape, ok = d["shape"].([]int); !ok {
		return "", false, nil, bad("shape is not a tuple of ints")
	}
	return descr, fortran, shape, nil
}

// pyParser parses the subset of Python literals numpy writes in NPY
// headers: dicts with string keys, strings, True/False and tuples of ints.
type pyParser struct {
	s string
	i int
}

func (p *pyParser) space() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t' || p.s[p.i] == '\n') {
		p.i++
	}
}

// eat consumes c after optional spaces and reports whether it was there.
func (p *pyParser) eat(c byte) bool {
	p.space()
	if p.i < len(p.s) && p.s[p.i] == c {
		p.i++
		return true
	}
	return false
}

func (p *pyParser) dict() (map[string]any, error) {
	if !p.eat('{') {
		return nil, errors.New("not a dict")
	}
	d := map[string]any{}
	for !p.eat('}') {
		k, err := p.str()
		if err != nil {
			return nil, err
		}
		if _, dup := d[k]; dup {
			return nil, errors.Errorf("duplicate key %q", k)
		}
		if !p.eat(':') {
			return nil, errors.Errorf("no ':' after key %q", k)
		}
		if d[k], err = p.value(); err != nil {
			return nil, err
		}
		if !p.eat(',') {
			if !p.eat('}') {
				return nil, errors.New("unterminated dict")
			}
			break
		}
	}
	return d, nil
}

func (p *pyParser) value() (any, error) {
	p.space()
	switch {
	case strings.HasPrefix(p.s[p.i:], "True"):
		p.i += 4
		return true, nil
	case strings.HasPrefix(p.s[p.i:], "False"):
		p.i += 5
		return false, nil
	case p.i < len(p.s) && p.s[p.i] == '(':
		return p.tuple()
	}
	return p.str()
}

func (p *pyParser) str() (string, error) {
	p.space()
	if p.i >= len(p.s) || (p.s[p.i] != '\'' && p.s[p.i] != '"') {
		return "", errors.New("expected a string")
	}
	q := p.s[p.i]
	end := strings.IndexByte(p.s[p.i+1:], q)
	if end < 0 {
		return "", errors.New("unterminated string")
	}
	v := p.s[p.i+1 : p.i+1+end]
	p.i += end + 2
	return v, nil
}

func (p *pyParser) tuple() ([]int, error) {
	p.eat('(')
	shape := []int{}
	for !p.eat(')') {
		p.space()
		j := p.i
		for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
			p.i++
		}
		d, err := strconv.Atoi(p.s[j:p.i])
		if err != nil {
			return nil, errors.New("shape entry is not a non-negative int")
		}
		if p.i < len(p.s) && p.s[p.i] == 'L' { // Python 2 long
			p.i++
		}
		shape = append(shape, d)
		if !p.eat(',') {
			if !p.eat(')') {
				return nil, errors.New("unterminated tuple")
			}
			break
		}
	}
	return shape, nil
}

// WriteFileAtomic writes a file through write so that path holds either
// its previous content or the complete new content, never a mix: write
// fills a temporary file in path's directory, which is synced, closed and
// renamed over path. On any error (including a panic in write) the
// temporary file is removed and an existing file at path is untouched. A
// new file gets mode 0644; a replaced file keeps its mode. Missing
// directories of path are created (mode 0755) first; they stay when the
// write fails.
func WriteFileAtomic(path string, write func(io.Writer) error) error {
	dir, base := filepath.Split(path)
	dir = filepath.Clean(dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return errors.Wrapf(err, "params: writing %s", path)
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return errors.Wrapf(err, "params: writing %s", path)
	}
	done := false
	defer func() {
		if !done {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	bw := bufio.NewWriterSize(f, 1<<16)
	if err := write(bw); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return errors.Wrapf(err, "params: writing %s", path)
	}
	mode := os.FileMode(0o644)
	if st, err := os.Stat(path); err == nil {
		mode = st.Mode().Perm()
	}
	if err := f.Chmod(mode); err != nil {
		return errors.Wrapf(err, "params: writing %s", path)
	}
	if err := f.Sync(); err != nil {
		return errors.Wrapf(err, "params: writing %s", path)
	}
	if err := f.Close(); err != nil {
		return errors.Wrapf(err, "params: writing %s", path)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		os.Remove(f.Name())
		done = true
		return errors.Wrapf(err, "params: writing %s", path)
	}
	done = true
	if d, err := os.Open(dir); err == nil { // make the rename durable; best effort
		d.Sync()
		d.Close()
	}
	return nil
}

// SaveNPZ writes a checkpoint to path atomically (see WriteFileAtomic):
// entry "meta.json" holds json.Marshal(meta) unless meta is nil, and entry
// "<set>/<param>.npy" holds each tensor of each set, sets in sorted order,
// tensors in their set's order. Parameter names may contain '/'; set names
// may not, and must not be empty. numpy.load reads the file.
func SaveNPZ(path string, meta any, sets map[string]*Params) error {
	var metaJSON []byte
	if meta != nil {
		var err error
		if metaJSON, err = json.Marshal(meta); err != nil {
			return errors.Wrapf(err, "params: checkpoint %s: encoding metadata", path)
		}
	}
	names := make([]string, 0, len(sets))
	for s := range sets {
		if s == "" || strings.Contains(s, "/") {
			return errors.Errorf("params: checkpoint %s: bad set name %q (empty or containing '/')", path, s)
		}
		names = append(names, s)
	}
	sort.Strings(names)
	return WriteFileAtomic(path, func(w io.Writer) error {
		zw := zip.NewWriter(w)
		if metaJSON != nil {
			if err := writeZipEntry(zw, metaEntry, func(w io.Writer) error {
				_, err := w.Write(metaJSON)
				return err
			}); err != nil {
				return errors.Wrapf(err, "params: checkpoint %s", path)
			}
		}
		for _, s := range names {
			p := sets[s]
			if p == nil {
				continue
			}
			for i, n := range p.names {
				shape, data := p.shapes[i], p.vals[i]
				if err := writeZipEntry(zw, s+"/"+n+npyExt, func(w io.Writer) error {
					return WriteNPY(w, shape, data)
				}); err != nil {
					return errors.Wrapf(err, "params: checkpoint %s", path)
				}
			}
		}
		if err := zw.Close(); err != nil {
			return errors.Wrapf(err, "params: checkpoint %s", path)
		}
		return nil
	})
}

// writeZipEntry adds one stored (uncompressed, as numpy.savez writes)
// entry to zw.
func writeZipEntry(zw *zip.Writer, name string, write func(io.Writer) error) error {
	w, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Store, Modified: zipTime})
	if err != nil {
		return errors.Wrapf(err, "entry %s", name)
	}
	return errors.Wrapf(write(w), "entry %s", name)
}

// LoadNPZ reads a checkpoint written by SaveNPZ (or by numpy.savez with
// keys "<set>/<param>"). If meta is not nil and the file has a
// "meta.json" entry, the entry is unmarshalled into meta; without one,
// meta is left as it was. Tensors keep the order of the
// archive's entries, which is the order they were saved in; a 0-dimensional
// array becomes a tensor of shape [1]. A file that is not a zip archive,
// is truncated or corrupt, or holds a bad array gives a one-line error
// naming the file and the problem.
func LoadNPZ(path string, meta any) (map[string]*Params, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, errors.Wrapf(err, "params: checkpoint %s", path)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, errors.Wrapf(err, "params: checkpoint %s", path)
	}
	return readNPZ(f, st.Size(), path, meta)
}

// readNPZ is LoadNPZ on an open file of the given size; path names it in
// errors.
func readNPZ(f io.ReaderAt, size int64, path string, meta any) (map[string]*Params, error) {
	zr, err := zip.NewReader(f, size)
	if err != nil && zr == nil {
		return nil, errors.Wrapf(err, "params: checkpoint %s: not a valid .npz (zip) file", path)
	}
	sets := map[string]*Params{}
	for _, ze := range zr.File {
		if ze.Name == metaEntry {
			if meta == nil {
				continue
			}
			if err := readMeta(ze, meta); err != nil {
				return nil, errors.Wrapf(err, "params: checkpoint %s: %s", path, metaEntry)
			}
			continue
		}
		set, name, ok := strings.Cut(strings.TrimSuffix(ze.Name, npyExt), "/")
		if !ok || set == "" || name == "" || !strings.HasSuffix(ze.Name, npyExt) {
			return nil, errors.Errorf("params: checkpoint %s: unexpected entry %q (want meta.json or <set>/<param>.npy)", path, ze.Name)
		}
		shape, data, err := readZipNPY(ze)
		if err != nil {
			return nil, errors.Wrapf(err, "params: checkpoint %s: entry %s", path, ze.Name)
		}
		if len(shape) == 0 {
			shape = []int{1}
		}
		if sets[set] == nil {
			sets[set] = New()
		}
		t, err := sets[set].Add(name, shape...)
		if err != nil {
			return nil, errors.Wrapf(err, "params: checkpoint %s: entry %s", path, ze.Name)
		}
		copy(t, data)
	}
	return sets, nil
}

func readMeta(ze *zip.File, meta any) error {
	rc, err := ze.Open()
	if err != nil {
		return err
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, int64(npyMaxHeader)*64))
	if err != nil {
		return err
	}
	return json.Unmarshal(b, meta)
}

// readZipNPY reads one array entry, checking that the entry holds exactly
// the array and reading to its end so that the zip checksum is verified.
func readZipNPY(ze *zip.File) ([]int, []float64, error) {
	rc, err := ze.Open()
	if err != nil {
		return nil, nil, err
	}
	defer rc.Close()
	shape, data, err := ReadNPY(io.LimitReader(rc, int64(ze.UncompressedSize64)))
	if err != nil {
		return nil, nil, errors.New(strings.TrimPrefix(err.Error(), "params: "))
	}
	extra, err := io.Copy(io.Discard, rc)
	if err != nil {
		return nil, nil, err
	}
	if extra != 0 {
		return nil, nil, errors.Errorf("%d bytes after the array", extra)
	}
	return shape, data, nil
}

// Save writes p to path as a checkpoint (set "params", no metadata),
// atomically; numpy.load(path)["params/<name>"] reads a tensor back.
func (p *Params) Save(path string) error {
	return SaveNPZ(path, nil, map[string]*Params{paramsSet: p})
}

// Load reads a checkpoint written by Params.Save and returns its
// parameters.
func Load(path string) (*Params, error) {
	sets, err := LoadNPZ(path, nil)
	if err != nil {
		return nil, err
	}
	src := sets[paramsSet]
	if src == nil {
		return nil, errors.Errorf("params: checkpoint %s: no %q set", path, paramsSet)
	}
	return src, nil
}

// LoadInto reads a checkpoint written by Params.Save into p. The
// checkpoint must hold exactly p's names with p's shapes (in any order);
// otherwise the error names the first mismatch and p is unchanged.
func LoadInto(path string, p *Params) error {
	src, err := Load(path)
	if err != nil {
		return err
	}
	return errors.WithMessagef(p.CopyByName(src), "params: checkpoint %s", path)
}

// CopyByName copies src's values into p by name. src must hold exactly
// p's names with p's shapes (in any order); otherwise the error names the first
// mismatch and p is unchanged.
func (p *Params) CopyByName(src *Params) error {
	for _, n := range p.names {
		want, got := p.Shape(n), src.Shape(n)
		switch {
		case got == nil:
			return errors.Errorf("no parameter %q", n)
		case !slices.Equal(got, want):
			return errors.Errorf("parameter %q has shape %v, model wants %v", n, got, want)
		}
	}
	for _, n := range src.names {
		if !p.Has(n) {
			return errors.Errorf("parameter %q is not in the model", n)
		}
	}
	for _, n := range p.names {
		copy(p.Data(n), src.Data(n))
	}
	return nil
}
