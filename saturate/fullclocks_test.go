package saturate

import (
	"context"

	"github.com/isocheck/isocheck/progress"
	"github.com/isocheck/isocheck/resolve"
)

// This file keeps, as an oracle for tests, CC as Check computed it before
// it streamed its clocks (stream.go): a vector clock for every
// transaction, and the axiom applied session by session, replaying each
// session's writes into a frontier as the reader's clock passes them. It
// shares nothing with causalStream but the indexes of groups.

// fullClocks holds a clock for every transaction.
type fullClocks struct {
	s *saturator
	// past[t*sessions+s] is one more than the last position of session
	// s in t's past (0: none).
	past []int32
}

// fullCausal checks CC on r with full clocks, the axiom on the given
// number of goroutines, and reports whether r satisfies it and how many
// edges the saturated graph has.
func fullCausal(r *resolve.Resolution, workers int) (satisfied bool, edges int, err error) {
	s := newSaturator(r)
	s.workers = workers
	s.indexGroups()
	o := newOrderer(s)
	c := &fullClocks{s: s, past: make([]int32, (s.n+1)*s.sessions)}
	ctx := context.Background()
	if acyclic, err := c.clocks(progress.Start(ctx, "causal clocks", int64(s.n), "transactions"), o); err != nil || !acyclic {
		return false, 0, err
	}
	forced, err := s.parallel(progress.Start(ctx, "saturate CC", int64(s.n), "transactions"), c.causal)
	if err != nil {
		return false, 0, err
	}
	edges = s.baseEdges() + len(s.versions)
	for _, f := range forced {
		edges += len(f)
	}
	acyclic, err := o.setForced(nil, append(forced, s.versions), nil)
	if err != nil || !acyclic {
		return false, edges, err
	}
	return o.order(nil), edges, nil
}

// clocks computes every transaction's clock. It reports false if so ∪ wr
// is cyclic.
func (c *fullClocks) clocks(m *progress.Meter, o *orderer) (bool, error) {
	s := c.s
	return o.orderMeter(m, func(u int32) {
		row := c.row(u)
		if p := o.prev[u]; p != s.t0 {
			copy(row, c.row(p))
			row[s.h.Txns[p].Session] = s.pos[p] + 1
		}
		for _, rd := range s.readsOf(u) {
			p := rd.Writer
			if p == s.t0 {
				continue
			}
			for j, x := range c.row(p) {
				row[j] = max(row[j], x)
			}
			ps := s.h.Txns[p].Session
			row[ps] = max(row[ps], s.pos[p]+1)
		}
	})
}

// row returns t's clock.
func (c *fullClocks) row(t int32) []int32 {
	return c.past[int(t)*c.s.sessions : int(t+1)*c.s.sessions]
}

// causal: a read of x from t1 in t3 must see a version no older than that
// of any writer of x in t3's causal past, (so ∪ wr)+ (Figure 2c).
//
// Of the writers of x in t3's past, only the last of each session can add
// anything (session order puts the others before it), and only if it is
// not in t1's past too (then it precedes t1 already). So each reading
// session is walked in order keeping a frontier: for every key and
// session writing it, the last writer in the current transaction's past.
// The past only grows along the session, so the frontier moves forward by
// replaying each session's writes once, in order, as the clock passes
// them; a read then looks at one entry per session writing its key.
func (c *fullClocks) causal(m *progress.Meter, w *worker, sessions [][]int32, first int) error {
	s := c.s
	type entry struct{ session, pos, txn int32 } // session: reading session plus one
	frontier := make([]entry, len(s.groupSession))
	replayed := make([]int32, s.sessions) // positions of each session replayed
	ticks := 0
	for i, sess := range sessions {
		sid := int32(first+i) + 1
		clear(replayed)
		for _, t3 := range sess {
			if err := tick(m, &ticks); err != nil {
				return err
			}
			if !s.r.Included[t3] {
				continue
			}
			row := c.row(t3)
			for ws, upto := range row {
				for p := replayed[ws]; p < upto; p++ {
					u := s.h.Sessions[ws][p]
					for i := s.keyStart[u]; i < s.keyStart[u+1]; i++ {
						frontier[s.keyGroup[i]] = entry{sid, p, u}
					}
				}
				replayed[ws] = max(replayed[ws], upto)
			}
			for _, alpha := range s.readsOf(t3) {
				var t1row []int32 // t1's causal past (none for the initial state)
				if alpha.Writer != s.t0 {
					t1row = c.row(alpha.Writer)
				}
				for g := s.groupStart[alpha.Key]; g < s.groupStart[alpha.Key+1]; g++ {
					f := frontier[g]
					if f.session != sid || f.txn == alpha.Writer {
						continue
					}
					if t1row != nil && f.pos < t1row[s.groupSession[g]] {
						continue
					}
					w.force(f.txn, alpha.Writer, alpha.Key)
				}
			}
		}
	}
	return nil
}
