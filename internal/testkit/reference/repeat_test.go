package reference

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/isocheck/isocheck/histgen"
	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/level"
)

// TestRepeatedValues checks hand-made histories in which a value is
// written by several transactions, or the initial value (0) is written,
// at every level. As in TestClassic, each expected verdict is derived in
// the comment from the axioms (t1 the writer chosen for read α of t3, t2 ≠
// t1 another writer of its key) and the package comment, not from running
// the code; "choice W" names the writer chosen for the read in question.
// Each case whose verdict hinges on the choice comes with a contrast: the
// same history with the other writer's value changed, so that the read
// has one writer only.
func TestRepeatedValues(t *testing.T) {
	const (
		A = history.Aborted
		U = history.Unknown
	)
	tests := []struct {
		name string
		txns []tx
		pass string // the levels the history satisfies
	}{
		{
			// T3 reads x=1, written by T1 and T2, and y=2 from T2. Choice
			// T1: RA fails (ry2 from T2 has t2 = T1 with T1 wr T3, so T1 co
			// T2; rx1 from T1 has t2 = T2 with T2 wr T3, so T2 co T1).
			// Choice T2 (the second candidate): co = T0 T1 T2 T3 satisfies
			// Ser (T0 and T1 precede T2, the writer of both reads), hence
			// every level.
			name: "fractured read avoided by the second writer",
			txns: []tx{{s: "a", ops: "wx1 wy1"}, {s: "b", ops: "wx1 wy2"}, {s: "c", ops: "rx1 ry2"}},
			pass: all,
		},
		{
			// Contrast: T2 writes x=3, so rx1 reads from T1: the fractured
			// read above (RA, hence CC, PC, SI, SER fail). RC: rx1 is
			// first, with no φ; ry2's earlier read reads from T1, so T1 co
			// T2, as in co = T0 T1 T2 T3.
			name: "fractured read pinned",
			txns: []tx{{s: "a", ops: "wx1 wy1"}, {s: "b", ops: "wx3 wy2"}, {s: "c", ops: "rx1 ry2"}},
			pass: "RC",
		},
		{
			// T3 reads x=1 (T1 or T2) and then y and z from T0. Choice T1:
			// ry0 has t1 = T0 and t2 = T1, which writes y and which the
			// earlier rx read from (RC), so T1 co T0: impossible. Choice
			// T2: the same with rz0. Every axiom set contains RC's premise
			// here (an earlier read from t2 implies T2 wr T3, RA's premise,
			// and so on up to Ser, whose premise follows from wr ⊆ co), so
			// no level holds.
			name: "every writer contradicts a later read",
			txns: []tx{{s: "a", ops: "wx1 wy1"}, {s: "b", ops: "wx1 wz1"}, {s: "c", ops: "rx1 ry0 rz0"}},
			pass: "",
		},
		{
			// The same with rx1 last: RC holds with either choice (say T1:
			// rx1's t2 are T0, read from earlier, and T0 co T1; T2, not
			// read from earlier). RA fails with either: choice T1 makes
			// T1 wr T3, so ry0 needs T1 co T0; choice T2, rz0 likewise.
			name: "every writer contradicts another read",
			txns: []tx{{s: "a", ops: "wx1 wy1"}, {s: "b", ops: "wx1 wz1"}, {s: "c", ops: "ry0 rz0 rx1"}},
			pass: "RC",
		},
		{
			// Session a: T1 writes x=1, then T2 writes the initial value
			// x=0. T3 reads x=1 (T1) then x=0, from T0 or T2. Choice T0:
			// RC needs T1 co T0 (t2 = T1 was read from earlier). Choice
			// T2: RC needs T1 co T2, which so gives: co = T0 T1 T2 T3. RA
			// fails with either: with T2, rx1 has t2 = T2 with T2 wr T3,
			// so T2 co T1 against so; with T0, T1 co T0.
			name: "read of the initial value from its writer",
			txns: []tx{{s: "a", ops: "wx1"}, {s: "a", ops: "wx0"}, {s: "b", ops: "rx1 rx0"}},
			pass: "RC",
		},
		{
			// Contrast: T2 writes x=2, so rx0 reads from T0 and RC needs
			// T1 co T0.
			name: "read of the initial value pinned to T0",
			txns: []tx{{s: "a", ops: "wx1"}, {s: "a", ops: "wx2"}, {s: "b", ops: "rx1 rx0"}},
			pass: "",
		},
		{
			// T1 writes the initial value to x, and y=1. T2 reads x=0
			// (from T0 or T1), then y=0 (from T0 only). Choice T1: ry0 has
			// t2 = T1, read from earlier (RC), so T1 co T0: no level.
			// Choice T0: co = T0 T2 T1 satisfies Ser (T2's writers are T0
			// for both reads, and T1 comes after T2), hence every level.
			name: "read of the initial value from T0",
			txns: []tx{{s: "a", ops: "wx0 wy1"}, {s: "b", ops: "rx0 ry0"}},
			pass: all,
		},
		{
			// T1 reads x=0 and writes x=1; T2 reads x=1 (T1 only: T2's
			// own write is not a candidate) and writes x=1 again; T3 reads
			// x=1 and writes x=2. Choice T1 for T3: T2 and T3 both read x
			// from T1 and write x, a lost update (SER and SI fail, as in
			// TestClassic). Choice T2: co = T0 T1 T2 T3 is serial: each
			// read's writer is the last writer of x before it. Every
			// level holds.
			name: "lost update avoided by the later writer",
			txns: []tx{{s: "a", ops: "rx0 wx1"}, {s: "b", ops: "rx1 wx1"}, {s: "c", ops: "rx1 wx2"}},
			pass: all,
		},
		{
			// Contrast: T2 writes x=5, so T3 reads x from T1: the lost
			// update. PC: co = T0 T1 T2 T3; for T3's read (t1 = T1, t2 =
			// T2) Prefix asks whether T2 co* t4 for a t4 wr ∪ so T3: only
			// T0 and T1, no; for T2's read (t2 = T3) likewise. CC, RA and
			// RC ask less.
			name: "lost update pinned",
			txns: []tx{{s: "a", ops: "rx0 wx1"}, {s: "b", ops: "rx1 wx5"}, {s: "c", ops: "rx1 wx2"}},
			pass: "RC RA CC PC",
		},
		{
			// T3 reads y=0 and x=1, written by T1 (committed, with y=1)
			// and T2 (unknown). Choice T1: RA fails (ry0 has t2 = T1 with
			// T1 wr T3, so T1 co T0); RC holds (ry0 is first; rx1's t2 =
			// T0 was read from earlier and precedes T1). With T2 in C,
			// choice T2: co = T0 T2 T3 T1 satisfies Ser (T1, the other
			// writer of both keys, comes after T3). Every level holds,
			// with C = {T1, T2, T3}.
			name: "unknown writer needed",
			txns: []tx{{s: "a", ops: "wx1 wy1"}, {s: "b", st: U, ops: "wx1"}, {s: "c", ops: "ry0 rx1"}},
			pass: all,
		},
		{
			// Contrast: T2 aborted, so T3 reads x from T1: RC only.
			name: "aborted writer not a candidate",
			txns: []tx{{s: "a", ops: "wx1 wy1"}, {s: "b", st: A, ops: "wx1"}, {s: "c", ops: "ry0 rx1"}},
			pass: "RC",
		},
		{
			// T2 (unknown) writes x=1 and y=1 and precedes T3 in session
			// c; T3 reads y=0 and x=1. With T2 in C, ry0 has t2 = T2 with
			// T2 so T3, so RA (and up) needs T2 co T0, whatever the choice
			// for rx1. Reading x=1 does not prove that T2 committed: T1
			// wrote it too. With C = {T1, T3} and choice T1, co = T0 T1 T3
			// is serial. Every level holds.
			name: "unknown writer left out",
			txns: []tx{{s: "a", ops: "wx1"}, {s: "c", st: U, ops: "wx1 wy1"}, {s: "c", ops: "ry0 rx1"}},
			pass: all,
		},
		{
			// Contrast: T2 committed, so it is in C: RA fails as above. RC
			// holds with either choice (ry0 is first; rx1's t2 are T0,
			// which precedes, and T1 or T2, not read from earlier).
			name: "committed writer cannot be left out",
			txns: []tx{{s: "a", ops: "wx1"}, {s: "c", ops: "wx1 wy1"}, {s: "c", ops: "ry0 rx1"}},
			pass: "RC",
		},
		{
			// T3 reads x=1 twice, written by T1 (with y=5) and by T2 (with
			// z=1, y=1). The first rx1 must read from T1: from T2, rz0
			// (t1 = T0, t2 = T2 read from earlier) needs T2 co T0 under
			// RC. ry1 reads from T2 with T1 read from earlier: T1 co T2.
			// The second rx1 must then read from T2: from T1, t2 = T2
			// read from earlier needs T2 co T1. With T1 then T2, co = T0
			// T1 T2 T3 satisfies RC, so RC holds only because each read
			// chooses its writer on its own. RA fails: rz0 has t2 = T2
			// with T2 wr T3.
			name: "repeated reads choose independently",
			txns: []tx{{s: "a", ops: "wx1 wy5"}, {s: "b", ops: "wx1 wz1 wy1"}, {s: "c", ops: "rx1 rz0 ry1 rx1"}},
			pass: "RC",
		},
		{
			// T1 writes x=1 twice, then x=2: its final write is 2, so a
			// read of x=1 has no writer (an intermediate write) and no
			// level holds.
			name: "intermediate repeated write",
			txns: []tx{{s: "a", ops: "wx1 wx1 wx2"}, {s: "b", ops: "rx1"}},
			pass: "",
		},
		{
			// T1's final write of x is 1 (written twice), T2 reads it; T1
			// then T2 is serial.
			name: "value written twice by one transaction",
			txns: []tx{{s: "a", ops: "wx1 wx2 wx1"}, {s: "b", ops: "rx1"}},
			pass: all,
		},
		{
			// T1 rolled back: its writes are invisible, so T2's x=1 is
			// from T3 only, after which y=0 needs T3 co T0 under RA (T3
			// writes y); RC holds (ry0 is first, then rx1's t2 = T0
			// precedes T3).
			name: "rolled-back writer not a candidate",
			txns: []tx{
				{s: "a", st: history.RolledBack, ops: "wx1"},
				{s: "b", ops: "ry0 rx1"},
				{s: "c", ops: "wx1 wy1"},
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
			for _, l := range level.All() {
				got, err := Check(h, l)
				if err != nil {
					t.Fatalf("%v: %v", l, err)
				}
				if got != want[l.String()] {
					t.Errorf("%v: got %v, want %v\n%s", l, got, want[l.String()], histgen.Describe(h))
				}
			}
		})
	}
}

// TestRepeatedValueErrors checks which repeated values are rejected:
// those of list histories, and those a stated version order names.
func TestRepeatedValueErrors(t *testing.T) {
	lists := []struct {
		name string
		txns []tx
	}{
		{"duplicate append", []tx{{s: "a", ops: "ax1"}, {s: "b", ops: "ax1"}}},
		{"duplicate append in one transaction", []tx{{s: "a", ops: "ax1 ax1"}}},
		{"duplicate append with aborted", []tx{{s: "a", ops: "ax1"}, {s: "b", st: history.Aborted, ops: "ax1"}}},
		{"append of init", []tx{{s: "a", ops: "ax0"}}},
	}
	for _, tc := range lists {
		t.Run("lists/"+tc.name, func(t *testing.T) {
			h := buildLists(t, "", tc.txns...)
			if ok, err := CheckAxioms(h, SER, false); err == nil {
				t.Errorf("got %v, nil; want an error", ok)
			}
		})
	}

	x := []history.Value{1}
	orders := []struct {
		name string
		txns []tx
		fail bool
	}{
		{"named value written twice", []tx{{s: "a", ops: "wx1"}, {s: "b", ops: "wx1"}}, true},
		{"named value written by aborted", []tx{{s: "a", ops: "wx1"}, {s: "b", st: history.Aborted, ops: "wx2 wx1"}}, true},
		{"named value written twice by one transaction", []tx{{s: "a", ops: "wx1 wx2 wx1"}}, false},
		{"other value repeated", []tx{{s: "a", ops: "wx1"}, {s: "b", ops: "wx2"}, {s: "c", ops: "wx2"}}, false},
		{"named value repeated on another key", []tx{{s: "a", ops: "wx1 wy1"}, {s: "b", ops: "wy1"}}, false},
	}
	for _, tc := range orders {
		t.Run("orders/"+tc.name, func(t *testing.T) {
			h := build(t, tc.txns...)
			h.Orders = []history.VersionOrder{{Key: 0, Values: x}} // key x is 0
			ok, err := CheckAxioms(h, SER, false)
			if tc.fail && err == nil {
				t.Errorf("got %v, nil; want an error", ok)
			}
			if !tc.fail && (err != nil || !ok) {
				t.Errorf("got %v, %v; want true, nil", ok, err)
			}
		})
	}

	// Without lists and orders, repeated values and writes of the initial
	// value are accepted (and here serializable).
	accepted := []struct {
		name string
		txns []tx
	}{
		{"duplicate write", []tx{{s: "a", ops: "wx1"}, {s: "b", ops: "wx1"}}},
		{"duplicate write in one transaction", []tx{{s: "a", ops: "wx1 wx1"}}},
		{"duplicate write with aborted", []tx{{s: "a", ops: "wx1"}, {s: "b", st: history.Aborted, ops: "wx1"}}},
		{"write of init", []tx{{s: "a", ops: "wx0"}}},
	}
	for _, tc := range accepted {
		t.Run("accepted/"+tc.name, func(t *testing.T) {
			if ok, err := CheckAxioms(build(t, tc.txns...), SER, false); err != nil || !ok {
				t.Errorf("got %v, %v; want true, nil", ok, err)
			}
		})
	}
}

// repeatValues returns a copy of h whose values repeat: every value v ≥ 1
// becomes (v-1) mod d + 1 or, with toInit, v mod d with 0 replaced by
// h.Init, so that some transactions write the initial value. Values below
// 1 (h.Init among them) are left as they are.
func repeatValues(h *history.History, d int64, toInit bool) *history.History {
	r := *h
	r.Ops = make([]history.Op, len(h.Ops))
	for i, op := range h.Ops {
		if v := int64(op.Value); v >= 1 {
			switch {
			case !toInit:
				op.Value = history.Value((v-1)%d + 1)
			case v%d == 0:
				op.Value = h.Init
			default:
				op.Value = history.Value(v % d)
			}
		}
		r.Ops[i] = op
	}
	return &r
}

// repeatedHistories returns n random histories with repeated values (and
// writes of the initial value), from histgen.Small folded by
// repeatValues.
func repeatedHistories(n, maxTxns int) []*history.History {
	rng := rand.New(rand.NewPCG(5, 6))
	cfg := histgen.SmallConfig{
		MaxTxns:     maxTxns,
		AbortProb:   0.1,
		RollBack:    true,
		UnknownProb: 0.15,
		FaultProb:   0.1,
		Times:       true,
	}
	hs := make([]*history.History, n)
	for i := range hs {
		cfg.RollBack = i%3 == 0
		hs[i] = repeatValues(histgen.Small(rng, cfg), int64(1+i%3), i%2 == 1)
	}
	return hs
}

// checkByRenaming decides CheckAxioms(h, axioms, realTime) for a history
// without lists and stated orders, independently of the search's choice
// of writers: h satisfies the axioms iff some renaming of h does. A
// renaming gives every write of h a value of its own, written nowhere
// else, and makes every read of a transaction that is not aborted return
// the new value of one write of its key and value in h, any transaction's,
// or h.Init if it returned h.Init. A renaming has unique values and no
// write of h.Init, so CheckAxioms decides it by the rules it had before
// values could repeat; a read given a write it may not read from (an
// intermediate write, an aborted or excluded transaction's, its own
// transaction's final write) makes it fail there as in h. Renamings with
// more than limit choices are not tried: ok is false.
func checkByRenaming(h *history.History, axioms Axioms, realTime bool, limit int) (sat, ok bool) {
	type kv struct {
		k history.Key
		v history.Value
	}
	fresh := history.Value(1 << 40)
	renamed := make([]history.Op, len(h.Ops))
	copy(renamed, h.Ops)
	writes := make(map[kv][]history.Value) // the new values of the writes of each key and value
	for i, op := range h.Ops {
		if op.Kind == history.Write {
			renamed[i].Value = fresh
			writes[kv{op.Key, op.Value}] = append(writes[kv{op.Key, op.Value}], fresh)
			fresh++
		}
	}
	type read struct {
		op      int
		options []history.Value
	}
	var reads []read
	n := 1
	for t := range h.Txns {
		if h.Txns[t].Status == history.Aborted {
			continue
		}
		tx := &h.Txns[t]
		for i := tx.OpStart; i < tx.OpEnd; i++ {
			op := h.Ops[i]
			if op.Kind != history.Read {
				continue
			}
			options := writes[kv{op.Key, op.Value}]
			if op.Value == h.Init {
				options = append([]history.Value{h.Init}, options...)
			}
			if len(options) == 0 {
				continue // read from nobody: it keeps its value, which no renamed write has
			}
			reads = append(reads, read{int(i), options})
			if n *= len(options); n > limit {
				return false, false
			}
		}
	}
	r := *h
	r.Ops = renamed
	var try func(k int) bool
	try = func(k int) bool {
		if k == len(reads) {
			sat, err := CheckAxioms(&r, axioms, realTime)
			return err == nil && sat
		}
		for _, v := range reads[k].options {
			renamed[reads[k].op].Value = v
			if try(k + 1) {
				return true
			}
		}
		return false
	}
	return try(0), true
}

// TestRepeatedAgainstRenaming checks CheckAxioms on random histories with
// repeated values against checkByRenaming, at every axiom set, with and
// without real time.
func TestRepeatedAgainstRenaming(t *testing.T) {
	sets := []Axioms{0, RC, RA, CC, PC, SI, SER}
	checked, sat, multi := 0, 0, 0
	for _, h := range repeatedHistories(400, 6) {
		if manyWriters(h) {
			multi++
		}
		for _, ax := range sets {
			for _, rt := range []bool{false, true} {
				got, err := CheckAxioms(h, ax, rt)
				if err != nil {
					t.Fatal(err)
				}
				want, ok := checkByRenaming(h, ax, rt, 512)
				if !ok {
					continue
				}
				if got != want {
					t.Fatalf("%v (real time %v): CheckAxioms %v, by renaming %v:\n%s", ax, rt, got, want, histgen.Describe(h))
				}
				checked++
				if got {
					sat++
				}
			}
		}
	}
	if checked < 1000 || sat < checked/10 || sat > checked*9/10 || multi < 100 {
		t.Errorf("weak test: %d checks, %d satisfied, %d histories with a read of several writers", checked, sat, multi)
	}
	t.Logf("%d checks, %d satisfied; %d histories with a read of several writers", checked, sat, multi)
}

// manyWriters reports whether some read of h returns a value that several
// transactions, or T0 and a transaction, write to its key.
func manyWriters(h *history.History) bool {
	type kv struct {
		k history.Key
		v history.Value
	}
	writers := make(map[kv]map[int]bool)
	for t := range h.Txns {
		for _, op := range h.OpsOf(t) {
			if op.Kind == history.Write {
				k := kv{op.Key, op.Value}
				if writers[k] == nil {
					writers[k] = map[int]bool{-1: op.Value == h.Init}
				}
				writers[k][t] = true
			}
		}
	}
	for t := range h.Txns {
		for _, op := range h.OpsOf(t) {
			if op.Kind == history.Read {
				n := 0
				for _, w := range writers[kv{op.Key, op.Value}] {
					if w {
						n++
					}
				}
				if n > 1 {
					return true
				}
			}
		}
	}
	return false
}

// TestRepeatedSerialReplay checks SER and SSER on random histories with
// repeated values against serialReplay, which never names writers: a read
// returns whatever value the replay holds.
func TestRepeatedSerialReplay(t *testing.T) {
	for _, h := range repeatedHistories(400, 7) {
		if h.StatusCounts()[history.RolledBack] > 0 {
			continue // serialReplay leaves rolled-back transactions out
		}
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

// TestRepeatedPruningExact checks the search against every choice of
// writers and every complete order (checkExhaustive), and the levels'
// order, on random histories with repeated values. Histories with more
// than 64 choices for some C are left out of the former.
func TestRepeatedPruningExact(t *testing.T) {
	sets := []Axioms{0, RC, RA, CC, PC, AxConflict, SI, SER, AxRC | AxConflict}
	small := 0
	for _, h := range repeatedHistories(300, 6) {
		if maxChoices(h) <= 64 {
			small++
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
	if small < 200 {
		t.Errorf("only %d histories checked exhaustively", small)
	}
	t.Logf("%d histories checked exhaustively", small)
}

// TestRepeatedChoiceInSearch checks the search, which chooses writers as
// it places transactions, against fixing every choice of writers first
// (anyChoice, the cartesian product) and searching each, on larger random
// histories with repeated values, at every level. Histories with more
// than 4096 choices for some C are left out.
func TestRepeatedChoiceInSearch(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	cfg := histgen.SmallConfig{Sessions: 3, MaxTxns: 8, Keys: 3, MaxOps: 4, AbortProb: 0.1, UnknownProb: 0.1, FaultProb: 0.15, Times: true}
	checked, sat := 0, 0
	for i := range 1000 {
		h := repeatValues(histgen.Small(rng, cfg), int64(2+i%2), i%4 == 0)
		if maxChoices(h) > 4096 {
			continue
		}
		for _, l := range levels {
			got, err := CheckAxioms(h, l.ax, l.rt)
			if err != nil {
				t.Fatal(err)
			}
			want := anyCommitSet(h, func(in []bool) bool {
				c, ok := newInstance(h, in, l.ax, l.rt)
				return ok && anyChoice(c, (*instance).search)
			})
			if got != want {
				t.Fatalf("%s: search %v, every choice first %v:\n%s", l.name, got, want, histgen.Describe(h))
			}
			checked++
			if got {
				sat++
			}
		}
	}
	if checked < 1000 || sat < checked/10 || sat > checked*9/10 {
		t.Errorf("weak test: %d checks, %d satisfied", checked, sat)
	}
	t.Logf("%d checks, %d satisfied", checked, sat)
}

// maxChoices returns the largest number of choices of wr of a C of h
// (capped at 1<<20).
func maxChoices(h *history.History) int {
	most := 0
	anyCommitSet(h, func(in []bool) bool {
		c, ok := newInstance(h, in, 0, false)
		if !ok {
			return false
		}
		n := 1
		for _, rs := range c.reads {
			for _, r := range rs {
				n = min(n*len(r.from), 1<<20)
			}
		}
		most = max(most, n)
		return false
	})
	return most
}

// TestUniqueValuesOneChoice checks that a history whose values are unique
// takes the path it took before values could repeat: every C has its
// writers fixed before the search (one candidate per external read), and
// the verdict does not change when the written values are renamed one to
// one.
func TestUniqueValuesOneChoice(t *testing.T) {
	for _, h := range append(smallHistories(200, 7), listHistories(100, 6)...) {
		anyCommitSet(h, func(in []bool) bool {
			c, ok := newInstance(h, in, SER, false)
			if ok && c.multi {
				t.Fatalf("writers to choose:\n%s", histgen.Describe(h))
			}
			return false
		})
		if h.Lists || len(h.Orders) > 0 {
			continue
		}
		r := *h
		r.Ops = make([]history.Op, len(h.Ops))
		for i, op := range h.Ops {
			if op.Value != h.Init {
				op.Value = op.Value*3 + 7
			}
			r.Ops[i] = op
		}
		for _, l := range levels {
			a, err1 := CheckAxioms(h, l.ax, l.rt)
			b, err2 := CheckAxioms(&r, l.ax, l.rt)
			if err1 != nil || err2 != nil || a != b {
				t.Fatalf("%s: %v, %v before renaming, %v, %v after:\n%s", l.name, a, err1, b, err2, histgen.Describe(h))
			}
		}
	}
}

// BenchmarkRepeated checks histories like those check's repeated-value
// property test compares against the reference: up to 8 transactions on
// 3 keys, each value written up to 4 times.
func BenchmarkRepeated(b *testing.B) {
	rng := rand.New(rand.NewPCG(7, 8))
	cfg := histgen.SmallConfig{Sessions: 3, MaxTxns: 8, Keys: 3, MaxOps: 4, AbortProb: 0.1, UnknownProb: 0.1, FaultProb: 0.15, Times: true}
	hs := make([]*history.History, 50)
	for i := range hs {
		hs[i] = repeatValues(histgen.Small(rng, cfg), 2, false)
	}
	for b.Loop() {
		for _, h := range hs {
			for _, l := range level.All() {
				if _, err := Check(h, l); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
}
