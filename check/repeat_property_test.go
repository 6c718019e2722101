package check_test

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/isocheck/isocheck/check"
	"github.com/isocheck/isocheck/histgen"
	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/level"
)

// fold returns a copy of h whose written values repeat: on each key, the
// values 1, 2, 3, ... wrap around after a random one to three values,
// and on some keys value 1 becomes the initial value. Every read keeps
// the writer it had among its candidates, so a history that satisfied a
// level still does; one that violated it may no longer.
func fold(rng *rand.Rand, h *history.History) *history.History {
	out := *h
	out.Ops = slices.Clone(h.Ops)
	wrap := make([]int64, h.NumKeys())
	toInit := make([]bool, h.NumKeys())
	for k := range wrap {
		wrap[k] = 1 + rng.Int64N(3)
		toInit[k] = rng.IntN(8) == 0
	}
	for i := range out.Ops {
		op := &out.Ops[i]
		if op.Value == h.Init {
			continue
		}
		if op.Value = history.Value((int64(op.Value)-1)%wrap[op.Key] + 1); op.Value == 1 && toInit[op.Key] {
			op.Value = h.Init
		}
	}
	return &out
}

// TestRepeatedValuesAgreeWithReference is TestAgreesWithReference for
// histories whose written values repeat (few values per key, writes of
// the initial value), from the simulated stores of every level, with
// faults and transactions of unknown outcome: the checker must choose
// writers as the reference, which tries every choice, does.
func TestRepeatedValuesAgreeWithReference(t *testing.T) {
	levels := level.All()
	cfg := histgen.SmallConfig{Sessions: 3, MaxTxns: 8, Keys: 3, MaxOps: 4, AbortProb: 0.1, UnknownProb: 0.1, FaultProb: 0.15, Times: true}
	violations := map[level.Level]int{}
	choices := 0
	for seed := 0; seed < *propertyRuns; seed++ {
		rng := rand.New(rand.NewPCG(uint64(seed), 0x7e9))
		h := fold(rng, histgen.Small(rng, cfg))
		all, err := check.CheckAll(context.Background(), h)
		if err != nil {
			t.Fatalf("seed %d: CheckAll: %v\n%s", seed, err, histgen.Describe(h))
		}
		for i, l := range levels {
			want, res := agreeOnLevel(t, seed, h, all, i, true)
			if !want {
				violations[l]++
			}
			if res.Stats.Choices > 0 {
				choices++
			}
		}
	}
	checkBalanced(t, violations)
	// Most checks must have had writers to choose.
	if checks := *propertyRuns * len(levels); choices < checks/3 {
		t.Errorf("%d of %d checks had reads of several candidate writers: too few to test the choice", choices, checks)
	}
	t.Logf("%d checks chose writers", choices)
}
