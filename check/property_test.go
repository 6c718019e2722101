package check_test

import (
	"context"
	"flag"
	"math/rand/v2"
	"testing"

	"github.com/isocheck/isocheck/check"
	"github.com/isocheck/isocheck/histgen"
	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/internal/testkit/reference"
	"github.com/isocheck/isocheck/internal/testkit/testsize"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/verdict"
)

// propertyRuns is the number of random histories of the property tests
// against the reference: 3000 under make test-long, 400 by default.
var propertyRuns = flag.Int("property.runs", testsize.N(400, 3000), "random histories per level in TestAgreesWithReference and TestRepeatedValuesAgreeWithReference")

// TestAgreesWithReference runs random small histories, from simulated
// stores of every isolation level and with injected faults, through the
// checker (level by level, and all levels at once) and through the
// brute-force reference checker, and requires the same verdict for every
// level. A disagreement is a bug in one of them.
func TestAgreesWithReference(t *testing.T) {
	levels := level.All()
	cfg := histgen.SmallConfig{Sessions: 3, MaxTxns: 8, Keys: 3, MaxOps: 4, AbortProb: 0.1, UnknownProb: 0.1, FaultProb: 0.15, Times: true}
	violations := map[level.Level]int{}
	for seed := 0; seed < *propertyRuns; seed++ {
		rng := rand.New(rand.NewPCG(uint64(seed), 0x15c0))
		h := histgen.Small(rng, cfg)
		all, err := check.CheckAll(context.Background(), h)
		if err != nil {
			t.Fatalf("seed %d: CheckAll: %v\n%s", seed, err, histgen.Describe(h))
		}
		for i, l := range levels {
			if want, _ := agreeOnLevel(t, seed, h, all, i, false); !want {
				violations[l]++
			}
		}
	}
	checkBalanced(t, violations)
}

// agreeOnLevel fails t unless the checker, CheckAll's result all and,
// with cases, the case-by-case search for writers give the reference's
// verdict on h at level level.All()[i]. It returns that verdict and the
// checker's result.
func agreeOnLevel(t *testing.T, seed int, h *history.History, all *check.AllLevels, i int, cases bool) (bool, *check.Result) {
	t.Helper()
	l := level.All()[i]
	want, err := reference.Check(h, l)
	if err != nil {
		t.Fatalf("seed %d: reference: %v\n%s", seed, err, histgen.Describe(h))
	}
	res, err := check.Check(context.Background(), h, l)
	if err != nil {
		t.Fatalf("seed %d, %v: %v\n%s", seed, l, err, histgen.Describe(h))
	}
	if got := res.Verdict == verdict.Satisfied; got != want || res.Verdict == verdict.Unknown {
		t.Fatalf("seed %d, %v: checker says %v, reference says satisfied=%v\n%s", seed, l, res.Verdict, want, histgen.Describe(h))
	}
	if l != level.RC && l != level.RA && l != level.CC {
		// Without the guess of a witnessing order of writes, the search
		// alone gives the same verdict.
		searched, err := check.CheckWith(context.Background(), h, l, check.Options{NoWitness: true})
		if err != nil {
			t.Fatalf("seed %d, %v, without a guess: %v\n%s", seed, l, err, histgen.Describe(h))
		}
		if got := searched.Verdict == verdict.Satisfied; got != want {
			t.Fatalf("seed %d, %v: without a guess, the checker says %v, reference says satisfied=%v\n%s", seed, l, searched.Verdict, want, histgen.Describe(h))
		}
	}
	if cases {
		// Case by case, as explanations choose, the same verdict.
		byCase, err := check.CheckWith(context.Background(), h, l, check.Options{Cases: true})
		if err != nil {
			t.Fatalf("seed %d, %v, case by case: %v\n%s", seed, l, err, histgen.Describe(h))
		}
		if got := byCase.Verdict == verdict.Satisfied; got != want {
			t.Fatalf("seed %d, %v: case by case, the checker says %v, reference says satisfied=%v\n%s", seed, l, byCase.Verdict, want, histgen.Describe(h))
		}
	}
	if got := all.Results[i].Verdict == verdict.Satisfied; got != want {
		t.Fatalf("seed %d, %v: CheckAll says %v, reference says satisfied=%v\n%s", seed, l, all.Results[i].Verdict, want, histgen.Describe(h))
	}
	return want, res
}

// checkBalanced fails t when a level is violated by fewer than 1 in 20
// of the *propertyRuns histories, or by more than 19 in 20: the
// generator must exercise both verdicts at every level.
func checkBalanced(t *testing.T, violations map[level.Level]int) {
	t.Helper()
	for _, l := range level.All() {
		if n := violations[l]; n < *propertyRuns/20 || n > *propertyRuns*19/20 {
			t.Errorf("%v: %d of %d histories violate it: the generator is lopsided", l, n, *propertyRuns)
		}
	}
	t.Logf("violations per level over %d histories: %v", *propertyRuns, violations)
}
