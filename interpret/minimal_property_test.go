package interpret_test

import (
	"context"
	"flag"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/isocheck/isocheck/check"
	"github.com/isocheck/isocheck/histgen"
	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/internal/testkit/reference"
	"github.com/isocheck/isocheck/internal/testkit/testsize"
	"github.com/isocheck/isocheck/interpret"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/verdict"
)

// minimalRuns is 300 under make test-long, 100 by default.
var minimalRuns = flag.Int("explain.minimal.runs", testsize.N(100, 300), "random histories in TestMinimalMeansMinimal (-short: a fifth)")

// TestMinimalMeansMinimal holds the claim of a minimal counterexample to
// its definition (docs/checking.md, "Minimal counterexamples"), judged by
// the brute-force reference checker on the whole history: the
// transactions listed, with all their operations (a read none of whose
// writers is listed left out, as shrink.Subject.Sub leaves it),
// violate the level, and without any one of them the rest satisfy it. A
// report that shrank the violation but does not claim minimality must
// say why. Histories come with unique values and with values that
// repeat.
func TestMinimalMeansMinimal(t *testing.T) {
	runs := *minimalRuns
	if testing.Short() {
		runs /= 5
	}
	cfg := histgen.SmallConfig{Sessions: 3, MaxTxns: 7, Keys: 3, MaxOps: 4, AbortProb: 0.1, UnknownProb: 0.1, FaultProb: 0.15, Times: true}
	for _, repeat := range []bool{false, true} {
		name := "unique"
		if repeat {
			name = "repeated"
		}
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			claims, wrong, notMinimal := 0, 0, 0
			for seed := 0; seed < runs; seed++ {
				rng := rand.New(rand.NewPCG(uint64(seed), 0x7a11))
				h := histgen.Small(rng, cfg)
				if repeat {
					h = histgen.Repeat(h, histgen.RepeatConfig{Fraction: 1, Writers: 2, Seed: uint64(seed)})
				}
				for _, l := range level.All() {
					res, err := check.Check(ctx, h, l)
					if err != nil {
						t.Fatalf("seed %d, %v: %v", seed, l, err)
					}
					if res.Verdict != verdict.Violated {
						continue
					}
					rep, err := interpret.Minimal(ctx, res)
					if err != nil {
						t.Fatalf("seed %d, %v: %v", seed, l, err)
					}
					an := rep.Anomaly
					if !an.Minimal {
						notMinimal++
						if an.Counterexample != nil && an.NotMinimal == "" {
							t.Errorf("seed %d, %v: a counterexample neither minimal nor saying why not\n%s", seed, l, text(rep))
						}
						continue
					}
					claims++
					if why := notMinimalWhy(h, indices(an.Txns), l); why != "" {
						wrong++
						if wrong <= 5 {
							t.Errorf("seed %d, %v: the counterexample is called minimal, but %s\nhistory:\n%s\nreport:\n%s", seed, l, why, histgen.Describe(h), text(rep))
						}
					}
				}
			}
			if wrong > 0 {
				t.Errorf("%d of %d counterexamples called minimal are not", wrong, claims)
			}
			t.Logf("%d counterexamples called minimal, %d not", claims, notMinimal)
		})
	}
}

// notMinimalWhy says why txns, transactions of h, are not a minimal
// counterexample to h satisfying l by the reference checker, or returns
// "" when they are.
func notMinimalWhy(h *history.History, txns []int32, l level.Level) string {
	if ok, err := reference.Check(sub(h, txns), l); err != nil || ok {
		return "its transactions, with all their operations, satisfy it"
	}
	for i := range txns {
		rest := slices.Delete(slices.Clone(txns), i, i+1)
		if ok, err := reference.Check(sub(h, rest), l); err != nil || !ok {
			return "the rest still violates it without " + h.Name(int(txns[i]))
		}
	}
	return ""
}
