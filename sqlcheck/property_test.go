package sqlcheck_test

import (
	"context"
	"errors"
	"flag"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/isocheck/isocheck/format/sqljsonl"
	"github.com/isocheck/isocheck/internal/testkit/historytest"
	"github.com/isocheck/isocheck/internal/testkit/reference"
	"github.com/isocheck/isocheck/internal/testkit/testsize"
	"github.com/isocheck/isocheck/sqlcheck"
	"github.com/isocheck/isocheck/sqlhistory"
	"github.com/isocheck/isocheck/verdict"
)

// sqlRuns is 3000 under make test-long, 400 by default.
var sqlRuns = flag.Int("sql.runs", testsize.N(400, 3000), "random SQL histories in TestAgreesWithReference and TestDroppableKeepsConsistency (a third in TestShrinkMinimalAndDeterministic)")

// TestAgreesWithReference checks random small SQL histories, with random
// predicates, inserts, updates, deletes, aborted and unknown transactions
// and a random level per transaction, with the checker (its SAT encoding,
// the search of Bouajjani et al. (CAV 2025), and the naive baseline) and
// with the brute-force reference, which enumerates every witness and commit
// order. The verdicts must be equal.
func TestAgreesWithReference(t *testing.T) {
	cfgs := []historytest.SQLConfig{
		{},
		{Txns: 7, Sessions: 3, Keys: 3, Tables: 1, Events: 3},
		{Txns: 5, Sessions: 2, Keys: 4, Tables: 1, Events: 4, FaultProb: -1},
	}
	verdicts := map[bool]int{}
	conflicts, naiveSkipped := 0, 0
	for seed := 0; seed < *sqlRuns; seed++ {
		rng := rand.New(rand.NewPCG(uint64(seed), 0x5a1))
		cfg := cfgs[seed%len(cfgs)]
		h := historytest.RandomSQL(rng, cfg)
		want, err := reference.CheckSQL(h)
		if errors.Is(err, reference.ErrSQLTooBig) {
			continue
		}
		if err != nil {
			t.Fatalf("seed %d: reference: %v", seed, err)
		}
		res, err := sqlcheck.Check(context.Background(), h)
		if err != nil {
			t.Fatal(err)
		}
		if got := res.Verdict == verdict.Satisfied; got != want || res.Verdict == verdict.Unknown {
			t.Fatalf("seed %d: sqlcheck says %v, reference says consistent=%v\n%s", seed, res.Verdict, want, describe(h))
		}
		paper, err := sqlcheck.CheckWith(context.Background(), h, sqlcheck.Options{Paper: true, NoShrink: true})
		if err != nil {
			t.Fatal(err)
		}
		if paper.Verdict != res.Verdict {
			t.Fatalf("seed %d: the search of Bouajjani et al. (CAV 2025) says %v, the SAT encoding %v\n%s", seed, paper.Verdict, res.Verdict, describe(h))
		}
		conflicts += res.Stats.Conflicts
		if res.Verdict == verdict.Violated {
			checkEvidence(t, seed, h, res)
		}
		// The naive baseline enumerates every witness and commit order:
		// compare where it finishes in a moment.
		if res.Stats.Conflicts <= 6 {
			ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
			naive, err := sqlcheck.CheckWith(ctx, h, sqlcheck.Options{Naive: true, NoShrink: true})
			cancel()
			if err != nil {
				t.Fatal(err)
			}
			if naive.Verdict == verdict.Unknown {
				naiveSkipped++
			} else if naive.Verdict != res.Verdict {
				t.Fatalf("seed %d: the naive baseline says %v, sqlcheck %v\n%s", seed, naive.Verdict, res.Verdict, describe(h))
			}
		}
		verdicts[want]++
	}
	t.Logf("%d consistent, %d not; %d reads of rows not returned; the naive baseline timed out on %d", verdicts[true], verdicts[false], conflicts, naiveSkipped)
	if verdicts[true] < *sqlRuns/5 || verdicts[false] < *sqlRuns/5 {
		t.Errorf("lopsided generator: %v", verdicts)
	}
}

// checkEvidence requires that the counterexample of a violation is itself
// violated according to the reference, and minimal: dropping any one of
// its transactions (with those that read from it) where that keeps the
// violation one of the whole history (sqlcheck.Droppable) makes it
// consistent.
func checkEvidence(t *testing.T, seed int, h *sqlhistory.History, res *sqlcheck.Result) {
	t.Helper()
	cex := res.History
	if ok, err := reference.CheckSQL(cex); err == nil && ok {
		t.Fatalf("seed %d: the counterexample is consistent\n%s", seed, describe(cex))
	}
	if res.Anomalies == nil && res.Cycle == nil && res.Missed == nil && !res.NoOrder {
		t.Fatalf("seed %d: a violation without evidence", seed)
	}
	for i := range cex.Txns {
		keep := make([]bool, len(cex.Txns))
		for j := range keep {
			keep[j] = true
		}
		drop := readers(cex, i)
		for _, j := range drop {
			keep[j] = false
		}
		if !sqlcheck.Droppable(cex, keep, drop) {
			continue
		}
		sub, _ := cex.Subset(keep)
		if ok, err := reference.CheckSQL(sub); err == nil && !ok {
			t.Fatalf("seed %d: the counterexample is not minimal: without %s it is still violated\n%s", seed, cex.TxnName(i), describe(cex))
		}
	}
}

// readers returns i and the transactions that read from it, directly or
// not.
func readers(h *sqlhistory.History, i int) []int {
	in := map[int]bool{i: true}
	for changed := true; changed; {
		changed = false
		for j := range h.Txns {
			for _, e := range h.Txns[j].Events {
				for _, v := range e.Reads {
					if w := h.Versions[v].Writer; w >= 0 && in[w] && !in[j] {
						in[j], changed = true, true
					}
				}
			}
		}
	}
	var out []int
	for j := range in {
		out = append(out, j)
	}
	return out
}

// describe prints h in the SQL JSONL format.
func describe(h *sqlhistory.History) string {
	var b strings.Builder
	if err := sqljsonl.Write(&b, h); err != nil {
		return err.Error()
	}
	return b.String()
}

// TestDroppableKeepsConsistency: dropping what Droppable allows from a
// consistent history leaves a consistent one, so that a violation of a
// shrunk counterexample is a violation of the whole history.
func TestDroppableKeepsConsistency(t *testing.T) {
	tried := 0
	for seed := 0; seed < *sqlRuns; seed++ {
		rng := rand.New(rand.NewPCG(uint64(seed), 0xd80))
		h := historytest.RandomSQL(rng, historytest.SQLConfig{})
		if ok, err := reference.CheckSQL(h); err != nil || !ok {
			continue
		}
		for i := range h.Txns {
			keep := make([]bool, len(h.Txns))
			for j := range keep {
				keep[j] = true
			}
			drop := readers(h, i)
			for _, j := range drop {
				keep[j] = false
			}
			if !sqlcheck.Droppable(h, keep, drop) {
				continue
			}
			tried++
			sub, _ := h.Subset(keep)
			if ok, err := reference.CheckSQL(sub); err == nil && !ok {
				t.Fatalf("seed %d: consistent, but not without %s\n%s", seed, h.TxnName(i), describe(h))
			}
		}
	}
	t.Logf("%d droppable sets checked", tried)
}
