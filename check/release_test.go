package check

import (
	"context"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/isocheck/isocheck/histgen"
	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/verdict"
)

// TestReleasedReadsSameResult checks that a check whose polygraph
// released the reads of its resolution (as CheckWith lets it from
// releaseReads reads on) gives the result of one that kept them: the
// verdict, the level whose evidence is shown, the evidence and what the
// walk of the weaker levels found, which needs the history resolved
// again. The histories are random small ones with faults, most of them
// broken somewhere, and generated ones from stores that break SI and SER
// (lost updates, write skews), whose guesses of a witness fail and whose
// relaxed polygraphs are checked again.
func TestReleasedReadsSameResult(t *testing.T) {
	rng := rand.New(rand.NewPCG(36, 1))
	var hs []*history.History
	for range 150 {
		hs = append(hs, histgen.Small(rng, histgen.SmallConfig{Sessions: 3, MaxTxns: 8, Keys: 3, MaxOps: 4,
			AbortProb: 0.1, UnknownProb: 0.1, FaultProb: 0.15, Times: true}))
	}
	for seed, store := range []histgen.Store{histgen.SnapshotNoFCW, histgen.SnapshotIsolation, histgen.Serializable} {
		hs = append(hs, histgen.Large(histgen.LargeConfig{Sessions: 6, TxnsPerSession: 30, OpsPerTxn: 4, Keys: 20, Seed: int64(seed), Store: store}))
	}
	violated := 0
	for i, h := range hs {
		for _, l := range []level.Level{level.SSER, level.SER, level.SI, level.PC} {
			kept, err := CheckWith(context.Background(), h, l, Options{WeakestBroken: true})
			if err != nil {
				continue
			}
			own, err := CheckWith(context.Background(), h, l, Options{WeakestBroken: true, releaseReads: true})
			if err != nil {
				t.Fatalf("history %d at %v: with the reads released: %v", i, l, err)
			}
			if own.Verdict != kept.Verdict || own.ImpliedBy != kept.ImpliedBy || own.WeakerChecked != kept.WeakerChecked ||
				own.Undecided != kept.Undecided || !reflect.DeepEqual(own.Cycle, kept.Cycle) || !reflect.DeepEqual(own.Anomalies, kept.Anomalies) ||
				!reflect.DeepEqual(own.Core, kept.Core) {
				t.Fatalf("history %d at %v: with the reads released, %v (implied by %v, evidence %v %v); kept, %v (implied by %v, evidence %v %v)",
					i, l, own.Verdict, own.ImpliedBy, own.Cycle, own.Anomalies, kept.Verdict, kept.ImpliedBy, kept.Cycle, kept.Anomalies)
			}
			if kept.Verdict == verdict.Violated {
				violated++
			}
		}
	}
	if violated < 100 {
		t.Fatalf("only %d violations: the walk after a release is hardly tested", violated)
	}
}
