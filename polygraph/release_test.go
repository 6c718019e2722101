package polygraph

import (
	"context"
	"errors"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/isocheck/isocheck/histgen"
	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/resolve"
)

// TestReleaseReads checks that a polygraph built with ReleaseReads, from
// copies of the reads, is the one built from the resolution's: the same
// known edges, anomalies, constraints and guess, on random small histories
// with faults (lost updates, cycles through read-modify-writes) and
// generated ones. The resolution is released then, and a second build of
// it is refused rather than made from no reads.
func TestReleaseReads(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 36))
	var hs []*history.History
	for range 300 {
		hs = append(hs, histgen.Small(rng, histgen.SmallConfig{Sessions: 4, MaxTxns: 20, Keys: 4, MaxOps: 5,
			FaultProb: 0.2, AbortProb: 0.1, UnknownProb: 0.1, Times: true}))
	}
	for seed, store := range histgen.Stores() {
		hs = append(hs, histgen.Large(histgen.LargeConfig{Sessions: 8, TxnsPerSession: 15, Keys: 30, Seed: int64(seed), Store: store}))
	}
	released, withConstraints := 0, 0
	for i, h := range hs {
		for _, l := range []level.Level{level.SER, level.SI, level.SSER} {
			for _, noWitness := range []bool{false, true} {
				opts := Options{Level: l, NoWitness: noWitness}
				kept := build(t, h, opts)
				res, err := resolve.Resolve(context.Background(), h)
				if err != nil {
					continue
				}
				opts.ReleaseReads = true
				own, err := BuildResolved(context.Background(), res, opts)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(kept.Known, own.Known) || !reflect.DeepEqual(kept.Anomalies, own.Anomalies) ||
					!reflect.DeepEqual(kept.Constraints, own.Constraints) || kept.Witnessed != own.Witnessed || kept.Relaxed != own.Relaxed {
					t.Fatalf("history %d at %v (no witness %v): with the reads released, %d known edges, %d anomalies, %d constraints, witnessed %v; kept, %d, %d, %d, %v",
						i, l, noWitness, len(own.Known), len(own.Anomalies), len(own.Constraints), own.Witnessed,
						len(kept.Known), len(kept.Anomalies), len(kept.Constraints), kept.Witnessed)
				}
				if len(res.Choices) > 0 || len(own.Anomalies) > 0 && res.Reads != nil {
					continue // kept for choosing writers, or a build that ended before its reads were grouped
				}
				if !res.Released() || res.Reads != nil {
					t.Fatalf("history %d at %v: the resolution kept its reads", i, l)
				}
				released++
				if len(own.Constraints) > 0 {
					withConstraints++
				}
				if _, err := BuildResolved(context.Background(), res, Options{Level: l}); !errors.Is(err, resolve.ErrReleased) {
					t.Fatalf("history %d at %v: a build of a released resolution gave %v, not ErrReleased", i, l, err)
				}
			}
		}
	}
	t.Logf("%d builds released their reads, %d with constraints", released, withConstraints)
	if released < 1000 || withConstraints < 100 {
		t.Fatalf("only %d builds released their reads, %d with constraints: the test means little", released, withConstraints)
	}
}

// build builds the polygraph of h with opts, or nil for a history whose
// reads do not resolve.
func build(t *testing.T, h *history.History, opts Options) *Polygraph {
	t.Helper()
	res, err := resolve.Resolve(context.Background(), h)
	if err != nil {
		return nil
	}
	p, err := BuildResolved(context.Background(), res, opts)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
