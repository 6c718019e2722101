package sqlcheck

import (
	"context"
	"fmt"
	"testing"

	"github.com/isocheck/isocheck/format/sqljsonl"
	"github.com/isocheck/isocheck/progress"
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
			res, err := Check(c.ctx, h, opts)
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
	res := decide(context.Background(), h, Options{})
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
