package digraph

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
)

func TestTopoOrderAndCycles(t *testing.T) {
	cases := []struct {
		name    string
		n       int
		edges   []Edge
		acyclic bool
	}{
		{"empty", 3, nil, true},
		{"chain", 3, []Edge{{0, 1}, {1, 2}}, true},
		{"self loop", 2, []Edge{{1, 1}}, false},
		{"two cycle", 3, []Edge{{0, 1}, {1, 0}, {1, 2}}, false},
		{"cycle behind a tail", 4, []Edge{{0, 1}, {1, 2}, {2, 3}, {3, 1}}, false},
		{"diamond", 4, []Edge{{0, 1}, {0, 2}, {1, 3}, {2, 3}}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := New(c.n, c.edges)
			order, ok := g.TopoOrder()
			if ok != c.acyclic {
				t.Fatalf("TopoOrder ok = %v, want %v", ok, c.acyclic)
			}
			cycle := g.FindCycle()
			if c.acyclic {
				if cycle != nil {
					t.Fatalf("FindCycle on a DAG: %v", cycle)
				}
				pos := make([]int, c.n)
				for i, u := range order {
					pos[u] = i
				}
				for _, e := range c.edges {
					if pos[e.From] >= pos[e.To] {
						t.Fatalf("order %v puts %d before %d", order, e.To, e.From)
					}
				}
				return
			}
			if len(cycle) == 0 {
				t.Fatal("FindCycle found nothing on a cyclic graph")
			}
			for i, u := range cycle {
				v := cycle[(i+1)%len(cycle)]
				if !slices.Contains(g.Succ(u), v) {
					t.Fatalf("cycle %v uses a missing edge %d->%d", cycle, u, v)
				}
			}
		})
	}
}

// randomDAG returns a random DAG whose nodes are numbered in a random
// topological order, and chains that cover some of its paths.
func randomDAG(rng *rand.Rand, n int) ([]Edge, [][]int32) {
	perm := rng.Perm(n)
	var edges []Edge
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			if rng.IntN(4) == 0 {
				edges = append(edges, Edge{int32(perm[i]), int32(perm[j])})
			}
		}
	}
	// Chains: runs of the topological order joined by edges.
	var chains [][]int32
	var cur []int32
	for i := 0; i < n; i++ {
		u := int32(perm[i])
		if len(cur) > 0 && rng.IntN(3) == 0 {
			edges = append(edges, Edge{cur[len(cur)-1], u})
			cur = append(cur, u)
			continue
		}
		if len(cur) > 0 {
			chains = append(chains, cur)
		}
		cur = []int32{u}
		if rng.IntN(4) == 0 { // some nodes on no chain
			cur = nil
		}
	}
	if len(cur) > 0 {
		chains = append(chains, cur)
	}
	return edges, chains
}

func TestClocksAgreeWithSearch(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 300; trial++ {
		n := 1 + rng.IntN(25)
		edges, chains := randomDAG(rng, n)
		g := New(n, edges)
		order, ok := g.TopoOrder()
		if !ok {
			t.Fatal("random DAG is cyclic")
		}
		c := NewClocks(g, order, chains)
		for u := int32(0); u < int32(n); u++ {
			for v := int32(0); v < int32(n); v++ {
				want := g.ShortestPath(u, v, nil) != nil
				if got := c.Reaches(u, v); got != want {
					t.Fatalf("trial %d: Reaches(%d,%d) = %v, search says %v", trial, u, v, got, want)
				}
			}
		}
	}
}

func TestSCC(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := 0; trial < 300; trial++ {
		n := 1 + rng.IntN(15)
		var edges []Edge
		for i := 0; i < 2*n; i++ {
			edges = append(edges, Edge{int32(rng.IntN(n)), int32(rng.IntN(n))})
		}
		g := New(n, edges)
		comp, sizes := g.SCC()
		total := int32(0)
		for _, s := range sizes {
			total += s
		}
		if int(total) != n {
			t.Fatalf("component sizes add to %d, want %d", total, n)
		}
		for u := int32(0); u < int32(n); u++ {
			for v := int32(0); v < int32(n); v++ {
				same := g.ShortestPath(u, v, nil) != nil && g.ShortestPath(v, u, nil) != nil
				if (comp[u] == comp[v]) != same {
					t.Fatalf("trial %d: %d and %d in one component = %v, mutual reachability = %v", trial, u, v, comp[u] == comp[v], same)
				}
			}
		}
	}
}

func TestPathEdges(t *testing.T) {
	edges := []Edge{{0, 1}, {1, 2}, {0, 2}, {2, 3}}
	s := NewSearcher(New(4, edges))
	if got := s.PathEdges(0, 3, nil); !slices.Equal(got, []int32{2, 3}) {
		t.Errorf("PathEdges(0,3) = %v, want the shortest path's edges [2 3]", got)
	}
	if got := s.PathEdges(3, 0, nil); got != nil {
		t.Errorf("PathEdges(3,0) = %v, want nil", got)
	}
	if got := s.CycleEdges(0, nil); got != nil {
		t.Errorf("CycleEdges on a DAG = %v", got)
	}
}

// TestResetAdjacency checks the CSR Reset builds against the edge list, on
// graphs below and above the size from which it builds the two directions
// on two goroutines, and when it reuses a larger graph's memory.
func TestResetAdjacency(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	g := &Graph{}
	for _, size := range []struct{ n, m int }{{50, 300}, {5000, 3 * minParallelEdges}, {20, 40}} {
		edges := make([]Edge, size.m)
		for i := range edges {
			edges[i] = Edge{rng.Int32N(int32(size.n)), rng.Int32N(int32(size.n))}
		}
		g.Reset(size.n, edges)
		out := make([][]Edge, size.n)
		in := make([][]int32, size.n)
		for u := range int32(size.n) {
			for i, v := range g.Succ(u) {
				id := g.OutID[g.OutStart[u]+int32(i)]
				if edges[id] != (Edge{u, v}) {
					t.Fatalf("n=%d: out-edge %d→%d has id %d, which is %v", size.n, u, v, id, edges[id])
				}
				out[u] = append(out[u], edges[id])
			}
			in[u] = append(in[u], g.Pred(u)...)
		}
		wantOut := make([][]Edge, size.n)
		wantIn := make([][]int32, size.n)
		for _, e := range edges {
			wantOut[e.From] = append(wantOut[e.From], e)
			wantIn[e.To] = append(wantIn[e.To], e.From)
		}
		for u := range size.n {
			// Both directions keep the edge list's order.
			if !slices.Equal(out[u], wantOut[u]) || !slices.Equal(in[u], wantIn[u]) {
				t.Fatalf("n=%d, node %d: out %v in %v, want out %v in %v", size.n, u, out[u], in[u], wantOut[u], wantIn[u])
			}
		}
	}
}

// TestFindCycleBetweenCycles: nodes between two cycles are left by both
// Kahn passes but are on no cycle; FindCycle must not give up on them.
func TestFindCycleBetweenCycles(t *testing.T) {
	// 0..19 form a path between the cycle 20↔21 and the cycle 22↔23.
	var edges []Edge
	edges = append(edges, Edge{20, 21}, Edge{21, 20}, Edge{21, 0})
	for i := int32(0); i < 19; i++ {
		edges = append(edges, Edge{i, i + 1})
	}
	edges = append(edges, Edge{19, 22}, Edge{22, 23}, Edge{23, 22})
	g := New(24, edges)
	if c := g.FindCycle(); len(c) != 2 {
		t.Fatalf("FindCycle = %v, want a cycle of 2 nodes", c)
	}
}

// TestResetChunks checks that a graph built from a sequence of chunks of
// edges is the one built from their list, edge ids included.
func TestResetChunks(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	for trial := 0; trial < 200; trial++ {
		n := 1 + rng.IntN(30)
		var edges []Edge
		for i := rng.IntN(100); i > 0; i-- {
			edges = append(edges, Edge{int32(rng.IntN(n)), int32(rng.IntN(n))})
		}
		want := New(n, edges)
		// Chunks of random sizes, some empty.
		var chunks [][]Edge
		for rest := edges; len(rest) > 0; {
			k := min(rng.IntN(8), len(rest))
			chunks, rest = append(chunks, rest[:k]), rest[k:]
		}
		got := &Graph{}
		got.ResetChunks(n, slices.Values(chunks), true)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("trial %d: ResetChunks gives %+v, Reset %+v", trial, got, want)
		}
		got.ResetChunks(n, slices.Values(chunks), false)
		want.OutID = nil
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("trial %d: ResetChunks without ids gives %+v, want %+v", trial, got, want)
		}
	}
}
