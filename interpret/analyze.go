package interpret

import (
	"context"
	"fmt"
	"slices"

	"github.com/isocheck/isocheck/check"
	"github.com/isocheck/isocheck/digraph"
	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/polygraph"
	"github.com/isocheck/isocheck/resolve"
	"github.com/isocheck/isocheck/verdict"
)

// edgeID identifies a typed edge.
type edgeID struct {
	from, to int32
	kind     verdict.EdgeKind
	key      history.Key
}

func idOf(e polygraph.Edge) edgeID { return edgeID{e.From, e.To, e.Kind, e.Key} }

// inference says why an edge that the history does not show directly must
// hold: the other order of two writes of Key would close Cycle.
type inference struct {
	// Cycle is the cycle the other order would close, starting with the
	// edge of the other order that closes it. Nil for edges the solver
	// chose (Solver is then true) or the checker derived (Checker).
	Cycle  []polygraph.Edge
	Solver bool
	// Checker says the checker of the level derived the edge by the
	// level's own rules (see fromChecker), which the explanation states
	// in the level's terms.
	Checker bool
}

// analysis is the explanation of a small violating history: its
// polygraph (built with a constraint for every pair of write chains, so
// that every inferred order has a recorded reason), and either non-cycle
// anomalies, a cycle, a constraint both of whose orders close a cycle, or
// the solver's cycles.
type analysis struct {
	p         *polygraph.Polygraph
	l         level.Level
	anomalies []resolve.Anomaly
	cycle     []polygraph.Edge
	conflict  *check.Conflict
	core      [][]polygraph.Edge
	why       map[edgeID]*inference
	// weakerKept says the levels weaker than l are kept: cycles are
	// named by what l alone forbids (see describer.weakerKept).
	weakerKept bool
}

// analyze explains why h violates l. At SER, SI and SSER it decides the
// order of writes the way pruning does (an order that would close a cycle
// is ruled out) but records, for each decided order, the cycle that ruled
// the other out. At the other levels, whose rules are not SER's, it takes
// the evidence of the level's own checker (see fromChecker).
func analyze(ctx context.Context, h *history.History, l level.Level) (*analysis, error) {
	switch l {
	case level.RC, level.RA, level.CC, level.PC:
		return fromChecker(ctx, h, l)
	}
	p, err := polygraph.Build(ctx, h, polygraph.Options{Level: l, AllPairs: true})
	if err != nil {
		return nil, err
	}
	a := &analysis{p: p, l: l, why: make(map[edgeID]*inference)}
	if len(p.Anomalies) > 0 {
		a.anomalies = p.Anomalies
		return a, nil
	}
	lw := p.Lowering()
	known := slices.Clone(p.Known)
	decided := make([]bool, len(p.Constraints))
	for {
		g := digraph.New(lw.Nodes(), lw.LowerAll(known))
		if c := a.bestCycle(lw, g, known); c != nil {
			a.cycle = c
			return a, nil
		}
		changed := false
		n := len(known)
		for ci := range p.Constraints {
			if decided[ci] {
				continue
			}
			c := &p.Constraints[ci]
			eitherCycle := closes(lw, g, c.Either, known[:n])
			orCycle := closes(lw, g, c.Or, known[:n])
			switch {
			case eitherCycle != nil && orCycle != nil:
				a.conflict = &check.Conflict{Constraint: *c, EitherCycle: eitherCycle, OrCycle: orCycle}
				return a, nil
			case eitherCycle != nil:
				known = a.decide(known, c.Or, eitherCycle)
			case orCycle != nil:
				known = a.decide(known, c.Either, orCycle)
			default:
				continue
			}
			decided[ci] = true
			changed = true
		}
		if !changed {
			break
		}
	}
	// Reachability decides nothing more: the solver's cycles, each
	// closed by some choice, show the violation.
	res, err := check.Check(ctx, h, l)
	if err != nil {
		return nil, err
	}
	switch {
	case res.Cycle != nil:
		a.cycle = res.Cycle
	case res.Conflict != nil:
		a.conflict = res.Conflict
	default:
		a.core = res.Core
	}
	direct := make(map[edgeID]bool, len(known))
	for _, e := range known {
		direct[idOf(e)] = true
	}
	for _, c := range append(slices.Clone(a.core), a.cycle) {
		for _, e := range c {
			if !direct[idOf(e)] && (e.Kind == verdict.WW || e.Kind == verdict.RW) {
				a.why[idOf(e)] = &inference{Solver: true}
			}
		}
	}
	return a, nil
}

// fromChecker explains why h violates l by the evidence of l's own
// checker: for RC, RA and CC the saturation checker's, in which each
// anti-dependency R -RW-> W is the level's axiom (W's write was visible to
// R, by an earlier read of R's at RC, by a read or session order at RA,
// causally at CC, and yet R read an older version); for PC the
// serializability checker's on the history split into reads and writes,
// mapped back to h's transactions. Reasoning about the order of writes
// the way SER does would be wrong there: those levels allow lost updates
// and, below PC, more.
func fromChecker(ctx context.Context, h *history.History, l level.Level) (*analysis, error) {
	res, err := check.Check(ctx, h, l)
	if err != nil {
		return nil, err
	}
	if res.Verdict != verdict.Violated {
		return nil, fmt.Errorf("interpret: the counterexample does not violate %v on its own (%s)", l, res.Verdict)
	}
	a := &analysis{p: res.Polygraph, l: l, why: make(map[edgeID]*inference), anomalies: res.Anomalies}
	a.cycle, a.conflict, a.core = res.Cycle, res.Conflict, res.Core
	inf := &inference{Checker: true}
	if a.core != nil {
		inf = &inference{Solver: l == level.PC, Checker: l != level.PC}
	}
	mark := func(c []polygraph.Edge) {
		for _, e := range c {
			if e.Kind == verdict.WW || e.Kind == verdict.RW {
				a.why[idOf(e)] = inf
			}
		}
	}
	mark(a.cycle)
	for _, c := range a.core {
		mark(c)
	}
	if c := a.conflict; c != nil {
		mark(c.EitherCycle)
		mark(c.OrCycle)
	}
	return a, nil
}

// decide makes the edges of a constraint's side known, because the other
// side closes cycle.
func (a *analysis) decide(known, side []polygraph.Edge, cycle []polygraph.Edge) []polygraph.Edge {
	inf := &inference{Cycle: cycle}
	for _, e := range side {
		if _, ok := a.why[idOf(e)]; !ok {
			a.why[idOf(e)] = inf
		}
	}
	return append(known, side...)
}

// closes returns the cycle the first edge of side that closes one closes
// with the edges of g: the edge, then a shortest path back.
func closes(lw polygraph.Lowering, g *digraph.Graph, side, known []polygraph.Edge) []polygraph.Edge {
	var buf [2]digraph.Edge
	var best []polygraph.Edge
	for _, e := range side {
		for _, le := range lw.Lower(e, buf[:0]) {
			path := g.ShortestPath(le.To, le.From, nil)
			if path == nil {
				continue
			}
			c := append([]polygraph.Edge{e}, lw.RaisePath(path, known)...)
			if best == nil || len(c) < len(best) {
				best = c
			}
		}
	}
	return best
}

// bestCycle returns the cycle of g with the fewest transactions, then the
// fewest inferred edges, or nil when g is acyclic.
func (a *analysis) bestCycle(lw polygraph.Lowering, g *digraph.Graph, known []polygraph.Edge) []polygraph.Edge {
	if _, ok := g.TopoOrder(); ok {
		return nil
	}
	s := digraph.NewSearcher(g)
	var best []polygraph.Edge
	bestScore := [2]int{1 << 30, 0}
	for u := 0; u < g.N; u++ {
		nodes := s.CycleThrough(int32(u), nil)
		if nodes == nil {
			continue
		}
		c := lw.Raise(nodes, known)
		if len(c) != len(nodes) {
			continue
		}
		score := [2]int{a.txnSteps(c), a.inferredCount(c)}
		if best == nil || score[0] < bestScore[0] || score[0] == bestScore[0] && score[1] < bestScore[1] {
			best, bestScore = c, score
		}
	}
	if best == nil {
		nodes := g.FindCycle()
		best = lw.Raise(nodes, known)
	}
	return best
}

// txnSteps counts a cycle's steps between transactions (paths through
// time nodes count once).
func (a *analysis) txnSteps(c []polygraph.Edge) int {
	n := 0
	for _, e := range c {
		if a.p.IsTxn(e.To) || e.To == a.p.T0 {
			n++
		}
	}
	return n
}

func (a *analysis) inferredCount(c []polygraph.Edge) int {
	n := 0
	for _, e := range c {
		if a.why[idOf(e)] != nil {
			n++
		}
	}
	return n
}

// name returns the name the report of a gives the violation.
func (a *analysis) name() verdict.Anomaly {
	d := newDescriber(a.p, nil, false, nil)
	d.level, d.weakerKept = a.l, a.weakerKept
	switch {
	case len(a.anomalies) > 0:
		return a.anomalies[0].Kind
	case a.cycle != nil:
		return nameCycles(d, [][]polygraph.Edge{a.cycle})
	case a.conflict != nil:
		return nameCycles(d, [][]polygraph.Edge{a.conflict.EitherCycle, a.conflict.OrCycle})
	}
	return nameCycles(d, a.core)
}
