package explore

import (
	"context"
	"strings"
	"testing"

	"github.com/isocheck/isocheck/level"
)

// The examples of the figures of Bouajjani et al. (PLDI 2023), with the
// histories they must produce, counted by hand from the axioms of Figure 2
// and Figure A.1.

func read(k string) func(*Tx)               { return func(tx *Tx) { tx.Read(k) } }
func write(k string, v Value) func(*Tx)     { return func(tx *Tx) { tx.Write(k, v) } }
func one(name string, body func(*Tx)) []Txn { return []Txn{{Name: name, Body: body}} }
func sessions(ss ...[]Txn) []Session        { return sessionsOf(ss) }
func sessionsOf(ss [][]Txn) (out []Session) {
	for _, s := range ss {
		out = append(out, Session{Txns: s})
	}
	return
}

// explored explores p at l with explore-ce and returns the histories by
// key, failing the test if one comes twice or an exploration is blocked.
func explored(t *testing.T, p *Program, l level.Level) map[string]*History {
	t.Helper()
	got := map[string]*History{}
	res, err := Explore(context.Background(), p, Options{Level: l, OnHistory: func(h *History) error {
		k := h.Key()
		if got[k] != nil {
			t.Errorf("%v: history found twice:\n%s", l, k)
		}
		got[k] = h
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Complete || res.Histories != len(got) {
		t.Errorf("%v: complete %v, %d histories, %d distinct", l, res.Complete, res.Histories, len(got))
	}
	if res.Base == l && res.Blocked != 0 {
		t.Errorf("%v: %d blocked explorations; explore-ce is strongly optimal", l, res.Blocked)
	}
	if res.EndStates < res.Histories {
		t.Errorf("%v: %d end states < %d histories", l, res.EndStates, res.Histories)
	}
	return got
}

// hasHistory reports whether some history has, for every transaction
// name, the events given.
func hasHistory(hs map[string]*History, want map[string]string) bool {
	for _, h := range hs {
		ok := true
		for _, tl := range h.Txns {
			if w, in := want[tl.Name]; in && eventsText(tl) != w {
				ok = false
			}
		}
		if ok {
			return true
		}
	}
	return false
}

func eventsText(t TxnLog) string {
	var parts []string
	for _, e := range t.Events {
		parts = append(parts, e.String())
	}
	return strings.Join(parts, " ")
}

// Figure 10: a reader of x then y against a writer of both. Under RC the
// reader may see x from the initial state and y from the writer (a
// fractured read); RA and the stronger levels forbid it, and forbid the
// other order too, since the writer is a wr predecessor of the reader
// (RA, Figure A.1) or a wr predecessor of the later read (RC).
func TestFigure10(t *testing.T) {
	p := &Program{Sessions: sessions(
		one("reader", func(tx *Tx) { tx.Read("x"); tx.Read("y") }),
		one("writer", func(tx *Tx) { tx.Write("x", 2); tx.Write("y", 2) }),
	)}
	fractured := map[string]string{"reader": "r(x)=0<-init r(y)=2<-s1.t0 commit"}
	for _, c := range []struct {
		l         level.Level
		n         int
		fractured bool
	}{
		{level.RC, 3, true}, {level.RA, 2, false}, {level.CC, 2, false}, {level.PC, 2, false}, {level.SI, 2, false}, {level.SER, 2, false},
	} {
		hs := explored(t, p, c.l)
		if len(hs) != c.n {
			t.Errorf("%v: %d histories, want %d", c.l, len(hs), c.n)
		}
		if got := hasHistory(hs, fractured); got != c.fractured {
			t.Errorf("%v: fractured read found %v, want %v", c.l, got, c.fractured)
		}
	}
}

// Figure 12: two readers of x and two writers, each in its own session:
// every read may return any of the three versions at every level, and
// explore-ce must produce each of the 9 histories once although swapping
// the last writer with the first read gives the same history on two
// branches (the reason for readLatest in Optimality, §5.3).
func TestFigure12(t *testing.T) {
	p := &Program{Sessions: sessions(one("r1", read("x")), one("r2", read("x")), one("w2", write("x", 2)), one("w4", write("x", 4)))}
	for _, l := range []level.Level{level.RC, level.RA, level.CC, level.PC, level.SI, level.SER} {
		if hs := explored(t, p, l); len(hs) != 9 {
			t.Errorf("%v: %d histories, want 9", l, len(hs))
		}
	}
}

// Figure 13: readers of x and y and writers of y and x, one transaction
// per session: the same read must not be swapped on two branches (the
// reason for swapped in Optimality, §5.3). 4 histories at every level.
func TestFigure13(t *testing.T) {
	p := &Program{Sessions: sessions(one("a", read("x")), one("b", read("y")), one("wy", write("y", 3)), one("wx", write("x", 4)))}
	for _, l := range []level.Level{level.RC, level.CC, level.SER} {
		if hs := explored(t, p, l); len(hs) != 4 {
			t.Errorf("%v: %d histories, want 4", l, len(hs))
		}
	}
}

// Figure 11: a transaction that aborts on the value it reads commits once
// a swap changes that value, and the transaction after it in its session
// reads on. Session 1: t1 = a := r(x); if a == 0 abort else w(y,1); t2 =
// r(x). Session 2: t3 = w(y,3); t4 = w(x,4). t1 and t2 each read x from
// init or t4: 4 combinations. t1 reading t4 and t2 then reading init is
// allowed by RC (t2 has no earlier read) and RA (t4 is no direct so ∪ wr
// predecessor of t2), not by CC (t4 wr t1 so t2) nor SER.
func TestFigure11(t *testing.T) {
	p := &Program{Sessions: sessions(
		[]Txn{{Name: "t1", Body: func(tx *Tx) {
			if tx.Read("x") == 0 {
				tx.Abort()
			}
			tx.Write("y", 1)
		}}, {Name: "t2", Body: read("x")}},
		[]Txn{{Name: "t3", Body: write("y", 3)}, {Name: "t4", Body: write("x", 4)}},
	)}
	want := map[level.Level]int{level.RC: 4, level.RA: 4, level.CC: 3, level.SER: 3}
	for l, n := range want {
		hs := explored(t, p, l)
		if len(hs) != n {
			t.Errorf("%v: %d histories, want %d", l, len(hs), n)
		}
		if !hasHistory(hs, map[string]string{"t1": "r(x)=0<-init abort"}) {
			t.Errorf("%v: no history where t1 aborts", l)
		}
		if !hasHistory(hs, map[string]string{"t1": "r(x)=4<-s1.t1 w(y,1) commit"}) {
			t.Errorf("%v: no history where t1 commits", l)
		}
	}
}

// Figure 3: a causal consistency violation that Read Atomic allows. t3
// reads x from t1 although t2, which overwrote t1's x, is a causal
// predecessor of t3 through t4.
func TestFigure3(t *testing.T) {
	mk := func(pid int, events ...Event) *txnRec {
		r := &txnRec{pid: pid, status: Committed}
		for _, e := range events {
			r.events = append(r.events, e)
			r.kids = append(r.kids, map[string]int32{"x": 0, "y": 1}[e.Key])
			from := fromNone
			if e.Kind == Read {
				from = e.From.Session
			}
			r.from = append(r.from, from)
		}
		return r
	}
	rd := func(k string, from int) Event { return Event{Kind: Read, Key: k, From: TxnID{from, 0}} }
	wr := func(k string) Event { return Event{Kind: Write, Key: k} }
	s := &state{order: []int{0, 1, 3, 2}, recs: []*txnRec{
		mk(0, wr("x")),
		mk(1, rd("x", 0), wr("x")),
		mk(2, rd("y", 3), rd("x", 0)),
		mk(3, rd("x", 1), wr("y")),
	}}
	soPred := []uint64{1, 1, 1, 1}
	for _, c := range []struct {
		l    level.Level
		want bool
	}{{level.RC, true}, {level.RA, true}, {level.CC, false}} {
		if got := newChecker(c.l, soPred, -1).consistent(s); got != c.want {
			t.Errorf("%v: consistent = %v, want %v", c.l, got, c.want)
		}
	}
}
