package reference

// This file is the brute-force reference for package explore: the histories
// of a program in Bouajjani, Enea and Román-Calvo, "Dynamic Partial Order
// Reduction for Checking Correctness against Transaction Isolation Levels"
// (PLDI 2023), computed by the operational semantics of its §2.3, every
// interleaving of every session's steps, with consistency decided by
// enumerating commit orders and testing the axioms of its Figure 2 and
// Figure A.1 literally.

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/isocheck/isocheck/explore"
	"github.com/isocheck/isocheck/internal/testkit/exploretest"
	"github.com/isocheck/isocheck/level"
)

// Outcome is one history of a program.
type Outcome struct {
	History *explore.History
	// Failed says some transaction broke an assertion.
	Failed bool
}

// Histories returns the histories of p under l, keyed by
// explore.History.Key, by the literal operational semantics of
// Bouajjani et al. (PLDI 2023) §2.3. A configuration is the log of every
// transaction so far; a step runs the next event of a session's live
// transaction, starting the session's next transaction when it has none
// live (Final starts once every other transaction ended). A read of a key
// the transaction wrote returns its own last write; any other read returns
// the final write of any committed transaction that wrote the key, or the
// initial value, as long as the history with that read satisfies l (pending
// transactions take part like committed ones); writes, commit and abort
// extend the history. A complete history is kept when it satisfies l.
// Consistency is decided by Consistent. Visited configurations are
// memoized.
func Histories(p *exploretest.Program, l level.Level) (map[string]Outcome, error) {
	ax, _, err := LevelAxioms(l)
	if err != nil || l == level.SSER {
		return nil, fmt.Errorf("reference: cannot explore under %v", l)
	}
	r := &runner{p: p, ax: ax, seen: map[string]bool{}, cons: map[string]bool{}, out: map[string]Outcome{}}
	for i, s := range p.Sessions {
		for j, t := range s {
			r.txns = append(r.txns, &rtxn{id: explore.TxnID{Session: i, Index: j}, code: t})
		}
	}
	if p.Final != nil {
		r.txns = append(r.txns, &rtxn{id: explore.TxnID{Session: len(p.Sessions), Index: 0}, code: *p.Final})
	}
	r.step()
	return r.out, nil
}

// rtxn is a transaction of the program and its log in the current
// configuration.
type rtxn struct {
	id       explore.TxnID
	code     exploretest.Txn
	started  bool
	status   explore.Status
	events   []explore.Event
	failures []string
}

type runner struct {
	p    *exploretest.Program
	ax   Axioms
	txns []*rtxn
	seen map[string]bool // configurations visited
	cons map[string]bool // consistency of histories checked
	out  map[string]Outcome
	buf  []byte
	// sessions are the session names of the histories.
	sessions []string
}

// key is a compact text of the configuration: every started
// transaction's status and events, reads with their writers.
func (r *runner) key() string {
	b := r.buf[:0]
	for _, t := range r.txns {
		if !t.started {
			b = append(b, '-')
			continue
		}
		b = append(b, byte('0'+t.status))
		for _, e := range t.events {
			b = append(b, byte('0'+e.Kind))
			b = append(b, e.Key...)
			b = strconv.AppendInt(b, e.Value, 10)
			if e.Kind == explore.Read && !e.Internal {
				b = append(b, '<', byte('A'+e.From.Session), byte('0'+e.From.Index))
			}
		}
		b = append(b, '|')
	}
	r.buf = b
	return string(b)
}

// enabled returns the transactions that may take a step: per session, the
// live transaction or the next one; Final once the others ended.
func (r *runner) enabled() []*rtxn {
	var out []*rtxn
	ended := 0
	for _, t := range r.txns {
		if t.status != explore.Pending {
			ended++
		}
	}
	for i, t := range r.txns {
		if t.status != explore.Pending {
			continue
		}
		if i > 0 && r.txns[i-1].id.Session == t.id.Session && r.txns[i-1].status == explore.Pending {
			continue // an earlier transaction of the session is live or not started
		}
		if r.p.Final != nil && i == len(r.txns)-1 && ended < len(r.txns)-1 {
			continue
		}
		out = append(out, t)
	}
	return out
}

// step explores every step from the current configuration.
func (r *runner) step() {
	k := r.key()
	if r.seen[k] {
		return
	}
	r.seen[k] = true
	en := r.enabled()
	if len(en) == 0 {
		if r.consistent(k) {
			h := r.history()
			r.out[h.Key()] = Outcome{History: h, Failed: h.Failed()}
		}
		return
	}
	for _, t := range en {
		r.advance(t)
	}
}

// advance explores the next event of t.
func (r *runner) advance(t *rtxn) {
	var reads []int64
	for _, e := range t.events {
		if e.Kind == explore.Read {
			reads = append(reads, e.Value)
		}
	}
	st := t.code.Run(reads, len(t.events))
	started, n := t.started, len(t.events)
	t.started = true
	defer func() {
		t.started, t.events, t.status, t.failures = started, t.events[:n], explore.Pending, nil
	}()
	switch st.Kind {
	case explore.Write:
		t.events = append(t.events, explore.Event{Kind: explore.Write, Key: st.Key, Value: st.Value})
		r.step()
	case explore.Commit, explore.Abort:
		t.events = append(t.events, explore.Event{Kind: st.Kind})
		t.status = explore.Committed
		if st.Kind == explore.Abort {
			t.status = explore.Aborted
		}
		t.failures = st.Failures
		r.step()
	case explore.Read:
		if v, ok := lastWrite(t.events, st.Key); ok {
			t.events = append(t.events, explore.Event{Kind: explore.Read, Key: st.Key, Value: v, Internal: true})
			r.step()
			return
		}
		from := []*rtxn{nil} // the initial state
		for _, w := range r.txns {
			if w != t && w.status == explore.Committed {
				if _, ok := lastWrite(w.events, st.Key); ok {
					from = append(from, w)
				}
			}
		}
		for _, w := range from {
			ev := explore.Event{Kind: explore.Read, Key: st.Key, From: explore.Init, Value: r.p.Init[st.Key]}
			if w != nil {
				ev.From = w.id
				ev.Value, _ = lastWrite(w.events, st.Key)
			}
			t.events = append(t.events[:n], ev)
			if r.consistent(r.key()) {
				r.step()
			}
		}
	}
}

// lastWrite returns the value of the last write of key in events.
func lastWrite(events []explore.Event, key string) (explore.Value, bool) {
	for i := len(events) - 1; i >= 0; i-- {
		if e := events[i]; e.Kind == explore.Write && e.Key == key {
			return e.Value, true
		}
	}
	return 0, false
}

// history returns the current configuration as an explore.History.
func (r *runner) history() *explore.History {
	h := r.view()
	for i := range h.Txns {
		h.Txns[i].Name = h.Txns[i].ID.String()
		h.Txns[i].Events = slices.Clone(h.Txns[i].Events)
		h.Txns[i].Failures = slices.Clone(h.Txns[i].Failures)
	}
	return h
}

// view returns the current configuration as an explore.History that
// shares the transactions' logs.
func (r *runner) view() *explore.History {
	if r.sessions == nil {
		for i := range r.p.Sessions {
			r.sessions = append(r.sessions, fmt.Sprintf("s%d", i))
		}
		if r.p.Final != nil {
			r.sessions = append(r.sessions, "final")
		}
	}
	h := &explore.History{Init: r.p.Init, Sessions: r.sessions}
	for _, t := range r.txns {
		if t.started {
			h.Txns = append(h.Txns, explore.TxnLog{ID: t.id, Events: t.events, Status: t.status, Failures: t.failures})
		}
	}
	return h
}

// consistent reports whether the current configuration's history
// satisfies the axioms, memoized.
func (r *runner) consistent(k string) bool {
	if ok, seen := r.cons[k]; seen {
		return ok
	}
	ok := Consistent(r.view(), r.ax)
	r.cons[k] = ok
	return ok
}

// Consistent reports whether the history h of an explore program satisfies
// the conjunction of axioms (of Figure 2 and Figure A.1 of
// Bouajjani et al., PLDI 2023, as in CheckAxioms): whether some strict
// total order co on T0 (the initial state, which writes every key and comes
// first) and h's transactions extends so ∪ wr and satisfies, for every read
// α of x in t3 that reads from t1 (not the transaction's own write) and
// every t2 ≠ t1 that writes x, φ(t2, α) ⇒ t2 co t1. A transaction writes x
// when it wrote x and did not abort (pending transactions write what they
// wrote so far); aborted transactions' reads count as everyone's. Session
// order is the order of transactions in a session, with Final after all of
// them: h's last session is Final's when it is named "final", as Histories
// and package explore name it. Final reads the final state: for its reads φ
// holds for every t2 at every level (explore.Program.Final).
//
// The search places transactions one at a time in co order, each after
// its so ∪ wr predecessors, and checks t3's axiom instances when t3 is
// placed: by then t1 and every t4 of φ precede t3 in co, so φ and the
// conclusion are decided (a t2 not yet placed comes after t3 and t1).
func Consistent(h *explore.History, axioms Axioms) bool {
	n := len(h.Txns) + 1 // node 0 is T0
	index := map[explore.TxnID]int{explore.Init: 0}
	for i, t := range h.Txns {
		index[t.ID] = i + 1
	}
	type read struct {
		key  string
		from int
	}
	reads := make([][]read, n)
	writes := make([]map[string]bool, n)
	writes[0] = nil // T0 writes every key
	so := newMatrix(n)
	wr := newMatrix(n)
	finalSession := -1
	if len(h.Sessions) > 0 && h.Sessions[len(h.Sessions)-1] == "final" {
		finalSession = len(h.Sessions) - 1
	}
	for i, t := range h.Txns {
		a := i + 1
		writes[a] = map[string]bool{}
		for _, e := range t.Events {
			switch {
			case e.Kind == explore.Read && !e.Internal:
				f := index[e.From]
				reads[a] = append(reads[a], read{e.Key, f})
				wr[f][a] = true
			case e.Kind == explore.Write && t.Status != explore.Aborted:
				writes[a][e.Key] = true
			}
		}
		for j, u := range h.Txns {
			b := j + 1
			if u.ID.Session == t.ID.Session && t.ID.Index < u.ID.Index || u.ID.Session == finalSession && t.ID.Session != finalSession {
				so[a][b] = true
			}
		}
	}
	for b := 1; b < n; b++ {
		so[0][b] = true
	}
	writesKey := func(t int, x string) bool { return t == 0 || writes[t][x] }
	// (so ∪ wr) and its transitive closure.
	sw := newMatrix(n)
	causal := newMatrix(n)
	for a := range n {
		for b := range n {
			sw[a][b] = so[a][b] || wr[a][b]
			causal[a][b] = sw[a][b]
		}
	}
	for k := range n {
		for a := range n {
			for b := range n {
				causal[a][b] = causal[a][b] || causal[a][k] && causal[k][b]
			}
		}
	}
	for a := range n {
		if causal[a][a] {
			return false // so ∪ wr is cyclic: no co extends it
		}
	}
	pos := make([]int, n) // position in co, -1 while not placed
	for i := range pos {
		pos[i] = -1
	}
	coStar := func(a, b int) bool { return a == b || pos[a] >= 0 && pos[b] >= 0 && pos[a] < pos[b] }
	co := func(a, b int) bool { return pos[a] >= 0 && pos[b] >= 0 && pos[a] < pos[b] }
	// phi reports whether φ(t2, α) holds for the i-th read α of t3 under
	// the axiom ax.
	phi := func(ax Axioms, t2, t3, i int) bool {
		if h.Txns[t3-1].ID.Session == finalSession && ax != 0 {
			// Final reads the final state: it reads every key from
			// the last writer in co, whatever the level (see
			// explore.Program.Final).
			return t2 != t3
		}
		switch ax {
		case AxRC:
			for _, b := range reads[t3][:i] {
				if b.from == t2 {
					return true
				}
			}
			return false
		case AxRA:
			return sw[t2][t3]
		case AxCC:
			return causal[t2][t3]
		case AxPrefix:
			for t4 := range n {
				if coStar(t2, t4) && sw[t4][t3] {
					return true
				}
			}
			return false
		case AxConflict:
			for t4 := range n {
				if !coStar(t2, t4) || !co(t4, t3) {
					continue
				}
				for y := range writes[t3] {
					if writesKey(t4, y) {
						return true
					}
				}
			}
			return false
		case AxSer:
			return co(t2, t3)
		}
		return false
	}
	// holds checks the axiom instances of t3, just placed.
	holds := func(t3 int) bool {
		for i, rd := range reads[t3] {
			t1 := rd.from
			for t2 := range n {
				if t2 == t1 || !writesKey(t2, rd.key) {
					continue
				}
				for ax := AxRC; ax <= AxSer; ax <<= 1 {
					if axioms&ax != 0 && phi(ax, t2, t3, i) && !co(t2, t1) {
						return false
					}
				}
			}
		}
		return true
	}
	var place func(k int) bool
	place = func(k int) bool {
		if k == n {
			return true
		}
		for t := range n {
			if pos[t] >= 0 {
				continue
			}
			ready := true
			for a := range n {
				if sw[a][t] && pos[a] < 0 {
					ready = false
					break
				}
			}
			if !ready {
				continue
			}
			pos[t] = k
			if holds(t) && place(k+1) {
				return true
			}
			pos[t] = -1
		}
		return false
	}
	return place(0)
}
