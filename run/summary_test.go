package run

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

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

// TestSummaryWriteStoppedEarly: sessions that stopped for the same reason
// make one line, with their count, and a reason of several lines, as a
// driver gives, is put on one.
func TestSummaryWriteStoppedEarly(t *testing.T) {
	refused := errors.New("failed to connect to `user=u database=x`:\n\t127.0.0.1:1 (127.0.0.1): dial error: connection refused\n\t[::1]:1 ([::1]): dial error: connection refused")
	const reason = "could not reconnect within 5s: failed to connect to `user=u database=x`: 127.0.0.1:1 (127.0.0.1): dial error: connection refused; [::1]:1 ([::1]): dial error: connection refused"
	var eight []error
	for _, s := range []int{3, 0, 1, 2, 4, 5, 6, 7} {
		eight = append(eight, &SessionError{Session: s, Err: &ReconnectError{After: 5 * time.Second, Again: true, Err: refused}})
	}
	for _, c := range []struct {
		name string
		errs []error
		want []string
	}{
		{"one", eight[:1], []string{"  stopped early: session 3: " + reason}},
		{"eight", eight, []string{"  stopped early: 8 sessions (3, 0, 1, 2, 4, 5, 6, 7): " + reason}},
		{"nine", append(slices.Clone(eight), &SessionError{Session: 8, Err: &ReconnectError{After: 5 * time.Second, Again: true, Err: refused}}),
			[]string{"  stopped early: 9 sessions (3, 0, 1, 2, 4, 5, 6, 7, ...): " + reason}},
		{"two reasons", []error{eight[0], &SessionError{Session: 9, Err: errors.New("timeout")}, eight[1]},
			[]string{"  stopped early: 2 sessions (3, 0): " + reason, "  stopped early: session 9: timeout"}},
	} {
		sum := &Summary{Planned: 100, Committed: 10, SessionErrors: c.errs}
		var b strings.Builder
		sum.Write(&b)
		var got []string
		for line := range strings.Lines(b.String()) {
			if strings.HasPrefix(line, "  stopped early") {
				got = append(got, strings.TrimSuffix(line, "\n"))
			}
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: got\n%s\nwant\n%s", c.name, strings.Join(got, "\n"), strings.Join(c.want, "\n"))
		}
		if strings.Contains(b.String(), "\t") {
			t.Errorf("%s: the summary holds a tab:\n%s", c.name, b.String())
		}
	}
}
