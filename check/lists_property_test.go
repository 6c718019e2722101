package check_test

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/isocheck/isocheck/check"
	"github.com/isocheck/isocheck/histgen"
	"github.com/isocheck/isocheck/internal/testkit/reference"
	"github.com/isocheck/isocheck/internal/testkit/testsize"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/verdict"
)

var (
	listsRuns = flag.Int("lists.runs", testsize.N(400, 3000), "random list histories in TestListsAgreeWithReference")
	listsShow = flag.Int("lists.show", 10, "disagreements TestListsAgreeWithReference prints")
)

// TestListsAgreeWithReference is TestAgreesWithReference for list
// histories (Elle's list-append): random small list histories from the
// simulated stores of every level, with aborted and unknown transactions,
// stated version orders and injected faults (the list-only ones
// included), through the checker (level by level, and all levels at once)
// and through the brute-force reference checker, which must give the
// same verdict for every level. A disagreement is a bug in one of them.
// It reports the first disagreements (-lists.show, 10) with their seeds,
// then fails; -lists.runs sets the number of histories.
func TestListsAgreeWithReference(t *testing.T) {
	levels := level.All()
	cfg := histgen.SmallConfig{
		Sessions: 3, MaxTxns: 8, Keys: 3, MaxOps: 4,
		AbortProb: 0.1, UnknownProb: 0.1, FaultProb: 0.15, Times: true,
		Lists: true, OrderProb: 0.2, OrderFaultProb: 0.25,
	}
	violations := map[level.Level]int{}
	disagree := 0
	report := func(format string, args ...any) {
		if disagree++; disagree <= *listsShow {
			t.Errorf(format, args...)
		}
	}
	for seed := 0; seed < *listsRuns; seed++ {
		rng := rand.New(rand.NewPCG(uint64(seed), 0x115c))
		h := histgen.Small(rng, cfg)
		all, allErr := check.CheckAll(context.Background(), h)
		for i, l := range levels {
			want, err := reference.Check(h, l)
			if err != nil {
				t.Fatalf("seed %d: reference: %v\n%s", seed, err, histgen.Describe(h))
			}
			if !want {
				violations[l]++
			}
			res, err := check.Check(context.Background(), h, l)
			switch {
			case err != nil:
				report("seed %d, %v: checker: %v; reference says satisfied=%v\n%s", seed, l, err, want, histgen.Describe(h))
			case res.Verdict == verdict.Unknown || (res.Verdict == verdict.Satisfied) != want:
				report("seed %d, %v: checker says %v%s, reference says satisfied=%v\n%s",
					seed, l, res.Verdict, anomalyOf(res), want, histgen.Describe(h))
			}
			switch {
			case allErr != nil:
				if i == 0 {
					report("seed %d: CheckAll: %v\n%s", seed, allErr, histgen.Describe(h))
				}
			case (all.Results[i].Verdict == verdict.Satisfied) != want:
				report("seed %d, %v: CheckAll says %v%s, reference says satisfied=%v\n%s",
					seed, l, all.Results[i].Verdict, anomalyOf(all.Results[i]), want, histgen.Describe(h))
			}
		}
	}
	if disagree > *listsShow {
		t.Errorf("%d disagreements in all, the first %d above", disagree, *listsShow)
	}
	// The generator must exercise both verdicts at every level.
	for _, l := range levels {
		if n := violations[l]; n < *listsRuns/20 || n > *listsRuns*19/20 {
			t.Errorf("%v: %d of %d list histories violate it: the generator is lopsided", l, n, *listsRuns)
		}
	}
	t.Logf("violations per level over %d list histories: %v", *listsRuns, violations)
}

// anomalyOf returns the anomalies a violation found without cycles, or
// "" when it has none.
func anomalyOf(res *check.Result) string {
	if res == nil || len(res.Anomalies) == 0 {
		return ""
	}
	return fmt.Sprintf(" %v", res.Anomalies)
}
