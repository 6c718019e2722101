package check

import (
	"context"
	"fmt"
	"testing"

	"github.com/isocheck/isocheck/histgen"
	"github.com/isocheck/isocheck/internal/testkit/testsize"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/polygraph"
	"github.com/isocheck/isocheck/resolve"
	"github.com/isocheck/isocheck/verdict"
	"github.com/isocheck/isocheck/workload"
)

// TestChainOrderAgreesWithAllPairs compares, on histories too large for the
// reference checker, the default construction (constraints only for the
// pairs of write chains reachability leaves open) with that of Huang, Liu,
// Chen, Wei, Basin, Li and Pan, "Efficient Black-box Checking of Snapshot
// Isolation in Databases" (PolySI), PVLDB 16(6), 2023 (a constraint for
// every pair). Histories come from every simulated store, so both verdicts
// occur.
func TestChainOrderAgreesWithAllPairs(t *testing.T) {
	verdicts := map[verdict.Verdict]int{}
	for seed := range int64(testsize.N(200, 600)) {
		store := histgen.Stores()[int(seed)%len(histgen.Stores())]
		h := histgen.Large(histgen.LargeConfig{Sessions: 2 + int(seed%5), TxnsPerSession: 4 + int(seed%13), OpsPerTxn: 2 + int(seed%4), Keys: 2 + int(seed%7), ReadProportion: 0.5, Dist: workload.Distribution(seed % 2), Seed: seed, Store: store})
		r, err := resolve.Resolve(context.Background(), h)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range []level.Level{level.SER, level.SI, level.SSER} {
			name := fmt.Sprintf("seed %d, %v store, %v", seed, store, l)
			fast, err := checkCycles(context.Background(), r, polygraph.Options{Level: l}, Options{})
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			slow, err := checkCycles(context.Background(), r, polygraph.Options{Level: l, AllPairs: true}, Options{})
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if fast.Verdict != slow.Verdict {
				t.Fatalf("%s: chain order says %v, all pairs says %v\n%s", name, fast.Verdict, slow.Verdict, histgen.Describe(h))
			}
			verdicts[fast.Verdict]++
		}
	}
	if verdicts[verdict.Satisfied] == 0 || verdicts[verdict.Violated] == 0 {
		t.Errorf("one-sided verdicts %v: the test exercises nothing", verdicts)
	}
	t.Logf("verdicts: %v", verdicts)
}
