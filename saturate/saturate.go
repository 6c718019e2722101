// Package saturate checks read committed (RC), read atomic (RA) and causal
// consistency (CC) in polynomial time, without a solver (seed 000,
// Section 3, Algorithm 1).
//
// The axioms of these levels never have the commit order on their left
// side, so one pass finds every commit-order edge they force: start from
// session order and write-read order, and for each read α of x from t1 in
// t3, put before t1 every other writer t2 of x that α's transaction had
// already observed — through an earlier read (RC), a read or its session
// (RA), or its causal past (CC). The history satisfies the level iff the
// result is acyclic.
//
// The causal past is kept as per-session vector clocks, and only the last
// writer of x per session in it gets an edge (session order implies the
// rest), so the pass is near-linear: O(reads × sessions) for CC.
package saturate

import (
	"context"
	"fmt"
	"slices"

	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/internal/digraph"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/polygraph"
)

// Result is the outcome of a check.
type Result struct {
	Satisfied bool
	// Anomalies are the reads no commit order explains.
	Anomalies []polygraph.Anomaly
	// Cycle is a cycle of commit-order edges the level forces. Forced
	// edges have kind WW: the writer the reader had observed must precede
	// the writer it read, on the key read.
	Cycle []polygraph.Edge
	// Edges counts the edges of the saturated graph.
	Edges int
}

// MaxClockEntries bounds the memory of CC's vector clocks (int32 entries).
const MaxClockEntries = 1 << 28

// Check decides whether the resolved history r satisfies l, one of RC, RA
// and CC.
func Check(ctx context.Context, r *polygraph.Resolution, l level.Level) (*Result, error) {
	switch l {
	case level.RC, level.RA, level.CC:
	default:
		return nil, fmt.Errorf("saturate: level %v is not RC, RA or CC", l)
	}
	res := &Result{}
	for _, a := range r.Anomalies {
		// Reading a key twice and getting a newer value is allowed at RC;
		// whether the values went backwards is for the axiom to decide.
		if a.Kind == polygraph.NonRepeatableRead && l == level.RC {
			continue
		}
		res.Anomalies = append(res.Anomalies, a)
	}
	if len(res.Anomalies) > 0 {
		return res, nil
	}
	s := newSaturator(r)
	edges := s.base()
	var err error
	switch l {
	case level.RC:
		edges = s.readCommitted(edges)
	case level.RA:
		s.indexWriters()
		edges = s.readAtomic(edges)
	case level.CC:
		s.indexWriters()
		edges, err = s.causal(ctx, edges)
		if err != nil {
			return nil, err
		}
	}
	res.Edges = len(edges)
	plain := make([]digraph.Edge, len(edges))
	for i, e := range edges {
		plain[i] = digraph.Edge{From: e.From, To: e.To}
	}
	g := digraph.New(s.n+1, plain)
	if _, ok := g.TopoOrder(); ok {
		res.Satisfied = true
		return res, nil
	}
	lw := polygraph.NewLowering(level.SER, s.n+1)
	res.Cycle = lw.Raise(g.FindCycle(), edges)
	return res, nil
}

// sessionWriters are the writers of a key in one session, in session order.
type sessionWriters struct {
	session int32
	txns    []int32
	pos     []int32 // pos[i]: session position of txns[i], kept beside it for locality
}

// saturator holds the indexes the axioms need.
type saturator struct {
	r   *polygraph.Resolution
	h   *history.History
	n   int   // transactions; node n is the initial transaction
	t0  int32 // = n
	pos []int32
	// writers[k] lists the included transactions that write key k, by
	// session, in session order (only for RA and CC: see indexWriters).
	writers [][]sessionWriters
	// readStart[t]: r.Reads[readStart[t]:readStart[t+1]] are the external
	// reads of t, in program order (Resolve lists them by transaction).
	readStart []int32
	// keys[keyStart[t]:keyStart[t+1]] are the keys t writes, sorted.
	keys     []history.Key
	keyStart []int32
}

func newSaturator(r *polygraph.Resolution) *saturator {
	h := r.History
	n := len(h.Txns)
	s := &saturator{r: r, h: h, n: n, t0: int32(n), pos: make([]int32, n),
		readStart: make([]int32, n+1),
		keyStart:  make([]int32, n+1)}
	for _, sess := range h.Sessions {
		for i, t := range sess {
			s.pos[t] = int32(i)
		}
	}
	// Transactions' keys written and reads, as ranges of flat arrays.
	for t := range h.Txns {
		s.keyStart[t] = int32(len(s.keys))
		if !r.Included[t] {
			continue
		}
		tx := &h.Txns[t]
		for i := tx.OpStart; i < tx.OpEnd; i++ {
			if r.IsFinalWrite(i) {
				s.keys = append(s.keys, h.Ops[i].Key)
			}
		}
		slices.Sort(s.keys[s.keyStart[t]:])
	}
	s.keyStart[n] = int32(len(s.keys))
	for _, rd := range r.Reads {
		s.readStart[rd.Reader+1]++
	}
	for t := 0; t < n; t++ {
		s.readStart[t+1] += s.readStart[t]
	}
	return s
}

// indexWriters fills s.writers, which RA and CC need. Everything lives in
// a few flat arrays (a counting sort by key, in session order), so that a
// history of a million transactions costs no allocation per key.
func (s *saturator) indexWriters() {
	h, r := s.h, s.r
	numKeys := h.NumKeys()
	start := make([]int32, numKeys+1)
	for _, k := range s.keys {
		start[k+1]++
	}
	for k := 0; k < numKeys; k++ {
		start[k+1] += start[k]
	}
	fill := slices.Clone(start[:numKeys])
	txns := make([]int32, len(s.keys))
	sess := make([]int32, len(s.keys))
	for sid, ts := range h.Sessions {
		for _, t := range ts {
			if !r.Included[t] {
				continue
			}
			for _, k := range s.keys[s.keyStart[t]:s.keyStart[t+1]] {
				txns[fill[k]], sess[fill[k]] = t, int32(sid)
				fill[k]++
			}
		}
	}
	pos := make([]int32, len(txns))
	for i, t := range txns {
		pos[i] = s.pos[t]
	}
	// Cut each key's range into runs of one session.
	groups := make([]sessionWriters, 0, numKeys)
	s.writers = make([][]sessionWriters, numKeys)
	for k := 0; k < numKeys; k++ {
		first := len(groups)
		for i := start[k]; i < start[k+1]; {
			j := i
			for j < start[k+1] && sess[j] == sess[i] {
				j++
			}
			groups = append(groups, sessionWriters{session: sess[i], txns: txns[i:j], pos: pos[i:j]})
			i = j
		}
		s.writers[k] = groups[first:len(groups):len(groups)]
	}
}

// base returns session order (from the initial transaction to each
// session's first) and write-read order.
func (s *saturator) base() []polygraph.Edge {
	var edges []polygraph.Edge
	for _, sess := range s.h.Sessions {
		prev := s.t0
		for _, t := range sess {
			if s.r.Included[t] {
				edges = append(edges, polygraph.Edge{From: prev, To: t, Kind: polygraph.SO, Key: polygraph.NoKey})
				prev = t
			}
		}
	}
	for _, rd := range s.r.Reads {
		edges = append(edges, polygraph.Edge{From: rd.Writer, To: rd.Reader, Kind: polygraph.WR, Key: rd.Key})
	}
	return edges
}

// readsOf returns the external reads of t, in program order.
func (s *saturator) readsOf(t int) []polygraph.ExternalRead {
	return s.r.Reads[s.readStart[t]:s.readStart[t+1]]
}

// writes reports whether included transaction t writes key k.
func (s *saturator) writes(t int32, k history.Key) bool {
	if t == s.t0 {
		return true
	}
	_, found := slices.BinarySearch(s.keys[s.keyStart[t]:s.keyStart[t+1]], k)
	return found
}

// force appends the edge t2 → t1 on key k, forced by a read of k from t1
// that had observed t2. The initial transaction precedes everything already.
func (s *saturator) force(edges []polygraph.Edge, t2, t1 int32, k history.Key) []polygraph.Edge {
	if t2 == t1 || t2 == s.t0 {
		return edges
	}
	return append(edges, polygraph.Edge{From: t2, To: t1, Kind: polygraph.WW, Key: k})
}

// readCommitted: a read of x from t1 must not see a version older than that
// of a writer of x that an earlier read of the transaction saw (seed 000,
// Figure 2a).
func (s *saturator) readCommitted(edges []polygraph.Edge) []polygraph.Edge {
	for t3 := range s.n {
		reads := s.readsOf(t3)
		for j, alpha := range reads {
			for _, beta := range reads[:j] {
				if s.writes(beta.Writer, alpha.Key) {
					edges = s.force(edges, beta.Writer, alpha.Writer, alpha.Key)
				}
			}
		}
	}
	return edges
}

// readAtomic: a read of x from t1 in t3 must see a version no older than
// that of any writer of x that t3 read from or that precedes t3 in its
// session (Figure 2b).
//
// Sessions are walked in order, keeping the last writer of each key seen
// so far in the session (the earlier ones precede it in session order);
// the writers t3 read from are matched with the keys it read by merging
// sorted lists.
func (s *saturator) readAtomic(edges []polygraph.Edge) []polygraph.Edge {
	numKeys := s.h.NumKeys()
	lastWriter := make([]int32, numKeys)
	lastSession := make([]int32, numKeys) // session+1 that set lastWriter
	var byKey []polygraph.ExternalRead
	var from []int32
	for sid, sess := range s.h.Sessions {
		for _, t3 := range sess {
			if !s.r.Included[t3] {
				continue
			}
			reads := s.readsOf(int(t3))
			for _, alpha := range reads {
				if k := alpha.Key; lastSession[k] == int32(sid)+1 {
					edges = s.force(edges, lastWriter[k], alpha.Writer, k)
				}
			}
			if len(reads) > 0 {
				byKey = append(byKey[:0], reads...)
				slices.SortFunc(byKey, func(a, b polygraph.ExternalRead) int { return int(a.Key) - int(b.Key) })
				from = from[:0]
				for _, r := range reads {
					from = append(from, r.Writer)
				}
				slices.Sort(from)
				from = slices.Compact(from)
				for _, w := range from {
					if w == s.t0 {
						continue // precedes everything already
					}
					edges = s.forceOnCommonKeys(edges, w, byKey)
				}
			}
			for _, k := range s.keys[s.keyStart[t3]:s.keyStart[t3+1]] {
				lastWriter[k], lastSession[k] = t3, int32(sid)+1
			}
		}
	}
	return edges
}

// forceOnCommonKeys forces w before the writer of every read in reads
// (sorted by key) of a key w writes.
func (s *saturator) forceOnCommonKeys(edges []polygraph.Edge, w int32, reads []polygraph.ExternalRead) []polygraph.Edge {
	keys := s.keys[s.keyStart[w]:s.keyStart[w+1]]
	i, j := 0, 0
	for i < len(keys) && j < len(reads) {
		switch {
		case keys[i] < reads[j].Key:
			i++
		case keys[i] > reads[j].Key:
			j++
		default:
			edges = s.force(edges, w, reads[j].Writer, reads[j].Key)
			j++
		}
	}
	return edges
}

// causal: a read of x from t1 in t3 must see a version no older than that
// of any writer of x in t3's causal past, (so ∪ wr)+ (Figure 2c).
func (s *saturator) causal(ctx context.Context, edges []polygraph.Edge) ([]polygraph.Edge, error) {
	sessions := len(s.h.Sessions)
	if int64(s.n+1)*int64(sessions) > MaxClockEntries {
		return nil, fmt.Errorf("saturate: %d transactions in %d sessions need too much memory for causal clocks", s.n, sessions)
	}
	plain := make([]digraph.Edge, len(edges))
	for i, e := range edges {
		plain[i] = digraph.Edge{From: e.From, To: e.To}
	}
	g := digraph.New(s.n+1, plain)
	order, ok := g.TopoOrder()
	if !ok {
		// so ∪ wr is cyclic: the caller finds the cycle.
		return edges, nil
	}
	// past[t*sessions+s] is one more than the last position of session s
	// in t's causal past (0: none).
	past := make([]int32, (s.n+1)*sessions)
	for i, u := range order {
		if i%4096 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		row := past[int(u)*sessions : int(u)*sessions+sessions]
		for _, p := range g.Pred(u) {
			prow := past[int(p)*sessions : int(p)*sessions+sessions]
			for j, x := range prow {
				row[j] = max(row[j], x)
			}
			if int(p) < s.n {
				ps := s.h.Txns[p].Session
				row[ps] = max(row[ps], s.pos[p]+1)
			}
		}
	}
	// Only writers in t3's causal past but not in t1's can add anything
	// (those in t1's precede it already), so for each session the two
	// clock rows bound the positions to look at, and most sessions are
	// skipped without touching the writers.
	for t3 := range s.n {
		row := past[t3*sessions : t3*sessions+sessions]
		for _, alpha := range s.readsOf(t3) {
			var t1row []int32 // t1's causal past (none for the initial state)
			if alpha.Writer != s.t0 {
				t1row = past[int(alpha.Writer)*sessions : int(alpha.Writer)*sessions+sessions]
			}
			for _, ws := range s.writers[alpha.Key] {
				limit, seen := row[ws.session], int32(0)
				if t1row != nil {
					seen = t1row[ws.session]
				}
				if limit <= seen {
					continue
				}
				// The last writer of x in that session within t3's past
				// must precede t1 (those before it follow).
				c, _ := slices.BinarySearch(ws.pos, limit)
				if c == 0 || ws.pos[c-1] < seen || ws.txns[c-1] == alpha.Writer {
					continue
				}
				edges = s.force(edges, ws.txns[c-1], alpha.Writer, alpha.Key)
			}
		}
	}
	return edges, nil
}
