package check_test

import (
	"context"
	"flag"
	"math/rand/v2"
	"testing"

	"github.com/isocheck/isocheck/check"
	"github.com/isocheck/isocheck/histgen"
	"github.com/isocheck/isocheck/internal/reference"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/verdict"
)

var propertyRuns = flag.Int("property.runs", 3000, "random histories per level in TestAgreesWithReference")

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
			if got := all.Results[i].Verdict == verdict.Satisfied; got != want {
				t.Fatalf("seed %d, %v: CheckAll says %v, reference says satisfied=%v\n%s", seed, l, all.Results[i].Verdict, want, histgen.Describe(h))
			}
			if !want {
				violations[l]++
			}
		}
	}
	// The generator must exercise both verdicts at every level.
	for _, l := range levels {
		if n := violations[l]; n < *propertyRuns/20 || n > *propertyRuns*19/20 {
			t.Errorf("%v: %d of %d histories violate it: the generator is lopsided", l, n, *propertyRuns)
		}
	}
	t.Logf("violations per level over %d histories: %v", *propertyRuns, violations)
}
