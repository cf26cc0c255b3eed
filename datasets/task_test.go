package datasets

import (
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// symTask is a small valid Categorical task: 2 symbols, BOS input.
func symTask() *Task {
	exs, err := SymbolExamples(Symbols{Alphabet: []string{"a", "b"}, Seqs: [][]int{{0, 1, 1}, {1}, {1, 0}}})
	if err != nil {
		panic(err)
	}
	return &Task{Name: "sym", In: 3, Out: 2, Kind: Categorical, Train: exs, Valid: []Example{exs[0]}, OptimalLoss: math.NaN()}
}

func TestTaskValidate(t *testing.T) {
	cases := []struct {
		name  string
		edit  func(*Task)
		wants string // substring of the error; "" means valid
	}{
		{"valid", func(*Task) {}, ""},
		{"zero In", func(t *Task) { t.In = 0 }, "In = 0"},
		{"bad kind", func(t *Task) { t.Kind = 7 }, "unknown target kind"},
		{"T zero", func(t *Task) { t.Train[1] = Example{} }, "train example 1: T = 0"},
		{"short X", func(t *Task) { t.Valid[0].X = t.Valid[0].X[:5] }, "valid example 0: len(X) = 5, want T*In = 3*3 = 9"},
		{"NaN X", func(t *Task) { t.Train[2].X[1] = math.NaN() }, "train example 2: X at step 0 unit 1 is NaN"},
		{"class out of range", func(t *Task) { t.Train[0].Y[2] = 2 }, "train example 0: class id 2 at step 2"},
		{"class not integer", func(t *Task) { t.Train[0].Y[0] = 0.5 }, "class id 0.5"},
		{"wrong Y length", func(t *Task) { t.Test = []Example{{X: make([]float64, 3), Y: []float64{0, 1}, T: 1}} }, "test example 0: len(Y) = 2, want T = 1"},
		{"symbols mismatch", func(t *Task) { t.Symbols = []string{"a"} }, "1 symbol names"},
		{"binary out of range", func(t *Task) {
			t.Kind = Binary
			t.Symbols = nil
			t.Train, t.Valid = []Example{{X: make([]float64, 3), Y: []float64{0, 2}, T: 1}}, nil
		}, "binary target 2 at step 0 unit 1"},
		{"real Y length", func(t *Task) {
			t.Kind = Real
			t.Train, t.Valid = []Example{{X: make([]float64, 3), Y: []float64{0}, T: 1}}, nil
		}, "len(Y) = 1, want T*Out = 1*2 = 2"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			task := symTask()
			c.edit(task)
			err := task.Validate()
			switch {
			case c.wants == "" && err != nil:
				t.Fatalf("Validate: %v", err)
			case c.wants != "" && err == nil:
				t.Fatalf("Validate accepted a bad task, want error containing %q", c.wants)
			case c.wants != "" && !strings.Contains(err.Error(), c.wants):
				t.Fatalf("Validate = %q, want it to contain %q", err, c.wants)
			}
			if err != nil && strings.Contains(err.Error(), "\n") {
				t.Fatalf("error is not one line: %q", err)
			}
		})
	}
}

func TestSequenceValidate(t *testing.T) {
	cases := []struct {
		name string
		err  error
		ok   bool
	}{
		{"symbols ok", Symbols{Alphabet: []string{"x", "y"}, Seqs: [][]int{{0, 1}}}.Validate(), true},
		{"symbols no alphabet", Symbols{Seqs: [][]int{{0}}}.Validate(), false},
		{"symbols duplicate", Symbols{Alphabet: []string{"x", "x"}}.Validate(), false},
		{"symbols empty seq", Symbols{Alphabet: []string{"x"}, Seqs: [][]int{{}}}.Validate(), false},
		{"symbols id range", Symbols{Alphabet: []string{"x"}, Seqs: [][]int{{0, 1}}}.Validate(), false},
		{"vectors ok", Vectors{Dim: 2, Seqs: [][]float64{{1, 2, 3, 4}}}.Validate(), true},
		{"vectors ragged", Vectors{Dim: 2, Seqs: [][]float64{{1, 2, 3}}}.Validate(), false},
		{"vectors inf", Vectors{Dim: 1, Seqs: [][]float64{{math.Inf(1)}}}.Validate(), false},
		{"vectors dim", Vectors{Dim: 0}.Validate(), false},
		{"frames ok", Frames{Width: 3, Seqs: [][]float64{{0, 1, 0, 1, 1, 1}}}.Validate(), true},
		{"frames not binary", Frames{Width: 2, Seqs: [][]float64{{0, 0.5}}}.Validate(), false},
		{"frames empty", Frames{Width: 2, Seqs: [][]float64{{}}}.Validate(), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if (c.err == nil) != c.ok {
				t.Fatalf("Validate = %v, want ok = %v", c.err, c.ok)
			}
		})
	}
}

func TestSymbolExamplesBOS(t *testing.T) {
	exs, err := SymbolExamples(Symbols{Alphabet: []string{"a", "b"}, Seqs: [][]int{{1, 0, 1}}})
	if err != nil {
		t.Fatal(err)
	}
	want := Example{T: 3,
		X: []float64{
			0, 0, 1, // BOS
			0, 1, 0, // b
			1, 0, 0, // a
		},
		Y: []float64{1, 0, 1}}
	if !reflect.DeepEqual(exs[0], want) {
		t.Fatalf("example = %+v, want %+v", exs[0], want)
	}
	if got := Classes(exs); !reflect.DeepEqual(got, [][]int{{1, 0, 1}}) {
		t.Fatalf("Classes = %v", got)
	}
}

func TestNextFrame(t *testing.T) {
	f := Frames{Width: 2, Seqs: [][]float64{{1, 0, 0, 1, 1, 1}, {0, 0, 1, 1}}}
	task, err := NextFrame("roll", f, 0, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := task.Validate(); err != nil {
		t.Fatal(err)
	}
	want := Example{T: 2, X: []float64{1, 0, 0, 1}, Y: []float64{0, 1, 1, 1}}
	if task.Kind != Binary || task.In != 2 || task.Out != 2 || !reflect.DeepEqual(task.Train[0], want) {
		t.Fatalf("task = %+v, want first example %+v", task, want)
	}
	if _, err := NextFrame("short", Frames{Width: 2, Seqs: [][]float64{{1, 0}}}, 0, 0, nil); err == nil {
		t.Fatal("NextFrame accepted a one-frame sequence")
	}
	v, err := NextVector("vec", Vectors{Dim: 1, Seqs: [][]float64{{0.5, -1, 2}}}, 0, 0, nil)
	if err != nil || v.Kind != Real || !reflect.DeepEqual(v.Train[0].Y, []float64{-1, 2}) {
		t.Fatalf("NextVector = %+v, %v", v, err)
	}
}

func TestNextSymbolSplit(t *testing.T) {
	s := Symbols{Alphabet: []string{"a", "b", "c"}}
	for i := range 20 {
		s.Seqs = append(s.Seqs, []int{i % 3, (i + 1) % 3})
	}
	task, err := NextSymbol("abc", s, 0.2, 0.1, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	if err := task.Validate(); err != nil {
		t.Fatal(err)
	}
	if len(task.Train) != 14 || len(task.Valid) != 4 || len(task.Test) != 2 {
		t.Fatalf("split sizes %d/%d/%d, want 14/4/2", len(task.Train), len(task.Valid), len(task.Test))
	}
	if task.In != 4 || task.Out != 3 || !math.IsNaN(task.OptimalLoss) || len(task.Symbols) != 3 {
		t.Fatalf("task header %+v", task)
	}
}
