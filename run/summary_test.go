package run

import (
	"errors"
	"testing"

	"github.com/isocheck/isocheck/verdict"
)

// TestSummaryOutcome: a check of an incomplete run's history that finds
// no violation gives no verdict on the run; any other outcome stands.
func TestSummaryOutcome(t *testing.T) {
	complete := &Summary{Planned: 10, Committed: 8, Aborted: 2}
	interrupted := &Summary{Planned: 10, Committed: 4, Interrupted: true}
	died := &Summary{Planned: 10, Committed: 4, SessionErrors: []error{errors.New("session 1: connection refused")}}
	satisfied := verdict.Outcome{Verdict: verdict.Satisfied}
	violated := verdict.Outcome{Verdict: verdict.Violated}
	timedOut := verdict.Outcome{Reason: "timed out", Stopped: true}
	for _, c := range []struct {
		name string
		sum  *Summary
		in   verdict.Outcome
		want verdict.Outcome
	}{
		{"complete, satisfied", complete, satisfied, satisfied},
		{"complete, violated", complete, violated, violated},
		{"interrupted, violated", interrupted, violated, violated},
		{"interrupted, no verdict", interrupted, timedOut, timedOut},
		{"interrupted, satisfied", interrupted, satisfied, verdict.Outcome{Reason: "incomplete run: 6 of the plan's 10 transactions not run (interrupted)", Stopped: true}},
		{"database died, satisfied", died, satisfied, verdict.Outcome{Reason: "incomplete run: 6 of the plan's 10 transactions not run (session 1: connection refused)"}},
	} {
		if got := c.sum.Outcome(c.in); got != c.want {
			t.Errorf("%s: %+v, want %+v", c.name, got, c.want)
		}
	}
}
