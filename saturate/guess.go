package saturate

import (
	"cmp"
	"context"
	"errors"
	"maps"
	"math/rand/v2"
	"slices"

	"github.com/isocheck/isocheck/progress"
)

// This file tries a commit order for CC before forcing every edge the
// axiom forces. A read of a key every session writes forces an edge from
// the last writer of each session in its past: on a million transactions
// in 2,000 sessions with Zipfian keys, a billion edges, most of which
// session order and the other edges already imply.
//
// A commit order co that contains so ∪ wr and satisfies the axiom proves
// CC: for every read of x from t1 in t3, no writer of x in t3's causal
// past comes after t1 in co. Such a writer must also come before t3's
// last direct predecessor (in session order or write-read order) in co,
// so only the writers of x between t1 and that one need looking at, each
// against t3's clock: in histories from real stores, which mostly read
// recent versions, a handful per read, whatever the number of sessions.
//
// The order tried is a topological order of so ∪ wr that follows the
// transactions' end times, where every transaction has them, or their
// order in the history: the order in which a store that resolves
// conflicts by commit order made their writes visible. Before the clocks,
// the edges RA's axiom forces against the order are added, in a pass
// much cheaper than the clocks (guess.order). A writer found in a
// reader's past after the version it read is an edge the axiom forces;
// the order is tried again with those edges, a few times, each order
// repaired checked on the writers it moved alone (recheck.go). If the
// edges found close a cycle, the history violates CC, shown by those
// edges alone; if no order tried satisfies the axiom, the check forces
// every edge (stream.go).

// maxGuesses bounds the orders tried.
const maxGuesses = 4

// maxPasses bounds the passes of RA's axiom that set up the first order
// tried (see guess.order): the edges a second pass found were few, and
// the clocks and a recheck find them for less.
const maxPasses = 1

// maxGuessEdges bounds the forced edges one order may find before it is
// given up: past that, it is too far from a commit order to repair.
const maxGuessEdges = 1 << 22

// guessStats counts, for tests, the rechecks that decided an order, the
// edges they found, and those whose edges differ from what the clocks of
// every session find on the same order.
type guessStats struct{ rechecks, recheckEdges, disagree int }

// keyWriter is a writer of a key, in the order tried.
type keyWriter struct {
	at      int32 // its place in the order
	session int32
	pos     int32 // its place in its session
	txn     int32
}

// guess is the state of one order tried.
type guess struct {
	s *saturator
	o *orderer
	// at[t] is t's place in the order (the initial transaction's, -1).
	at []int32
	// writers[writerStart[x]:writerStart[x+1]] are the writers of key x,
	// in the order; writerAt[i] is where the write of s.keys[i] is there.
	writers     []keyWriter
	writerStart []int32
	writerAt    []int32
	session     []int32 // the session of each transaction
}

// causalGuess looks for a commit order that satisfies CC's axiom (see
// above), at most limit clock entries live at once. It returns the
// verdict: satisfied (true), violated (false with the forced edges that
// close a cycle) or not found (ok false). It runs as the stages "guess CC
// order" and "check CC order", once per order tried, and returns the
// reason if ctx ends first.
func (s *saturator) causalGuess(ctx context.Context, o *orderer, limit int64) (satisfied, ok bool, found []forcedEdge, err error) {
	o.roots = s.rootsByEnd()
	if s.shuffle != 0 {
		o.roots = make([]int32, s.n)
		for t := range o.roots {
			o.roots[t] = int32(t)
		}
		rng := rand.New(rand.NewPCG(s.shuffle, 0))
		rng.Shuffle(len(o.roots), func(i, j int) { o.roots[i], o.roots[j] = o.roots[j], o.roots[i] })
	}
	defer func() { o.roots = nil }()
	g := &guess{s: s, o: o, at: make([]int32, s.n+1), session: make([]int32, s.n)}
	for t := range s.h.Txns {
		g.session[t] = int32(s.h.Txns[t].Session)
	}
	g.indexKeys()
	found = slices.Clone(s.versions)
	// checked is the last order the axiom was checked against, which
	// satisfies it but for edges found since (nil: none yet).
	var checked []int32
	for range maxGuesses {
		seq, acyclic, err := g.order(ctx, o, &found, checked == nil && !s.noRA)
		if err != nil || !acyclic {
			return false, err == nil, found, err
		}
		g.place(seq)
		if checked != nil && !s.noRecheck {
			m := progress.Start(ctx, "recheck CC order", int64(s.n), "transactions")
			more, ok, err := g.recheck(m, seq, checked, limit)
			if err != nil {
				return false, false, nil, err
			}
			if st := s.guessStats; st != nil && ok {
				if err := st.compare(ctx, g, seq, limit, more); err != nil {
					return false, false, nil, err
				}
			}
			if ok && len(more) == 0 {
				return true, true, found, nil
			}
			if ok {
				found = append(found, more...)
				checked = append(checked[:0], g.at...)
				continue
			}
		}
		more, ok, err := g.clocks(ctx, seq, limit)
		switch {
		case err != nil || !ok:
			return false, false, nil, err
		case len(more) == 0:
			return true, true, found, nil
		}
		found = append(found, more...)
		checked = append(checked[:0], g.at...)
	}
	return false, false, nil, nil
}

// clocks checks order seq (placed by g.place) against the axiom with the
// clocks of every session, and returns the edges it forces against seq:
// ok is false when they are too many to repair it.
func (g *guess) clocks(ctx context.Context, seq []int32, limit int64) (found []forcedEdge, ok bool, err error) {
	s := g.s
	m := progress.Start(ctx, "check CC order", int64(s.n), "transactions")
	st := s.newStream(g.o, limit)
	st.maxEdges = min(maxGuessEdges, cmp.Or(s.maxEdges, MaxForcedEdges))
	st.check = g.axiom(st)
	_, runs, err := st.run(m, func(visit func(u int32)) (bool, error) {
		for i, t := range seq {
			if i&(progress.Every-1) == progress.Every-1 {
				if err := m.Add(progress.Every); err != nil {
					return false, err
				}
			}
			visit(t)
		}
		return true, nil
	})
	var limitErr *LimitError
	switch {
	case errors.As(err, &limitErr) && limitErr.What == ForcedEdges:
		return nil, false, nil
	case err != nil:
		return nil, false, err
	}
	return runs.forcedEdges(), true, nil
}

// compare counts a recheck that decided seq, the edges it found, and
// whether the clocks of every session find the same ones.
func (st *guessStats) compare(ctx context.Context, g *guess, seq []int32, limit int64, rechecked []forcedEdge) error {
	st.rechecks++
	st.recheckEdges += len(rechecked)
	clocked, ok, err := g.clocks(ctx, seq, limit)
	if err != nil || !ok {
		return err
	}
	set := func(edges []forcedEdge) map[forcedEdge]bool {
		m := make(map[forcedEdge]bool, len(edges))
		for _, e := range edges {
			m[e] = true
		}
		return m
	}
	if !maps.Equal(set(clocked), set(rechecked)) {
		st.disagree++
	}
	return nil
}

// order returns a topological order of so ∪ wr ∪ found, following the
// order tried first (o.roots) where it can, with the edges RA's axiom
// forces (which CC's forces too) that go against it added to found: the
// writers a read's transaction observed directly, through its reads or
// its session, which an order by end times misses where the store's
// commit order does not follow the end times of concurrent transactions.
// Those edges are found with a pass of RA's axiom per order, much
// cheaper than CC's clocks, until the order has them all (or maxPasses).
//
// Without ra, it orders so ∪ wr ∪ found alone: an order repaired after a
// check, which the recheck checks whole (see recheck.go).
func (g *guess) order(ctx context.Context, o *orderer, found *[]forcedEdge, ra bool) (seq []int32, acyclic bool, err error) {
	s := g.s
	m := progress.Start(ctx, "guess CC order", int64(s.n), "transactions")
	seq = make([]int32, 0, s.n)
	for pass := 0; ; pass++ {
		into, err := o.setForced(m, [][]forcedEdge{*found}, nil)
		if err != nil || !into {
			return nil, false, err
		}
		seq = seq[:0]
		if acyclic, err = o.orderMeter(m, func(t int32) { seq = append(seq, t) }); err != nil || !acyclic {
			return nil, false, err
		}
		if !ra || pass == maxPasses {
			return seq, true, nil
		}
		for i, t := range seq {
			g.at[t] = int32(i)
		}
		edges, err := s.parallelRanked(m, s.readAtomic, g.at[:s.n])
		if err != nil {
			return nil, false, err
		}
		added := 0
		for _, b := range edges {
			*found = append(*found, b...)
			added += len(b)
		}
		if added == 0 {
			return seq, true, nil
		}
	}
}

// rootsByEnd returns the transactions by end time, if every included
// one has times, and otherwise nil (their order in the history).
func (s *saturator) rootsByEnd() []int32 {
	roots := make([]int32, 0, s.n)
	for t := range s.h.Txns {
		if !s.r.Included[t] {
			continue
		}
		if !s.h.Txns[t].HasTime() {
			return nil
		}
		roots = append(roots, int32(t))
	}
	slices.SortStableFunc(roots, func(a, b int32) int {
		return cmp.Compare(s.h.Txns[a].End, s.h.Txns[b].End)
	})
	for t := range s.h.Txns {
		if !s.r.Included[t] {
			roots = append(roots, int32(t))
		}
	}
	return roots
}

// indexKeys sizes the writers' lists, key by key.
func (g *guess) indexKeys() {
	s := g.s
	g.writerStart = make([]int32, s.h.NumKeys()+1)
	for _, k := range s.keys {
		g.writerStart[k+1]++
	}
	for k := range s.h.NumKeys() {
		g.writerStart[k+1] += g.writerStart[k]
	}
	g.writers = make([]keyWriter, len(s.keys))
	g.writerAt = make([]int32, len(s.keys))
}

// place records the order seq: each transaction's place, and the writers
// of each key in that order.
func (g *guess) place(seq []int32) {
	s := g.s
	g.at[s.t0] = -1
	fill := slices.Clone(g.writerStart[:len(g.writerStart)-1])
	for i, t := range seq {
		g.at[t] = int32(i)
		for j := s.keyStart[t]; j < s.keyStart[t+1]; j++ {
			k := s.keys[j]
			g.writers[fill[k]] = keyWriter{at: int32(i), session: g.session[t], pos: s.pos[t], txn: t}
			g.writerAt[j] = fill[k]
			fill[k]++
		}
	}
}

// axiom returns the check of a batch's reads against the order: for a
// read of x from t1 in t3, every writer of x after t1 and before t3's
// last direct predecessor (in session order or write-read order) in the
// order must be outside t3's past; one inside is an edge the axiom
// forces, recorded in runs.
func (g *guess) axiom(st *stream) func(runs *edgeRuns, rows rowView, batch []int32) {
	s := g.s
	return func(runs *edgeRuns, rows rowView, batch []int32) {
		var tails []int32
		for _, t3 := range batch {
			row := rows.row(st.slot[t3])
			// t3's past comes before the last of its direct
			// predecessors in the order.
			last := g.at[st.o.prev[t3]]
			for _, rd := range s.readsOf(t3) {
				last = max(last, g.at[rd.Writer])
			}
			for _, rd := range s.readsOf(t3) {
				x := rd.Key
				from := g.writerStart[x]
				if t1 := rd.Writer; t1 != s.t0 {
					i, _ := slices.BinarySearch(s.keys[s.keyStart[t1]:s.keyStart[t1+1]], x)
					from = g.writerAt[s.keyStart[t1]+int32(i)] + 1
				}
				tails = tails[:0]
				for _, w := range g.writers[from:g.writerStart[x+1]] {
					if w.at > last {
						break
					}
					if row[w.session] > w.pos {
						tails = append(tails, w.txn)
					}
				}
				if len(tails) > 0 {
					runs.add(rd.Writer, x, tails)
				}
			}
		}
	}
}
