package sqlcheck_test

import (
	"context"
	"flag"
	"math/rand/v2"
	"testing"

	"github.com/isocheck/isocheck/histgen"
	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/internal/testkit/reference"
	"github.com/isocheck/isocheck/internal/testkit/testsize"
	"github.com/isocheck/isocheck/sqlcheck"
	"github.com/isocheck/isocheck/sqlhistory"
	"github.com/isocheck/isocheck/verdict"
)

// kvRuns is 2000 under make test-long, 500 by default.
var kvRuns = flag.Int("kv.runs", testsize.N(500, 2000), "random key-value histories in TestKeyValueAgrees")

// TestKeyValueAgrees: a key-value history is the special case of a SQL
// history where every read is SELECT(k = x) and every write an upsert
// (Bouajjani et al. (CAV 2025) §4.2). Through that path, every level must
// get the verdict the brute-force key-value reference gives it.
func TestKeyValueAgrees(t *testing.T) {
	cfg := histgen.SmallConfig{Sessions: 3, MaxTxns: 7, Keys: 3, MaxOps: 4, AbortProb: 0.1, UnknownProb: 0.1, FaultProb: 0.15}
	violations := map[string]int{}
	for seed := 0; seed < *kvRuns; seed++ {
		rng := rand.New(rand.NewPCG(uint64(seed), 0x5e1))
		h := histgen.Small(rng, cfg)
		for _, l := range sqlhistory.Levels() {
			want, err := reference.Check(h, l)
			if err != nil {
				t.Fatalf("seed %d: reference: %v", seed, err)
			}
			sh, err := sqlhistory.FromKV(h, l)
			if err != nil {
				if isWrittenTwice(h) {
					continue
				}
				t.Fatalf("seed %d: FromKV: %v\n%s", seed, err, histgen.Describe(h))
			}
			res, err := sqlcheck.CheckWith(context.Background(), sh, sqlcheck.Options{NoShrink: true})
			if err != nil {
				t.Fatal(err)
			}
			if got := res.Verdict == verdict.Satisfied; got != want || res.Verdict == verdict.Unknown {
				t.Fatalf("seed %d, %v: sqlcheck says %v, reference says satisfied=%v\n%s", seed, l, res.Verdict, want, histgen.Describe(h))
			}
			if !want {
				violations[l.String()]++
			}
		}
	}
	t.Logf("violations per level over %d histories: %v", *kvRuns, violations)
}

// isWrittenTwice reports whether h writes one value twice to a key, which
// both paths refuse as input.
func isWrittenTwice(h *history.History) bool {
	seen := map[[2]int64]bool{}
	for _, op := range h.Ops {
		if op.Kind != history.Write {
			continue
		}
		k := [2]int64{int64(op.Key), int64(op.Value)}
		if seen[k] || op.Value == h.Init {
			return true
		}
		seen[k] = true
	}
	return false
}
