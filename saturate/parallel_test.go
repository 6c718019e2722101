package saturate

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/isocheck/isocheck/internal/reference"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/polygraph"
	"github.com/isocheck/isocheck/workload"
)

var weakLevels = []level.Level{level.RC, level.RA, level.CC}

// TestWorkersAgreeWithReference runs the forcing pass split over several
// goroutines (which Check does only on large histories) on small random
// histories, and requires the brute-force reference's verdict.
func TestWorkersAgreeWithReference(t *testing.T) {
	cfg := workload.SmallConfig{Sessions: 4, MaxTxns: 9, Keys: 3, MaxOps: 4, AbortProb: 0.1, UnknownProb: 0.1, FaultProb: 0.1}
	violated := map[level.Level]int{}
	runs := 2000
	if testing.Short() {
		runs = 300
	}
	for seed := range runs {
		rng := rand.New(rand.NewPCG(uint64(seed), 0x5a7))
		h := workload.Small(rng, cfg)
		r, err := polygraph.Resolve(h)
		if err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, workload.Describe(h))
		}
		for _, l := range weakLevels {
			want, err := reference.Check(h, l)
			if err != nil {
				t.Fatalf("seed %d: reference: %v", seed, err)
			}
			for _, workers := range []int{2, 3, 5} {
				got, err := check(context.Background(), r, l, workers)
				if err != nil {
					t.Fatalf("seed %d, %v, %d workers: %v", seed, l, workers, err)
				}
				if got.Satisfied != want {
					t.Fatalf("seed %d, %v, %d workers: satisfied = %v, reference says %v\n%s", seed, l, workers, got.Satisfied, want, workload.Describe(h))
				}
				if !got.Satisfied && len(got.Cycle) == 0 && len(got.Anomalies) == 0 {
					t.Fatalf("seed %d, %v, %d workers: violated without evidence", seed, l, workers)
				}
				for i, e := range got.Cycle {
					if next := got.Cycle[(i+1)%len(got.Cycle)]; e.To != next.From {
						t.Fatalf("seed %d, %v: the cycle %v breaks after edge %d", seed, l, got.Cycle, i)
					}
				}
			}
			if !want {
				violated[l]++
			}
		}
	}
	// The test means little unless both verdicts are common.
	for _, l := range weakLevels {
		if violated[l] < runs/20 || violated[l] > runs*19/20 {
			t.Errorf("%v violated in %d of %d histories: too lopsided to test anything", l, violated[l], runs)
		}
	}
}

// TestWorkersAgree checks medium histories from stores of each weak level,
// too large for the reference, on one goroutine and on several: the
// verdict and the number of edges forced must not depend on the split.
func TestWorkersAgree(t *testing.T) {
	stores := []workload.Store{workload.ReadCommitted, workload.ReadAtomic, workload.Causal, workload.SnapshotIsolation}
	violated := 0
	for _, store := range stores {
		for seed := range 4 {
			h := workload.Large(workload.LargeConfig{Sessions: 7, TxnsPerSession: 300, OpsPerTxn: 8, Keys: 50, ReadProportion: 0.5, Zipf: true, Seed: int64(seed), Store: store})
			r, err := polygraph.Resolve(h)
			if err != nil {
				t.Fatal(err)
			}
			for _, l := range weakLevels {
				one, err := check(context.Background(), r, l, 1)
				if err != nil {
					t.Fatal(err)
				}
				if !one.Satisfied {
					violated++
				}
				for _, workers := range []int{2, 3, 7} {
					many, err := check(context.Background(), r, l, workers)
					if err != nil {
						t.Fatal(err)
					}
					if many.Satisfied != one.Satisfied || many.Edges != one.Edges || len(many.Anomalies) != len(one.Anomalies) {
						t.Errorf("%v store, seed %d, %v: one goroutine gives satisfied=%v with %d edges, %d give satisfied=%v with %d edges",
							store, seed, l, one.Satisfied, one.Edges, workers, many.Satisfied, many.Edges)
					}
				}
			}
		}
	}
	if violated == 0 {
		t.Error("no history violated a level: the split was never tested on a cycle")
	}
	t.Logf("%d of %d checks violated", violated, len(stores)*4*len(weakLevels))
}
