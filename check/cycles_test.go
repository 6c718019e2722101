package check

import (
	"context"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/internal/testkit/historytest"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/polygraph"
	"github.com/isocheck/isocheck/verdict"
)

func TestCycles(t *testing.T) {
	e := func(from, to int32, k verdict.EdgeKind) polygraph.Edge {
		key := polygraph.NoKey
		if k != verdict.SO && k != verdict.RT {
			key = 0
		}
		return polygraph.Edge{From: from, To: to, Kind: k, Key: key}
	}
	ww, wr, rw, so := verdict.WW, verdict.WR, verdict.RW, verdict.SO
	for _, c := range []struct {
		name  string
		edges []polygraph.Edge
		limit int
		// want is the kinds of each cycle found, in order.
		want [][]verdict.EdgeKind
	}{
		{"none", []polygraph.Edge{e(0, 1, ww), e(1, 2, wr), e(0, 2, rw)}, 10, nil},
		{"G0", []polygraph.Edge{e(0, 1, ww), e(1, 0, ww)}, 10, [][]verdict.EdgeKind{{ww, ww}}},
		{"G1c", []polygraph.Edge{e(0, 1, ww), e(1, 0, wr)}, 10, [][]verdict.EdgeKind{{ww, wr}}},
		{"G-single and G2-item", []polygraph.Edge{e(0, 1, rw), e(1, 0, wr), e(1, 2, rw), e(2, 1, rw)}, 10,
			[][]verdict.EdgeKind{{rw, wr}, {rw, rw}}},
		{"the shortest path back", []polygraph.Edge{e(0, 1, rw), e(1, 2, ww), e(2, 3, ww), e(3, 0, ww), e(1, 0, wr)}, 10,
			[][]verdict.EdgeKind{{rw, wr}}},
		{"session order", []polygraph.Edge{e(0, 1, so), e(1, 0, wr)}, 10, [][]verdict.EdgeKind{{so, wr}}},
		{"a limit of one per search", []polygraph.Edge{e(0, 1, ww), e(1, 0, ww), e(2, 3, ww), e(3, 2, ww)}, 1,
			[][]verdict.EdgeKind{{ww, ww}, {ww, ww}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := Cycles(4, c.edges, c.limit)
			if len(got) != len(c.want) {
				t.Fatalf("%d cycles %v, want %d", len(got), got, len(c.want))
			}
			for i, cycle := range got {
				for j, edge := range cycle {
					if next := cycle[(j+1)%len(cycle)]; edge.To != next.From {
						t.Errorf("cycle %v is not closed", cycle)
					}
				}
				var kinds []verdict.EdgeKind
				for _, edge := range cycle {
					kinds = append(kinds, edge.Kind)
				}
				if len(kinds) != len(c.want[i]) {
					t.Errorf("cycle %d: kinds %v, want %v", i, kinds, c.want[i])
					continue
				}
				for j := range kinds {
					if kinds[j] != c.want[i][j] {
						t.Errorf("cycle %d: kinds %v, want %v", i, kinds, c.want[i])
						break
					}
				}
			}
		})
	}
}

// TestDependenciesAfterAnomalies checks that a check stopped at an
// aborted read still yields the write skew's cycle: the polygraph built
// again from the other reads has it.
func TestDependenciesAfterAnomalies(t *testing.T) {
	h := historytest.JSONL(t, `
{"session": "a", "id": "abort", "status": "aborted", "ops": [["w", "z", 9]]}
{"session": "b", "id": "dirty", "ops": [["r", "z", 9]]}
{"session": "e", "id": "alice", "ops": [["r", "x", null], ["r", "y", null], ["w", "x", 1]]}
{"session": "f", "id": "bob", "ops": [["r", "x", null], ["r", "y", null], ["w", "y", 1]]}`)
	for _, l := range []level.Level{level.SER, level.SI, level.SSER, level.RC} {
		res, err := Check(context.Background(), h, l)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Anomalies) != 1 || res.Known != nil {
			t.Fatalf("%v: anomalies %v, known %v: want the aborted read alone, and no edge", l, res.Anomalies, res.Known)
		}
		p, known, err := Dependencies(context.Background(), res)
		if err != nil {
			t.Fatal(err)
		}
		if l == level.RC {
			if p != nil || known != nil {
				t.Errorf("RC: a dependency graph, which its check does not build")
			}
			continue
		}
		var skew []polygraph.Edge
		for _, c := range Cycles(p.NumNodes, known, 10) {
			if len(c) == 2 && c[0].Kind == verdict.RW && c[1].Kind == verdict.RW {
				skew = c
			}
		}
		if skew == nil || h.Name(int(skew[0].From)) != "alice" && h.Name(int(skew[0].From)) != "bob" {
			t.Errorf("%v: no write skew of alice and bob among the cycles of %v", l, known)
		}
	}
}

// TestCyclesAsOneGraphPerSearch: Cycles, which indexes the edges once
// for all its searches, finds the cycles, in the order, of a search that
// builds the graph of each search's kinds of edges anew (the plain
// algorithm, below), on random graphs.
func TestCyclesAsOneGraphPerSearch(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	kinds := []verdict.EdgeKind{verdict.SO, verdict.WW, verdict.WR, verdict.RW, verdict.RT}
	for i := range 300 {
		n := 2 + rng.IntN(12)
		edges := make([]polygraph.Edge, rng.IntN(4*n))
		for j := range edges {
			edges[j] = polygraph.Edge{From: int32(rng.IntN(n)), To: int32(rng.IntN(n)), Kind: kinds[rng.IntN(len(kinds))], Key: history.Key(rng.IntN(3))}
		}
		limit := 1 + rng.IntN(5)
		got, want := Cycles(n, edges, limit), plainCycles(n, edges, limit)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("graph %d, %v, limit %d:\ngot  %v\nwant %v", i, edges, limit, got, want)
		}
	}
}

// TestCyclesStopped: on a context that has ended, CyclesContext returns
// at once with its error.
func TestCyclesStopped(t *testing.T) {
	edges := []polygraph.Edge{{From: 0, To: 1, Kind: verdict.WW}, {From: 1, To: 0, Kind: verdict.WW}}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if got, err := CyclesContext(ctx, 2, edges, 10); err == nil || len(got) != 0 {
		t.Errorf("CyclesContext on a cancelled context: %v, %v", got, err)
	}
	if got, err := CyclesContext(context.Background(), 2, edges, 10); err != nil || len(got) != 1 {
		t.Errorf("CyclesContext: %v, %v; want one cycle", got, err)
	}
}

// plainCycles is Cycles as first written: each search builds the graph of
// its kinds of edges, and searches paths with a map of the nodes reached.
func plainCycles(numNodes int, known []polygraph.Edge, limit int) [][]polygraph.Edge {
	var out [][]polygraph.Edge
	seen := map[string]bool{}
	for _, s := range cycleSearches() {
		found := 0
		out1 := make([][]polygraph.Edge, numNodes)
		for _, e := range known {
			if s.path.has(e.Kind) {
				out1[e.From] = append(out1[e.From], e)
			}
		}
		comp := plainComponents(out1)
		tries := 0
		for _, e := range known {
			if found >= limit || tries >= 4*limit {
				break
			}
			if !s.closing.has(e.Kind) || e.From == e.To || comp[e.From] != comp[e.To] {
				continue
			}
			tries++
			path := plainShortestPath(out1, e.To, e.From, comp)
			if path == nil {
				continue
			}
			cycle := append([]polygraph.Edge{e}, path...)
			if k := CycleKey(cycle); !seen[k] {
				seen[k] = true
				found++
				out = append(out, cycle)
			}
		}
	}
	return out
}

// plainComponents numbers the strongly connected components of a graph
// (recursive Tarjan); only which nodes share a number matters.
func plainComponents(out [][]polygraph.Edge) []int32 {
	n := len(out)
	index, low, comp := make([]int32, n), make([]int32, n), make([]int32, n)
	for i := range index {
		index[i] = -1
	}
	onStack := make([]bool, n)
	var stack []int32
	var next, comps int32
	var visit func(v int32)
	visit = func(v int32) {
		index[v], low[v] = next, next
		next++
		stack = append(stack, v)
		onStack[v] = true
		for _, e := range out[v] {
			switch w := e.To; {
			case index[w] < 0:
				visit(w)
				low[v] = min(low[v], low[w])
			case onStack[w]:
				low[v] = min(low[v], index[w])
			}
		}
		if low[v] == index[v] {
			for {
				w := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				onStack[w] = false
				comp[w] = comps
				if w == v {
					break
				}
			}
			comps++
		}
	}
	for v := range n {
		if index[v] < 0 {
			visit(int32(v))
		}
	}
	return comp
}

func plainShortestPath(out [][]polygraph.Edge, a, b int32, comp []int32) []polygraph.Edge {
	if a == b {
		return []polygraph.Edge{}
	}
	via := map[int32]polygraph.Edge{}
	queue := []int32{a}
	for len(queue) > 0 {
		v := queue[0]
		queue = queue[1:]
		for _, e := range out[v] {
			w := e.To
			if _, ok := via[w]; ok || comp[w] != comp[a] || w == a {
				continue
			}
			via[w] = e
			if w == b {
				var path []polygraph.Edge
				for u := b; u != a; u = via[u].From {
					path = append(path, via[u])
				}
				slices.Reverse(path)
				return path
			}
			queue = append(queue, w)
		}
	}
	return nil
}
