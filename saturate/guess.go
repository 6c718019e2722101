package saturate

import (
	"cmp"
	"context"
	"errors"
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
// the edges RA's axiom forces against the order are added, in passes
// much cheaper than the clocks (guess.order). A writer found in a
// reader's past after the version it read is an edge the axiom forces;
// the order is tried again with those edges, a few times. If the edges
// found close a cycle, the history violates CC, shown by those edges
// alone; if no order tried satisfies the axiom, the check forces every
// edge (stream.go).

// maxGuesses bounds the orders tried.
const maxGuesses = 4

// maxPasses bounds the passes of RA's axiom that set up each order
// tried (see guess.order).
const maxPasses = 4

// maxGuessEdges bounds the forced edges one order may find before it is
// given up: past that, it is too far from a commit order to repair.
const maxGuessEdges = 1 << 22

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
	defer func() { o.roots = nil }()
	g := &guess{s: s, at: make([]int32, s.n+1), session: make([]int32, s.n)}
	for t := range s.h.Txns {
		g.session[t] = int32(s.h.Txns[t].Session)
	}
	g.indexKeys()
	// The place of each transaction in the order tried first.
	rank := make([]int32, s.n)
	for t := range rank {
		rank[t] = int32(t)
	}
	for i, t := range o.roots {
		rank[t] = int32(i)
	}
	found = slices.Clone(s.versions)
	for range maxGuesses {
		seq, acyclic, err := g.order(ctx, o, rank, &found)
		if err != nil || !acyclic {
			return false, err == nil, found, err
		}
		g.place(seq)
		m := progress.Start(ctx, "check CC order", int64(s.n), "transactions")
		st := s.newStream(o, limit)
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
			return false, false, nil, nil
		case err != nil:
			return false, false, nil, err
		case runs.edges == 0:
			return true, true, found, nil
		}
		found = append(found, runs.forcedEdges()...)
		rank = g.at[:s.n]
	}
	return false, false, nil, nil
}

// order returns a topological order of so ∪ wr ∪ found, following rank
// where it can, with the edges RA's axiom forces (which CC's forces too)
// that go against it added to found: the writers a read's transaction
// observed directly, through its reads or its session, which an order by
// end times misses where the store's commit order does not follow the
// end times of concurrent transactions. Those edges are found with a
// pass of RA's axiom per order, much cheaper than CC's clocks, until
// the order has them all.
func (g *guess) order(ctx context.Context, o *orderer, rank []int32, found *[]forcedEdge) (seq []int32, acyclic bool, err error) {
	s := g.s
	m := progress.Start(ctx, "guess CC order", int64(s.n), "transactions")
	seq = make([]int32, 0, s.n)
	for range maxPasses {
		ra, err := s.parallelRanked(m, s.readAtomic, rank)
		if err != nil {
			return nil, false, err
		}
		added := 0
		for _, b := range ra {
			*found = append(*found, b...)
			added += len(b)
		}
		if added == 0 && len(seq) > 0 {
			return seq, true, nil
		}
		into, err := o.setForced(m, [][]forcedEdge{*found}, nil)
		if err != nil || !into {
			return nil, false, err
		}
		seq = seq[:0]
		if acyclic, err = o.orderMeter(m, func(t int32) { seq = append(seq, t) }); err != nil || !acyclic {
			return nil, false, err
		}
		for i, t := range seq {
			g.at[t] = int32(i)
		}
		rank = g.at[:s.n]
	}
	return seq, true, nil
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
