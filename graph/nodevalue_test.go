package graph

import (
	"math"

	G "gorgonia.org/gorgonia"
)

// nodeScalar returns the value of a scalar node (NaN if it has none).
func nodeScalar(n *G.Node) float64 {
	if n == nil || n.Value() == nil {
		return math.NaN()
	}
	switch v := n.Value().Data().(type) {
	case float64:
		return v
	case []float64:
		if len(v) == 1 {
			return v[0]
		}
	}
	return math.NaN()
}

// nodeValues returns a copy of a node's raw value (gorgonia's, not a watched copy) as a flat row-major slice.
func nodeValues(n *G.Node) []float64 {
	if n == nil || n.Value() == nil {
		return nil
	}
	switch v := n.Value().Data().(type) {
	case float64:
		return []float64{v}
	case []float64:
		return append([]float64(nil), v...)
	}
	return nil
}
