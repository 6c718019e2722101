package saturate

import (
	"cmp"
	"slices"

	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/progress"
)

// This file checks a repaired order against CC's axiom without the
// clocks of every session. When the clocks found a few forced edges
// against an order, the order tried next moves a few transactions; a
// whole new pass of the clocks was most of the time of a check that
// needed it.
//
// Say the clocks showed that order old satisfies the axiom but for the
// edges found, and order cur contains so ∪ wr ∪ found. A writer w of x
// in t3's past that cur puts after t1, where t3 read x from t1, breaks
// the axiom in cur. If old put w after t1 too, the clocks found w → t1,
// which cur contains: so old put w before t1, and cur moved w past a
// transaction that old put after it. Only those moved writers (moved
// below) need checking, and only against the clocks' entries of their
// sessions: one column per session, computed in a pass over cur.

// maxRecheckSessions bounds the sessions of the moved writers a recheck
// computes columns for; past it, the clocks run again.
const maxRecheckSessions = 256

// maxRecheckCandidates bounds the pairs of a read and a moved writer a
// recheck looks at; past it, the clocks run again.
const maxRecheckCandidates = 1 << 22

// recheckColumns is the number of sessions whose columns one pass over
// the order computes.
const recheckColumns = 8

// candidate is a moved writer w of key x that cur puts after t1 and no
// later than t3's last direct predecessor, where t3 read x from t1: it
// breaks the axiom if it is in t3's past.
type candidate struct {
	w, t1, t3 int32
	x         history.Key
}

// recheck checks order seq (placed by g.place) against the axiom, given
// that the order old (each transaction's place, as g.at was) satisfied
// it but for edges now in seq. It returns the edges the axiom forces
// against seq, or ok false when the moved writers are too many to check
// this way (then the clocks must run). It uses at most limit entries of
// columns at once.
func (g *guess) recheck(m *progress.Meter, seq, old []int32, limit int64) (found []forcedEdge, ok bool, err error) {
	s := g.s
	// A transaction is moved when seq puts it after one that old put
	// after it.
	moved := make([]bool, s.n+1)
	top, any := int32(-1), false
	for _, t := range seq {
		if old[t] < top {
			moved[t], any = true, true
		}
		top = max(top, old[t])
	}
	if !any {
		return nil, true, nil
	}
	// The moved writers of each key, in seq's order.
	var movedAt []int32 // indexes into g.writers
	start := make([]int32, s.h.NumKeys()+1)
	for x := range s.h.NumKeys() {
		for i := g.writerStart[x]; i < g.writerStart[x+1]; i++ {
			if moved[g.writers[i].txn] {
				movedAt = append(movedAt, i)
			}
		}
		start[x+1] = int32(len(movedAt))
	}
	var cands []candidate
	for i, t3 := range seq {
		if i&(progress.Every-1) == progress.Every-1 {
			if err := m.Err(); err != nil {
				return nil, false, err
			}
		}
		reads := s.readsOf(t3)
		if len(reads) == 0 {
			continue
		}
		last := g.at[g.prev(t3)]
		for _, rd := range reads {
			last = max(last, g.at[rd.Writer])
		}
		for _, rd := range reads {
			x := rd.Key
			for _, wi := range movedAt[start[x]:start[x+1]] {
				w := g.writers[wi]
				if w.at > last {
					break
				}
				if w.at > g.at[rd.Writer] {
					cands = append(cands, candidate{w: w.txn, t1: rd.Writer, t3: t3, x: x})
				}
			}
		}
		if len(cands) > maxRecheckCandidates {
			return nil, false, nil
		}
	}
	if len(cands) == 0 {
		return nil, true, nil
	}
	session := func(t int32) int32 { return int32(s.h.Txns[t].Session) }
	slices.SortFunc(cands, func(a, b candidate) int { return cmp.Compare(session(a.w), session(b.w)) })
	var sessions []int32
	for i, c := range cands {
		if i == 0 || session(c.w) != session(cands[i-1].w) {
			sessions = append(sessions, session(c.w))
		}
	}
	width := int64(min(recheckColumns, len(sessions)))
	for width > 1 && width*int64(s.n+1) > limit {
		width /= 2
	}
	if len(sessions) > maxRecheckSessions || int64(s.n+1) > limit {
		return nil, false, nil
	}
	cols := make([]int32, int(width)*(s.n+1))
	for len(sessions) > 0 {
		group := sessions[:min(int(width), len(sessions))]
		sessions = sessions[len(group):]
		if err := g.columns(m, seq, group, cols); err != nil {
			return nil, false, err
		}
		for len(cands) > 0 && slices.Contains(group, session(cands[0].w)) {
			c := cands[0]
			cands = cands[1:]
			j := int32(slices.Index(group, session(c.w)))
			if cols[c.t3*int32(len(group))+j] > s.pos[c.w] {
				found = append(found, forcedEdge{from: c.w, to: c.t1, key: c.x})
			}
		}
	}
	return found, true, nil
}

// prev is t's session predecessor among the included transactions, or
// the initial transaction.
func (g *guess) prev(t int32) int32 { return g.o.prev[t] }

// columns computes, for every transaction t and each session group[j],
// the entry of t's clock for that session: cols[t*len(group)+j] is one
// more than the place in its session of the last transaction of
// group[j] in t's past (strictly before t), or 0. It is the clocks of
// the stream (stream.clock) restricted to a few columns, computed in
// order seq, a topological order of so ∪ wr.
func (g *guess) columns(m *progress.Meter, seq []int32, group []int32, cols []int32) error {
	s := g.s
	k := int32(len(group))
	cols = cols[:int(k)*(s.n+1)]
	clear(cols)
	column := make([]int8, s.sessions) // the column of each session, or -1
	for i := range column {
		column[i] = -1
	}
	for j, sess := range group {
		column[sess] = int8(j)
	}
	// join sets row to its maximum with u's clock and u's own entry.
	join := func(row []int32, u int32) {
		if u == s.t0 {
			return
		}
		from := cols[u*k : u*k+k]
		for j := range row {
			row[j] = max(row[j], from[j])
		}
		if j := column[s.h.Txns[u].Session]; j >= 0 {
			row[j] = max(row[j], s.pos[u]+1)
		}
	}
	for i, t := range seq {
		if i&(progress.Every-1) == progress.Every-1 {
			if err := m.Err(); err != nil {
				return err
			}
		}
		row := cols[t*k : t*k+k]
		join(row, g.prev(t))
		for _, rd := range s.readsOf(t) {
			join(row, rd.Writer)
		}
	}
	return nil
}
