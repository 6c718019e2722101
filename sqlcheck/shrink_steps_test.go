package sqlcheck

import (
	"context"
	"testing"

	"github.com/isocheck/isocheck/verdict"
)

// TestStepBudget: the paper's search stops once it has spent the step
// budget of its context, at the same step on every run, and decides when
// the budget suffices.
func TestStepBudget(t *testing.T) {
	h := phantomHistory(t, 4, 10)
	opts := Options{Paper: true}
	full, err := decide(context.Background(), h, opts)
	if err != nil {
		t.Fatal(err)
	}
	if full.Verdict != verdict.Violated {
		t.Fatalf("without a budget: %v, want violated", full.Verdict)
	}
	if full.Stats.Steps < 2 {
		t.Fatalf("the search took %d steps: too few to cut short", full.Stats.Steps)
	}
	for _, tc := range []struct {
		budget int
		want   verdict.Verdict
	}{
		{1, verdict.Unknown},
		{full.Stats.Steps + 1, verdict.Violated},
	} {
		for run := 0; run < 2; run++ {
			r, err := decide(withStepBudget(context.Background(), tc.budget), h, opts)
			if err != nil {
				t.Fatal(err)
			}
			if r.Verdict != tc.want {
				t.Errorf("budget %d: %v (%s), want %v", tc.budget, r.Verdict, r.Reason, tc.want)
			}
		}
	}
}
