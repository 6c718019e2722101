package sqlcheck

import (
	"context"
	"testing"
	"time"

	"github.com/isocheck/isocheck/format/sqljsonl"
)

// pastDeadline is a context whose deadline has passed but whose timer has
// not fired yet: it has not ended.
type pastDeadline struct{ context.Context }

func (pastDeadline) Deadline() (time.Time, bool) { return time.Now().Add(-time.Millisecond), true }

// TestSolverStopsAtTheDeadline: when the solver gives up because the
// deadline passed, before the context says it ended, the reason is the
// deadline's, not the solver's message.
func TestSolverStopsAtTheDeadline(t *testing.T) {
	h, err := sqljsonl.ReadFile("../examples/sql-phantom-ser.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	res, err := CheckWith(pastDeadline{context.Background()}, h, Options{NoShrink: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%v %q", res.Verdict, res.Reason)
	if res.Reason != "timed out" {
		t.Errorf("%v (%q), want no verdict (timed out)", res.Verdict, res.Reason)
	}
}
