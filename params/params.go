package params

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/pkg/errors"
)

// Params is an ordered set of named float64 tensors: a model's learnable
// parameters, their gradients, or an optimizer's state. Values live outside
// any graph; graph nodes created by graph.Builder.Param share their memory, so an
// in-place update of a Params value is seen by every graph bound to it.
//
// The zero value is an empty set ready to use.
//
// A Params is not safe for concurrent use when any goroutine changes it
// (Add, an in-place update of its values, CopyFrom, loading into it): the
// caller serialises those. Any number of goroutines may read a set that
// nothing changes (Names, Data, Clone, saving it).
type Params struct {
	names  []string
	index  map[string]int
	shapes [][]int
	vals   [][]float64
}

// MaxSize is the largest number of values one tensor of a Params set
// may hold (2^31, 16 GiB of float64): a larger request is an error, not an
// out-of-memory crash.
const MaxSize = 1 << 31

// New returns an empty parameter set.
func New() *Params { return &Params{} }

// Add creates a zero-filled tensor called name with the given shape and
// returns its backing slice (row-major). It fails if the name is taken, empty, or a dimension is not
// positive.
func (p *Params) Add(name string, shape ...int) ([]float64, error) {
	if name == "" {
		return nil, errors.New("params: empty parameter name")
	}
	if _, ok := p.index[name]; ok {
		return nil, errors.Errorf("params: parameter %q already exists", name)
	}
	if len(shape) == 0 {
		return nil, errors.Errorf("params: parameter %q has no shape", name)
	}
	n := 1
	for _, d := range shape {
		if d <= 0 {
			return nil, errors.Errorf("params: parameter %q has non-positive dimension in shape %v", name, shape)
		}
		if n > MaxSize/d {
			return nil, errors.Errorf("params: parameter %q of shape %v has more than %d values", name, shape, MaxSize)
		}
		n *= d
	}
	d := make([]float64, n)
	if p.index == nil {
		p.index = map[string]int{}
	}
	p.index[name] = len(p.names)
	p.names = append(p.names, name)
	p.shapes = append(p.shapes, slices.Clone(shape))
	p.vals = append(p.vals, d)
	return d, nil
}

// Len is the number of tensors in the set.
func (p *Params) Len() int { return len(p.names) }

// Names lists the tensor names in insertion order.
func (p *Params) Names() []string { return append([]string(nil), p.names...) }

// Has reports whether the set holds a tensor called name.
func (p *Params) Has(name string) bool { _, ok := p.index[name]; return ok }

// Data returns the backing slice of the tensor called name (row-major), or
// nil. Writing to it changes the parameter.
func (p *Params) Data(name string) []float64 {
	i, ok := p.index[name]
	if !ok {
		return nil
	}
	return p.vals[i]
}

// Shape returns a copy of the shape of the tensor called name, or nil.
func (p *Params) Shape(name string) []int {
	i, ok := p.index[name]
	if !ok {
		return nil
	}
	return slices.Clone(p.shapes[i])
}

// Size is the total number of scalars in the set.
func (p *Params) Size() int {
	n := 0
	for _, v := range p.vals {
		n += len(v)
	}
	return n
}

// Set copies values into the tensor called name; the lengths must match.
func (p *Params) Set(name string, values []float64) error {
	d := p.Data(name)
	if d == nil {
		return errors.Errorf("params: no parameter %q", name)
	}
	if len(values) != len(d) {
		return errors.Errorf("params: parameter %q has %d values, got %d", name, len(d), len(values))
	}
	copy(d, values)
	return nil
}

// Like returns a new zero-filled set with the same names and shapes (for
// gradients or optimizer slots).
func (p *Params) Like() *Params {
	q := New()
	for i, n := range p.names {
		if _, err := q.Add(n, p.shapes[i]...); err != nil {
			panic(err) // names and shapes were valid in p
		}
	}
	return q
}

// Clone returns a deep copy.
func (p *Params) Clone() *Params {
	q := p.Like()
	for i := range p.vals {
		copy(q.vals[i], p.vals[i])
	}
	return q
}

// CopyFrom copies every value of src into p. Both sets must have the same
// names and shapes.
func (p *Params) CopyFrom(src *Params) error {
	if err := p.SameLayout(src); err != nil {
		return err
	}
	for i := range p.vals {
		copy(p.vals[i], src.vals[i])
	}
	return nil
}

// SameLayout returns an error naming the first difference in names or
// shapes between p and q, or nil.
func (p *Params) SameLayout(q *Params) error {
	if len(p.names) != len(q.names) {
		return errors.Errorf("params: parameter sets differ: %d tensors versus %d", len(p.names), len(q.names))
	}
	for i, n := range p.names {
		if q.names[i] != n {
			return errors.Errorf("params: parameter sets differ: %q versus %q at position %d", n, q.names[i], i)
		}
		if !slices.Equal(p.shapes[i], q.shapes[i]) {
			return errors.Errorf("params: parameter %q has shape %v versus %v", n, p.shapes[i], q.shapes[i])
		}
	}
	return nil
}

// Zero sets every value to 0.
func (p *Params) Zero() {
	for _, v := range p.vals {
		clear(v)
	}
}

// Fill sets every value of the tensor called name to v.
func (p *Params) Fill(name string, v float64) error {
	d := p.Data(name)
	if d == nil {
		return errors.Errorf("params: no parameter %q", name)
	}
	for i := range d {
		d[i] = v
	}
	return nil
}

// InitNormal fills the tensor called name with draws from N(0, std^2).
func (p *Params) InitNormal(name string, rng *rand.Rand, std float64) error {
	d := p.Data(name)
	if d == nil {
		return errors.Errorf("params: no parameter %q", name)
	}
	for i := range d {
		d[i] = std * rng.NormFloat64()
	}
	return nil
}

// InitUniform fills the tensor called name with draws from U(-a, a).
func (p *Params) InitUniform(name string, rng *rand.Rand, a float64) error {
	d := p.Data(name)
	if d == nil {
		return errors.Errorf("params: no parameter %q", name)
	}
	for i := range d {
		d[i] = a * (2*rng.Float64() - 1)
	}
	return nil
}

// Norm is the Euclidean norm of all values taken together.
func (p *Params) Norm() float64 {
	s := 0.0
	for _, v := range p.vals {
		for _, x := range v {
			s += x * x
		}
	}
	return math.Sqrt(s)
}

// Finite returns an error naming the first tensor holding a NaN or an Inf.
func (p *Params) Finite() error {
	for i, v := range p.vals {
		for j, x := range v {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return errors.Errorf("params: parameter %q holds %v at index %d", p.names[i], x, j)
			}
		}
	}
	return nil
}

// String lists names and shapes.
func (p *Params) String() string {
	s := "Params{"
	for i, n := range p.names {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprintf("%s%v", n, p.shapes[i])
	}
	return s + "}"
}
