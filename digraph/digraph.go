// Package digraph holds the checker's hot graph structures: compressed
// sparse row (CSR) adjacency, topological sorting, shortest cycles and
// chain-clock reachability.
//
// They are hand-written rather than taken from a graph library on purpose:
// the checker builds graphs of millions of nodes and edges many times per
// run, and a map-based library costs ~300 bytes an edge and quadratic
// sorting (docs/design.md, "Graph code"). Here an edge costs 4 bytes in each
// direction and every algorithm is linear.
package digraph

import (
	"iter"
	"slices"
	"sync"

	"github.com/isocheck/isocheck/internal/hugepage"
	"github.com/isocheck/isocheck/progress"
)

// Edge is a directed edge between dense node ids.
type Edge struct{ From, To int32 }

// Graph is an immutable directed graph in CSR form. The out-neighbours of
// node u are Out[OutStart[u]:OutStart[u+1]]; likewise In for in-neighbours.
// OutID[i] is the index, in the list given to New, of the edge to Out[i].
type Graph struct {
	N        int
	OutStart []int32
	Out      []int32
	OutID    []int32
	InStart  []int32
	In       []int32
}

// New builds a graph with n nodes from an edge list. Duplicate edges are
// kept; they are harmless to every algorithm here.
func New(n int, edges []Edge) *Graph {
	g := &Graph{}
	g.Reset(n, edges)
	return g
}

// Reset rebuilds g from an edge list, reusing its memory where it can:
// checks that rebuild a graph round after round allocate once. The out-
// and in-adjacency are independent, so a large graph builds them on two
// goroutines.
func (g *Graph) Reset(n int, edges []Edge) {
	g.N = n
	g.OutStart = zeroed(g.OutStart, n+1)
	g.InStart = zeroed(g.InStart, n+1)
	g.Out = resize(g.Out, len(edges))
	g.OutID = resize(g.OutID, len(edges))
	g.In = resize(g.In, len(edges))
	if len(edges) < minParallelEdges {
		fillOut(g.OutStart, g.Out, g.OutID, edges)
		fillIn(g.InStart, g.In, edges)
		return
	}
	var wg sync.WaitGroup
	wg.Go(func() { fillIn(g.InStart, g.In, edges) })
	fillOut(g.OutStart, g.Out, g.OutID, edges)
	wg.Wait()
}

// ResetChunks is Reset for edges given as a sequence of chunks, which it
// goes through four times, two at once (to count them and to place them,
// in each direction): the edges need not be in memory at once (a
// million-transaction SI history lowers to 57M edges, whose list alone
// would take 460 MB). The sequence must give the same edges each time,
// and be safe to range over from two goroutines. Chunks, not single
// edges, keep the loops tight: a sequence of single edges made a 20M-edge
// graph twice as slow to build as its list.
//
// With ids false, the graph has no OutID (nil): searches for paths of
// nodes and clocks need none, and a graph of 57M edges saves 230 MB.
func (g *Graph) ResetChunks(n int, chunks iter.Seq[[]Edge], ids bool) {
	g.N = n
	g.OutStart = zeroed(g.OutStart, n+1)
	g.InStart = zeroed(g.InStart, n+1)
	// Each direction is a counting sort of its own, as in Reset: a pass
	// to count, a pass to place.
	outDir := func() {
		start, m := g.OutStart, 0
		for c := range chunks {
			for _, e := range c {
				start[e.From+1]++
			}
			m += len(c)
		}
		prefixSums(start)
		g.Out = resize(g.Out, m)
		out := g.Out
		at := slices.Clone(start[:n]) // the next free place of each list
		if !ids {
			g.OutID = nil
			for c := range chunks {
				for _, e := range c {
					out[at[e.From]] = e.To
					at[e.From]++
				}
			}
			return
		}
		g.OutID = resize(g.OutID, m)
		outID, id := g.OutID, int32(0)
		for c := range chunks {
			for _, e := range c {
				j := at[e.From]
				at[e.From]++
				out[j], outID[j] = e.To, id
				id++
			}
		}
	}
	inDir := func() {
		start, m := g.InStart, 0
		for c := range chunks {
			for _, e := range c {
				start[e.To+1]++
			}
			m += len(c)
		}
		prefixSums(start)
		g.In = resize(g.In, m)
		in := g.In
		at := slices.Clone(start[:n])
		for c := range chunks {
			for _, e := range c {
				k := at[e.To]
				at[e.To]++
				in[k] = e.From
			}
		}
	}
	if n < minParallelEdges/16 {
		outDir()
		inDir()
		return
	}
	var wg sync.WaitGroup
	wg.Go(inDir)
	outDir()
	wg.Wait()
}

// ResetChunksOut is ResetChunks without the lists of predecessors, for
// searches that follow edges forward only (TopoOrder, SCC, CycleThrough,
// clocks): In is nil, and Pred must not be called, but InStart is set, so
// that each node's in-degree is known. It goes through chunks twice
// rather than four times, and saves a list as long as the edges.
func (g *Graph) ResetChunksOut(n int, chunks iter.Seq[[]Edge]) {
	g.N = n
	g.OutStart = zeroed(g.OutStart, n+1)
	g.InStart = zeroed(g.InStart, n+1)
	g.In, g.OutID = nil, nil
	start, in, m := g.OutStart, g.InStart, 0
	for c := range chunks {
		for _, e := range c {
			start[e.From+1]++
			in[e.To+1]++
		}
		m += len(c)
	}
	prefixSums(start)
	prefixSums(in)
	g.Out = resize(g.Out, m)
	out := g.Out
	at := slices.Clone(start[:n]) // the next free place of each list
	for c := range chunks {
		for _, e := range c {
			out[at[e.From]] = e.To
			at[e.From]++
		}
	}
}

// prefixSums turns counts into running totals, in place.
func prefixSums(s []int32) {
	for i := 1; i < len(s); i++ {
		s[i] += s[i-1]
	}
}

// minParallelEdges is the size from which Reset builds the two directions
// at once.
const minParallelEdges = 1 << 16

// fillOut fills the out-adjacency (start must be zero, of length n+1) by
// a counting sort of the edges by tail.
func fillOut(start, out, id []int32, edges []Edge) {
	for _, e := range edges {
		start[e.From+1]++
	}
	for i := 1; i < len(start); i++ {
		start[i] += start[i-1]
	}
	// Fill from the back, decrementing the ends: no position arrays.
	for i := len(edges) - 1; i >= 0; i-- {
		e := edges[i]
		start[e.From+1]--
		j := start[e.From+1]
		out[j], id[j] = e.To, int32(i)
	}
	// The decrements shifted each start down by one node: shift back.
	copy(start, start[1:])
	start[len(start)-1] = int32(len(edges))
}

// fillIn is fillOut for the in-adjacency, without edge ids.
func fillIn(start, in []int32, edges []Edge) {
	for _, e := range edges {
		start[e.To+1]++
	}
	for i := 1; i < len(start); i++ {
		start[i] += start[i-1]
	}
	for i := len(edges) - 1; i >= 0; i-- {
		e := edges[i]
		start[e.To+1]--
		in[start[e.To+1]] = e.From
	}
	copy(start, start[1:])
	start[len(start)-1] = int32(len(edges))
}

// resize returns s with length n, reusing its array when it is big enough.
func resize(s []int32, n int) []int32 {
	if cap(s) < n {
		// The graph's arrays are reached at random: huge pages make
		// that cheaper where they are large.
		return hugepage.Make[int32](n)
	}
	return s[:n]
}

// zeroed is resize with every element zero.
func zeroed(s []int32, n int) []int32 {
	s = resize(s, n)
	clear(s)
	return s
}

// Succ returns the out-neighbours of u.
func (g *Graph) Succ(u int32) []int32 { return g.Out[g.OutStart[u]:g.OutStart[u+1]] }

// Pred returns the in-neighbours of u.
func (g *Graph) Pred(u int32) []int32 { return g.In[g.InStart[u]:g.InStart[u+1]] }

// TopoOrder returns the nodes in a topological order (Kahn's algorithm).
// When the graph has a cycle, ok is false and order holds only the nodes
// not on or behind a cycle.
func (g *Graph) TopoOrder() (order []int32, ok bool) {
	indeg := make([]int32, g.N)
	for u := 0; u < g.N; u++ {
		indeg[u] = g.InStart[u+1] - g.InStart[u]
	}
	order = make([]int32, 0, g.N)
	for u := 0; u < g.N; u++ {
		if indeg[u] == 0 {
			order = append(order, int32(u))
		}
	}
	for i := 0; i < len(order); i++ {
		for _, v := range g.Succ(order[i]) {
			indeg[v]--
			if indeg[v] == 0 {
				order = append(order, v)
			}
		}
	}
	return order, len(order) == g.N
}

// ShortestPath returns a shortest path from src to dst (both included), or
// nil when there is none. allowed, when non-nil, restricts the nodes the
// path may visit besides src.
func (g *Graph) ShortestPath(src, dst int32, allowed func(int32) bool) []int32 {
	return NewSearcher(g).ShortestPath(src, dst, allowed)
}

// FindCycle returns a short cycle as a node list [v0, v1, ..., vk] with an
// edge from each node to the next and from vk back to v0, or nil when the
// graph is acyclic. It looks for the shortest cycle through a few nodes of
// the cyclic part, so the answer is short but not always the shortest.
func (g *Graph) FindCycle() []int32 {
	c, _ := g.FindCycleMeter(nil)
	return c
}

// FindCycleMeter is FindCycle that stops, returning nil and the error,
// once m reports one (the context of its stage ended): on a large graph
// the searches take a while. A nil m never stops.
func (g *Graph) FindCycleMeter(m *progress.Meter) ([]int32, error) {
	stopped := func() error {
		if m == nil {
			return nil
		}
		return m.Err()
	}
	order, ok := g.TopoOrder()
	if ok {
		return nil, nil
	}
	if err := stopped(); err != nil {
		return nil, err
	}
	// Nodes left out of the order lie on or behind a cycle. Peel the ones
	// behind (that reach no cycle) by a reverse Kahn pass.
	inOrder := make([]bool, g.N)
	for _, u := range order {
		inOrder[u] = true
	}
	outdeg := make([]int32, g.N)
	var stack []int32
	for u := 0; u < g.N; u++ {
		if inOrder[u] {
			continue
		}
		for _, v := range g.Succ(int32(u)) {
			if !inOrder[v] {
				outdeg[u]++
			}
		}
		if outdeg[u] == 0 {
			stack = append(stack, int32(u))
		}
	}
	if err := stopped(); err != nil {
		return nil, err
	}
	removed := inOrder
	for len(stack) > 0 {
		u := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		removed[u] = true
		for _, p := range g.Pred(u) {
			if removed[p] {
				continue
			}
			outdeg[p]--
			if outdeg[p] == 0 {
				stack = append(stack, p)
			}
		}
	}
	// What is left reaches a cycle and is reached from one, but may lie
	// between two cycles rather than on one: only a node of a strongly
	// connected component of two or more nodes (or with a loop) is on a
	// cycle.
	comp, sizes := g.SCC()
	onCycle := func(v int32) bool { return !removed[v] }
	var best []int32
	tries := 0
	if err := stopped(); err != nil {
		return nil, err
	}
	for u := 0; u < g.N && tries < 16; u++ {
		if removed[u] || sizes[comp[u]] < 2 && !slices.Contains(g.Succ(int32(u)), int32(u)) {
			continue
		}
		if err := stopped(); err != nil {
			return nil, err
		}
		tries++
		if c := g.CycleThrough(int32(u), onCycle); c != nil && (best == nil || len(c) < len(best)) {
			best = c
		}
	}
	return best, nil
}

// CycleThrough returns a shortest cycle through u as a node list starting
// at u, or nil when u is on no cycle.
func (g *Graph) CycleThrough(u int32, allowed func(int32) bool) []int32 {
	return NewSearcher(g).CycleThrough(u, allowed)
}

// A Searcher runs breadth-first searches on one graph, reusing its scratch
// space so that many searches cost only the nodes they visit.
type Searcher struct {
	g       *Graph
	parent  []int32 // -2: unvisited
	via     []int32 // edge id by which a node was first reached
	touched []int32
	queue   []int32
}

// NewSearcher returns a Searcher for g.
func NewSearcher(g *Graph) *Searcher {
	parent := make([]int32, g.N)
	for i := range parent {
		parent[i] = -2
	}
	return &Searcher{g: g, parent: parent, via: make([]int32, g.N)}
}

func (s *Searcher) reset() {
	for _, v := range s.touched {
		s.parent[v] = -2
	}
	s.touched = s.touched[:0]
	s.queue = s.queue[:0]
}

func (s *Searcher) visit(v, from int32) {
	s.parent[v] = from
	s.touched = append(s.touched, v)
	s.queue = append(s.queue, v)
}

// path returns the path ending at v, from the node whose parent is -1.
func (s *Searcher) path(v int32) []int32 {
	var p []int32
	for w := v; w >= 0; w = s.parent[w] {
		p = append(p, w)
	}
	for i, j := 0, len(p)-1; i < j; i, j = i+1, j-1 {
		p[i], p[j] = p[j], p[i]
	}
	return p
}

// ShortestPath is Graph.ShortestPath with reused scratch space.
func (s *Searcher) ShortestPath(src, dst int32, allowed func(int32) bool) []int32 {
	defer s.reset()
	if src == dst {
		return []int32{src}
	}
	s.visit(src, -1)
	for i := 0; i < len(s.queue); i++ {
		u := s.queue[i]
		for _, v := range s.g.Succ(u) {
			if s.parent[v] != -2 || (allowed != nil && !allowed(v)) {
				continue
			}
			s.visit(v, u)
			if v == dst {
				return s.path(v)
			}
		}
	}
	return nil
}

// CycleThrough is Graph.CycleThrough with reused scratch space.
func (s *Searcher) CycleThrough(u int32, allowed func(int32) bool) []int32 {
	defer s.reset()
	s.visit(u, -1)
	for i := 0; i < len(s.queue); i++ {
		w := s.queue[i]
		for _, v := range s.g.Succ(w) {
			if v == u {
				return s.path(w)
			}
			if s.parent[v] != -2 || (allowed != nil && !allowed(v)) {
				continue
			}
			s.visit(v, w)
		}
	}
	return nil
}

// CycleEdges returns the ids (indices in the list given to New) of the
// edges of a shortest cycle through u, starting with the edge leaving u, or
// nil when u is on no cycle. allowed, when non-nil, restricts the nodes.
func (s *Searcher) CycleEdges(u int32, allowed func(int32) bool) []int32 {
	defer s.reset()
	s.visit(u, -1)
	for i := 0; i < len(s.queue); i++ {
		w := s.queue[i]
		for j := s.g.OutStart[w]; j < s.g.OutStart[w+1]; j++ {
			v := s.g.Out[j]
			if v == u {
				ids := []int32{s.g.OutID[j]}
				for x := w; x != u; x = s.parent[x] {
					ids = append(ids, s.via[x])
				}
				for a, b := 0, len(ids)-1; a < b; a, b = a+1, b-1 {
					ids[a], ids[b] = ids[b], ids[a]
				}
				return ids
			}
			if s.parent[v] != -2 || (allowed != nil && !allowed(v)) {
				continue
			}
			s.visit(v, w)
			s.via[v] = s.g.OutID[j]
		}
	}
	return nil
}
