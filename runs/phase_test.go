package runs

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// startPhase draws nothing for a short phase or a nil writer, and a line
// ended by "(done)" for a phase longer than phaseFirst.
func TestStartPhase(t *testing.T) {
	startPhase(nil, "nothing")()
	var short bytes.Buffer
	startPhase(&short, "short")()
	if short.Len() != 0 {
		t.Errorf("a short phase drew %q", short.String())
	}
	if testing.Short() {
		t.Skip("waits phaseFirst")
	}
	var long bytes.Buffer
	stop := startPhase(&long, "fitting")
	time.Sleep(phaseFirst + phaseEvery/2)
	stop()
	if s := long.String(); !strings.HasPrefix(s, "\rfitting 2s") || !strings.HasSuffix(s, "(done)\n") {
		t.Errorf("a long phase drew %q", s)
	}
}
