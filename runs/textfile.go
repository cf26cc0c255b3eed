package runs

import (
	"fmt"
	"io"
	"os"
	"time"
	"unicode/utf8"

	"github.com/rtnlab/rtn/internal/memlimit"
)

// textFileStats reads a text file once, with a progress bar on progress
// (nil: none), and returns its size in bytes and the number of distinct
// characters.
func textFileStats(path string, progress io.Writer) (int64, int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return 0, 0, err
	}
	if st.IsDir() {
		return 0, 0, fmt.Errorf("%s is a directory, want a text file", path)
	}
	r := newProgressReader(f, st.Size(), "reading "+path, progress)
	defer r.finish()
	var ascii [utf8.RuneSelf]bool
	other := map[rune]bool{}
	buf := make([]byte, 1<<20)
	var carry []byte
	for {
		k, err := r.Read(buf)
		chunk := append(carry, buf[:k]...)
		carry = carry[:0]
		for i := 0; i < len(chunk); {
			c := chunk[i]
			if c < utf8.RuneSelf {
				ascii[c] = c != '\n' && c != '\r'
				i++
				continue
			}
			if !utf8.FullRune(chunk[i:]) && err == nil {
				carry = append(carry, chunk[i:]...)
				break
			}
			ru, w := utf8.DecodeRune(chunk[i:])
			other[ru] = true
			i += w
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return 0, 0, err
		}
	}
	distinct := len(other)
	for _, b := range ascii {
		if b {
			distinct++
		}
	}
	return st.Size(), distinct, nil
}

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
