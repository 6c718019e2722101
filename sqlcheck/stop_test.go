package sqlcheck

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/isocheck/isocheck/format/sqljsonl"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/progress"
	"github.com/isocheck/isocheck/solver"
	"github.com/isocheck/isocheck/sqlhistory"
	"github.com/isocheck/isocheck/verdict"
)

// TestCheckStops: on a context that has ended, Check gives no verdict,
// stopped from outside, and the reason is the context's: "timed out" for
// its deadline, the message of the cause it was cancelled with (a
// resource limit) otherwise.
func TestCheckStops(t *testing.T) {
	h, err := sqljsonl.ReadFile("../examples/sql-phantom-ser.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	limit := fmt.Errorf("%w: memory use 9GiB went past --max-memory 8GiB", progress.ErrResourceLimit)
	cancelled, cancel := context.WithCancelCause(context.Background())
	cancel(limit)
	expired, stop := context.WithTimeout(context.Background(), 0)
	defer stop()
	for _, c := range []struct {
		name   string
		ctx    context.Context
		reason string
	}{
		{"resource limit", cancelled, limit.Error()},
		{"deadline", expired, "timed out"},
	} {
		for _, opts := range []Options{{}, {Paper: true}, {Naive: true}} {
			res, err := CheckWith(c.ctx, h, opts)
			if err != nil || res.Verdict != verdict.Unknown || res.Reason != c.reason || !res.Stopped {
				t.Errorf("%s, %+v: %v (%q, stopped %v), %v; want no verdict (%q), stopped", c.name, opts, res.Verdict, res.Reason, res.Stopped, err, c.reason)
			}
		}
	}
}

// TestShrinkStops: once the run's context has ended, shrinking and the
// explanation stop, and the violation stands with the evidence found on
// the whole history.
func TestShrinkStops(t *testing.T) {
	h, err := sqljsonl.ReadFile("../examples/sql-phantom-ser.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	res, err := decide(context.Background(), h, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != verdict.Violated {
		t.Fatalf("%v, want violated", res.Verdict)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	shrink(ctx, h, Options{}, res)
	if res.Verdict != verdict.Violated || res.History != h || len(res.Txns) != len(h.Txns) {
		t.Errorf("after a stop: %v on %d of %d transactions (the input's: %v); want the violation on the whole history",
			res.Verdict, len(res.Txns), len(h.Txns), res.History == h)
	}
}

// TestCheckInput: a history that is not well formed is an error, a
// *sqlhistory.InputError, with no Result; the same history well formed
// is checked.
func TestCheckInput(t *testing.T) {
	read := func() *sqlhistory.History {
		h, err := sqljsonl.ReadFile("../examples/sql-phantom-ser.jsonl")
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	if res, err := Check(context.Background(), read()); err != nil || res.Verdict != verdict.Violated {
		t.Fatalf("the history well formed: %v, %v; want violated", res, err)
	}
	for _, c := range []struct {
		name   string
		mutate func(h *sqlhistory.History) *sqlhistory.History
	}{
		{"no history", func(*sqlhistory.History) *sqlhistory.History { return nil }},
		{"level", func(h *sqlhistory.History) *sqlhistory.History { h.Txns[0].Level = level.SSER; return h }},
		{"status", func(h *sqlhistory.History) *sqlhistory.History {
			h.Txns[0].Status = sqlhistory.RolledBack + 1
			return h
		}},
		{"session", func(h *sqlhistory.History) *sqlhistory.History { h.Txns[0].Session = len(h.Sessions); return h }},
		{"session order", func(h *sqlhistory.History) *sqlhistory.History {
			h.Sessions[0] = append(h.Sessions[0], len(h.Txns))
			return h
		}},
		{"version", func(h *sqlhistory.History) *sqlhistory.History { h.Versions = h.Versions[:0]; return h }},
		{"writer", func(h *sqlhistory.History) *sqlhistory.History { h.Versions[0].Writer = len(h.Txns); return h }},
	} {
		res, err := Check(context.Background(), c.mutate(read()))
		var in *sqlhistory.InputError
		if !errors.As(err, &in) || res != nil {
			t.Errorf("%s: %v, %v; want a *sqlhistory.InputError", c.name, res, err)
		}
	}
}

// TestCheckFailure: a failure of the checker that is not a stop (here,
// the solver refusing its problem) is an error, not a Result without a
// verdict; the solver giving up, or the step budget spent, is a stop.
func TestCheckFailure(t *testing.T) {
	ctx := context.Background()
	broken := errors.New("solver: the fixed edges form a cycle")
	if o, err := stopped(ctx, broken); !errors.Is(err, broken) || o.Verdict != verdict.Unknown || o.Reason != "" {
		t.Errorf("a failure: %+v, %v; want the error", o, err)
	}
	for _, err := range []error{fmt.Errorf("%w: %w", solver.ErrGaveUp, context.DeadlineExceeded), solver.ErrGaveUp, errStepBudget, context.Canceled} {
		if o, got := stopped(ctx, err); got != nil || o.Verdict != verdict.Unknown || o.Reason == "" {
			t.Errorf("%v: %+v, %v; want no verdict, with the reason", err, o, got)
		}
	}
}
