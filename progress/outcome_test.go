package progress

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/isocheck/isocheck/verdict"
)

// stillRunning is a context whose deadline has passed but that has not
// noticed yet: its timer has not fired.
type stillRunning struct{ context.Context }

func (stillRunning) Deadline() (time.Time, bool) { return time.Now().Add(-time.Millisecond), true }

func TestOutcome(t *testing.T) {
	limit := fmt.Errorf("%w: memory above 4 GiB", ErrResourceLimit)
	gaveUp := errors.New("solver: no answer before the deadline")
	cancelled := func(cause error) context.Context {
		ctx, cancel := context.WithCancelCause(context.Background())
		cancel(cause)
		return ctx
	}
	expired, stop := context.WithTimeout(context.Background(), 0)
	defer stop()
	<-expired.Done()
	running := context.Background()
	for _, c := range []struct {
		name    string
		ctx     context.Context
		err     error
		giveUp  bool
		stop    bool
		reason  string
		stopped bool
	}{
		{"an error of its own", running, errors.New("bad input"), false, false, "", false},
		{"no error", running, nil, false, false, "", false},
		{"deadline", expired, context.DeadlineExceeded, false, true, "timed out", true},
		{"deadline as a cause", cancelled(context.DeadlineExceeded), context.DeadlineExceeded, false, true, "timed out", true},
		{"cancelled", cancelled(nil), context.Canceled, false, true, "cancelled", true},
		{"resource limit of ctx", cancelled(limit), limit, false, true, limit.Error(), true},
		{"resource limit of the stage", running, fmt.Errorf("clocks: %w", limit), false, true, "clocks: " + limit.Error(), false},
		{"another cause", cancelled(errors.New("node lost")), context.Canceled, false, true, "node lost", true},
		{"gave up, ctx running", running, gaveUp, true, true, gaveUp.Error(), false},
		{"gave up as ctx ended", expired, fmt.Errorf("%w: %w", gaveUp, context.DeadlineExceeded), true, true, "timed out", true},
		{"gave up past the deadline", stillRunning{running}, gaveUp, true, true, "timed out", true},
		{"an inner context cancelled", running, context.Canceled, false, true, "cancelled", false},
		{"gave up without an error", running, nil, true, true, "stopped", false},
	} {
		o, ok := Outcome(c.ctx, c.err, c.giveUp)
		if ok != c.stop {
			t.Errorf("%s: stop %v, want %v", c.name, ok, c.stop)
			continue
		}
		if !ok {
			if o != (verdict.Outcome{}) {
				t.Errorf("%s: not a stop, but %+v", c.name, o)
			}
			continue
		}
		if o.Verdict != verdict.Unknown || o.Reason != c.reason || o.Stopped != c.stopped {
			t.Errorf("%s: %+v, want no verdict (%q), stopped %v", c.name, o, c.reason, c.stopped)
		}
	}
}

func TestOutcomeNamesTheStage(t *testing.T) {
	tr := NewTracker()
	ctx, cancel := context.WithCancel(WithTracker(context.Background(), tr))
	Start(ctx, "prune", 10, "constraints")
	cancel()
	o, ok := Outcome(ctx, context.Canceled, false)
	if !ok || o.Stage != "prune" || o.Reason != "cancelled" {
		t.Fatalf("%+v, %v; want no verdict (cancelled) in stage prune", o, ok)
	}
}
