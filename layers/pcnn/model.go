package pcnn

import (
	"github.com/pkg/errors"

	"github.com/rtnlab/rtn/datasets"
	"github.com/rtnlab/rtn/graph"
	"github.com/rtnlab/rtn/layers/activation"
)

// Kind selects the evolution equation of a model.
type Kind int

const (
	// RNN is the reference network of eq. (80):
	// V_j^{t+1} = rho_{j x_t} + sum_i tau_{ij} a_i^t, a = s(V).
	RNN Kind = iota
	// CNN is the contextual network of eqs. (7)-(8):
	// V_j^{t+1} = sum_i tau_{i j x_t} a_i^t.
	CNN
	// PCNN is the persistent contextual network of eq. (11):
	// V_j^{t+1} = V_j^t + sum_i tau_{i j x_t} a_i^t.
	PCNN
)

// String is the lower-case name used by flags ("rnn", "cnn", "pcnn").
func (k Kind) String() string {
	switch k {
	case RNN:
		return "rnn"
	case CNN:
		return "cnn"
	case PCNN:
		return "pcnn"
	}
	return "unknown"
}

// ParseKind is the inverse of Kind.String.
func ParseKind(s string) (Kind, error) {
	for _, k := range []Kind{RNN, CNN, PCNN} {
		if k.String() == s {
			return k, nil
		}
	}
	return 0, errors.Errorf("pcnn: unknown model %q (want rnn, cnn or pcnn)", s)
}

// Activations lists the activation functions s of eq. (7) a model
// supports: tanh (the paper's choice) and the logistic function, which
// Reparametrize converts between.
func Activations() []activation.Activation {
	return []activation.Activation{activation.Tanh, activation.Logistic}
}

// Model is an RNN, CNN or PCNN over an alphabet of A symbols on a network.
//
// Parameters in P (row-major):
//   - "W" [N+1, A]: writing weights w_{iy} (eq. 12), row 0 the biases;
//   - "tau": for CNN and PCNN [E, A] with tau[(Off[j-1]+k)*A + y] =
//     tau_{i j y} for i = In[j-1][k]; for RNN [E] with tau[Off[j-1]+k] =
//     tau_{ij}; E = Net.Edges();
//   - "rho" [N, A] (RNN only): rho_{jy} at [(j-1)*A + y] (eq. 80);
//   - "V0" [N]: starting values V_j^0, a_j^0 = s(V_j^0).
type Model struct {
	Kind Kind
	Act  activation.Activation
	A    int
	Net  *Network
	P    *graph.Params
	// Off[j-1] is the index of unit j's first incoming edge in "tau";
	// Off[N] = E.
	Off []int
	// src[e] is the source unit of edge e (edges of unit j are
	// Off[j-1] <= e < Off[j]).
	src []int
	// dst[e] is the target unit of edge e minus 1 (an index into V);
	// loop[j-1] is the edge j -> j. The edges leaving unit i >= 1 for
	// another unit are out[outOff[i-1]:outOff[i]], and outDst their
	// targets minus 1: the moduli gather over them (eq. 22).
	dst, loop, out, outOff, outDst []int
}

// New returns a model with every parameter zero; Init sets the paper's
// starting values.
func New(kind Kind, act activation.Activation, alphabet int, net *Network) (*Model, error) {
	if kind < RNN || kind > PCNN {
		return nil, errors.Errorf("pcnn: unknown model kind %d", kind)
	}
	if err := activation.Check(act, Activations()...); err != nil {
		return nil, errors.Wrap(err, "pcnn")
	}
	if alphabet < 2 {
		return nil, errors.Errorf("pcnn: alphabet must have at least 2 symbols, got %d", alphabet)
	}
	if err := net.validate(); err != nil {
		return nil, err
	}
	m := &Model{Kind: kind, Act: act, A: alphabet, Net: net, P: graph.NewParams(), Off: make([]int, net.N+1)}
	e := 0
	for j := range net.In {
		m.Off[j] = e
		e += len(net.In[j])
		m.src = append(m.src, net.In[j]...)
	}
	m.Off[net.N] = e
	m.edgeLists()
	add := func(name string, shape ...int) error { _, err := m.P.Add(name, shape...); return err }
	if err := add("W", net.N+1, alphabet); err != nil {
		return nil, err
	}
	if kind == RNN {
		if err := add("tau", e); err != nil {
			return nil, err
		}
		if err := add("rho", net.N, alphabet); err != nil {
			return nil, err
		}
	} else if err := add("tau", e, alphabet); err != nil {
		return nil, err
	}
	if err := add("V0", net.N); err != nil {
		return nil, err
	}
	return m, nil
}

// edgeLists fills dst, loop, out, outOff and outDst from Off and src.
func (m *Model) edgeLists() {
	N, E := m.Net.N, len(m.src)
	m.dst, m.loop = make([]int, E), make([]int, N)
	m.outOff = make([]int, N+1)
	for j := 1; j <= N; j++ {
		for e := m.Off[j-1]; e < m.Off[j]; e++ {
			m.dst[e] = j - 1
			switch i := m.src[e]; {
			case i == j:
				m.loop[j-1] = e
			case i > 0:
				m.outOff[i]++
			}
		}
	}
	for i := range N {
		m.outOff[i+1] += m.outOff[i]
	}
	m.out, m.outDst = make([]int, m.outOff[N]), make([]int, m.outOff[N])
	next := append([]int(nil), m.outOff[:N]...)
	for e, i := range m.src {
		if i > 0 && i != m.dst[e]+1 {
			m.out[next[i-1]], m.outDst[next[i-1]] = e, m.dst[e]
			next[i-1]++
		}
	}
}

// A model reads a datasets.Stream: symbols X_t in [0, A) and the mask chi_t
// of the symbols to predict (eq. 14); a nil Mask predicts every symbol.
// Its Alphabet and LogLik are not used.

// chi is the mask value of s at t.
func chi(s datasets.Stream, t int) bool { return s.Mask == nil || s.Mask[t] }

// checkSeq validates s against an alphabet of a symbols.
func checkSeq(s datasets.Stream, a int) error {
	if len(s.X) < 2 {
		return errors.Errorf("pcnn: sequence has %d symbols, need at least 2", len(s.X))
	}
	if s.Mask != nil && len(s.Mask) != len(s.X) {
		return errors.Errorf("pcnn: mask has %d entries for %d symbols", len(s.Mask), len(s.X))
	}
	for t, x := range s.X {
		if x < 0 || x >= a {
			return errors.Errorf("pcnn: symbol %d at position %d is outside the alphabet [0, %d)", x, t, a)
		}
	}
	return nil
}

// w, tau, rho and v0 are the parameter slices (rho is nil for CNN and PCNN).
func (m *Model) w() []float64   { return m.P.Data("W") }
func (m *Model) tau() []float64 { return m.P.Data("tau") }
func (m *Model) rho() []float64 { return m.P.Data("rho") }
func (m *Model) v0() []float64  { return m.P.Data("V0") }

// tauByX writes the CNN/PCNN transition weights symbol-major into dst
// [A, E] (dst[x*E+e] = tau[e*A+x]), so that one step reads contiguous
// weights; it returns dst, grown as needed.
func (m *Model) tauByX(dst []float64) []float64 {
	E, A := len(m.src), m.A
	dst = grow(dst, A*E)
	tau := m.tau()
	for e := range E {
		for x := range A {
			dst[x*E+e] = tau[e*A+x]
		}
	}
	return dst
}

// Clone is a deep copy sharing the (immutable) network.
func (m *Model) Clone() *Model {
	c := *m
	c.P = m.P.Clone()
	return &c
}
