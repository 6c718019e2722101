package sqlcheck

import (
	"context"

	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/progress"
	"github.com/isocheck/isocheck/sqlhistory"
	"github.com/isocheck/isocheck/verdict"
)

// readInst is a read of one key with a known writer: the read event ev of
// node t read key from node w (version, or -1 for a witness the search
// chose).
type readInst struct {
	t, ev   int
	key     sqlhistory.KeyID
	w       int
	version sqlhistory.VersionID
	chosen  bool
}

// unknownRead is a read event that did not return key: its writer is
// one of the writers of key whose version the predicate rejects (unsat),
// and none of those it accepts (sat) may be the one it read.
type unknownRead struct {
	t, ev      int
	key        sqlhistory.KeyID
	sat, unsat []int
}

// problem is a history reduced to what the checker decides on, for one
// choice of which transactions of unknown outcome committed. Node 0 is the
// transaction init of Bouajjani et al. (CAV 2025); nodes 1.. are committed
// transactions.
type problem struct {
	// ctx, when set, bounds saturation.
	ctx    context.Context
	h      *sqlhistory.History
	nodes  []int // node -> transaction index (sqlhistory.Init for node 0)
	nodeOf []int // transaction index -> node, or -1
	level  []level.Level
	// writes[t]: the keys t writes, with its final version of each.
	writes []map[sqlhistory.KeyID]sqlhistory.VersionID
	// writers[x]: the nodes that write x, init included.
	writers [][]int
	// shareWrite[t]: for SI transactions, the nodes writing a key t writes.
	shareWrite []bitset
	// soPrev[t]: t's session-order predecessors (init included).
	soPrev    []bitset
	reads     []readInst
	unknown   []unknownRead
	anomalies []Anomaly
	anySI     bool
	// full keeps every read of a row not returned, conflict or not: the
	// naive baseline enumerates full histories.
	full bool
	// anyCC: some transaction is at CC, whose visibility, (so ∪ wr)+, goes
	// through the reads of other transactions (see causalWitness).
	anyCC bool
}

// newProblem builds the problem of h in which the transactions marked in
// committed are those that committed (init aside); full keeps every read
// of a row not returned with more than one possible writer. It runs as
// the stage "build SQL problem", counting transactions, and returns the
// reason (context.Cause) if ctx ends first; the problem's saturation is
// bounded by ctx too.
func newProblem(ctx context.Context, h *sqlhistory.History, committed []bool, full bool) (*problem, error) {
	p := &problem{ctx: ctx, h: h, nodes: []int{sqlhistory.Init}, nodeOf: make([]int, len(h.Txns)), level: []level.Level{0}, full: full}
	for i := range h.Txns {
		p.nodeOf[i] = -1
		if committed[i] {
			p.nodeOf[i] = len(p.nodes)
			p.nodes = append(p.nodes, i)
			p.level = append(p.level, h.Txns[i].Level)
			p.anySI = p.anySI || h.Txns[i].Level == level.SI
			p.anyCC = p.anyCC || h.Txns[i].Level == level.CC
		}
	}
	n := len(p.nodes)
	p.writes = make([]map[sqlhistory.KeyID]sqlhistory.VersionID, n)
	p.writers = make([][]int, len(h.Keys))
	init := map[sqlhistory.KeyID]sqlhistory.VersionID{}
	for x := range h.Keys {
		p.writers[x] = []int{0}
		if v, ok := h.Initial[sqlhistory.KeyID(x)]; ok {
			init[sqlhistory.KeyID(x)] = v
		} else {
			init[sqlhistory.KeyID(x)] = -1 // absent: the † of Bouajjani et al. (CAV 2025)
		}
	}
	p.writes[0] = init
	for t := 1; t < n; t++ {
		w := map[sqlhistory.KeyID]sqlhistory.VersionID{}
		p.writes[t] = w
		if h.Txns[p.nodes[t]].Status == sqlhistory.RolledBack {
			continue // its writes took no effect
		}
		for _, e := range h.Txns[p.nodes[t]].Events {
			for _, v := range e.Writes {
				w[h.Versions[v].Key] = v
			}
		}
		for x := range w {
			p.writers[x] = append(p.writers[x], t)
		}
	}
	p.shareWrite = make([]bitset, n)
	for t := 1; t < n; t++ {
		if p.level[t] != level.SI {
			continue
		}
		b := newBitset(n)
		for x := range p.writes[t] {
			for _, u := range p.writers[x] {
				if u != t {
					b.set(u)
				}
			}
		}
		p.shareWrite[t] = b
	}
	p.soPrev = make([]bitset, n)
	p.soPrev[0] = newBitset(n)
	for _, sess := range h.Sessions {
		prev := newBitset(n)
		prev.set(0)
		for _, ti := range sess {
			t := p.nodeOf[ti]
			if t < 0 {
				continue
			}
			p.soPrev[t] = prev.clone()
			prev.set(t)
		}
	}
	m := progress.Start(ctx, "build SQL problem", int64(n-1), "transactions")
	if err := m.Err(); err != nil {
		return nil, err
	}
	for t := 1; t < n; t++ {
		p.readsOf(t)
		if err := m.Add(1); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// causalWitness reports whether the writer of a row that a read of node t
// did not return matters even when the read's predicate rejects every
// version of it. Theorem 5 of Bouajjani et al. (CAV 2025), which lets
// Algorithm 3 leave such reads undefined, covers SER, SI, PC, RA and RC,
// not CC: a read adds its writer to the causal past, (so ∪ wr)+, of its
// transaction and of every transaction after it. A read of an RC, RA or CC
// transaction may always read from a writer already in its causal past, but
// SER, SI and PC make it read from one co-after every visible writer, which
// may not be. So with a CC transaction in the history, such reads of SER,
// SI and PC transactions are decided like conflicts (see searcher.extend).
func (p *problem) causalWitness(t int) bool {
	switch p.level[t] {
	case level.SER, level.SI, level.PC:
		return p.anyCC
	}
	return false
}

// satisfies reports whether version v (-1: absent) satisfies event e's
// predicate.
func (p *problem) satisfies(e *sqlhistory.Event, v sqlhistory.VersionID) bool {
	if v < 0 {
		return false
	}
	row := p.h.Versions[v].Row
	return row != nil && e.Where.Eval(row)
}

// readsOf classifies the reads of node t (Bouajjani et al. (CAV 2025)
// §2.3): local reads must see t's own last write; an external read that
// returned a row names its writer; one that did not is an unknownRead,
// unless no writer could make it a conflict.
func (p *problem) readsOf(t int) {
	h := p.h
	ti := p.nodes[t]
	txn := &h.Txns[ti]
	own := map[sqlhistory.KeyID]sqlhistory.VersionID{}
	for ei := range txn.Events {
		e := &txn.Events[ei]
		if e.Kind.Reads() {
			listed := make(map[sqlhistory.KeyID]sqlhistory.VersionID, len(e.Reads))
			for _, v := range e.Reads {
				listed[h.Versions[v].Key] = v
			}
			for _, v := range e.Reads {
				p.listedRead(t, ei, e, v, own)
			}
			for _, x := range h.TableKeys[e.Table] {
				if _, ok := listed[x]; ok {
					continue
				}
				if mine, ok := own[x]; ok {
					if p.satisfies(e, mine) {
						p.anomaly(Anomaly{Kind: verdict.NotMyOwnWrite, NotReturned: true, Txn: ti, Event: ei, Key: x, Version: mine})
					}
					continue
				}
				u := unknownRead{t: t, ev: ei, key: x}
				for _, w := range p.writers[x] {
					if w == t {
						continue
					}
					if p.satisfies(e, p.writes[w][x]) {
						u.sat = append(u.sat, w)
					} else {
						u.unsat = append(u.unsat, w)
					}
				}
				switch {
				case len(u.sat) == 0 && !p.causalWitness(t) && !(p.full && len(u.unsat) > 1):
					// Whatever t read of x, the predicate rejects it: never
					// a conflict (Bouajjani et al. (CAV 2025), Algorithm
					// 3's 1-sets).
				case len(u.unsat) == 0:
					p.anomaly(Anomaly{Kind: verdict.Phantom, NotReturned: true, Txn: ti, Event: ei, Key: x, Writers: p.txnsOf(u.sat)})
				default:
					p.unknown = append(p.unknown, u)
				}
			}
		}
		for _, v := range e.Writes {
			own[h.Versions[v].Key] = v
		}
	}
}

// listedRead checks a row that read event ei of node t returned, version v.
func (p *problem) listedRead(t, ei int, e *sqlhistory.Event, v sqlhistory.VersionID, own map[sqlhistory.KeyID]sqlhistory.VersionID) {
	h := p.h
	ti := p.nodes[t]
	ver := &h.Versions[v]
	a := Anomaly{Txn: ti, Event: ei, Key: ver.Key, Version: v}
	if mine, ok := own[ver.Key]; ok {
		if v != mine || !p.satisfies(e, v) {
			// An earlier version of its own is NotMyLastWrite, another's
			// NotMyOwnWrite.
			a.Kind, a.Expected = verdict.NotMyOwnWrite, mine
			if ver.Writer == a.Txn {
				a.Kind = verdict.NotMyLastWrite
			}
			p.anomaly(a)
		}
		return
	}
	w := -1
	switch {
	case ver.Writer == sqlhistory.Unwritten:
		a.Kind = verdict.ThinAirRead
	case ver.Writer == sqlhistory.Init:
		w = 0
	case ver.Writer == ti:
		a.Kind = verdict.FutureRead
	case p.nodeOf[ver.Writer] < 0 || h.Txns[ver.Writer].Status == sqlhistory.RolledBack:
		a.Kind = verdict.AbortedRead
	default:
		w = p.nodeOf[ver.Writer]
		if p.writes[w][ver.Key] != v {
			a.Kind, a.Expected = verdict.IntermediateRead, p.writes[w][ver.Key]
		}
	}
	if a.Kind == 0 && !p.satisfies(e, v) {
		a.Kind = verdict.PredicateMismatch
	}
	if a.Kind != 0 {
		p.anomaly(a)
		return
	}
	p.reads = append(p.reads, readInst{t: t, ev: ei, key: ver.Key, w: w, version: v})
}

func (p *problem) anomaly(a Anomaly) { p.anomalies = append(p.anomalies, a) }

func (p *problem) txnsOf(nodes []int) []int {
	ts := make([]int, len(nodes))
	for i, n := range nodes {
		ts[i] = p.nodes[n]
	}
	return ts
}

// initialState is pco = (so ∪ wr)+ of the history, with the dependencies it
// names (Bouajjani et al. (CAV 2025) Algorithm 2, line 3). It returns the
// cycle if so ∪ wr is cyclic. It stops early, without a cycle, when p.ctx
// ends: the caller must look at the context before trusting the state.
func (p *problem) initialState() (*state, []Edge) {
	n := len(p.nodes)
	s := newState(n, len(p.unknown))
	for i, sess := range p.h.Sessions {
		if i&63 == 0 && p.ctx != nil && p.ctx.Err() != nil {
			return s, nil
		}
		prev := 0
		for _, ti := range sess {
			t := p.nodeOf[ti]
			if t < 0 {
				continue
			}
			s.addOrder(prev, t, Edge{from: prev, to: t, Kind: verdict.SO})
			p.soPrev[t].each(func(u int) { s.addSoWr(u, t, -1) })
			prev = t
		}
	}
	for i := range p.reads {
		if i&255 == 0 && p.ctx != nil && p.ctx.Err() != nil {
			return s, nil
		}
		if c := p.addRead(s, p.reads[i]); c != nil {
			return s, c
		}
	}
	return s, nil
}

// addRead adds read ri, with its writer, to s: the dependency writer →
// reader. It returns the cycle the dependency closes, if any.
func (p *problem) addRead(s *state, ri readInst) []Edge {
	s.reads = append(s.reads, ri)
	s.addSoWr(ri.w, ri.t, ri.ev)
	why := Edge{from: ri.w, to: ri.t, Kind: verdict.WR, Key: ri.key, readEv: ri.ev, reader: ri.t, Version: ri.version, Chosen: ri.chosen}
	if !s.addOrder(ri.w, ri.t, why) {
		return p.justify(s, append(s.path(ri.t, ri.w), why))
	}
	return nil
}
