package datasets

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

func TestMakeBatchPadding(t *testing.T) {
	task := symTask() // sequences ab b, b, ba over {a, b}
	b, err := MakeBatch(task, task.Train, []int{1, 0})
	if err != nil {
		t.Fatal(err)
	}
	if b.T != 3 || b.B != 2 || b.In != 3 || b.Out != 2 || !reflect.DeepEqual(b.Lengths, []int{1, 3}) {
		t.Fatalf("header T=%d B=%d In=%d Out=%d Lengths=%v", b.T, b.B, b.In, b.Out, b.Lengths)
	}
	// Row 0 is the sequence "b" (length 1), row 1 is "abb".
	wantX := [][]float64{
		{0, 0, 1, 0, 0, 1}, // BOS, BOS
		{0, 0, 0, 1, 0, 0}, // pad, a
		{0, 0, 0, 0, 1, 0}, // pad, b
	}
	wantY := [][]float64{
		{0, 1, 1, 0}, // b, a
		{0, 0, 0, 1}, // pad, b
		{0, 0, 0, 1}, // pad, b
	}
	wantM := [][]float64{{1, 1}, {0, 1}, {0, 1}}
	if !reflect.DeepEqual(b.X, wantX) || !reflect.DeepEqual(b.Y, wantY) || !reflect.DeepEqual(b.Mask, wantM) {
		t.Fatalf("X=%v\nY=%v\nMask=%v", b.X, b.Y, b.Mask)
	}
	if got := b.Steps(); got != 4 {
		t.Fatalf("Steps = %g, want 4", got)
	}
	all, err := MakeBatch(task, task.Train, nil)
	if err != nil || all.B != 3 || all.Steps() != float64(NumSteps(task.Train)) {
		t.Fatalf("MakeBatch(nil idx) = B %d, steps %g, %v", all.B, all.Steps(), err)
	}
}

func TestMakeBatchBinary(t *testing.T) {
	task, err := NextFrame("roll", Frames{Width: 2, Seqs: [][]float64{{1, 0, 0, 1, 1, 1}, {0, 1, 1, 0}}}, 0, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := MakeBatch(task, task.Train, []int{0, 1})
	if err != nil {
		t.Fatal(err)
	}
	wantY := [][]float64{{0, 1, 1, 0}, {1, 1, 0, 0}}
	if !reflect.DeepEqual(b.Y, wantY) || !reflect.DeepEqual(b.Mask, [][]float64{{1, 1}, {1, 0}}) {
		t.Fatalf("Y=%v Mask=%v", b.Y, b.Mask)
	}
}

func TestMakeBatchErrors(t *testing.T) {
	task := symTask()
	cases := []struct {
		name  string
		exs   []Example
		idx   []int
		wants string
	}{
		{"empty", task.Train, []int{}, "empty batch"},
		{"index", task.Train, []int{0, 3}, "batch index 3 out of range"},
		{"shape", []Example{{X: []float64{1}, Y: []float64{0}, T: 1}}, []int{0}, "example 0: len(X) = 1"},
		{"class", []Example{{X: make([]float64, 3), Y: []float64{5}, T: 1}}, []int{0}, "class id 5"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := MakeBatch(task, c.exs, c.idx)
			if err == nil || !strings.Contains(err.Error(), c.wants) {
				t.Fatalf("MakeBatch error = %v, want %q", err, c.wants)
			}
		})
	}
	if _, err := MakeBatch(nil, task.Train, nil); err == nil {
		t.Fatal("MakeBatch accepted a nil task")
	}
}

func TestChunksCoverEveryStep(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	task, _, err := PFATask(PFAConfig{Train: 10, Valid: -1, Test: -1, MinLen: 5, MaxLen: 23}, rng)
	if err != nil {
		t.Fatal(err)
	}
	b, err := MakeBatch(task, task.Train, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{0, 1, 4, 7, b.T - 1, b.T, b.T + 5} {
		t.Run("", func(t *testing.T) {
			chunks := b.Chunks(n)
			step, steps := 0, 0.0
			lengths := make([]int, b.B)
			for k, c := range chunks {
				if n >= 1 && (c.T > n || (k < len(chunks)-1 && c.T != n)) {
					t.Fatalf("n=%d: chunk %d has %d steps", n, k, c.T)
				}
				for s := range c.T {
					// Same backing rows, in order: each step appears once.
					if &c.X[s][0] != &b.X[step][0] || &c.Mask[s][0] != &b.Mask[step][0] || &c.Y[s][0] != &b.Y[step][0] {
						t.Fatalf("n=%d: chunk %d step %d is not batch step %d", n, k, s, step)
					}
					step++
				}
				for r, l := range c.Lengths {
					lengths[r] += l
				}
				steps += c.Steps()
			}
			if step != b.T || steps != b.Steps() || !reflect.DeepEqual(lengths, b.Lengths) {
				t.Fatalf("n=%d: chunks cover %d of %d steps, %g of %g unpadded, lengths %v vs %v", n, step, b.T, steps, b.Steps(), lengths, b.Lengths)
			}
		})
	}
}

// TestBatchBufferReuse makes batches of every shape in turn in one buffer
// (a large one first, so later ones reuse dirty memory) and compares each
// with MakeBatch's.
func TestBatchBufferReuse(t *testing.T) {
	task := symTask()
	var buf BatchBuffer
	for _, idx := range [][]int{{0, 1, 2}, {1, 0}, {1}, {2, 0}, {0, 1, 2}} {
		want, err := MakeBatch(task, task.Train, idx)
		if err != nil {
			t.Fatal(err)
		}
		got, err := buf.Make(task, task.Train, idx)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("batch %v from the buffer: %+v, want %+v", idx, got, want)
		}
	}
	if n := testing.AllocsPerRun(5, func() { buf.Make(task, task.Train, []int{2, 0}) }); n != 0 {
		t.Errorf("Make into a grown buffer: %v allocations, want 0", n)
	}
}
