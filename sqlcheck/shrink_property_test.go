package sqlcheck_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/isocheck/isocheck/internal/testkit/historytest"
	"github.com/isocheck/isocheck/internal/testkit/reference"
	"github.com/isocheck/isocheck/sqlcheck"
	"github.com/isocheck/isocheck/verdict"
)

// TestShrinkMinimalAndDeterministic shrinks the violations of random SQL
// histories: the counterexample is violated according to the brute-force
// reference, dropping any droppable transaction from it leaves a
// consistent history (see checkEvidence), and a second run gives the same
// counterexample and evidence.
func TestShrinkMinimalAndDeterministic(t *testing.T) {
	cfgs := []historytest.SQLConfig{
		{},
		{Txns: 8, Sessions: 3, Keys: 3, Tables: 1, Events: 3},
		{Txns: 6, Sessions: 2, Keys: 4, Tables: 2, Events: 4, FaultProb: -1},
	}
	shrunk := 0
	for seed := 0; seed < *sqlRuns/3; seed++ {
		rng := rand.New(rand.NewPCG(uint64(seed), 0x5412))
		h := historytest.RandomSQL(rng, cfgs[seed%len(cfgs)])
		if _, err := reference.CheckSQL(h); errors.Is(err, reference.ErrSQLTooBig) {
			continue
		}
		var first *sqlcheck.Result
		for run := 0; run < 2; run++ {
			res, err := sqlcheck.Check(context.Background(), h)
			if err != nil {
				t.Fatal(err)
			}
			if res.Verdict != verdict.Violated {
				break
			}
			if res.ShrinkStopped != 0 {
				t.Fatalf("seed %d: shrinking stopped after %v", seed, res.ShrinkStopped)
			}
			if run == 0 {
				checkEvidence(t, seed, h, res)
				first = res
				shrunk++
			} else if !sameEvidence(first, res) {
				t.Fatalf("seed %d: two runs differ:\n%s\n%s\n%s", seed, evidence(first), evidence(res), describe(h))
			}
		}
	}
	t.Logf("%d counterexamples shrunk", shrunk)
}

// sameEvidence reports whether a and b have the same counterexample and
// evidence.
func sameEvidence(a, b *sqlcheck.Result) bool {
	return reflect.DeepEqual(a.Txns, b.Txns) && reflect.DeepEqual(a.Anomalies, b.Anomalies) &&
		reflect.DeepEqual(a.Cycle, b.Cycle) && reflect.DeepEqual(a.Missed, b.Missed) &&
		a.NoOrder == b.NoOrder && reflect.DeepEqual(a.Either, b.Either)
}

// evidence prints res's counterexample and evidence.
func evidence(res *sqlcheck.Result) string {
	return fmt.Sprintf("%v %+v %+v %+v %v %+v", res.Txns, res.Anomalies, res.Cycle, res.Missed, res.NoOrder, res.Either)
}
