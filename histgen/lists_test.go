package histgen_test

import (
	"slices"
	"testing"

	"github.com/isocheck/isocheck/histgen"
	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/internal/testkit/reference"
	"github.com/isocheck/isocheck/verdict"
)

// listConfig is the list mode of Small with aborts, unknown statuses and
// stated orders.
func listConfig(stores ...histgen.Store) histgen.SmallConfig {
	return histgen.SmallConfig{AbortProb: 0.1, UnknownProb: 0.1, Times: true, Lists: true, OrderProb: 0.2, Stores: stores}
}

// TestListStoresProvideTheirLevel is TestStoresProvideTheirLevel in list
// mode: every fault-free list history of a store satisfies its level
// under the reference's list semantics.
func TestListStoresProvideTheirLevel(t *testing.T) {
	for store, name := range storeLevel {
		t.Run(store.String(), func(t *testing.T) {
			l := levelNamed(name)
			rng := newRand(uint64(store) + 1000)
			for range 400 {
				h := histgen.Small(rng, listConfig(store))
				ok, err := reference.CheckAxioms(h, l.ax, l.rt)
				if err != nil || !ok {
					t.Fatalf("%s list history fails %s (%v):\n%s", store, name, err, histgen.Describe(h))
				}
			}
		})
	}
}

// TestListAnomalies is TestAnomalies in list mode: each store produces
// the anomaly its level allows (histories whose strongest level is the
// store's), and Random histories that satisfy nothing.
func TestListAnomalies(t *testing.T) {
	stores := histgen.Stores()
	counts := make(map[histgen.Store][]int)
	for seed := range uint64(2000) {
		rng := newRand(seed + 5000)
		store := stores[seed%uint64(len(stores))]
		h := histgen.Small(rng, listConfig(store))
		if counts[store] == nil {
			counts[store] = make([]int, len(levels)+1)
		}
		counts[store][strongest(t, h)+1]++
	}
	for _, s := range stores {
		c := counts[s]
		t.Logf("%-18s none=%-4d RC=%-4d RA=%-4d CC=%-4d PC=%-4d SI=%-4d SER=%-4d SSER=%d",
			s, c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7])
	}
	for store, name := range map[histgen.Store]string{
		histgen.Serializable:      "SER",
		histgen.SnapshotIsolation: "SI",
		histgen.SnapshotNoFCW:     "PC",
		histgen.Causal:            "CC",
		histgen.ReadAtomic:        "RA",
		histgen.ReadCommitted:     "RC",
		histgen.Random:            "none",
	} {
		i := 0
		for j, l := range levels {
			if l.name == name {
				i = j + 1
			}
		}
		if counts[store][i] == 0 {
			t.Errorf("%s: no list history whose strongest level is %s", store, name)
		}
	}
}

// TestListFaults is TestFaults for list histories, with the list-only
// faults.
func TestListFaults(t *testing.T) {
	for _, f := range histgen.Faults() {
		t.Run(f.String(), func(t *testing.T) {
			rng := newRand(uint64(f) + 177)
			cfg := histgen.SmallConfig{
				AbortProb: 0.2, UnknownProb: 0.1, Lists: true, OrderProb: 0.2,
				Stores: []histgen.Store{histgen.Serializable, histgen.SnapshotIsolation},
			}
			l := levels[0]
			if f == verdict.NonRepeatableRead {
				l = levels[1]
			}
			injected := 0
			for range 200 {
				h := histgen.Small(rng, cfg)
				before := histgen.Describe(h)
				h2, ok := histgen.Inject(rng, h, f)
				if histgen.Describe(h) != before {
					t.Fatalf("Inject modified its argument")
				}
				if !ok {
					continue
				}
				injected++
				checkLists(t, h2)
				got, err := reference.CheckAxioms(h2, l.ax, l.rt)
				if err != nil || got {
					t.Fatalf("after %s, %s: got %v, %v; want false, nil\nbefore:\n%safter:\n%s",
						f, l.name, got, err, before, histgen.Describe(h2))
				}
			}
			if injected < 100 {
				t.Errorf("%s injected into only %d of 200 list histories", f, injected)
			}
		})
	}
	// The list-only faults need a list history.
	h := histgen.Small(newRand(1), histgen.SmallConfig{})
	for _, f := range []verdict.Anomaly{verdict.DuplicateElements, verdict.IncompatibleOrder, verdict.SplitAppends} {
		if _, ok := histgen.Inject(newRand(1), h, f); ok || !histgen.ListsOnly(f) {
			t.Errorf("%s injected into a register history", f)
		}
	}
}

// checkLists checks that h is a well-formed list history: unique values
// per key, every read's Value the last element of its list (Init for an
// empty one), ListReads sorted by operation.
func checkLists(t *testing.T, h *history.History) {
	t.Helper()
	checkValues(t, h)
	if !h.Lists {
		t.Fatalf("not a list history")
	}
	if !slices.IsSortedFunc(h.ListReads, func(a, b history.ListRead) int { return int(a.Op - b.Op) }) {
		t.Fatalf("ListReads not sorted")
	}
	for i, op := range h.Ops {
		l := h.ListOf(int32(i))
		if op.Kind == history.Write && l != nil {
			t.Fatalf("an append with a list")
		}
		if op.Kind == history.Read && (len(l) == 0 && op.Value != h.Init || len(l) > 0 && op.Value != l[len(l)-1]) {
			t.Fatalf("read %d: value %d, list %v:\n%s", i, op.Value, l, histgen.Describe(h))
		}
	}
}

// TestListShape checks the list histories' form and that they have what
// the checker must handle: internal reads, lists of several writers,
// stated orders, aborted and unknown transactions.
func TestListShape(t *testing.T) {
	rng := newRand(9)
	var internal, multi, orders int
	statuses := make(map[history.Status]int)
	cfg := listConfig()
	cfg.FaultProb = 0.2
	for range 1000 {
		h := histgen.Small(rng, cfg)
		checkLists(t, h)
		orders += len(h.Orders)
		for tx := range h.Txns {
			statuses[h.Txns[tx].Status]++
			written := make(map[history.Key]bool)
			for _, op := range h.OpsOf(tx) {
				if op.Kind == history.Write {
					written[op.Key] = true
				} else if written[op.Key] {
					internal++
				}
			}
		}
		for _, r := range h.ListReads {
			if len(r.Values) >= 2 {
				multi++
			}
		}
	}
	t.Logf("internal reads %d, lists of 2+ elements %d, stated orders %d, statuses %v", internal, multi, orders, statuses)
	if internal < 100 || multi < 100 || orders < 100 || statuses[history.Aborted] == 0 || statuses[history.Unknown] == 0 {
		t.Errorf("too few: internal reads %d, lists of 2+ elements %d, stated orders %d, statuses %v", internal, multi, orders, statuses)
	}
}

func TestDescribeLists(t *testing.T) {
	b := history.NewBuilder(history.Null)
	x := b.Key("x")
	b.AddListTxn(history.Txn{Session: b.Session("a"), Start: history.NoTime, End: history.NoTime},
		[]history.Op{{Kind: history.Read, Key: x}, {Kind: history.Write, Key: x, Value: 1}, {Kind: history.Read, Key: x}},
		[][]history.Value{nil, nil, {1}})
	b.AddListTxn(history.Txn{Session: b.Session("b"), Status: history.Unknown, Start: history.NoTime, End: history.NoTime},
		[]history.Op{{Kind: history.Write, Key: x, Value: 2}, {Kind: history.Read, Key: x}},
		[][]history.Value{nil, {1, 2}})
	b.AddOrder(x, []history.Value{1, 2})
	want := "init=null\nsa T0 committed: r(x)=[] a(x)=1 r(x)=[1]\nsb T1 unknown: a(x)=2 r(x)=[1 2]\norder x: [1 2]\n"
	if got := histgen.Describe(b.History()); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
