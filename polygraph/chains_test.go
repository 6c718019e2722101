package polygraph

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/isocheck/isocheck/histgen"
	"github.com/isocheck/isocheck/progress"
	"github.com/isocheck/isocheck/resolve"
	"github.com/isocheck/isocheck/verdict"
)

// TestBuildChainsByWorkers checks that building the chains on several
// workers, each a range of keys, builds what one worker builds: the same
// known edges and anomalies in the same order, and the same chains of
// the same keys with the same readers, with the reads kept or released.
// The histories are random small ones with faults, registers and lists
// (with stated version orders), so with read-modify-writes, lost updates
// and orders of writers known in advance.
func TestBuildChainsByWorkers(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 27))
	chains, lost, ordered := 0, 0, 0
	for trial := range 1500 {
		lists := trial%3 == 0
		h := histgen.Small(rng, histgen.SmallConfig{Sessions: 5, MaxTxns: 20, Keys: 1 + rng.IntN(8), MaxOps: 5,
			FaultProb: 0.2, AbortProb: 0.1, UnknownProb: 0.1, Lists: lists, OrderProb: 0.5})
		build := func(workers int, release bool) (*Polygraph, []keyChains, string) {
			res, err := resolve.Resolve(context.Background(), h)
			if err != nil {
				return nil, nil, ""
			}
			n := len(h.Txns)
			p := &Polygraph{History: h, T0: int32(n), NumNodes: n + 1, Included: res.Included}
			p.addSessionOrder(res)
			m := progress.Start(context.Background(), "build polygraph", 0, "keys")
			keys, err := p.buildChainsBy(m, res, release, workers)
			if err != nil {
				t.Fatal(err)
			}
			// The chains as a user of them sees them: each key's, with
			// the readers of each.
			var s string
			for _, kc := range keys {
				s += fmt.Sprintf("key %d:", kc.key)
				for i, c := range kc.chains {
					s += fmt.Sprintf(" %d..%d %v", c.head, c.tail, p.readers.of(kc.chains, int32(i)))
				}
				s += "\n"
			}
			return p, keys, s
		}
		for _, release := range []bool{false, true} {
			one, keys, oneChains := build(1, release)
			if one == nil {
				break // an input error, found before the chains
			}
			for _, workers := range []int{2, 3, 7} {
				many, _, manyChains := build(workers, release)
				if !reflect.DeepEqual(one.Known, many.Known) || !reflect.DeepEqual(one.Anomalies, many.Anomalies) || manyChains != oneChains {
					t.Fatalf("trial %d, release %v: %d workers built\n%v\n%v\n%s\none built\n%v\n%v\n%s", trial, release, workers,
						many.Known, many.Anomalies, manyChains, one.Known, one.Anomalies, oneChains)
				}
			}
			chains += len(keys)
			if slices.ContainsFunc(one.Anomalies, func(a resolve.Anomaly) bool { return a.Kind == verdict.LostUpdate }) {
				lost++
			}
			if len(h.Orders) > 0 {
				ordered++
			}
		}
	}
	t.Logf("%d keys with chains, %d builds with lost updates, %d with stated orders", chains, lost, ordered)
	if chains < 1000 || lost < 50 || ordered < 50 {
		t.Fatalf("too few keys with chains (%d), lost updates (%d) or stated orders (%d): the test shows little", chains, lost, ordered)
	}
}
