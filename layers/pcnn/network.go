package pcnn

import (
	"math/rand/v2"

	"github.com/pkg/errors"
)

// Network is the oriented graph of a model: N units numbered 1..N plus the
// always-active unit 0. In[j-1] lists the units i with an edge i -> j,
// starting with 0 (the bias) and always containing j (the loop).
type Network struct {
	N  int
	In [][]int
}

// RandomNetwork draws a random graph on n units in which every unit j has
// d distinct incoming edges, one of them the loop j -> j and the others
// from units drawn uniformly without replacement among the n-1 others
// (section 2, "Initialization of the parameters"); the bias edge 0 -> j
// comes on top. d = n gives the fully connected network.
func RandomNetwork(n, d int, rng *rand.Rand) (*Network, error) {
	if n < 1 {
		return nil, errors.Errorf("pcnn: network needs at least 1 unit, got %d", n)
	}
	if d < 1 || d > n {
		return nil, errors.Errorf("pcnn: degree must be in [1, %d] (the number of units), got %d", n, d)
	}
	if rng == nil && d < n {
		return nil, errors.New("pcnn: RandomNetwork needs a *rand.Rand")
	}
	net := &Network{N: n, In: make([][]int, n)}
	for j := 1; j <= n; j++ {
		in := []int{0, j}
		if d == n {
			for i := 1; i <= n; i++ {
				if i != j {
					in = append(in, i)
				}
			}
		} else {
			// Partial Fisher-Yates over the other units.
			others := make([]int, 0, n-1)
			for i := 1; i <= n; i++ {
				if i != j {
					others = append(others, i)
				}
			}
			for k := 0; k < d-1; k++ {
				r := k + rng.IntN(len(others)-k)
				others[k], others[r] = others[r], others[k]
				in = append(in, others[k])
			}
		}
		net.In[j-1] = in
	}
	return net, nil
}

// FullNetwork is the fully connected network on n units.
func FullNetwork(n int) (*Network, error) { return RandomNetwork(n, n, nil) }

// Edges is the number of edges, bias edges included (sum of len(In[j])).
func (n *Network) Edges() int {
	e := 0
	for _, in := range n.In {
		e += len(in)
	}
	return e
}

// validate checks the structure: every list starts with 0, contains its
// own unit, holds distinct units in [1, N] after the bias.
func (n *Network) validate() error {
	if n == nil || n.N < 1 || len(n.In) != n.N {
		return errors.New("pcnn: network must have N >= 1 units and one incoming list per unit")
	}
	seen := make([]int, n.N+1)
	for j := 1; j <= n.N; j++ {
		in := n.In[j-1]
		if len(in) < 2 || in[0] != 0 {
			return errors.Errorf("pcnn: incoming list of unit %d must start with the bias unit 0 and hold the loop", j)
		}
		loop := false
		for _, i := range in[1:] {
			if i < 1 || i > n.N {
				return errors.Errorf("pcnn: unit %d has an edge from %d, outside [1, %d]", j, i, n.N)
			}
			if seen[i] == j {
				return errors.Errorf("pcnn: unit %d has a duplicate edge from %d", j, i)
			}
			seen[i] = j
			loop = loop || i == j
		}
		if !loop {
			return errors.Errorf("pcnn: unit %d lacks its loop edge %d -> %d", j, j, j)
		}
	}
	return nil
}
