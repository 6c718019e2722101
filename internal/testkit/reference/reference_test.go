package reference

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/isocheck/isocheck/histgen"
	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/level"
)

// tx describes a transaction of a hand-made history.
type tx struct {
	s  string         // session
	st history.Status // Committed unless set
	// ops is a space-separated list like "rx0 wy1": kind, key name, value.
	ops        string
	start, end int64 // both 0: no times
}

// build makes a history with initial value 0 from txns.
func build(t testing.TB, txns ...tx) *history.History {
	t.Helper()
	b := history.NewBuilder(0)
	for _, x := range txns {
		var ops []history.Op
		for _, f := range strings.Fields(x.ops) {
			i := strings.IndexAny(f, "0123456789")
			if len(f) < 3 || (f[0] != 'r' && f[0] != 'w') || i < 2 {
				t.Fatalf("bad operation %q", f)
			}
			v, err := strconv.ParseInt(f[i:], 10, 64)
			if err != nil {
				t.Fatalf("bad operation %q: %v", f, err)
			}
			kind := history.Read
			if f[0] == 'w' {
				kind = history.Write
			}
			ops = append(ops, history.Op{Kind: kind, Key: b.Key(f[1:i]), Value: history.Value(v)})
		}
		txn := history.Txn{Session: b.Session(x.s), Status: x.st, Start: history.NoTime, End: history.NoTime}
		if x.start != 0 || x.end != 0 {
			txn.Start, txn.End = x.start, x.end
		}
		b.AddTxn(txn, ops)
	}
	return b.History()
}

// levels are the seven levels, weakest first, as axiom sets.
var levels = []struct {
	name string
	ax   Axioms
	rt   bool
}{
	{"RC", RC, false},
	{"RA", RA, false},
	{"CC", CC, false},
	{"PC", PC, false},
	{"SI", SI, false},
	{"SER", SER, false},
	{"SSER", SER, true},
}

const all = "RC RA CC PC SI SER SSER"

// TestClassic checks hand-made histories at every level. Each expected
// verdict is derived in the comment from the axioms of Biswas and Enea
// (OOPSLA 2019), Figure 2 (t1 the writer of read α in t3, t2 ≠ t1 another
// writer of its key; T0 writes every key and comes first), not from running
// the code.
func TestClassic(t *testing.T) {
	const (
		C = history.Committed
		A = history.Aborted
		U = history.Unknown
	)
	tests := []struct {
		name string
		txns []tx
		pass string // the levels the history satisfies
	}{
		{
			// co = T0 T1 T2: T2's read has writer T1, no other writer of x
			// but T0, which precedes T1.
			name: "write then read",
			txns: []tx{{s: "a", ops: "wx1"}, {s: "b", ops: "rx1"}},
			pass: all,
		},
		{
			// Blind writes: no read, no axiom instance; any co works.
			name: "blind writes",
			txns: []tx{{s: "a", ops: "wx1 wy1"}, {s: "b", ops: "wy2 wx2"}},
			pass: all,
		},
		{
			// T1 and T2 both read x from T0 and write x. SER: whichever is
			// second, say T2, has t2 = T1 co T2 and needs T1 co T0. SI
			// (Conflict): t4 = t2 = T1 writes x like T2 and T1 co T2, so
			// again T1 co T0. PC: T2's wr ∪ so predecessors are T0 only, so
			// Prefix asks nothing; CC, RA, RC ask nothing either.
			name: "lost update",
			txns: []tx{{s: "a", ops: "rx0 wx1"}, {s: "b", ops: "rx0 wx2"}},
			pass: "RC RA CC PC",
		},
		{
			// T1 and T2 read x and y from T0 and write x resp. y. SER:
			// the later one, say T2, reads x from T0 though T1 co T2 writes
			// x. SI: Conflict needs a t4 writing what T2 writes (y) between
			// T1 and T2: none; Prefix asks nothing (wr predecessors: T0).
			name: "write skew",
			txns: []tx{{s: "a", ops: "rx0 ry0 wx1"}, {s: "b", ops: "rx0 ry0 wy2"}},
			pass: "RC RA CC PC SI",
		},
		{
			// Fekete's read-only anomaly: T3 sees T2 but not T1, and T1 read
			// y before T2 wrote it. co = T0 T2 T3 T1 satisfies Prefix (the
			// wr ∪ so predecessors are T0 and T2) and Conflict (T3 writes
			// nothing, T2 and T1 share no key). SER: T1 reads y from T0, so
			// T1 co T2; T2 co T3 by wr; T3 reads x from T0, so T3 co T1:
			// a cycle.
			name: "read-only anomaly",
			txns: []tx{
				{s: "a", ops: "rx0 ry0 wx1"},
				{s: "b", ops: "ry0 wy1"},
				{s: "c", ops: "rx0 ry1"},
			},
			pass: "RC RA CC PC SI",
		},
		{
			// Long fork: T3 sees T1 not T2, T4 sees T2 not T1. Prefix for
			// T3's read of y from T0 with t2 = T2, t4 = T1 (wr): T2 co* T1
			// is forbidden, so T1 co T2; for T4 symmetrically T2 co T1.
			// Causal: T2 does not reach T3 by wr ∪ so (nor T1 T4), so CC
			// holds; RA and RC too.
			name: "long fork",
			txns: []tx{
				{s: "a", ops: "wx1"},
				{s: "b", ops: "wy1"},
				{s: "c", ops: "rx1 ry0"},
				{s: "d", ops: "ry1 rx0"},
			},
			pass: "RC RA CC",
		},
		{
			// Long fork on three sessions: T4 follows T2 in session b.
			// Prefix for T4 (x from T0, t2 = T1, t4 = T2 by so) needs
			// T2 co T1; for T3 (y from T0, t2 = T2, t4 = T1 by wr) T1 co T2.
			// T1 does not reach T4 by wr ∪ so: CC holds.
			name: "long fork with session",
			txns: []tx{
				{s: "a", ops: "wx1"},
				{s: "b", ops: "wy1"},
				{s: "c", ops: "rx1 ry0"},
				{s: "b", ops: "rx0 ry1"},
			},
			pass: "RC RA CC",
		},
		{
			// Causality violation: T1 →wr T2 →wr T3, and T3 reads x from
			// T0. Causal: t2 = T1 writes x and T1 (wr ∪ so)⁺ T3, so T1 co T0:
			// impossible. RA: T1 is not a direct wr ∪ so predecessor of T3.
			// RC: the earlier read ry1 is from T2, which does not write x.
			name: "causality violation",
			txns: []tx{
				{s: "a", ops: "wx1"},
				{s: "b", ops: "rx1 wy1"},
				{s: "c", ops: "ry1 rx0"},
			},
			pass: "RC RA",
		},
		{
			// Causality through a session: T1 →wr T2 →so T3 →wr T4.
			// Causal fails as above; RA holds (T1 is not a direct
			// predecessor of T4).
			name: "causality violation through session",
			txns: []tx{
				{s: "a", ops: "wx1"},
				{s: "b", ops: "rx1"},
				{s: "b", ops: "wy1"},
				{s: "c", ops: "ry1 rx0"},
			},
			pass: "RC RA",
		},
		{
			// Monotonic reads across a session's transactions: T2 saw x=1,
			// its successor T3 reads x=0. Causal: T1 →wr T2 →so T3 and T1
			// writes x, so T1 co T0. RA: T1 is neither wr- nor
			// so-before T3.
			name: "monotonic reads across session",
			txns: []tx{
				{s: "a", ops: "wx1"},
				{s: "b", ops: "rx1"},
				{s: "b", ops: "rx0"},
			},
			pass: "RC RA",
		},
		{
			// Fractured read, y read first: T2 reads y from T0 then x from
			// T1, T1 writes both. RA: t2 = T1 writes y and T1 wr T2, so
			// T1 co T0. RC: for α = ry0 no read precedes; for α = rx1 the
			// earlier read is from T0, and T0 co T1.
			name: "fractured read",
			txns: []tx{
				{s: "a", ops: "wx1 wy1"},
				{s: "b", ops: "ry0 rx1"},
			},
			pass: "RC",
		},
		{
			// Fractured read, x read first: now the earlier read rx1 is
			// from T1, which writes y, and ry0 reads from T0: RC needs
			// T1 co T0 too.
			name: "fractured read after seeing the write",
			txns: []tx{
				{s: "a", ops: "wx1 wy1"},
				{s: "b", ops: "rx1 ry0"},
			},
			pass: "",
		},
		{
			// Two writers of x and y; T3 reads y from T2 then x from T1.
			// RC (α = rx1, β = ry2 from T2, which writes x): T2 co T1,
			// satisfiable. RA: T2 wr T3 and writes x read from T1, so T2 co
			// T1; T1 wr T3 and writes y read from T2, so T1 co T2.
			name: "fractured read between two writers",
			txns: []tx{
				{s: "a", ops: "wx1 wy1"},
				{s: "b", ops: "wx2 wy2"},
				{s: "c", ops: "ry2 rx1"},
			},
			pass: "RC",
		},
		{
			// Read your writes across a session: T2 follows T1 in session a
			// and reads x from T0. RA: T1 so T2 writes x, so T1 co T0. RC
			// looks at earlier reads only (none): it holds.
			name: "read your writes across session",
			txns: []tx{
				{s: "a", ops: "wx1"},
				{s: "a", ops: "rx0"},
			},
			pass: "RC",
		},
		{
			// Session order is transitive: T1 so T3 through T2, so RA
			// (t2 = T1 so T3 writes x) needs T1 co T0.
			name: "read your writes two transactions back",
			txns: []tx{
				{s: "a", ops: "wx1"},
				{s: "a", ops: "wy1"},
				{s: "a", ops: "rx0"},
			},
			pass: "RC",
		},
		{
			// Non-repeatable read, old then new: for α = rx1 the earlier
			// read is from T0 and T0 co T1: RC holds. RA: α = rx0 from T0,
			// t2 = T1 wr T2 writes x: T1 co T0.
			name: "non-repeatable read",
			txns: []tx{
				{s: "a", ops: "wx1"},
				{s: "b", ops: "rx0 rx1"},
			},
			pass: "RC",
		},
		{
			// Non-repeatable read, new then old: α = rx0 from T0, β = rx1
			// from T1, which writes x: RC needs T1 co T0.
			name: "non-repeatable read going back",
			txns: []tx{
				{s: "a", ops: "wx1"},
				{s: "b", ops: "rx1 rx0"},
			},
			pass: "",
		},
		{
			// Real time: T1 ends (2) before T2 starts (3) and T2 reads x from
			// T0. co = T0 T2 T1 satisfies every axiom; with real time T1
			// co T2 and SER needs T1 co T0.
			name: "real-time violation",
			txns: []tx{
				{s: "a", ops: "wx1", start: 1, end: 2},
				{s: "b", ops: "rx0", start: 3, end: 4},
			},
			pass: "RC RA CC PC SI SER",
		},
		{
			// Touching intervals: T1.End = T2.Start is not End < Start, so
			// real time orders nothing.
			name: "overlapping times",
			txns: []tx{
				{s: "a", ops: "wx1", start: 1, end: 3},
				{s: "b", ops: "rx0", start: 3, end: 4},
			},
			pass: all,
		},
		{
			// Real time only orders transactions that both have times.
			name: "missing times",
			txns: []tx{
				{s: "a", ops: "wx1", start: 1, end: 2},
				{s: "b", ops: "rx0"},
			},
			pass: all,
		},
		{
			// Thin air: 5 is neither Init nor anybody's write.
			name: "thin-air read",
			txns: []tx{{s: "a", ops: "wx1"}, {s: "b", ops: "rx5"}},
			pass: "",
		},
		{
			// Aborted read: T1's writes are invisible.
			name: "aborted read",
			txns: []tx{{s: "a", st: A, ops: "wx1"}, {s: "b", ops: "rx1"}},
			pass: "",
		},
		{
			// Aborted transactions' reads are not checked.
			name: "aborted transaction reads garbage",
			txns: []tx{{s: "a", ops: "wx1"}, {s: "b", st: A, ops: "rx7 rx0 ry3"}},
			pass: all,
		},
		{
			// Intermediate read: 1 is not T1's last write of x.
			name: "intermediate read",
			txns: []tx{{s: "a", ops: "wx1 wx2"}, {s: "b", ops: "rx1"}},
			pass: "",
		},
		{
			// Reading one's own later write is not reading another
			// transaction's write.
			name: "future read",
			txns: []tx{{s: "a", ops: "rx1 wx1"}},
			pass: "",
		},
		{
			// An internal read must return the transaction's own write.
			name: "not my own write",
			txns: []tx{{s: "a", ops: "wx1 rx0"}},
			pass: "",
		},
		{
			// ... its last one.
			name: "not my last write",
			txns: []tx{{s: "a", ops: "wx1 wx2 rx1"}},
			pass: "",
		},
		{
			// Internal reads of the last own write are fine.
			name: "internal reads",
			txns: []tx{{s: "a", ops: "wx1 rx1 wx2 rx2"}, {s: "b", ops: "rx2"}},
			pass: all,
		},
		{
			// T1 reads y from T2 and T2 reads x from T1: wr is cyclic and no
			// co contains it.
			name: "circular information flow",
			txns: []tx{{s: "a", ops: "ry1 wx1"}, {s: "b", ops: "rx1 wy1"}},
			pass: "",
		},
		{
			// T2 reads T1's write but precedes it in session a: so ∪ wr is
			// cyclic.
			name: "read from session successor",
			txns: []tx{{s: "a", ops: "rx1"}, {s: "a", ops: "wx1"}},
			pass: "",
		},
		{
			// An unknown transaction that was read must have committed
			// (C = {T1, T2}); then everything holds.
			name: "unknown transaction read",
			txns: []tx{{s: "a", st: U, ops: "wx1"}, {s: "b", ops: "rx1"}},
			pass: all,
		},
		{
			// A lost update with an unknown T2 nobody read: C = {T1}
			// satisfies everything.
			name: "unknown transaction would break SI",
			txns: []tx{{s: "a", ops: "rx0 wx1"}, {s: "b", st: U, ops: "rx0 wx2"}},
			pass: all,
		},
		{
			// The same, but T3 reads T2's write, so T2 is in C: the lost
			// update stands (PC still holds: T3's wr predecessor T2 must
			// follow T1 only if T1 co* T2, which co = T0 T1 T2 T3 has).
			name: "unknown transaction forced into a lost update",
			txns: []tx{
				{s: "a", ops: "rx0 wx1"},
				{s: "b", st: U, ops: "rx0 wx2"},
				{s: "c", ops: "rx2"},
			},
			pass: "RC RA CC PC",
		},
		{
			// An unknown transaction with a thin-air read is left out.
			name: "unknown transaction with thin-air read",
			txns: []tx{{s: "a", ops: "wx1"}, {s: "b", st: U, ops: "rx9"}},
			pass: all,
		},
		{
			// An unknown transaction read by a committed one must be in,
			// and then its thin-air read fails everything.
			name: "forced unknown transaction with thin-air read",
			txns: []tx{{s: "a", st: U, ops: "rx9 wy1"}, {s: "b", ops: "ry1"}},
			pass: "",
		},
		{
			// Two unknowns: including either alone is fine; T3 reads both,
			// forcing both in, and they form a lost update.
			name: "two unknowns forced",
			txns: []tx{
				{s: "a", st: U, ops: "rx0 wx1 wy1"},
				{s: "b", st: U, ops: "rx0 wx2 wz2"},
				{s: "c", ops: "ry1 rz2"},
			},
			pass: "RC RA CC PC",
		},
		{
			// Session order among committed transactions skips an aborted
			// one: T3 follows T1 in session a, so RA needs T1 co T0.
			name: "session order skips aborted",
			txns: []tx{
				{s: "a", ops: "wx1"},
				{s: "a", st: A, ops: "wx2"},
				{s: "a", ops: "rx0"},
			},
			pass: "RC",
		},
		{
			// Session order includes an unknown that must be in (T4 reads
			// it), and T3 after it in session a reads y from T0: RA.
			name: "session order through forced unknown",
			txns: []tx{
				{s: "a", ops: "wx1"},
				{s: "a", st: U, ops: "wy1"},
				{s: "a", ops: "ry0"},
				{s: "b", ops: "ry1"},
			},
			pass: "RC",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := build(t, tc.txns...)
			want := make(map[string]bool)
			for _, l := range strings.Fields(tc.pass) {
				want[l] = true
			}
			for _, l := range levels {
				got, err := CheckAxioms(h, l.ax, l.rt)
				if err != nil {
					t.Fatalf("%s: %v", l.name, err)
				}
				if got != want[l.name] {
					t.Errorf("%s: got %v, want %v\n%s", l.name, got, want[l.name], histgen.Describe(h))
				}
			}
		})
	}
}

func TestCheckLevels(t *testing.T) {
	h := build(t, tx{s: "a", ops: "wx1", start: 1, end: 2}, tx{s: "b", ops: "rx0 ry0 wy1", start: 3, end: 4},
		tx{s: "c", ops: "rx0 ry0 wx2"})
	// Write skew between T2 and T3 (SI, not SER); T1 before T2 in real time.
	for _, tc := range []struct {
		l    level.Level
		want bool
	}{{level.SER, false}, {level.SI, true}, {level.SSER, false}} {
		got, err := Check(h, tc.l)
		if err != nil || got != tc.want {
			t.Errorf("Check(%v) = %v, %v; want %v", tc.l, got, err, tc.want)
		}
	}
	if _, err := Check(h, level.Level(99)); err == nil {
		t.Errorf("Check(Level(99)) succeeded")
	}
}

func TestErrors(t *testing.T) {
	tests := []struct {
		name string
		txns []tx
	}{
		{"too many", func() []tx {
			var txns []tx
			for i := range MaxTxns + 1 {
				txns = append(txns, tx{s: "a", st: []history.Status{history.Committed, history.Unknown}[i%2], ops: fmt.Sprintf("wx%d", i+1)})
			}
			return txns
		}()},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := build(t, tc.txns...)
			if ok, err := CheckAxioms(h, SER, false); err == nil {
				t.Errorf("got %v, nil; want an error", ok)
			}
		})
	}
	// MaxTxns committed transactions and aborted ones beyond are fine.
	var txns []tx
	for i := range MaxTxns + 3 {
		st := history.Committed
		if i >= MaxTxns {
			st = history.Aborted
		}
		txns = append(txns, tx{s: strconv.Itoa(i), st: st, ops: fmt.Sprintf("rx0 wy%d", i+1)})
	}
	if ok, err := CheckAxioms(build(t, txns...), SER, true); !ok || err != nil {
		t.Errorf("%d transactions: got %v, %v; want true, nil", MaxTxns, ok, err)
	}
}

// smallHistories returns n random histories from histgen.Small.
func smallHistories(n, maxTxns int) []*history.History {
	rng := rand.New(rand.NewPCG(1, 2))
	cfg := histgen.SmallConfig{
		MaxTxns:     maxTxns,
		AbortProb:   0.1,
		UnknownProb: 0.15,
		FaultProb:   0.1,
		Times:       true,
	}
	hs := make([]*history.History, n)
	for i := range hs {
		hs[i] = histgen.Small(rng, cfg)
	}
	return hs
}

// TestMonotone checks that the levels are ordered as the paper proves:
// SSER ⇒ SER ⇒ SI ⇒ PC ⇒ CC ⇒ RA ⇒ RC, and that adding axioms implied by
// Serializability to it changes nothing.
func TestMonotone(t *testing.T) {
	for _, h := range smallHistories(600, 8) {
		var prev bool
		for i := len(levels) - 1; i >= 0; i-- {
			l := levels[i]
			got, err := CheckAxioms(h, l.ax, l.rt)
			if err != nil {
				t.Fatal(err)
			}
			if i < len(levels)-1 && prev && !got {
				t.Fatalf("satisfies %s but not %s:\n%s", levels[i+1].name, l.name, histgen.Describe(h))
			}
			prev = got
		}
		ser, _ := CheckAxioms(h, SER, false)
		allAx, _ := CheckAxioms(h, AxRC|AxRA|AxCC|AxPrefix|AxConflict|AxSer, false)
		if ser != allAx {
			t.Fatalf("Ser alone %v, with the implied axioms %v:\n%s", ser, allAx, histgen.Describe(h))
		}
	}
}

// checkExhaustive is CheckAxioms without pruning: it tries every
// permutation of C and checks every axiom instance on the complete order.
func checkExhaustive(h *history.History, ax Axioms, realTime bool) bool {
	return anyCommitSet(h, func(in []bool) bool {
		c, ok := newInstance(h, in, ax, realTime)
		return ok && anyChoice(c, exhaustive)
	})
}

// anyChoice reports whether f holds for c fixed to some choice of wr: a
// candidate writer (extRead.from) for every external read. It tries the
// cartesian product of the candidates, independently of the choices the
// search makes; a history with unique values has one choice.
func anyChoice(c *instance, f func(*instance) bool) bool {
	type slot struct{ v, i int }
	var slots []slot
	for v, rs := range c.reads {
		for i := range rs {
			slots = append(slots, slot{v, i})
		}
	}
	var try func(k int) bool
	try = func(k int) bool {
		if k == len(slots) {
			c.fix()
			return f(c)
		}
		s := slots[k]
		for _, w := range c.reads[s.v][s.i].from {
			c.reads[s.v][s.i].writer = w
			if try(k + 1) {
				return true
			}
		}
		return false
	}
	return try(0)
}

// exhaustive reports whether some permutation of the nodes of c respects
// pred and satisfies every axiom instance, checked on the complete order.
func exhaustive(c *instance) bool {
	perm := make([]int, c.n-1)
	for i := range perm {
		perm[i] = i + 1
	}
	return permute(perm, 0, func(p []int) bool {
		pos := make([]int, c.n)
		for i, v := range p {
			pos[v] = i + 1
		}
		for v := 1; v < c.n; v++ {
			for u := 0; u < c.n; u++ {
				if c.pred[v]&(1<<u) != 0 && pos[u] >= pos[v] {
					return false
				}
			}
		}
		for v := 1; v < c.n; v++ {
			if !c.holdsAt(v, pos) {
				return false
			}
		}
		return true
	})
}

// permute calls f on every permutation of p[k:] (with p[:k] fixed) until f
// returns true.
func permute(p []int, k int, f func([]int) bool) bool {
	if k == len(p) {
		return f(p)
	}
	for i := k; i < len(p); i++ {
		p[k], p[i] = p[i], p[k]
		if permute(p, k+1, f) {
			p[k], p[i] = p[i], p[k]
			return true
		}
		p[k], p[i] = p[i], p[k]
	}
	return false
}

// TestPruningExact checks the depth-first search, which checks axiom
// instances as soon as their read's transaction is placed, against
// checking complete orders only.
func TestPruningExact(t *testing.T) {
	sets := []Axioms{0, RC, RA, CC, PC, AxConflict, SI, SER, AxRC | AxConflict}
	for _, h := range smallHistories(400, 6) {
		for _, ax := range sets {
			for _, rt := range []bool{false, true} {
				got, err := CheckAxioms(h, ax, rt)
				if err != nil {
					t.Fatal(err)
				}
				if want := checkExhaustive(h, ax, rt); got != want {
					t.Fatalf("%v (real time %v): search %v, exhaustive %v:\n%s", ax, rt, got, want, histgen.Describe(h))
				}
			}
		}
	}
}

// serialReplay decides SER (SSER with realTime) by its textbook
// definition, independently of the axioms: some choice of the unknown
// transactions and some order of them and the committed ones, respecting
// session order (and real time), in which running them one at a time
// from the initial state returns every value they read.
func serialReplay(h *history.History, realTime bool) bool {
	var unknown []int
	for t := range h.Txns {
		if h.Txns[t].Status == history.Unknown {
			unknown = append(unknown, t)
		}
	}
	for mask := 0; mask < 1<<len(unknown); mask++ {
		var c []int
		for t := range h.Txns {
			in := h.Txns[t].Status == history.Committed
			for i, u := range unknown {
				if u == t && mask&(1<<i) != 0 {
					in = true
				}
			}
			if in {
				c = append(c, t)
			}
		}
		if permute(c, 0, func(order []int) bool {
			pos := make(map[int]int)
			for i, t := range order {
				pos[t] = i
			}
			for _, txns := range h.Sessions {
				last := -1
				for _, t := range txns {
					if p, ok := pos[int(t)]; ok {
						if p < last {
							return false
						}
						last = p
					}
				}
			}
			if realTime {
				for _, a := range order {
					for _, b := range order {
						ta, tb := &h.Txns[a], &h.Txns[b]
						if ta.HasTime() && tb.HasTime() && ta.End < tb.Start && pos[a] > pos[b] {
							return false
						}
					}
				}
			}
			state := make(map[history.Key]history.Value)
			get := func(k history.Key) history.Value {
				if v, ok := state[k]; ok {
					return v
				}
				return h.Init
			}
			for _, t := range order {
				local := make(map[history.Key]history.Value)
				for _, op := range h.OpsOf(t) {
					if op.Kind == history.Write {
						local[op.Key] = op.Value
						continue
					}
					v, ok := local[op.Key]
					if !ok {
						v = get(op.Key)
					}
					if op.Value != v {
						return false
					}
				}
				for k, v := range local {
					state[k] = v
				}
			}
			return true
		}) {
			return true
		}
	}
	return false
}

func TestSerialReplay(t *testing.T) {
	for _, h := range smallHistories(500, 7) {
		for _, rt := range []bool{false, true} {
			got, err := CheckAxioms(h, SER, rt)
			if err != nil {
				t.Fatal(err)
			}
			if want := serialReplay(h, rt); got != want {
				t.Fatalf("real time %v: axioms %v, serial replay %v:\n%s", rt, got, want, histgen.Describe(h))
			}
		}
	}
}

func TestAxiomsString(t *testing.T) {
	for _, tc := range []struct {
		ax   Axioms
		want string
	}{{0, "none"}, {SI, "Prefix|Conflict"}, {SER, "Ser"}, {AxRC | AxCC, "RC|CC"}, {1 << 7, "0x80"}} {
		if got := tc.ax.String(); got != tc.want {
			t.Errorf("%d: got %q, want %q", uint8(tc.ax), got, tc.want)
		}
	}
}

// BenchmarkWorstCase is nine unrelated transactions with a Serializability
// violation: the search visits every order.
func BenchmarkWorstCase(b *testing.B) {
	var txns []tx
	txns = append(txns, tx{s: "0", ops: "rx0 wx1"}, tx{s: "1", ops: "rx0 wx2"})
	for i := 2; i < MaxTxns; i++ {
		txns = append(txns, tx{s: strconv.Itoa(i), ops: fmt.Sprintf("wy%d", i)})
	}
	h := build(b, txns...)
	for b.Loop() {
		if ok, err := CheckAxioms(h, SER, false); ok || err != nil {
			b.Fatal(ok, err)
		}
	}
}
