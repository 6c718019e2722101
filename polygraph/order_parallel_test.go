package polygraph

import (
	"context"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/isocheck/isocheck/histgen"
	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/internal/testkit/testsize"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/resolve"
)

// TestOrderKeysInParts checks that ordering the writes of keys in several
// parts, on several goroutines, builds the polygraph one part builds:
// the same known edges and constraints, in the same order. The histories
// are random small ones with faults, whose keys have many chains, and
// generated ones of many keys (8 sessions of 30 transactions, 60 under
// make test-long); the polygraph is the one of each level built on chains.
func TestOrderKeysInParts(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 25))
	var hs []*history.History
	for range 500 {
		hs = append(hs, histgen.Small(rng, histgen.SmallConfig{Sessions: 5, MaxTxns: 30, Keys: 6, MaxOps: 5,
			FaultProb: 0.2, AbortProb: 0.1, UnknownProb: 0.1, Times: true}))
	}
	for seed := range 4 {
		hs = append(hs, histgen.Large(histgen.LargeConfig{Sessions: 8, TxnsPerSession: testsize.N(30, 60), Keys: 100, Seed: int64(seed), Store: histgen.Stores()[seed%len(histgen.Stores())]}))
	}
	built := 0
	for i, h := range hs {
		res, err := resolve.Resolve(context.Background(), h)
		if err != nil {
			continue
		}
		for _, l := range []level.Level{level.SER, level.SI, level.SSER} {
			one, err := BuildResolved(context.Background(), res, Options{Level: l, parts: 1})
			if err != nil {
				t.Fatal(err)
			}
			for _, parts := range []int{2, 7} {
				many, err := BuildResolved(context.Background(), res, Options{Level: l, parts: parts})
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(one.Known, many.Known) || !reflect.DeepEqual(one.Constraints, many.Constraints) {
					t.Fatalf("history %d at %v: %d parts built %d known edges and %d constraints, one part %d and %d",
						i, l, parts, len(many.Known), len(many.Constraints), len(one.Known), len(one.Constraints))
				}
			}
			if len(one.Constraints) > 0 {
				built++
			}
		}
	}
	// The test means something only if constraints were built.
	t.Logf("%d polygraphs had constraints", built)
	if built < 100 {
		t.Fatalf("only %d polygraphs had constraints", built)
	}
}
