package sqlcheck

import (
	"context"
	"math/rand/v2"
	"os"
	"reflect"
	"testing"

	"github.com/isocheck/isocheck/format/sqljsonl"
	"github.com/isocheck/isocheck/internal/testkit/historytest"
	"github.com/isocheck/isocheck/internal/testkit/reference"
	"github.com/isocheck/isocheck/internal/testkit/testsize"
	"github.com/isocheck/isocheck/progress"
	"github.com/isocheck/isocheck/sqlhistory"
	"github.com/isocheck/isocheck/verdict"
)

// randomSQLConfigs are the shapes of the random histories the shrink's
// tests check.
var randomSQLConfigs = []historytest.SQLConfig{
	{},
	{Txns: 8, Sessions: 3, Keys: 3, Tables: 1, Events: 3},
	{Txns: 6, Sessions: 2, Keys: 4, Tables: 2, Events: 4, FaultProb: -1},
}

// referenceViolated reports whether the brute-force reference finds h
// violated, and whether it could decide (it cannot when h is too big to
// enumerate).
func referenceViolated(h *sqlhistory.History) (violated, ok bool) {
	consistent, err := reference.CheckSQL(h)
	if err != nil {
		return false, false
	}
	return !consistent, true
}

// TestShrinkChecksOnlySoundSubHistories runs the shrink's minimisation on
// random histories the reference finds consistent: every sub-history it
// checks, with transactions and read events dropped, must be consistent
// too (a violated one would be a counterexample of a consistent history),
// and the checker must agree with the reference on it.
func TestShrinkChecksOnlySoundSubHistories(t *testing.T) {
	checked := 0
	for seed := 0; seed < 2000; seed++ {
		rng := rand.New(rand.NewPCG(uint64(seed), 0x5ead))
		h := historytest.RandomSQL(rng, randomSQLConfigs[seed%len(randomSQLConfigs)])
		if violated, ok := referenceViolated(h); !ok || violated {
			continue
		}
		s := newShrinker(context.Background(), h, Options{}, progress.Start(context.Background(), "shrink", 0, ""))
		s.checked = func(sub *sqlhistory.History, violated bool) {
			checked++
			refViolated, ok := referenceViolated(sub)
			if !ok {
				return
			}
			if refViolated {
				t.Fatalf("seed %d: a sub-history of a consistent history is violated:\n%+v", seed, sub.Txns)
			}
			if violated {
				t.Fatalf("seed %d: the checker finds violated a sub-history the reference finds consistent:\n%+v", seed, sub.Txns)
			}
		}
		s.minimise()
	}
	if checked < 100 {
		t.Errorf("only %d sub-histories checked", checked)
	}
}

// TestShrinkDropsReadsMinimally shrinks the violations of random
// histories: the counterexample is violated according to the reference;
// dropping any one of its read events, or any one of its transactions
// with the reads of its versions where Droppable allows, leaves a history
// the reference finds consistent; and a second run gives the same
// counterexample, events included.
func TestShrinkDropsReadsMinimally(t *testing.T) {
	shrunk, readsLeftOut := 0, 0
	for seed := 0; seed < 1500; seed++ {
		rng := rand.New(rand.NewPCG(uint64(seed), 0x5412))
		h := historytest.RandomSQL(rng, randomSQLConfigs[seed%len(randomSQLConfigs)])
		if _, ok := referenceViolated(h); !ok {
			continue
		}
		var first *Result
		for run := 0; run < 2; run++ {
			res, err := Check(context.Background(), h)
			if err != nil {
				t.Fatal(err)
			}
			if res.Verdict != verdict.Violated {
				break
			}
			if run == 1 {
				if !reflect.DeepEqual(first.Txns, res.Txns) || !reflect.DeepEqual(first.History.Txns, res.History.Txns) {
					t.Fatalf("seed %d: two runs differ:\n%+v\n%+v", seed, first.History.Txns, res.History.Txns)
				}
				continue
			}
			first = res
			shrunk++
			readsLeftOut += res.ReadsLeftOut
			checkMinimal(t, seed, res.History)
		}
	}
	t.Logf("%d counterexamples shrunk, %d reads left out", shrunk, readsLeftOut)
	if shrunk < 50 || readsLeftOut == 0 {
		t.Errorf("%d counterexamples shrunk, %d reads left out: too few to tell", shrunk, readsLeftOut)
	}
}

// checkMinimal fails unless the reference finds cex violated, and
// consistent without any one of its reads or transactions that the shrink
// could drop.
func checkMinimal(t *testing.T, seed int, cex *sqlhistory.History) {
	t.Helper()
	if violated, ok := referenceViolated(cex); ok && !violated {
		t.Fatalf("seed %d: the counterexample is consistent:\n%+v", seed, cex.Txns)
	}
	all := make([]bool, len(cex.Txns))
	for i := range all {
		all[i] = true
	}
	for ti, txn := range cex.Txns {
		for ei, e := range txn.Events {
			if !e.Kind.Reads() {
				continue
			}
			sub := cex.WithoutReads(map[sqlhistory.EventRef]bool{{Txn: ti, Event: ei}: true})
			if violated, ok := referenceViolated(sub); ok && violated {
				t.Fatalf("seed %d: not minimal: still violated without event %d of %s:\n%+v", seed, ei+1, cex.TxnName(ti), cex.Txns)
			}
		}
		keep := slicesWithout(all, ti)
		cut := map[sqlhistory.EventRef]bool{}
		for tj, other := range cex.Txns {
			for ej, e := range other.Events {
				for _, v := range e.Reads {
					if cex.Versions[v].Writer == ti && tj != ti {
						cut[sqlhistory.EventRef{Txn: tj, Event: ej}] = true
					}
				}
			}
		}
		projected := cex.WithoutReads(cut)
		if !Droppable(projected, keep, []int{ti}) {
			continue
		}
		sub, _ := projected.Subset(keep)
		if violated, ok := referenceViolated(sub); ok && violated {
			t.Fatalf("seed %d: not minimal: still violated without %s:\n%+v", seed, cex.TxnName(ti), cex.Txns)
		}
	}
}

// slicesWithout returns a copy of keep with i unmarked.
func slicesWithout(keep []bool, i int) []bool {
	out := append([]bool(nil), keep...)
	out[i] = false
	return out
}

// TestShrinkTPCC shrinks the violations of two TPC-C histories recorded
// on PostgreSQL at mixed levels, in which every transaction reads from
// earlier ones: the counterexamples keep a few transactions, without the
// reads of those dropped, and (under make test-long, which runs each
// twice) are the same on every run. Shrinking runs to its end however
// long a loaded machine makes it (checkUnbudgeted).
func TestShrinkTPCC(t *testing.T) {
	if testing.Short() {
		t.Skip("a few seconds")
	}
	for _, tc := range []struct {
		file    string
		maxTxns int
	}{
		{"testdata/tpcc2.jsonl", 8},
		{"testdata/tpcc5.jsonl", 10},
	} {
		t.Run(tc.file, func(t *testing.T) {
			h := readSQLFile(t, tc.file)
			first := checkUnbudgeted(t, h, Options{})
			if first.Verdict != verdict.Violated {
				t.Fatalf("verdict %v, want violated", first.Verdict)
			}
			if n := len(first.Txns); n > tc.maxTxns || first.ShrinkStopped != 0 {
				t.Errorf("counterexample of %d transactions (stopped after %v), want at most %d", n, first.ShrinkStopped, tc.maxTxns)
			}
			if first.ReadsLeftOut == 0 {
				t.Errorf("no reads left out")
			}
			if r, err := decide(context.Background(), first.History, Options{}); err != nil {
				t.Error(err)
			} else if r.Verdict != verdict.Violated {
				t.Errorf("the counterexample is %v on its own", r.Verdict)
			}
			if !testsize.Long() {
				return // a second run, under make test-long
			}
			again := checkUnbudgeted(t, h, Options{})
			a, b := Explain(first), Explain(again)
			if !reflect.DeepEqual(a, b) || !reflect.DeepEqual(first.Txns, again.Txns) {
				t.Errorf("two runs differ:\n%+v\n%+v", a, b)
			}
		})
	}
}

// readSQLFile reads the SQL history in file.
func readSQLFile(t testing.TB, file string) *sqlhistory.History {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h, err := sqljsonl.Read(f, file)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// BenchmarkShrinkTPCC times checking and shrinking a TPC-C history's
// violation.
func BenchmarkShrinkTPCC(b *testing.B) {
	for _, file := range []string{"testdata/tpcc2.jsonl", "testdata/tpcc5.jsonl"} {
		h := readSQLFile(b, file)
		b.Run(file[len("testdata/"):], func(b *testing.B) {
			for b.Loop() {
				res, err := Check(context.Background(), h)
				if err != nil || res.Verdict != verdict.Violated {
					b.Fatalf("%v: %v", err, res.Verdict)
				}
			}
		})
	}
}
