package polygraph

import (
	"iter"

	"github.com/isocheck/isocheck/digraph"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/verdict"
)

// A Lowering maps the typed edges of a polygraph to the plain directed
// graph whose acyclicity a level demands.
//
// SER and SSER use the edges as they are: SO ∪ WR ∪ WW ∪ RW (∪ RT) must be
// acyclic. SI needs (SO ∪ WR ∪ WW) ; RW? acyclic (Huang et al., PVLDB 2023,
// Theorem 6). Rather than compose edges, the lowering doubles the nodes
// (docs/design.md, "SI without composing edges"): node v and v° = v+N. A
// dependency edge u → v becomes u → v and u° → v; an RW edge u → v becomes
// u → v°. Every RW edge then leaves a node entered by a dependency edge,
// and only dependency edges leave v°, so closed walks of the doubled graph
// are exactly those of Dep ; RW?. The property test against the reference
// checker confirms it.
type Lowering struct {
	doubled bool
	n       int32 // nodes of the polygraph
}

// NewLowering returns the lowering for level l of a polygraph with n nodes.
func NewLowering(l level.Level, n int) Lowering {
	return Lowering{doubled: l == level.SI, n: int32(n)}
}

// Level returns the level p was built for (Options.Level).
func (p *Polygraph) Level() level.Level { return p.level }

// Lowering returns the lowering of p's edges for the level it was built
// for: the stages after it (prune, encode, interpret) take the level from
// the polygraph rather than being told it again.
func (p *Polygraph) Lowering() Lowering { return NewLowering(p.level, p.NumNodes) }

// Nodes is the number of nodes of the lowered graph.
func (lw Lowering) Nodes() int {
	if lw.doubled {
		return 2 * int(lw.n)
	}
	return int(lw.n)
}

// Lower appends the lowered edges of e to out.
func (lw Lowering) Lower(e Edge, out []digraph.Edge) []digraph.Edge {
	if !lw.doubled {
		return append(out, digraph.Edge{From: e.From, To: e.To})
	}
	if e.Kind == verdict.RW {
		return append(out, digraph.Edge{From: e.From, To: e.To + lw.n})
	}
	return append(out, digraph.Edge{From: e.From, To: e.To}, digraph.Edge{From: e.From + lw.n, To: e.To})
}

// LowerAll lowers a list of edges.
func (lw Lowering) LowerAll(edges []Edge) []digraph.Edge {
	out := make([]digraph.Edge, 0, 2*len(edges))
	for _, e := range edges {
		out = lw.Lower(e, out)
	}
	return out
}

// Chunks lowers the edges of each list in turn, in order, as a sequence
// of chunks of lowered edges (each valid until the next):
// digraph.Graph.ResetChunks builds the lowered graph from it without a
// list of the lowered edges. Each range over it lowers anew, with its own
// buffer.
func (lw Lowering) Chunks(lists ...[]Edge) iter.Seq[[]digraph.Edge] {
	return func(yield func([]digraph.Edge) bool) {
		buf := make([]digraph.Edge, 0, loweringChunk+2)
		for _, edges := range lists {
			for _, e := range edges {
				if buf = lw.Lower(e, buf); len(buf) >= loweringChunk {
					if !yield(buf) {
						return
					}
					buf = buf[:0]
				}
			}
		}
		if len(buf) > 0 {
			yield(buf)
		}
	}
}

// loweringChunk is the number of lowered edges Chunks hands out at once.
const loweringChunk = 4096

// ClosesCycle reports whether adding e to a graph whose reachability c
// answers would close a cycle: whether some lowered edge a → b of e has
// b reaching a.
func (lw Lowering) ClosesCycle(c *digraph.Clocks, e Edge) (bool, digraph.Edge) {
	var buf [2]digraph.Edge
	for _, le := range lw.Lower(e, buf[:0]) {
		if c.Reaches(le.To, le.From) {
			return true, le
		}
	}
	return false, digraph.Edge{}
}

// Raise turns a cycle of the lowered graph, given as nodes, back into typed
// edges, choosing for each step an edge of candidates that lowers to it.
func (lw Lowering) Raise(cycle []int32, candidates []Edge) []Edge {
	return lw.raise(cycle, true, candidates)
}

// RaisePath is Raise for a path: no step from its last node to its first.
func (lw Lowering) RaisePath(path []int32, candidates []Edge) []Edge {
	return lw.raise(path, false, candidates)
}

func (lw Lowering) raise(nodes []int32, closed bool, candidates []Edge) []Edge {
	steps := len(nodes)
	if !closed {
		steps--
	}
	want := make(map[step]int, steps)
	for i := 0; i < steps; i++ {
		want[lw.raiseStep(nodes[i], nodes[(i+1)%len(nodes)])] = -1
	}
	for i, e := range candidates {
		s := step{e.From, e.To, lw.doubled && e.Kind == verdict.RW}
		if j, ok := want[s]; ok && j < 0 {
			want[s] = i
		}
	}
	out := make([]Edge, 0, steps)
	for i := 0; i < steps; i++ {
		if j := want[lw.raiseStep(nodes[i], nodes[(i+1)%len(nodes)])]; j >= 0 {
			out = append(out, candidates[j])
		}
	}
	return out
}

// step is a typed edge's endpoints and whether it is an RW edge, which is
// what a lowered edge tells of it.
type step struct {
	from, to int32
	rw       bool
}

func (lw Lowering) raiseStep(a, b int32) (s step) {
	if !lw.doubled {
		s.from, s.to = a, b
		return s
	}
	if b >= lw.n {
		s.from, s.to, s.rw = a, b-lw.n, true
		return s
	}
	s.from, s.to = a%lw.n, b
	return s
}
