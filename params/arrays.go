package params

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"io"
	"math"
	"strings"

	"github.com/pkg/errors"
)

// Array is one top-level array of an .npz file, as numpy.savez writes
// them (entry "<name>.npy"): Shape (C order) and the values as float64.
// Int marks an integer array: WriteArrays stores it as '<i8' (every
// value must then be an integer of magnitude below 2^53) and ReadArrays
// does not set it.
type Array struct {
	// Name is the entry name without ".npy"; it must not contain '/'.
	Name string
	// Shape is the array's shape; empty for a scalar.
	Shape []int
	// Data holds the values in row-major order.
	Data []float64
	// Int writes the array as int64.
	Int bool
}

// WriteArrays writes the arrays, in order, as entries "<name>.npy" of an
// .npz file at path, plus "meta.json" holding json.Marshal(meta) unless
// meta is nil, atomically (WriteFileAtomic). numpy.load reads the file,
// and np.savez(path, name=array, ...) writes one ReadArrays reads.
func WriteArrays(path string, meta any, arrays []Array) error {
	var mj []byte
	if meta != nil {
		var err error
		if mj, err = json.Marshal(meta); err != nil {
			return errors.Errorf("params: %s: encoding metadata: %v", path, err)
		}
	}
	for _, a := range arrays {
		n, err := shapeSize(a.Shape)
		switch {
		case a.Name == "" || strings.Contains(a.Name, "/"):
			return errors.Errorf("params: %s: bad array name %q", path, a.Name)
		case err != nil || n != len(a.Data):
			return errors.Errorf("params: %s: array %s of shape %v holds %d values", path, a.Name, a.Shape, len(a.Data))
		}
	}
	return WriteFileAtomic(path, func(w io.Writer) error {
		zw := zip.NewWriter(w)
		if mj != nil {
			if err := writeZipEntry(zw, metaEntry, func(w io.Writer) error { _, err := w.Write(mj); return err }); err != nil {
				return errors.Errorf("params: %s: %v", path, err)
			}
		}
		for _, a := range arrays {
			write := func(w io.Writer) error { return WriteNPY(w, a.Shape, a.Data) }
			if a.Int {
				write = func(w io.Writer) error { return writeIntNPY(w, a.Shape, a.Data) }
			}
			if err := writeZipEntry(zw, a.Name+npyExt, write); err != nil {
				return errors.Errorf("params: %s: %v", path, err)
			}
		}
		if err := zw.Close(); err != nil {
			return errors.Errorf("params: %s: %v", path, err)
		}
		return nil
	})
}

// writeIntNPY writes integer values as an NPY array of dtype '<i8', with
// numpy's header layout (that of WriteNPY, whose dtype has as many
// characters).
func writeIntNPY(w io.Writer, shape []int, data []float64) error {
	h := bytes.Replace(npyHeader(shape), []byte("'<f8'"), []byte("'<i8'"), 1)
	if _, err := w.Write(h); err != nil {
		return err
	}
	buf := make([]byte, 0, 8*min(len(data), npyChunk))
	for lo := 0; lo < len(data); lo += npyChunk {
		buf = buf[:0]
		for _, v := range data[lo:min(lo+npyChunk, len(data))] {
			if v != math.Trunc(v) || math.Abs(v) >= 1<<53 {
				return errors.Errorf("value %g is not an integer", v)
			}
			buf = binary.LittleEndian.AppendUint64(buf, uint64(int64(v)))
		}
		if _, err := w.Write(buf); err != nil {
			return err
		}
	}
	return nil
}

// ReadArrays reads every top-level array of the .npz file at path, in
// archive order (the dtypes ReadNPY accepts, converted to float64), and
// unmarshals its "meta.json" entry into meta when both exist. Any other
// entry, a bad array or a file that is not a zip archive gives a one-line
// error naming the file and the entry.
func ReadArrays(path string, meta any) ([]Array, error) {
	zr, err := zip.OpenReader(path)
	if err != nil {
		return nil, errors.Errorf("params: %s: not a readable .npz (zip) file: %v", path, err)
	}
	defer zr.Close()
	var out []Array
	for _, ze := range zr.File {
		if ze.Name == metaEntry {
			if meta != nil {
				if err := readMeta(ze, meta); err != nil {
					return nil, errors.Errorf("params: %s: %s: %v", path, metaEntry, err)
				}
			}
			continue
		}
		name, ok := strings.CutSuffix(ze.Name, npyExt)
		if !ok || name == "" || strings.Contains(name, "/") {
			return nil, errors.Errorf("params: %s: unexpected entry %q (want <name>.npy or meta.json)", path, ze.Name)
		}
		shape, data, err := readZipNPY(ze)
		if err != nil {
			return nil, errors.Errorf("params: %s: array %s: %v", path, name, err)
		}
		out = append(out, Array{Name: name, Shape: shape, Data: data})
	}
	return out, nil
}
