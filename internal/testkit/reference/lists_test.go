package reference

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/isocheck/isocheck/histgen"
	"github.com/isocheck/isocheck/history"
)

// buildLists makes a list history with initial value 0 from txns, whose
// ops are like "ax1 rx1.2 ry": ax1 appends 1 to x, rx1.2 reads the list
// [1 2] of x, ry reads the empty list of y (wx1 is ax1). orders states
// version orders, like "x:2.1 y:".
func buildLists(t testing.TB, orders string, txns ...tx) *history.History {
	t.Helper()
	b := history.NewBuilder(0)
	for _, x := range txns {
		var ops []history.Op
		var lists [][]history.Value
		for _, f := range strings.Fields(x.ops) {
			if len(f) < 2 || !strings.ContainsRune("arw", rune(f[0])) {
				t.Fatalf("bad operation %q", f)
			}
			i := strings.IndexAny(f, "0123456789")
			if i < 0 {
				i = len(f)
			}
			k := b.Key(f[1:i])
			vals := parseValues(t, f[i:])
			if f[0] == 'r' {
				ops = append(ops, history.Op{Kind: history.Read, Key: k})
				lists = append(lists, vals)
				continue
			}
			if len(vals) != 1 {
				t.Fatalf("bad append %q", f)
			}
			ops = append(ops, history.Op{Kind: history.Write, Key: k, Value: vals[0]})
			lists = append(lists, nil)
		}
		txn := history.Txn{Session: b.Session(x.s), Status: x.st, Start: history.NoTime, End: history.NoTime}
		if x.start != 0 || x.end != 0 {
			txn.Start, txn.End = x.start, x.end
		}
		b.AddListTxn(txn, ops, lists)
	}
	for _, o := range strings.Fields(orders) {
		k, vals, ok := strings.Cut(o, ":")
		if !ok {
			t.Fatalf("bad order %q", o)
		}
		b.AddOrder(b.Key(k), parseValues(t, vals))
	}
	return b.History()
}

// parseValues reads "1.2.3" (empty: none).
func parseValues(t testing.TB, s string) []history.Value {
	var vals []history.Value
	if s == "" {
		return nil
	}
	for _, e := range strings.Split(s, ".") {
		v, err := strconv.ParseInt(e, 10, 64)
		if err != nil {
			t.Fatalf("bad value %q: %v", s, err)
		}
		vals = append(vals, history.Value(v))
	}
	return vals
}

// TestLists checks hand-made list histories and stated version orders at
// every level. As in TestClassic, each expected verdict is derived in the
// comment from the definitions in the package comment (the list of x
// after w: the blocks of x of the writers co-before-or-equal w; T0 first
// with empty blocks), not from running the code.
func TestLists(t *testing.T) {
	const (
		A = history.Aborted
		U = history.Unknown
	)
	tests := []struct {
		name   string
		lists  bool // build a list history (else a register one, for orders)
		orders string
		txns   []tx
		pass   string
	}{
		{
			// T3's list ends with T2's append, and [1 2] is the list after
			// T2 iff T1 co T2 (nothing else writes x): co = T0 T1 T2 T3.
			// No read of another key: every axiom holds.
			name:  "list of two appends",
			lists: true,
			txns:  []tx{{s: "a", ops: "ax1"}, {s: "b", ops: "ax2"}, {s: "c", ops: "rx1.2"}},
			pass:  all,
		},
		{
			// An empty list is a read of T0: co = T0 T2 T1 works, T1 last.
			name:  "empty list",
			lists: true,
			txns:  []tx{{s: "a", ops: "ax1"}, {s: "b", ops: "rx"}},
			pass:  all,
		},
		{
			// T3 needs T1 co T2, T4 needs T2 co T1: no co, at any level.
			name:  "incompatible orders",
			lists: true,
			txns: []tx{
				{s: "a", ops: "ax1"}, {s: "b", ops: "ax2"},
				{s: "c", ops: "rx1.2"}, {s: "d", ops: "rx2.1"},
			},
			pass: "",
		},
		{
			// The stated order makes T2 the first writer of x, then T1
			// (T2 co T1); T3's list needs T1 co T2.
			name:   "list incompatible with the stated order",
			lists:  true,
			orders: "x:2.1",
			txns:   []tx{{s: "a", ops: "ax1"}, {s: "b", ops: "ax2"}, {s: "c", ops: "rx1.2"}},
			pass:   "",
		},
		{
			// The stated order [1] makes T1 the first writer: what T3 says.
			name:   "list compatible with the stated order",
			lists:  true,
			orders: "x:1",
			txns:   []tx{{s: "a", ops: "ax1"}, {s: "b", ops: "ax2"}, {s: "c", ops: "rx1.2"}},
			pass:   all,
		},
		{
			// T1's block is [1]: the list after T1 is [1], never [1 1].
			name:  "duplicate elements",
			lists: true,
			txns:  []tx{{s: "a", ops: "ax1"}, {s: "b", ops: "rx1.1"}},
			pass:  "",
		},
		{
			// T1 aborted, so the list after T2 (the last element's writer)
			// is [2], never [1 2].
			name:  "element of an aborted transaction",
			lists: true,
			txns:  []tx{{s: "a", st: A, ops: "ax1"}, {s: "b", ops: "ax2"}, {s: "c", ops: "rx1.2"}},
			pass:  "",
		},
		{
			// Nobody appended 7: the list after T1 is [1].
			name:  "element nobody appended",
			lists: true,
			txns:  []tx{{s: "a", ops: "ax1"}, {s: "b", ops: "rx7.1"}},
			pass:  "",
		},
		{
			// [1] ends with T1's first append, not its last: an
			// intermediate list, read from no writer.
			name:  "intermediate list",
			lists: true,
			txns:  []tx{{s: "a", ops: "ax1 ax2"}, {s: "b", ops: "rx1"}},
			pass:  "",
		},
		{
			// T1's block [1 3] comes whole in every list after T1; [1 2 3]
			// puts T2's append inside it.
			name:  "appends of two transactions interleaved",
			lists: true,
			txns:  []tx{{s: "a", ops: "ax1 ax3"}, {s: "b", ops: "ax2"}, {s: "c", ops: "rx1.2.3"}},
			pass:  "",
		},
		{
			// [2 1] ends with T1's first append: not read from T1's last.
			name:  "block in the wrong order",
			lists: true,
			txns:  []tx{{s: "a", ops: "ax1 ax2"}, {s: "b", ops: "rx2.1"}},
			pass:  "",
		},
		{
			// T2 reads [1] from T1, appends 2, then reads [1 2]: the
			// writers co-before T2 (T1) and its own append. Every axiom
			// holds with co = T0 T1 T2.
			name:  "read after own appends",
			lists: true,
			txns:  []tx{{s: "a", ops: "ax1"}, {s: "b", ops: "rx1 ax2 ax3 rx1.2.3"}},
			pass:  all,
		},
		{
			// An internal read reveals an order without reading from anyone:
			// T1 co T2. No external read: every axiom holds.
			name:  "internal read shows another append",
			lists: true,
			txns:  []tx{{s: "a", ops: "ax1"}, {s: "b", ops: "ax2 rx1.2"}},
			pass:  all,
		},
		{
			// T2's internal read [2] says no writer of x precedes T2, so
			// T2 co T1; T3's [1 2] says T1 co T2.
			name:  "internal read missing an earlier writer",
			lists: true,
			txns:  []tx{{s: "a", ops: "ax1"}, {s: "b", ops: "ax2 rx2"}, {s: "c", ops: "rx1.2"}},
			pass:  "",
		},
		{
			// The internal read must end with the own appends so far.
			name:  "internal read without own append",
			lists: true,
			txns:  []tx{{s: "a", ops: "ax1"}, {s: "b", ops: "ax2 rx1"}},
			pass:  "",
		},
		{
			// Lost update: both read x from T0; T2's internal read forces
			// T1 co T2. SER: T1 co T2 and T1 writes x, T2 reads x from T0,
			// so T1 co T0. SI: Conflict with t2 = t4 = T1 (T1 co T2, both
			// write x) asks the same. PC: T2's only wr ∪ so predecessor is
			// T0, and T1 co* T0 is false: Prefix asks nothing; neither do
			// CC, RA (T1 is no wr ∪ so predecessor of T2) nor RC. T1's read
			// from T0 with t2 = T2: T2 comes after T1, SER asks nothing.
			name:  "lost update revealed by an internal read",
			lists: true,
			txns:  []tx{{s: "a", ops: "rx ax1"}, {s: "b", ops: "rx ax2 rx1.2"}},
			pass:  "RC RA CC PC",
		},
		{
			// T3's [1 2] puts T1 co T2 (a write T3 does not read from),
			// and T3 reads y from T0 though T1 wrote it. SER: T1 co T3, so
			// T1 co T0. PC: t2 = T1 co* T2 wr T3 (Prefix), so T1 co T0.
			// CC: T1 is no (wr ∪ so)⁺ predecessor of T3 (T3 reads from T2
			// and T0), RA and RC neither (the earlier read is from T2,
			// which does not write y): co = T0 T1 T2 T3.
			name:  "list reveals a write the reader missed",
			lists: true,
			txns:  []tx{{s: "a", ops: "ax1 ay1"}, {s: "b", ops: "ax2"}, {s: "c", ops: "rx1.2 ry"}},
			pass:  "RC RA CC",
		},
		{
			// Long fork with lists, as with registers: T3 sees T1's x not
			// T2's y, T4 the opposite. Each list is one block.
			name:  "long fork",
			lists: true,
			txns: []tx{
				{s: "a", ops: "ax1"}, {s: "b", ops: "ay1"},
				{s: "c", ops: "rx1 ry"}, {s: "d", ops: "ry1 rx"},
			},
			pass: "RC RA CC",
		},
		{
			// Two reads of x growing: RC (α = rx1.2 from T2, β = rx1 from
			// T1, which writes x) asks T1 co T2, as the list does. RA:
			// α = rx1 from T1 and T2 wr T3 writes x, so T2 co T1.
			name:  "non-repeatable read",
			lists: true,
			txns:  []tx{{s: "a", ops: "ax1"}, {s: "b", ops: "ax2"}, {s: "c", ops: "rx1 rx1.2"}},
			pass:  "RC",
		},
		{
			// Shrinking: RC (α = rx1 from T1, β from T2, which writes x)
			// asks T2 co T1; the list [1 2] asks T1 co T2.
			name:  "non-repeatable read going back",
			lists: true,
			txns:  []tx{{s: "a", ops: "ax1"}, {s: "b", ops: "ax2"}, {s: "c", ops: "rx1.2 rx1"}},
			pass:  "",
		},
		{
			// An unknown T1 whose append is read in the middle of a list
			// must be in C (else the list after T2 is [2]); with it,
			// co = T0 T1 T2 T3.
			name:  "unknown transaction's append read",
			lists: true,
			txns:  []tx{{s: "a", st: U, ops: "ax1"}, {s: "b", ops: "ax2"}, {s: "c", ops: "rx1.2"}},
			pass:  all,
		},
		{
			// Nobody read the unknown T1's append: C without T1 works (and
			// with it, T1 after T2 does too).
			name:  "unknown transaction's append not read",
			lists: true,
			txns:  []tx{{s: "a", st: U, ops: "ax1"}, {s: "b", ops: "ax2"}, {s: "c", ops: "rx2"}},
			pass:  all,
		},
		{
			// With T1 in C, its internal read [1] puts it before T2, and
			// T3's [2] puts T2 first: T1 must be out, and may be.
			name:  "unknown transaction that cannot have committed",
			lists: true,
			txns:  []tx{{s: "a", st: U, ops: "ax1 rx1"}, {s: "b", ops: "ax2"}, {s: "c", ops: "rx2"}},
			pass:  all,
		},
		{
			// T2 reads T1's append, so T1 is in C, and T1's own list [5]
			// holds an element nobody appended.
			name:  "unknown transaction read, with a bad list",
			lists: true,
			txns:  []tx{{s: "a", st: U, ops: "rx5 ax1"}, {s: "b", ops: "rx1"}},
			pass:  "",
		},
		{
			// The unknown T2 appended between T1's appends in T3's list:
			// the list is bad whether T2 is in C or not.
			name:  "unknown transaction's append inside a block",
			lists: true,
			txns:  []tx{{s: "a", ops: "ax1 ax3"}, {s: "b", st: U, ops: "ax2"}, {s: "c", ops: "rx1.2.3"}},
			pass:  "",
		},
		{
			// A stated order cut inside T1's block [1 2].
			name:   "stated order splits a block",
			lists:  true,
			orders: "x:1",
			txns:   []tx{{s: "a", ops: "ax1 ax2"}},
			pass:   "",
		},
		{
			// The same order, whole.
			name:   "stated order of a whole block",
			lists:  true,
			orders: "x:1.2",
			txns:   []tx{{s: "a", ops: "ax1 ax2"}},
			pass:   all,
		},
		{
			// Only an aborted transaction appended 1: the stated order
			// names a value no writer in C contributes.
			name:   "stated order of an aborted append",
			lists:  true,
			orders: "x:1",
			txns:   []tx{{s: "a", st: A, ops: "ax1"}},
			pass:   "",
		},
		{
			// The stated order forces the unknown T1 into C; fine.
			name:   "stated order of an unknown append",
			lists:  true,
			orders: "x:1",
			txns:   []tx{{s: "a", st: U, ops: "ax1"}},
			pass:   all,
		},
		{
			// Registers: T2 so T3 and T3 reads x from T1. RA: T2 writes x,
			// so T2 co T1, which the stated order 1.2 (T1 co T2) forbids;
			// RC asks nothing (no earlier read).
			name:   "register stated order against session order",
			orders: "x:1.2",
			txns:   []tx{{s: "a", ops: "wx1"}, {s: "b", ops: "wx2"}, {s: "b", ops: "rx1"}},
			pass:   "RC",
		},
		{
			// The same without the stated order: co = T0 T2 T1 T3.
			name: "register history without stated order",
			txns: []tx{{s: "a", ops: "wx1"}, {s: "b", ops: "wx2"}, {s: "b", ops: "rx1"}},
			pass: all,
		},
		{
			// Registers: only final writes are versions; 1 is not T1's.
			name:   "register stated order of an intermediate write",
			orders: "x:1",
			txns:   []tx{{s: "a", ops: "wx1 wx2"}},
			pass:   "",
		},
		{
			// Registers: the stated order 2 names T1's final write.
			name:   "register stated order of a final write",
			orders: "x:2",
			txns:   []tx{{s: "a", ops: "wx1 wx2"}, {s: "b", ops: "wx3"}},
			pass:   all,
		},
		{
			// A stated order with a value twice can never be matched.
			name:   "stated order with a duplicate",
			lists:  true,
			orders: "x:1.1",
			txns:   []tx{{s: "a", ops: "ax1"}},
			pass:   "",
		},
		{
			// Real time with lists: T1 ends before T2 starts, so T1 co T2
			// under SSER, and the list after T2 must then be [1 2].
			name:  "list against real time",
			lists: true,
			txns: []tx{
				{s: "a", ops: "ax1", start: 1, end: 2},
				{s: "b", ops: "ax2", start: 3, end: 4},
				{s: "c", ops: "rx2.1"},
			},
			pass: "RC RA CC PC SI SER",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var h *history.History
			if tc.lists {
				h = buildLists(t, tc.orders, tc.txns...)
			} else {
				h = build(t, tc.txns...)
				for _, o := range strings.Fields(tc.orders) {
					k, vals, _ := strings.Cut(o, ":")
					key := history.Key(-1)
					for i, n := range h.KeyNames {
						if n == k {
							key = history.Key(i)
						}
					}
					h.Orders = append(h.Orders, history.VersionOrder{Key: key, Values: parseValues(t, vals)})
				}
			}
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

func TestListErrors(t *testing.T) {
	h := buildLists(t, "", tx{s: "a", ops: "ax1"}, tx{s: "b", ops: "rx1"})
	h.Ops[1].Value = 0 // no longer the list's last element
	if ok, err := CheckAxioms(h, SER, false); err == nil {
		t.Errorf("inconsistent list read: got %v, nil; want an error", ok)
	}
	h = buildLists(t, "", tx{s: "a", ops: "ax1"})
	h.Orders = []history.VersionOrder{{Key: 5, Values: []history.Value{1}}}
	if ok, err := CheckAxioms(h, SER, false); err == nil {
		t.Errorf("order of an unknown key: got %v, nil; want an error", ok)
	}
}

// listHistories returns n random list histories from histgen.Small, with
// faults and stated orders.
func listHistories(n, maxTxns int) []*history.History {
	rng := rand.New(rand.NewPCG(3, 4))
	cfg := histgen.SmallConfig{
		MaxTxns: maxTxns, AbortProb: 0.1, UnknownProb: 0.15, FaultProb: 0.15,
		Times: true, Lists: true, OrderProb: 0.2, OrderFaultProb: 0.25,
	}
	hs := make([]*history.History, n)
	for i := range hs {
		hs[i] = histgen.Small(rng, cfg)
	}
	return hs
}

// blocksOf returns, per transaction, its block of each key, straight from
// the package comment: its appends in a list history, its final write
// otherwise.
func blocksOf(h *history.History) []map[history.Key][]history.Value {
	bs := make([]map[history.Key][]history.Value, len(h.Txns))
	for t := range h.Txns {
		bs[t] = make(map[history.Key][]history.Value)
		for _, op := range h.OpsOf(t) {
			if op.Kind != history.Write {
				continue
			}
			if h.Lists {
				bs[t][op.Key] = append(bs[t][op.Key], op.Value)
			} else {
				bs[t][op.Key] = []history.Value{op.Value}
			}
		}
	}
	return bs
}

// listsHoldIn checks the list reads and stated orders of h against the
// complete commit order order (transactions of C, T0 implicit first),
// by the definitions of the package comment, independently of
// newInstance.
func listsHoldIn(h *history.History, order []int) bool {
	bs := blocksOf(h)
	pos := make(map[int]int)
	for i, t := range order {
		pos[t] = i
	}
	// upTo returns the blocks of x of the transactions of order[:n].
	upTo := func(x history.Key, n int) []history.Value {
		var l []history.Value
		for _, t := range order[:n] {
			l = append(l, bs[t][x]...)
		}
		return l
	}
	if h.Lists {
		for _, t := range order {
			tx := &h.Txns[t]
			own := make(map[history.Key][]history.Value)
			for i := tx.OpStart; i < tx.OpEnd; i++ {
				op := h.Ops[i]
				if op.Kind == history.Write {
					own[op.Key] = append(own[op.Key], op.Value)
					continue
				}
				l := h.ListOf(i)
				var want []history.Value
				if len(own[op.Key]) > 0 {
					want = append(upTo(op.Key, pos[t]), own[op.Key]...)
				} else if len(l) > 0 {
					w := -1
					for u := range h.Txns {
						if slices.Contains(bs[u][op.Key], l[len(l)-1]) {
							w = u
						}
					}
					p, in := pos[w]
					if !in || w == t {
						return false
					}
					want = upTo(op.Key, p+1)
				}
				if !slices.Equal(want, l) {
					return false
				}
			}
		}
	}
	for _, o := range h.Orders {
		ok := len(o.Values) == 0
		for n := 1; n <= len(order) && !ok; n++ {
			if _, writes := bs[order[n-1]][o.Key]; writes {
				ok = slices.Equal(upTo(o.Key, n), o.Values)
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

// TestListsPruningExact checks the search on list histories against
// checking complete orders only: every permutation of C, the axioms by
// holdsAt and the lists by listsHoldIn.
func TestListsPruningExact(t *testing.T) {
	sets := []Axioms{0, RC, RA, CC, PC, SI, SER}
	for _, h := range listHistories(300, 6) {
		for _, ax := range sets {
			for _, rt := range []bool{false, true} {
				got, err := CheckAxioms(h, ax, rt)
				if err != nil {
					t.Fatal(err)
				}
				want := anyCommitSet(h, func(in []bool) bool {
					c, ok := newInstance(h, in, ax, rt)
					if !ok {
						return false
					}
					var txnOf []int
					for t := range h.Txns {
						if in[t] {
							txnOf = append(txnOf, t)
						}
					}
					perm := make([]int, c.n-1)
					for i := range perm {
						perm[i] = i + 1
					}
					return permute(perm, 0, func(p []int) bool {
						pos := make([]int, c.n)
						order := make([]int, len(p))
						for i, v := range p {
							pos[v] = i + 1
							order[i] = txnOf[v-1]
						}
						for v := 1; v < c.n; v++ {
							for u := 0; u < c.n; u++ {
								if c.pred[v]&(1<<u) != 0 && pos[u] >= pos[v] {
									return false
								}
							}
							if !c.holdsAt(v, pos) {
								return false
							}
						}
						return listsHoldIn(h, order)
					})
				})
				if got != want {
					t.Fatalf("%v (real time %v): search %v, exhaustive %v:\n%s", ax, rt, got, want, histgen.Describe(h))
				}
			}
		}
	}
}

// serialReplayLists decides SER (SSER with realTime) of a list history by
// running its transactions one at a time: some choice of the unknown
// ones and some order respecting session order (and real time) in which
// every read returns the list as it is (with the transaction's own
// appends so far), and each stated order is the start of the sequence of
// blocks the transactions appended.
func serialReplayLists(h *history.History, realTime bool) bool {
	return anyCommitSet(h, func(in []bool) bool {
		var c []int
		for t := range h.Txns {
			if in[t] {
				c = append(c, t)
			}
		}
		return permute(c, 0, func(order []int) bool {
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
			for _, a := range order {
				for _, b := range order {
					ta, tb := &h.Txns[a], &h.Txns[b]
					if realTime && ta.HasTime() && tb.HasTime() && ta.End < tb.Start && pos[a] > pos[b] {
						return false
					}
				}
			}
			state := make(map[history.Key][]history.Value)
			bounds := make(map[history.Key][]int) // lengths of the list after each writer
			for _, t := range order {
				tx := &h.Txns[t]
				local := make(map[history.Key][]history.Value)
				for i := tx.OpStart; i < tx.OpEnd; i++ {
					op := h.Ops[i]
					if op.Kind == history.Write {
						local[op.Key] = append(local[op.Key], op.Value)
					} else if !slices.Equal(append(slices.Clone(state[op.Key]), local[op.Key]...), h.ListOf(i)) {
						return false
					}
				}
				for k, vs := range local {
					state[k] = append(state[k], vs...)
					bounds[k] = append(bounds[k], len(state[k]))
				}
			}
			for _, o := range h.Orders {
				if len(o.Values) > 0 && (!slices.Contains(bounds[o.Key], len(o.Values)) || !slices.Equal(state[o.Key][:len(o.Values)], o.Values)) {
					return false
				}
			}
			return true
		})
	})
}

func TestListsSerialReplay(t *testing.T) {
	for _, h := range listHistories(400, 7) {
		for _, rt := range []bool{false, true} {
			got, err := CheckAxioms(h, SER, rt)
			if err != nil {
				t.Fatal(err)
			}
			if want := serialReplayLists(h, rt); got != want {
				t.Fatalf("real time %v: axioms %v, serial replay %v:\n%s", rt, got, want, histgen.Describe(h))
			}
		}
	}
}

// TestListsMonotone checks on list histories that the levels stay
// ordered: SSER ⇒ SER ⇒ SI ⇒ PC ⇒ CC ⇒ RA ⇒ RC.
func TestListsMonotone(t *testing.T) {
	for _, h := range listHistories(500, 8) {
		var prev bool
		for i := len(levels) - 1; i >= 0; i-- {
			got, err := CheckAxioms(h, levels[i].ax, levels[i].rt)
			if err != nil {
				t.Fatal(err)
			}
			if i < len(levels)-1 && prev && !got {
				t.Fatalf("satisfies %s but not %s:\n%s", levels[i+1].name, levels[i].name, histgen.Describe(h))
			}
			prev = got
		}
	}
}
