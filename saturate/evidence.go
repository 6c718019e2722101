package saturate

// This file turns a cycle of the saturated graph into evidence a reader
// can check: each forced edge a → b stands for a read that had observed a
// and yet read the older version of b, so the cycle is restated as reads
// and anti-dependencies (Adya's terms), as one cycle, a conflict of two,
// or cycles one of which every commit order closes.

import (
	"github.com/isocheck/isocheck/digraph"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/polygraph"
	"github.com/isocheck/isocheck/resolve"
	"github.com/isocheck/isocheck/verdict"
)

// cycle finds a cycle of so ∪ wr ∪ forced, which must have one, by
// building the graph in full, with the kind and key of every edge, and
// restates it in terms of reads where it can (see readCycle, conflict and
// alternatives). It returns the number of edges too.
func (s *saturator) cycle(l level.Level, forced [][]forcedEdge) (edgeCount int, cycle []polygraph.Edge, conflict *Conflict, core [][]polygraph.Edge) {
	edges := s.base()
	base := len(edges)
	for _, e := range s.versions {
		edges = append(edges, polygraph.Edge{From: e.from, To: e.to, Kind: verdict.WW, Key: e.key})
	}
	known := len(edges)
	for _, f := range forced {
		for _, e := range f {
			edges = append(edges, polygraph.Edge{From: e.from, To: e.to, Kind: verdict.WW, Key: e.key})
		}
	}
	plain := make([]digraph.Edge, len(edges))
	for i, e := range edges {
		plain[i] = digraph.Edge{From: e.From, To: e.To}
	}
	g := digraph.New(s.n+1, plain)
	lw := polygraph.NewLowering(level.SER, s.n+1)
	cycle = lw.Raise(g.FindCycle(), edges)
	w := witnesses{s: s, l: l, base: edges[:base], plain: plain[:base]}
	versions := make(map[polygraph.Edge]bool, known-base)
	for _, e := range edges[base:known] {
		versions[e] = true
	}
	var forcedInCycle []polygraph.Edge
	for _, e := range cycle {
		if e.Kind == verdict.WW && !versions[e] {
			forcedInCycle = append(forcedInCycle, e)
		}
	}
	for _, e := range forcedInCycle {
		if e.To == s.t0 || len(forcedInCycle) == 1 {
			if c := w.readCycle(e); c != nil {
				return len(edges), c, nil, nil
			}
		}
	}
	switch {
	case len(cycle) == 2 && len(forcedInCycle) == 2:
		if c := w.conflict(cycle[0], cycle[1]); c != nil {
			return len(edges), nil, c, nil
		}
	case len(forcedInCycle) > 1:
		if core := w.alternatives(forcedInCycle); core != nil {
			return len(edges), nil, nil, core
		}
	}
	return len(edges), cycle, nil, nil
}

// witnesses finds why an edge was forced: the read that had observed a
// writer and yet read an older version.
type witnesses struct {
	s        *saturator
	l        level.Level
	base     []polygraph.Edge // so ∪ wr
	plain    []digraph.Edge
	searcher *digraph.Searcher
}

// of returns a read of the key of the forced edge t2 → t1 from t1 whose
// transaction t3 had observed t2, and how: an earlier read from t2 (RC),
// that or session order (RA), or a path of both (CC). It returns nil if
// there is none, which cannot happen.
func (w *witnesses) of(forced polygraph.Edge) (rd resolve.ExternalRead, observed []polygraph.Edge) {
	s, l := w.s, w.l
	t2, t1, x := forced.From, forced.To, forced.Key
	for _, rd := range s.r.Reads {
		if rd.Key != x || rd.Writer != t1 {
			continue
		}
		t3 := rd.Reader
		for _, beta := range s.readsOf(t3) {
			if beta.Writer == t2 && (l != level.RC || beta.Op < rd.Op) {
				return rd, []polygraph.Edge{{From: t2, To: t3, Kind: verdict.WR, Key: beta.Key}}
			}
		}
		switch {
		case l != level.RC && s.h.Txns[t2].Session == s.h.Txns[t3].Session && s.pos[t2] < s.pos[t3]:
			return rd, []polygraph.Edge{{From: t2, To: t3, Kind: verdict.SO, Key: polygraph.NoKey}}
		case l == level.CC:
			if w.searcher == nil {
				w.searcher = digraph.NewSearcher(digraph.New(s.n+1, w.plain))
			}
			var path []polygraph.Edge
			for _, id := range w.searcher.PathEdges(t2, t3, nil) {
				path = append(path, w.base[id])
			}
			if path != nil {
				return rd, path
			}
		}
	}
	return resolve.ExternalRead{}, nil
}

// readCycle restates a cycle through a forced edge t2 → t1 on key x in
// the terms of Adya's dependency graphs: a transaction t3 observed t2 and
// yet read x from t1, whose version t2 overwrote. The cycle is t3's
// observation of t2 and the anti-dependency t3 → t2. That t2's version is
// the newer needs no more edges when t1 is the initial state, whose
// version precedes every other, or when the rest of the cycle, session
// order and reads alone, puts t1 before t2. That is how read-your-writes,
// fractured reads and causality violations look.
func (w *witnesses) readCycle(forced polygraph.Edge) []polygraph.Edge {
	rd, observed := w.of(forced)
	if observed == nil {
		return nil
	}
	return append(observed, polygraph.Edge{From: rd.Reader, To: forced.From, Kind: verdict.RW, Key: forced.Key})
}

// conflict restates a cycle of two forced edges, a → b and b → a, as the
// two orders of a and b, each of which some read contradicts: if b came
// first, the read that forced a → b observed a and yet read the older
// version of b (an anti-dependency back to a), and the other way round.
// That is how fractured reads and causality violations between two
// writers look.
func (w *witnesses) conflict(ab, ba polygraph.Edge) *Conflict {
	a, b := ab.From, ab.To
	rdAB, obsA := w.of(ab)
	rdBA, obsB := w.of(ba)
	if obsA == nil || obsB == nil {
		return nil
	}
	return &Conflict{
		Constraint: polygraph.Constraint{Key: ab.Key, A: a, B: b,
			Either: []polygraph.Edge{{From: a, To: b, Kind: verdict.WW, Key: ab.Key}},
			Or:     []polygraph.Edge{{From: b, To: a, Kind: verdict.WW, Key: ab.Key}}},
		// a first breaks b → a: its reader observed b and read a's older version.
		EitherCycle: append(obsB, polygraph.Edge{From: rdBA.Reader, To: b, Kind: verdict.RW, Key: ba.Key}),
		OrCycle:     append(obsA, polygraph.Edge{From: rdAB.Reader, To: a, Kind: verdict.RW, Key: ab.Key}),
	}
}

// alternatives restates a cycle with several forced edges: the commit
// order must put some forced edge a → b of it the other way round, since
// session order and reads, its other edges, only go forward. Then the read
// that forced a → b observed a and yet read the version of b, older than
// a's: an anti-dependency back to a, closing a cycle with the
// observation. It returns that cycle for each forced edge, at least one of
// which every commit order closes, or nil if a witness is missing.
func (w *witnesses) alternatives(forced []polygraph.Edge) [][]polygraph.Edge {
	var core [][]polygraph.Edge
	for _, f := range forced {
		rd, observed := w.of(f)
		if observed == nil {
			return nil
		}
		core = append(core, append(observed, polygraph.Edge{From: rd.Reader, To: f.From, Kind: verdict.RW, Key: f.Key}))
	}
	return core
}
