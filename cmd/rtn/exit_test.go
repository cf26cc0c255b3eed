package main

import (
	"bytes"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// lockedBuffer is a bytes.Buffer safe for the signal goroutine and the
// test to share.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestStopOnSignal sends SIGINT to the test process with the handler
// installed: it exits with status 130 after one line on stderr. Run it
// with -race (the handler is a goroutine).
func TestStopOnSignal(t *testing.T) {
	var stderr lockedBuffer
	codes := make(chan int, 1)
	restore := stopOnSignal(&stderr, func(code int) { codes <- code })
	defer restore()
	if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case code := <-codes:
		if code != exitInterrupted {
			t.Errorf("exit status %d, want %d", code, exitInterrupted)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no exit 10 s after SIGINT")
	}
	if got := stderr.String(); !strings.HasPrefix(got, "rtn: interrupted (interrupt)") || strings.Count(got, "\n") != 1 {
		t.Errorf("stderr %q", got)
	}
}
