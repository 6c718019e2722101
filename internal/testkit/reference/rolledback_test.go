package reference_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/isocheck/isocheck/check"
	"github.com/isocheck/isocheck/histgen"
	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/internal/testkit/historytest"
	"github.com/isocheck/isocheck/internal/testkit/reference"
	"github.com/isocheck/isocheck/internal/testkit/testsize"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/sqlcheck"
	"github.com/isocheck/isocheck/sqlhistory"
	"github.com/isocheck/isocheck/verdict"
)

// TestRolledBackAgreesWithCheck runs random small key-value and list
// histories in which clients roll transactions back through package check and through
// the reference, at every level: the verdicts must be equal. Rolled-back
// transactions' reads are checked and their writes invisible in both.
//
// List histories in which a rolled-back transaction reads a key after
// appending to it are left out: the reference places such a transaction
// in commit order right after the writers of the list it read, less its
// own appends, which the checker does not (it checks only that those
// lists agree with the others and end with its appends).
func TestRolledBackAgreesWithCheck(t *testing.T) {
	runs := testsize.N(1500, 5000)
	if testing.Short() {
		runs = 500
	}
	plain := histgen.SmallConfig{Sessions: 3, MaxTxns: 8, Keys: 3, MaxOps: 4, AbortProb: 0.3, RollBack: true, UnknownProb: 0.05, FaultProb: 0.15, Times: true}
	lists := plain
	lists.Lists, lists.OrderProb = true, 0.2
	cfgs := []histgen.SmallConfig{plain, lists}
	violations := map[level.Level]int{}
	withReads, skipped := 0, 0 // histories with a rolled-back transaction that reads; left out
	for seed := range runs {
		rng := rand.New(rand.NewPCG(uint64(seed), 0x0b4c))
		h := histgen.Small(rng, cfgs[seed%len(cfgs)])
		if h.Lists && rolledBackReadsOwnAppend(h) {
			skipped++
			continue
		}
		if rolledBackReads(h) {
			withReads++
		}
		for _, l := range level.All() {
			want, err := reference.Check(h, l)
			if err != nil {
				t.Fatalf("seed %d: reference: %v\n%s", seed, err, histgen.Describe(h))
			}
			res, err := check.Check(context.Background(), h, l)
			if err != nil {
				t.Fatalf("seed %d, %v: %v\n%s", seed, l, err, histgen.Describe(h))
			}
			if got := res.Verdict == verdict.Satisfied; got != want || res.Verdict == verdict.Unknown {
				t.Fatalf("seed %d, %v: check says %v, reference says satisfied=%v\n%s", seed, l, res.Verdict, want, histgen.Describe(h))
			}
			if !want {
				violations[l]++
			}
		}
	}
	if withReads < runs/4 {
		t.Errorf("only %d of %d histories have a rolled-back transaction that reads", withReads, runs)
	}
	t.Logf("%d of %d histories with a rolled-back transaction that reads, %d left out; violations per level: %v", withReads, runs, skipped, violations)
}

// rolledBackReads reports whether some rolled-back transaction of h reads.
func rolledBackReads(h *history.History) bool {
	for t := range h.Txns {
		if h.Txns[t].Status != history.RolledBack {
			continue
		}
		for _, op := range h.OpsOf(t) {
			if op.Kind == history.Read {
				return true
			}
		}
	}
	return false
}

// rolledBackReadsOwnAppend reports whether some rolled-back transaction of
// h reads a key after writing it.
func rolledBackReadsOwnAppend(h *history.History) bool {
	for t := range h.Txns {
		if h.Txns[t].Status != history.RolledBack {
			continue
		}
		wrote := map[history.Key]bool{}
		for _, op := range h.OpsOf(t) {
			if op.Kind == history.Write {
				wrote[op.Key] = true
			} else if wrote[op.Key] {
				return true
			}
		}
	}
	return false
}

// TestRolledBackSQLAgreesWithCheck runs random small SQL histories, with
// half of their aborted transactions rolled back instead, through package
// sqlcheck and through the reference: the verdicts must be equal.
func TestRolledBackSQLAgreesWithCheck(t *testing.T) {
	runs := testsize.N(1500, 5000)
	if testing.Short() {
		runs = 500
	}
	cfg := historytest.SQLConfig{AbortProb: 0.3}
	verdicts := map[bool]int{}
	rolledBack := 0
	for seed := range runs {
		rng := rand.New(rand.NewPCG(uint64(seed), 0x0b4d))
		h := historytest.RandomSQL(rng, cfg)
		for i := range h.Txns {
			if h.Txns[i].Status == sqlhistory.Aborted && rng.IntN(2) == 0 {
				h.Txns[i].Status = sqlhistory.RolledBack
				rolledBack++
			}
		}
		want, err := reference.CheckSQL(h)
		if errors.Is(err, reference.ErrSQLTooBig) {
			continue
		}
		if err != nil {
			t.Fatalf("seed %d: reference: %v", seed, err)
		}
		res, err := sqlcheck.CheckWith(context.Background(), h, sqlcheck.Options{NoShrink: true})
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if got := res.Verdict == verdict.Satisfied; got != want || res.Verdict == verdict.Unknown {
			t.Fatalf("seed %d: sqlcheck says %v, reference says consistent=%v\n%+v", seed, res.Verdict, want, h.Txns)
		}
		verdicts[want]++
	}
	if rolledBack == 0 {
		t.Error("no rolled-back transaction: the test shows nothing about them")
	}
	t.Logf("%d rolled-back transactions; verdicts (consistent: count): %v", rolledBack, verdicts)
}
