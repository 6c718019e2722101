package check

import (
	"context"
	"fmt"
	"slices"

	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/polygraph"
	"github.com/isocheck/isocheck/prune"
	"github.com/isocheck/isocheck/verdict"
)

// Dependencies returns the polygraph of a violation of SER, SI or SSER
// and the dependencies every valid order of the writes has, for a search
// of all its cycles (see Cycles): res.Known when the check pruned. A
// check that stopped at anomalies found without cycles (an aborted read,
// a lost update, ...) knew no edge yet: Dependencies then builds the
// polygraph again from the reads that showed none, and prunes it, once.
// That polygraph's Anomalies are those its construction found (lost
// updates) beside res.Anomalies; when it has some, its known edges are
// those built before the writes were ordered, unpruned.
//
// It returns nil for other levels, whose checks build no dependency
// graph, and for a check without a violation.
func Dependencies(ctx context.Context, res *Result) (*polygraph.Polygraph, []polygraph.Edge, error) {
	if res.Verdict != verdict.Violated || res.Polygraph == nil {
		return nil, nil, nil
	}
	switch res.Level {
	case level.SER, level.SI, level.SSER:
	default:
		return nil, nil, nil
	}
	if res.Known != nil {
		return res.Polygraph, res.Known, nil
	}
	if len(res.Anomalies) == 0 {
		// No known graph was kept (the constraints were too many).
		return nil, nil, nil
	}
	r, err := polygraph.Resolve(ctx, res.Polygraph.History)
	if err != nil {
		return nil, nil, fmt.Errorf("check: resolving reads again to find cycles: %w", err)
	}
	r.Anomalies = nil // leave them out: their reads are not in r.Reads
	p, err := polygraph.BuildResolved(ctx, r, polygraph.Options{Level: res.Level})
	switch {
	case err != nil:
		return nil, nil, fmt.Errorf("check: building the polygraph again to find cycles: %w", err)
	case len(p.Anomalies) > 0:
		return p, p.Known, nil
	case p.TooLarge:
		return nil, nil, nil
	}
	pr, err := prune.Prune(ctx, p)
	if err != nil {
		return nil, nil, fmt.Errorf("check: pruning again to find cycles: %w", err)
	}
	known := pr.Known
	if v := pr.Violation; v != nil && v.Constraint < 0 {
		known = append(slices.Clone(known), v.Cycle...)
	}
	return p, known, nil
}

// cycleSearch is one search of Cycles: cycles closed by an edge of a
// closing kind, over paths of the path kinds. The searches follow those
// of Elle's cycle explainer (Kingsbury and Alvaro, "Elle: Inferring
// Isolation Anomalies from Experimental Observations", VLDB 2020,
// Section 4): write cycles (G0), then cycles of writes and reads (G1c),
// then cycles with exactly one anti-dependency (G-single), then any
// cycle with anti-dependencies (G2), each with data dependencies alone,
// then with session order, then with real time.
type cycleSearch struct {
	closing, path kinds
}

// kinds is a set of edge kinds.
type kinds uint8

func kindsOf(ks ...polygraph.EdgeKind) kinds {
	var s kinds
	for _, k := range ks {
		s |= 1 << k
	}
	return s
}

func (s kinds) has(k polygraph.EdgeKind) bool { return s&(1<<k) != 0 }

// cycleSearches lists the searches in order.
func cycleSearches() []cycleSearch {
	ww, wr, rw := polygraph.WW, polygraph.WR, polygraph.RW
	var out []cycleSearch
	for _, extra := range [][]polygraph.EdgeKind{nil, {polygraph.SO}, {polygraph.SO, polygraph.RT}} {
		data := append([]polygraph.EdgeKind{ww, wr}, extra...)
		out = append(out,
			cycleSearch{closing: kindsOf(append([]polygraph.EdgeKind{ww}, extra...)...), path: kindsOf(append([]polygraph.EdgeKind{ww}, extra...)...)},
			cycleSearch{closing: kindsOf(data...), path: kindsOf(data...)},
			cycleSearch{closing: kindsOf(rw), path: kindsOf(data...)},
			cycleSearch{closing: kindsOf(rw), path: kindsOf(append(data, rw)...)},
		)
	}
	return out
}

// Cycles returns cycles of the dependencies known, a graph of numNodes
// nodes: each search of Elle's (see cycleSearch) looks, for each edge
// that can close a cycle (both its ends in one strongly connected
// component of the graph of the search's paths), for the shortest path
// back, and keeps the cycles not found before. Each search stops at
// limit cycles, so that a history with many violations costs no more
// than limit searches of paths per kind of cycle. Each cycle is a list of
// edges, the last leading back to the first's From.
func Cycles(numNodes int, known []polygraph.Edge, limit int) [][]polygraph.Edge {
	var out [][]polygraph.Edge
	seen := map[string]bool{}
	for _, s := range cycleSearches() {
		found := 0
		g := newKindGraph(numNodes, known, s.path)
		comp := g.components()
		tries := 0
		for _, e := range known {
			if found >= limit || tries >= 4*limit {
				break
			}
			if !s.closing.has(e.Kind) || e.From == e.To || comp[e.From] != comp[e.To] {
				continue
			}
			tries++
			path := g.shortestPath(e.To, e.From, comp)
			if path == nil {
				continue
			}
			cycle := append([]polygraph.Edge{e}, path...)
			k := CycleKey(cycle)
			if seen[k] {
				continue
			}
			seen[k] = true
			found++
			out = append(out, cycle)
		}
	}
	return out
}

// CycleKey identifies a cycle whatever edge it starts at: two cycles of
// the same edges in the same circular order have the same key.
func CycleKey(cycle []polygraph.Edge) string {
	start := 0
	for i, e := range cycle {
		if less(e, cycle[start]) {
			start = i
		}
	}
	b := make([]byte, 0, 16*len(cycle))
	for i := range cycle {
		e := cycle[(start+i)%len(cycle)]
		b = fmt.Appendf(b, "%d %d %d %d,", e.From, e.To, e.Kind, e.Key)
	}
	return string(b)
}

func less(a, b polygraph.Edge) bool {
	switch {
	case a.From != b.From:
		return a.From < b.From
	case a.To != b.To:
		return a.To < b.To
	case a.Kind != b.Kind:
		return a.Kind < b.Kind
	}
	return a.Key < b.Key
}

// kindGraph is the graph of the known edges of some kinds.
type kindGraph struct {
	out [][]polygraph.Edge
}

func newKindGraph(n int, edges []polygraph.Edge, ks kinds) *kindGraph {
	g := &kindGraph{out: make([][]polygraph.Edge, n)}
	for _, e := range edges {
		if ks.has(e.Kind) && int(e.From) < n && int(e.To) < n && e.From >= 0 && e.To >= 0 {
			g.out[e.From] = append(g.out[e.From], e)
		}
	}
	return g
}

// components returns each node's strongly connected component (Tarjan's
// algorithm, without recursion).
func (g *kindGraph) components() []int32 {
	n := len(g.out)
	index := make([]int32, n)
	low := make([]int32, n)
	comp := make([]int32, n)
	for i := range index {
		index[i], comp[i] = -1, -1
	}
	onStack := make([]bool, n)
	var stack []int32
	type frame struct {
		v    int32
		next int
	}
	var next, comps int32
	for root := range n {
		if index[root] >= 0 {
			continue
		}
		frames := []frame{{v: int32(root)}}
		index[root], low[root] = next, next
		next++
		stack = append(stack, int32(root))
		onStack[root] = true
		for len(frames) > 0 {
			f := &frames[len(frames)-1]
			v := f.v
			if f.next < len(g.out[v]) {
				w := g.out[v][f.next].To
				f.next++
				switch {
				case index[w] < 0:
					index[w], low[w] = next, next
					next++
					stack = append(stack, w)
					onStack[w] = true
					frames = append(frames, frame{v: w})
				case onStack[w]:
					low[v] = min(low[v], index[w])
				}
				continue
			}
			frames = frames[:len(frames)-1]
			if len(frames) > 0 {
				u := frames[len(frames)-1].v
				low[u] = min(low[u], low[v])
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
	}
	return comp
}

// shortestPath returns the edges of a shortest path from a to b within
// their component, or nil.
func (g *kindGraph) shortestPath(a, b int32, comp []int32) []polygraph.Edge {
	if a == b {
		return []polygraph.Edge{}
	}
	via := map[int32]polygraph.Edge{}
	queue := []int32{a}
	for len(queue) > 0 {
		v := queue[0]
		queue = queue[1:]
		for _, e := range g.out[v] {
			w := e.To
			if comp[w] != comp[a] || w == a {
				continue
			}
			if _, ok := via[w]; ok {
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
