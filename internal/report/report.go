// Package report writes rtn's result files: CSV tables, indented JSON and
// PNG plots, each written atomically (a reader sees the old file or the
// new one, never half of one).
package report

import (
	"encoding/csv"
	"encoding/json"
	"io"

	"github.com/pkg/errors"

	"github.com/rtnlab/rtn/params"
)

// WriteJSON writes v to path as indented JSON, atomically.
func WriteJSON(path string, v any) error {
	return params.WriteFileAtomic(path, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	})
}

// WriteCSV writes a header line and rows to path as CSV, atomically.
func WriteCSV(path string, header []string, rows [][]string) error {
	return params.WriteFileAtomic(path, func(w io.Writer) error {
		cw := csv.NewWriter(w)
		if err := cw.Write(header); err != nil {
			return err
		}
		if err := cw.WriteAll(rows); err != nil {
			return err
		}
		cw.Flush()
		return errors.Wrap(cw.Error(), "report: writing "+path)
	})
}
