package datasets

import (
	"bufio"
	"encoding/csv"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/pkg/errors"

	"github.com/rtnlab/rtn/params"
)

// Sequence-data files hold an IOData (see docs/spectral-data.md).
//
// The .npz form holds the arrays x [N, T, d] (float, sequence i in
// x[i, :lengths[i], :], the rest padding that is ignored), lengths [N]
// (integers in [1, T]), y [N, p] (float) and, optionally, split [N]
// (0 train, 1 valid, 2 test).
//
// The .csv form has one header line naming the columns, an optional
// "split", then y1..yp, then x1..xd (the d inputs of one step), and one
// line per sequence: its split part (train, valid or test) when the
// header has the column, its p outputs, then its T*d inputs step after
// step, so lines are as long as their sequences. Lines starting with '#'
// and blank lines are skipped.

// ReadIOData reads a sequence-data file, .npz or .csv by its extension,
// and validates it. A malformed file gives a one-line error naming the
// file and, for CSV, the line.
func ReadIOData(path string) (IOData, error) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".npz":
		return readIONPZ(path)
	case ".csv":
		f, err := os.Open(path)
		if err != nil {
			return IOData{}, errors.Wrap(err, "datasets")
		}
		defer f.Close()
		return ReadIOCSV(f, path)
	}
	return IOData{}, errors.Errorf("datasets: %s: unknown sequence-data format (want a .npz or .csv file)", path)
}

// WriteIOData writes s to path, .npz or .csv by its extension,
// atomically. Values are written exactly: reading the file back gives the
// same bits.
func WriteIOData(path string, s IOData) error {
	if err := s.Validate(); err != nil {
		return err
	}
	switch strings.ToLower(filepath.Ext(path)) {
	case ".npz":
		return writeIONPZ(path, s)
	case ".csv":
		return errors.Wrap(params.WriteFileAtomic(path, func(w io.Writer) error { return WriteIOCSV(w, s) }), "datasets")
	}
	return errors.Errorf("datasets: %s: unknown sequence-data format (want a .npz or .csv file)", path)
}

func writeIONPZ(path string, s IOData) error {
	N, T, d := s.N(), 0, s.In
	for i := range N {
		T = max(T, s.Len(i))
	}
	x := make([]float64, N*T*d)
	lengths := make([]float64, N)
	for i, xi := range s.X {
		copy(x[i*T*d:], xi)
		lengths[i] = float64(s.Len(i))
	}
	arrays := []params.Array{
		{Name: "x", Shape: []int{N, T, d}, Data: x},
		{Name: "lengths", Shape: []int{N}, Data: lengths, Int: true},
		{Name: "y", Shape: []int{N, s.Out}, Data: s.Y},
	}
	if s.Split != nil {
		sp := make([]float64, N)
		for i, p := range s.Split {
			sp[i] = float64(p)
		}
		arrays = append(arrays, params.Array{Name: "split", Shape: []int{N}, Data: sp, Int: true})
	}
	return errors.Wrap(params.WriteArrays(path, nil, arrays), "datasets")
}

func readIONPZ(path string) (IOData, error) {
	arrays, err := params.ReadArrays(path, nil)
	if err != nil {
		return IOData{}, errors.Wrap(err, "datasets")
	}
	got := map[string]params.Array{}
	for _, a := range arrays {
		got[a.Name] = a
	}
	bad := func(format string, args ...any) error {
		return errors.Errorf("datasets: %s: "+format, append([]any{path}, args...)...)
	}
	x, okx := got["x"]
	ln, okl := got["lengths"]
	y, oky := got["y"]
	switch {
	case !okx || !okl || !oky:
		return IOData{}, bad("want arrays x [N, T, d], lengths [N] and y [N, p]")
	case len(x.Shape) != 3:
		return IOData{}, bad("x has shape %v, want [N, T, d]", x.Shape)
	case len(y.Shape) != 2 || y.Shape[0] != x.Shape[0]:
		return IOData{}, bad("y has shape %v, want [N, p] with N = %d", y.Shape, x.Shape[0])
	case len(ln.Shape) != 1 || ln.Shape[0] != x.Shape[0]:
		return IOData{}, bad("lengths has shape %v, want [%d]", ln.Shape, x.Shape[0])
	}
	N, T, d := x.Shape[0], x.Shape[1], x.Shape[2]
	s := IOData{In: d, Out: y.Shape[1], X: make([][]float64, N), Y: y.Data}
	for i, l := range ln.Data {
		if l != math.Trunc(l) || l < 1 || l > float64(T) {
			return IOData{}, bad("lengths[%d] = %g, want an integer in [1, %d]", i, l, T)
		}
		s.X[i] = x.Data[i*T*d : (i*T+int(l))*d : (i*T+int(l))*d]
		for j, v := range s.X[i] {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return IOData{}, bad("x[%d, %d, %d] is %g", i, j/d, j%d, v)
			}
		}
	}
	for j, v := range y.Data {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return IOData{}, bad("y[%d, %d] is %g", j/s.Out, j%s.Out, v)
		}
	}
	if sp, ok := got["split"]; ok {
		if len(sp.Shape) != 1 || sp.Shape[0] != N {
			return IOData{}, bad("split has shape %v, want [%d]", sp.Shape, N)
		}
		s.Split = make([]Part, N)
		for i, v := range sp.Data {
			if v != 0 && v != 1 && v != 2 {
				return IOData{}, bad("split[%d] = %g, want 0 (train), 1 (valid) or 2 (test)", i, v)
			}
			s.Split[i] = Part(v)
		}
	}
	if err := s.Validate(); err != nil {
		return IOData{}, bad("%v", strings.TrimPrefix(err.Error(), "datasets: "))
	}
	return s, nil
}

// WriteIOCSV writes s in the CSV form, with a split column when s has
// labels; numbers are written in the shortest form that reads back
// exactly.
func WriteIOCSV(w io.Writer, s IOData) error {
	bw := bufio.NewWriter(w)
	var cols []string
	if s.Split != nil {
		cols = append(cols, "split")
	}
	for o := range s.Out {
		cols = append(cols, "y"+strconv.Itoa(o+1))
	}
	for c := range s.In {
		cols = append(cols, "x"+strconv.Itoa(c+1))
	}
	bw.WriteString(strings.Join(cols, ",") + "\n")
	var b []byte
	for i, x := range s.X {
		b = b[:0]
		if s.Split != nil {
			b = append(b, s.Split[i].String()...)
			b = append(b, ',')
		}
		for k, v := range append(s.Y[i*s.Out:(i+1)*s.Out:(i+1)*s.Out], x...) {
			if k > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendFloat(b, v, 'g', -1, 64)
		}
		b = append(b, '\n')
		if _, err := bw.Write(b); err != nil {
			return errors.Wrap(err, "datasets: writing CSV")
		}
	}
	return errors.Wrap(bw.Flush(), "datasets: writing CSV")
}

// ReadIOCSV reads the CSV form from r, one line at a time; name labels
// errors, which give the line number.
func ReadIOCSV(r io.Reader, name string) (IOData, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	cr.Comment = '#'
	cr.ReuseRecord = true
	bad := func(line int, format string, args ...any) error {
		return errors.Errorf("datasets: %s:%d: "+format, append([]any{name, line}, args...)...)
	}
	rec, err := cr.Read()
	if err == io.EOF {
		return IOData{}, errors.Errorf("datasets: %s: empty file (want a header line [split,]y1,...,yp,x1,...,xd)", name)
	}
	if err != nil {
		return IOData{}, errors.Errorf("datasets: %s: %v", name, err)
	}
	line, _ := cr.FieldPos(0)
	hasSplit, p, d, err := parseIOHeader(rec)
	if err != nil {
		return IOData{}, bad(line, "%v", err)
	}
	s := IOData{In: d, Out: p}
	lead := p
	if hasSplit {
		lead++
		s.Split = []Part{}
	}
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return IOData{}, errors.Errorf("datasets: %s: %v", name, err)
		}
		line, _ := cr.FieldPos(0)
		nx := len(rec) - lead
		if nx <= 0 || nx%d != 0 {
			return IOData{}, bad(line, "%d fields, want %d leading fields and then T*d inputs with T >= 1 and d = %d (a ragged row)", len(rec), lead, d)
		}
		if hasSplit {
			part, err := ParsePart(strings.TrimSpace(rec[0]))
			if err != nil {
				return IOData{}, bad(line, "split %q, want train, valid or test", rec[0])
			}
			s.Split = append(s.Split, part)
		}
		x := make([]float64, nx)
		for k, f := range rec[lead-p:] {
			v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
			what := "output y" + strconv.Itoa(k+1)
			if k >= p {
				what = "input x" + strconv.Itoa((k-p)%d+1) + " of step " + strconv.Itoa((k-p)/d+1)
			}
			switch {
			case err != nil:
				return IOData{}, bad(line, "%s: %q is not a number", what, f)
			case math.IsNaN(v) || math.IsInf(v, 0):
				return IOData{}, bad(line, "%s is %g", what, v)
			}
			if k < p {
				s.Y = append(s.Y, v)
			} else {
				x[k-p] = v
			}
		}
		s.X = append(s.X, x)
	}
	if len(s.X) == 0 {
		return IOData{}, errors.Errorf("datasets: %s: no sequences after the header", name)
	}
	return s, nil
}

// parseIOHeader checks a header [split,]y1,...,yp,x1,...,xd.
func parseIOHeader(rec []string) (hasSplit bool, p, d int, err error) {
	cols := make([]string, len(rec))
	for i, c := range rec {
		cols[i] = strings.TrimSpace(c)
	}
	if len(cols) > 0 && cols[0] == "split" {
		hasSplit, cols = true, cols[1:]
	}
	for p < len(cols) && cols[p] == "y"+strconv.Itoa(p+1) {
		p++
	}
	for p+d < len(cols) && cols[p+d] == "x"+strconv.Itoa(d+1) {
		d++
	}
	if p == 0 || d == 0 || p+d != len(cols) {
		return false, 0, 0, errors.Errorf("header %q, want [split,]y1,...,yp,x1,...,xd with p, d >= 1", strings.Join(rec, ","))
	}
	return hasSplit, p, d, nil
}
