package check

import (
	"context"
	"fmt"
	"slices"

	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/polygraph"
	"github.com/isocheck/isocheck/prune"
	"github.com/isocheck/isocheck/resolve"
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
	r, err := resolve.Resolve(ctx, res.Polygraph.History)
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

func kindsOf(ks ...verdict.EdgeKind) kinds {
	var s kinds
	for _, k := range ks {
		s |= 1 << k
	}
	return s
}

func (s kinds) has(k verdict.EdgeKind) bool { return s&(1<<k) != 0 }

// cycleSearches lists the searches in order.
func cycleSearches() []cycleSearch {
	ww, wr, rw := verdict.WW, verdict.WR, verdict.RW
	var out []cycleSearch
	for _, extra := range [][]verdict.EdgeKind{nil, {verdict.SO}, {verdict.SO, verdict.RT}} {
		data := append([]verdict.EdgeKind{ww, wr}, extra...)
		out = append(out,
			cycleSearch{closing: kindsOf(append([]verdict.EdgeKind{ww}, extra...)...), path: kindsOf(append([]verdict.EdgeKind{ww}, extra...)...)},
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
	out, _ := CyclesContext(context.Background(), numNodes, known, limit)
	return out
}

// CyclesContext is Cycles that stops when ctx ends, returning the cycles
// found so far with ctx's error. The searches share one index of the
// edges by their tail (built once, in time linear in the edges), so that
// their cost is that of the paths searched.
func CyclesContext(ctx context.Context, numNodes int, known []polygraph.Edge, limit int) ([][]polygraph.Edge, error) {
	var out [][]polygraph.Edge
	seen := map[string]bool{}
	g := newDepGraph(numNodes, known)
	// Searches whose paths differ only in kinds no edge has share their
	// components.
	var present kinds
	for i := range g.edges {
		present |= kindsOf(g.edges[i].Kind)
	}
	comps := map[kinds][]int32{}
	done := ctx.Done()
	for _, s := range cycleSearches() {
		if err := ctx.Err(); err != nil {
			return out, err
		}
		found := 0
		comp, ok := comps[s.path&present]
		if !ok {
			comp = g.components(s.path & present)
			comps[s.path&present] = comp
		}
		tries := 0
		for _, e := range known {
			if found >= limit || tries >= 4*limit {
				break
			}
			if !s.closing.has(e.Kind) || e.From == e.To || !g.inRange(e) || comp[e.From] != comp[e.To] {
				continue
			}
			select {
			case <-done:
				return out, ctx.Err()
			default:
			}
			tries++
			path := g.shortestPath(e.To, e.From, comp, s.path)
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
	return out, nil
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

// depGraph is the graph of the known edges, indexed by their tail: the
// edges out of node v are edges[start[v]:start[v+1]], in the order of
// the list they came from. Its searches follow only the edges of some
// kinds.
type depGraph struct {
	start []int32
	edges []polygraph.Edge
	// mark and via are the scratch space of shortestPath: mark[v] is
	// stamp when v was reached by the current search, via[v] the index of
	// the edge that reached it.
	mark, via []int32
	stamp     int32
	queue     []int32
}

func newDepGraph(n int, known []polygraph.Edge) *depGraph {
	g := &depGraph{start: make([]int32, n+1)}
	for _, e := range known {
		if g.inRange(e) {
			g.start[e.From+1]++
		}
	}
	for v := range n {
		g.start[v+1] += g.start[v]
	}
	g.edges = make([]polygraph.Edge, g.start[n])
	next := slices.Clone(g.start[:n])
	for _, e := range known {
		if g.inRange(e) {
			g.edges[next[e.From]] = e
			next[e.From]++
		}
	}
	return g
}

func (g *depGraph) n() int { return len(g.start) - 1 }

// inRange reports whether both ends of e are nodes of the graph.
func (g *depGraph) inRange(e polygraph.Edge) bool {
	n := int32(g.n())
	return e.From >= 0 && e.To >= 0 && e.From < n && e.To < n
}

// components returns each node's strongly connected component in the
// graph of the edges of kinds ks (Tarjan's algorithm, without
// recursion).
func (g *depGraph) components(ks kinds) []int32 {
	n := g.n()
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
		next int32 // the index in g.edges of the next edge out of v
	}
	var next, comps int32
	var frames []frame
	for root := range n {
		if index[root] >= 0 {
			continue
		}
		frames = append(frames[:0], frame{v: int32(root), next: g.start[root]})
		index[root], low[root] = next, next
		next++
		stack = append(stack, int32(root))
		onStack[root] = true
		for len(frames) > 0 {
			f := &frames[len(frames)-1]
			v := f.v
			if end := g.start[v+1]; f.next < end {
				e := &g.edges[f.next]
				f.next++
				if !ks.has(e.Kind) {
					continue
				}
				w := e.To
				switch {
				case index[w] < 0:
					index[w], low[w] = next, next
					next++
					stack = append(stack, w)
					onStack[w] = true
					frames = append(frames, frame{v: w, next: g.start[w]})
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

// shortestPath returns the edges of a shortest path from a to b of edges
// of kinds ks within their component, or nil. Its cost is that of the
// nodes it reaches, not of the graph.
func (g *depGraph) shortestPath(a, b int32, comp []int32, ks kinds) []polygraph.Edge {
	if a == b {
		return []polygraph.Edge{}
	}
	if g.mark == nil {
		g.mark = make([]int32, g.n())
		g.via = make([]int32, g.n())
	}
	g.stamp++
	g.mark[a] = g.stamp
	queue := append(g.queue[:0], a)
	defer func() { g.queue = queue[:0] }()
	for i := 0; i < len(queue); i++ {
		v := queue[i]
		for j := g.start[v]; j < g.start[v+1]; j++ {
			e := &g.edges[j]
			w := e.To
			if !ks.has(e.Kind) || comp[w] != comp[a] || g.mark[w] == g.stamp {
				continue
			}
			g.mark[w], g.via[w] = g.stamp, j
			if w == b {
				var path []polygraph.Edge
				for u := b; u != a; u = g.edges[g.via[u]].From {
					path = append(path, g.edges[g.via[u]])
				}
				slices.Reverse(path)
				return path
			}
			queue = append(queue, w)
		}
	}
	return nil
}
