package main

import (
	"fmt"
	"io"
	"time"

	"github.com/rtnlab/rtn/internal/memlimit"
)

// progressReader wraps a reader and redraws, at most every
// progressEvery, one line "label 45% (90 MiB / 200 MiB)" on w; it draws
// nothing when w is nil.
type progressReader struct {
	r     io.Reader
	w     io.Writer
	label string
	total int64
	done  int64
	last  time.Time
	drawn bool
}

const progressEvery = 200 * time.Millisecond

func newProgressReader(r io.Reader, total int64, label string, w io.Writer) *progressReader {
	return &progressReader{r: r, w: w, label: label, total: total, last: time.Now()}
}

func (p *progressReader) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	p.done += int64(n)
	if p.w != nil && time.Since(p.last) >= progressEvery {
		p.last = time.Now()
		pc := 100.0
		if p.total > 0 {
			pc = 100 * float64(p.done) / float64(p.total)
		}
		fmt.Fprintf(p.w, "\r%s %3.0f%% (%s / %s)", p.label, pc, memlimit.FormatBytes(float64(p.done)), memlimit.FormatBytes(float64(p.total)))
		p.drawn = true
	}
	return n, err
}

// finish ends the progress line if one was drawn.
func (p *progressReader) finish() {
	if p.drawn {
		fmt.Fprintln(p.w)
	}
}

// progressTo returns stderr when a progress bar is wanted: not -quiet and
// stderr a terminal.
func progressTo(stderr io.Writer, quiet bool) io.Writer {
	if quiet || !isTerminal(stderr) {
		return nil
	}
	return stderr
}
