package sqlcheck_test

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/isocheck/isocheck/internal/testkit/historytest"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/sqlcheck"
	"github.com/isocheck/isocheck/verdict"
)

// TestReportsNameForbiddenAnomalies: on random SQL histories, every
// violation is named with a name that the level of its report forbids,
// its predicates name columns the history has, and its picture has a
// title and no edge into the initial state.
func TestReportsNameForbiddenAnomalies(t *testing.T) {
	cfg := historytest.SQLConfig{Txns: 7, Sessions: 3, Keys: 3, Tables: 1, Events: 3}
	names := map[string]int{}
	for seed := 0; seed < 400; seed++ {
		h := historytest.RandomSQL(rand.New(rand.NewPCG(uint64(seed), 0x70c)), cfg)
		if err := sqlcheck.Validate(h); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		res, err := sqlcheck.Check(context.Background(), h)
		if err != nil {
			t.Fatal(err)
		}
		if res.Verdict != verdict.Violated {
			continue
		}
		a := sqlcheck.Explain(res).Anomaly
		l, err := level.Parse(a.Level)
		if err != nil || !verdict.Forbids(l, a.Name) || a.Description == "" {
			t.Fatalf("seed %d: %s at %q (%v), which that level does not forbid or describe", seed, a.Name, a.Level, err)
		}
		names[a.Name.String()]++
		var dot strings.Builder
		if err := res.WriteDOT(&dot); err != nil {
			t.Fatal(err)
		}
		if g := dot.String(); strings.Contains(g, "-> init") || !strings.Contains(g, "VIOLATED: "+a.Name.String()) {
			t.Fatalf("seed %d: an edge into init, or no title:\n%s", seed, g)
		}
	}
	t.Logf("names: %v", names)
}
