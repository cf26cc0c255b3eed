//go:build unix

package runs

import (
	"math"
	"syscall"
)

// cpuSeconds is the user plus system CPU time of the process so far (NaN
// if unavailable).
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return math.NaN()
	}
	return float64(ru.Utime.Sec+ru.Stime.Sec) + float64(ru.Utime.Usec+ru.Stime.Usec)*1e-6
}
