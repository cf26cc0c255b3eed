package graph

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"strings"
	"testing"

	"github.com/rtnlab/rtn/params"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// inputHash replicates gorgonia's Node.WriteHash for an input node with no
// children: fnv32a over type, shape, name and the child count.
func inputHash(prefix, name string) uint32 {
	h := fnv.New32a()
	h.Write([]byte(prefix))
	h.Write([]byte(name))
	binary.Write(h, binary.LittleEndian, byte(0))
	return h.Sum32()
}

// collidingNames finds two different input names whose nodes hash alike
// (a birthday search: about 2^16 names).
func collidingNames(t *testing.T, prefix string) (string, string) {
	seen := map[uint32]string{}
	for i := 0; i < 1<<22; i++ {
		name := fmt.Sprintf("x%d", i)
		h := inputHash(prefix, name)
		if o, ok := seen[h]; ok {
			return o, name
		}
		seen[h] = name
	}
	t.Fatal("no collision found")
	return "", ""
}

// TestHashCollisionDefect shows gorgonia's defect: two different input
// nodes whose 32-bit hashes collide are merged by the compiler, so x - y
// evaluates to x - x = 0. CheckHashes and Compile refuse such a graph.
func TestHashCollisionDefect(t *testing.T) {
	shape := []int{1, 2}
	probe := G.NewMatrix(G.NewGraph(), tensor.Float64, G.WithShape(shape...), G.WithName("probe"))
	prefix := fmt.Sprintf("%v%v", probe.Type(), probe.Shape())
	if got, want := inputHash(prefix, "probe"), probe.Hashcode(); got != want {
		t.Fatalf("hash replica is stale: %#x, gorgonia %#x", got, want)
	}
	n1, n2 := collidingNames(t, prefix)

	b := NewBuilder()
	x := G.NewMatrix(b.Graph(), tensor.Float64, G.WithShape(shape...), G.WithName(n1),
		G.WithValue(tensor.New(tensor.WithShape(shape...), tensor.WithBacking([]float64{3, 4}))))
	y := G.NewMatrix(b.Graph(), tensor.Float64, G.WithShape(shape...), G.WithName(n2),
		G.WithValue(tensor.New(tensor.WithShape(shape...), tensor.WithBacking([]float64{1, 1}))))
	if x == y || x.Hashcode() != y.Hashcode() {
		t.Fatalf("expected two distinct nodes with one hash")
	}
	d := b.Sub(x, y)

	// The defect: gorgonia's own machine computes x - x.
	vm := G.NewTapeMachine(b.Graph())
	if err := vm.RunAll(); err != nil {
		t.Fatal(err)
	}
	// If this fails, gorgonia no longer merges colliding nodes and the
	// guard may be relaxed.
	if got := nodeValues(d); got[0] != 0 || got[1] != 0 {
		t.Errorf("gorgonia computed %v for [3 4] - [1 1]; the defect is gone", got)
	}

	// The guard.
	err := CheckHashes(b.Graph())
	if err == nil || !strings.Contains(err.Error(), "share hash") {
		t.Fatalf("CheckHashes = %v, want a hash-collision error", err)
	}
	if _, err := Compile(b, nil, nil); err == nil {
		t.Fatal("Compile accepted a graph with colliding nodes")
	}
}

func TestCheckHashesCleanGraph(t *testing.T) {
	b := NewBuilder()
	x := b.Input("x", 2, 3)
	y := b.Input("y", 2, 3)
	_ = b.Add(b.Tanh(x), b.Tanh(y))
	if err := CheckHashes(b.Graph()); err != nil {
		t.Fatal(err)
	}
}

// TestParamFromTwoSets: one name bound from two sets would give two input
// nodes that gorgonia merges (same name, type and shape); Param refuses.
func TestParamFromTwoSets(t *testing.T) {
	p1, p2 := params.New(), params.New()
	for _, p := range []*params.Params{p1, p2} {
		if _, err := p.Add("W", 2); err != nil {
			t.Fatal(err)
		}
	}
	b := NewBuilder()
	b.Param(p1, "W")
	if b.Param(p1, "W") == nil || b.Err() != nil {
		t.Fatalf("binding a name twice from one set failed: %v", b.Err())
	}
	if n := b.Param(p2, "W"); n != nil || b.Err() == nil {
		t.Error("a name bound from a second set was accepted")
	}
}
