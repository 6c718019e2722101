package check_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/isocheck/isocheck/check"
	"github.com/isocheck/isocheck/histgen"
	"github.com/isocheck/isocheck/internal/testkit/reference"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/solver"
	"github.com/isocheck/isocheck/verdict"
)

// TestOptionsKeepTheVerdict checks every ablation and engine against the
// brute-force reference on random small histories: Options change the
// work, never the verdict.
func TestOptionsKeepTheVerdict(t *testing.T) {
	var variants []check.Options
	for _, e := range solver.Engines() {
		for _, noPrune := range []bool{false, true} {
			for _, allPairs := range []bool{false, true} {
				variants = append(variants, check.Options{NoPrune: noPrune, AllPairs: allPairs, Engine: e})
			}
		}
	}
	cfg := histgen.SmallConfig{Sessions: 3, MaxTxns: 8, Keys: 3, MaxOps: 4, AbortProb: 0.1, UnknownProb: 0.1, FaultProb: 0.15, Times: true}
	violations := 0
	for seed := 0; seed < 300; seed++ {
		rng := rand.New(rand.NewPCG(uint64(seed), 0x0b7))
		h := histgen.Small(rng, cfg)
		for _, l := range []level.Level{level.SER, level.SI, level.SSER} {
			want, err := reference.Check(h, l)
			if err != nil {
				t.Fatalf("seed %d: reference: %v", seed, err)
			}
			if !want {
				violations++
			}
			for _, opts := range variants {
				res, err := check.CheckWith(context.Background(), h, l, opts)
				if err != nil {
					t.Fatalf("seed %d, %v, %+v: %v", seed, l, opts, err)
				}
				if got := res.Verdict == verdict.Satisfied; got != want || res.Verdict == verdict.Unknown {
					t.Fatalf("seed %d, %v, %+v: checker says %v, reference says satisfied=%v\n%s", seed, l, opts, res.Verdict, want, histgen.Describe(h))
				}
			}
		}
	}
	if violations == 0 || violations == 3*300 {
		t.Errorf("%d violations of %d: one-sided", violations, 3*300)
	}
}

// ExampleCheckWith checks a history with pruning turned off and the
// cdcl engine: the verdict is Check's.
func ExampleCheckWith() {
	h := histgen.Large(histgen.LargeConfig{Store: histgen.SnapshotIsolation, Sessions: 4, TxnsPerSession: 50, OpsPerTxn: 4, Keys: 20, ReadProportion: 0.5, Seed: 1})
	res, err := check.CheckWith(context.Background(), h, level.SI, check.Options{NoPrune: true, Engine: solver.CDCL})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Verdict)
	// Output: satisfied
}
