package optim

import (
	"fmt"
	"io"
	"math"
	"strings"
	"time"
)

// progressEvery is the shortest time between two redraws at steps, so
// that fast steps do not flood a slow terminal.
const progressEvery = 100 * time.Millisecond

// progressWidth is the number of cells of the bar.
const progressWidth = 20

// progressBar draws one line, redrawn with '\r', starting with the
// executor's label when there is one:
//
//	tape/float64 epoch 3/10 [=========>          ]  37/120 loss 0.1234 valid 0.1450 best 2 lr 0.001 12.3s
//
// It ends the line with a newline when training ends (or fails, see
// finish).
type progressBar struct {
	w     io.Writer
	label string    // TrainConfig.Executor
	last  time.Time // last redraw
	width int       // length of the last line drawn
	now   func() time.Time
}

// update is the progress hook.
func (pb *progressBar) update(s *State) error {
	if pb.now == nil {
		pb.now = time.Now
	}
	now := pb.now()
	if s.Event == StepEvent && s.Batch < s.Batches && now.Sub(pb.last) < progressEvery {
		return nil
	}
	pb.last = now
	line := progressLine(s)
	if pb.label != "" {
		line = pb.label + " " + line
	}
	pad := ""
	if n := pb.width - len(line); n > 0 {
		pad = strings.Repeat(" ", n)
	}
	pb.width = len(line)
	end := ""
	if s.Event == EndEvent {
		end = "\n"
		pb.width = 0
	}
	_, err := fmt.Fprintf(pb.w, "\r%s%s%s", line, pad, end)
	return err
}

// finish ends a line left open by a failed run.
func (pb *progressBar) finish() {
	if pb.width > 0 {
		fmt.Fprintln(pb.w)
		pb.width = 0
	}
}

// progressLine formats the bar for s.
func progressLine(s *State) string {
	var b strings.Builder
	fmt.Fprintf(&b, "epoch %d/%d ", s.Epoch, s.Epochs)
	frac := 1.0
	if s.Event == StepEvent && s.Batches > 0 {
		frac = float64(s.Batch) / float64(s.Batches)
	}
	full := int(math.Round(frac * progressWidth))
	bar := strings.Repeat("=", full)
	if full < progressWidth {
		bar += ">" + strings.Repeat(" ", progressWidth-full-1)
	}
	fmt.Fprintf(&b, "[%s]", bar)
	if s.Event == StepEvent {
		w := len(fmt.Sprint(s.Batches))
		fmt.Fprintf(&b, " %*d/%d loss %.4g", w, s.Batch, s.Batches, s.TrainLoss)
	} else {
		fmt.Fprintf(&b, " step %d train %.4g", s.Step, s.TrainLoss)
	}
	if !math.IsNaN(s.ValidLoss) {
		fmt.Fprintf(&b, " valid %.4g", s.ValidLoss)
	}
	fmt.Fprintf(&b, " best %d lr %.3g %.1fs", s.BestEpoch, s.LR, s.Elapsed.Seconds())
	switch {
	case s.Event == EndEvent && s.StoppedEarly:
		b.WriteString(" (stopped early)")
	case s.Event == EndEvent:
		b.WriteString(" (done)")
	}
	return b.String()
}
