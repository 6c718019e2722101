// Package prune resolves the constraints of a polygraph that reachability
// alone decides (Huang, Liu, Chen, Wei, Basin, Li and Pan, "Efficient
// Black-box Checking of Snapshot Isolation in Databases" (PolySI,
// PVLDB 16(6), 2023), Section 4.3, Algorithm 1): when one side of a
// constraint would close a cycle with the known edges, the other side
// becomes known. It repeats until nothing changes, and reports a violation
// when the known edges already form a cycle or both sides of a constraint
// close one.
package prune

import (
	"context"

	"github.com/isocheck/isocheck/digraph"
	"github.com/isocheck/isocheck/polygraph"
	"github.com/isocheck/isocheck/progress"
)

// MaxClockEntries bounds the memory of reachability clocks (int32 entries):
// past it, pruning is skipped and every constraint goes to the solver.
const MaxClockEntries = 1 << 28

// minDecidedPerRound is the fewest constraints a round of pruning must
// decide for another round to follow.
const minDecidedPerRound = 64

// clockCostPerConstraint weighs a round of pruning against the solver: a
// round costs a pass of the clocks, about (nodes + edges) · chains steps,
// and the solver spends about as much on clockCostPerConstraint of those
// steps per constraint it is given. Pruning starts, and goes on, only
// while the constraints left are worth a round. Measured on generated SI
// histories: a zipfian one of 50k transactions (242k constraints, 1.1M
// known edges, 25 chains) checks in 1.9 s with pruning and 5 s without;
// uniform ones over 1M keys, 200k transactions (15k constraints, 6.5M
// edges) and 1M (62k, 32M), spent 8 s and 34 s pruning to save nothing.
const clockCostPerConstraint = 1000

// Resolution records why a constraint was decided by pruning.
type Resolution struct {
	Constraint int
	// Either says the Either side became known (the Or side was
	// impossible).
	Either bool
	// Blocked is the edge of the impossible side that closed a cycle with
	// the known edges.
	Blocked polygraph.Edge
}

// Violation is a proof found by pruning.
type Violation struct {
	// Cycle is a cycle of known edges (when Constraint is -1).
	Cycle []polygraph.Edge
	// Constraint, when not -1, is a constraint both of whose sides close a
	// cycle with the known edges: EitherCycle and OrCycle show one each
	// (the side's edge first, then known edges back to its start).
	Constraint  int
	EitherCycle []polygraph.Edge
	OrCycle     []polygraph.Edge
}

// Result is what pruning leaves.
type Result struct {
	// Known holds the polygraph's known edges and those pruning added.
	// It extends p.Known in place where its array has room, so appending
	// to p.Known afterwards would overwrite it.
	Known []polygraph.Edge
	// Remaining lists the indices of the constraints left for the solver.
	Remaining []int
	Resolved  []Resolution
	// Violation is non-nil when pruning alone proved a violation.
	Violation *Violation
	Rounds    int
	// Skipped says the graph was too large for reachability clocks and
	// nothing was pruned.
	Skipped bool
	// Graph is the graph of Known lowered for the level (each edge's
	// lowering in Known's order, without edge ids: an edge is known by
	// its place in Graph.Out) and Order a topological order of it, when
	// there is no Violation: the encoding reuses them.
	Graph *digraph.Graph
	Order []int32
}

// Prune resolves what it can of p's constraints for the level p was built
// for. It runs as
// the stage "prune", counting the constraints decided; when ctx ends
// first, it returns the Result so far (Rounds, Resolved) with the reason
// (context.Cause).
func Prune(ctx context.Context, p *polygraph.Polygraph) (*Result, error) {
	return PruneWith(ctx, p, Options{})
}

// Options change what pruning does, for measurements.
type Options struct {
	// NoDecide only checks that the known edges are acyclic: every
	// constraint is left for the solver.
	NoDecide bool
}

// PruneWith is Prune with opts.
func PruneWith(ctx context.Context, p *polygraph.Polygraph, opts Options) (*Result, error) {
	m := progress.Start(ctx, "prune", int64(len(p.Constraints)), "constraints")
	lw := p.Lowering()
	res := &Result{}
	// The edges pruning decides are kept apart from the polygraph's until
	// the end, so that the two are never both copied (a million
	// transactions make tens of millions of known edges); known joins
	// them for the evidence of a violation. Each round's graph is built
	// from both, lowered as it goes (the list of lowered edges would be
	// as large as the graph).
	var added []polygraph.Edge
	known := func() []polygraph.Edge { return append(p.Known[:len(p.Known)], added...) }
	know := func(side []polygraph.Edge) { added = append(added, side...) }
	remaining := make([]int, len(p.Constraints))
	for i := range remaining {
		remaining[i] = i
	}
	// Each round checks that the known edges are acyclic and, unless the
	// last round said to stop, decides what it can; edges decided in a
	// round are checked by the next.
	g, clocks := &digraph.Graph{}, &digraph.Clocks{}
	var decided map[int32]bool // the constraints decided, for the choices
	choicesKnown := 0          // choices the last round made known
	for done := false; ; {
		if err := m.Set(int64(len(p.Constraints) - len(remaining))); err != nil {
			return res, err
		}
		res.Rounds++
		g.ResetChunks(lw.Nodes(), lw.Chunks(p.Known, added), false)
		if err := m.Err(); err != nil {
			return res, err
		}
		order, ok := g.TopoOrder()
		if !ok {
			cycle, err := g.FindCycleMeter(m)
			if err != nil {
				return res, err
			}
			res.Known = known()
			res.Violation = &Violation{Constraint: -1, Cycle: lw.Raise(cycle, res.Known)}
			res.Remaining = remaining
			return res, nil
		}
		res.Graph, res.Order = g, order
		if done || opts.NoDecide || len(remaining) == 0 && !openChoices(p) {
			break
		}
		if int64(len(remaining)+len(p.ChoiceEdges))*clockCostPerConstraint < int64(g.N+len(g.Out))*int64(max(1, len(p.Chains))) {
			// A pass of the clocks over a graph far larger than the
			// constraints costs more than the solver spends on them
			// (list histories, whose reads fix nearly every order;
			// uniform histories over many keys).
			break
		}
		if digraph.ClockEntries(g.N, len(p.Chains)) > MaxClockEntries {
			res.Skipped = true
			break
		}
		if err := m.Err(); err != nil {
			return res, err
		}
		if err := clocks.ResetMeter(m, g, order, p.Chains); err != nil {
			return res, err
		}
		kept := remaining[:0]
		changed := false
		for i, ci := range remaining {
			// A constraint may cost a search of the graph (reachability
			// of a node on no chain): look often.
			if i&255 == 255 {
				if err := m.Err(); err != nil {
					return res, err
				}
			}
			c := &p.Constraints[ci]
			eitherBad, eitherEdge := closesCycle(lw, clocks, c.Either)
			orBad, orEdge := closesCycle(lw, clocks, c.Or)
			switch {
			case eitherBad && orBad:
				res.Known = known()
				res.Graph, res.Order = nil, nil
				res.Violation = &Violation{
					Constraint:  ci,
					EitherCycle: witness(lw, g, eitherEdge, res.Known),
					OrCycle:     witness(lw, g, orEdge, res.Known),
				}
				res.Remaining = append(kept, ci)
				return res, nil
			case eitherBad:
				know(c.Or)
				res.Resolved = append(res.Resolved, Resolution{ci, false, eitherEdge})
				changed = true
			case orBad:
				know(c.Either)
				res.Resolved = append(res.Resolved, Resolution{ci, true, orEdge})
				changed = true
			default:
				kept = append(kept, ci)
			}
		}
		// Writers of choices: decided by the same clocks.
		if len(p.ChoiceEdges) > 0 {
			if decided == nil {
				decided = make(map[int32]bool)
			}
			for _, r := range res.Resolved[len(decided):] {
				decided[int32(r.Constraint)] = r.Either
			}
			dropped, known, err := pruneChoices(m, p, lw, clocks, decided, know)
			if err != nil {
				return res, err
			}
			changed = changed || dropped
			choicesKnown = known
		}
		// Each round costs a pass over the whole graph: stop once a round
		// decides fewer constraints than half of those left, which the
		// next rarely pays for; the solver takes the rest. (On generated
		// SI histories of 10k and 100k transactions this is 10% faster
		// than stopping under an eighth, and the same on the corpus.)
		decided := len(remaining) - len(kept)
		remaining = kept
		if !changed {
			break
		}
		// Choices made known bring edges that decide more: go on while
		// they come in numbers.
		done = (decided < minDecidedPerRound || decided < len(kept)/2) && choicesKnown < minDecidedPerRound
	}
	clocks = nil
	res.Known = known()
	res.Remaining = remaining
	return res, nil
}

// openChoices reports whether some choice of p has several writers left.
func openChoices(p *polygraph.Polygraph) bool {
	for i := range p.ChoiceEdges {
		if !p.ChoiceEdges[i].Known {
			return true
		}
	}
	return false
}

func closesCycle(lw polygraph.Lowering, c *digraph.Clocks, side []polygraph.Edge) (bool, polygraph.Edge) {
	for _, e := range side {
		if bad, _ := lw.ClosesCycle(c, e); bad {
			return true, e
		}
	}
	return false, polygraph.Edge{}
}

// witness returns the cycle that edge e closes with the known edges: e,
// then a shortest known path back.
func witness(lw polygraph.Lowering, g *digraph.Graph, e polygraph.Edge, known []polygraph.Edge) []polygraph.Edge {
	var buf [2]digraph.Edge
	for _, le := range lw.Lower(e, buf[:0]) {
		path := g.ShortestPath(le.To, le.From, nil)
		if path == nil {
			continue
		}
		return append([]polygraph.Edge{e}, lw.RaisePath(path, known)...)
	}
	return []polygraph.Edge{e}
}
