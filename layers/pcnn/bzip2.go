package pcnn

import (
	"bytes"
	"os/exec"

	"github.com/pkg/errors"
)

// ErrNoBzip2 is returned when the bzip2 program is not installed.
var ErrNoBzip2 = errors.New("the bzip2 program is not installed")

// Bzip2Bits is 8 x (|bzip2 -9 (train + valid)| - |bzip2 -9 (train)|), the
// paper's measure for compressors; ErrNoBzip2 without the program.
func Bzip2Bits(train, valid string) (float64, error) {
	path, err := exec.LookPath("bzip2")
	if err != nil {
		return 0, ErrNoBzip2
	}
	size := func(text string) (int, error) {
		cmd := exec.Command(path, "-9", "-c")
		cmd.Stdin = bytes.NewBufferString(text)
		var out, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &stderr
		if err := cmd.Run(); err != nil {
			return 0, errors.Wrapf(err, "pcnn: bzip2 failed: %s", stderr.String())
		}
		return out.Len(), nil
	}
	a, err := size(train)
	if err != nil {
		return 0, err
	}
	b, err := size(train + valid)
	if err != nil {
		return 0, err
	}
	return 8 * float64(b-a), nil
}
