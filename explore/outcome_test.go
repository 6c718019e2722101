package explore

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/progress"
	"github.com/isocheck/isocheck/verdict"
)

// writeSkew is a program whose final assertion SER keeps and SI breaks.
func writeSkew() *Program {
	withdraw := func(from string) func(*Tx) {
		return func(tx *Tx) {
			if tx.Read("alice")+tx.Read("bob") >= 100 {
				tx.Write(from, tx.Read(from)-100)
			}
		}
	}
	return &Program{
		Init: map[string]Value{"alice": 60, "bob": 60},
		Sessions: []Session{
			{Name: "alice", Txns: []Txn{{Name: "withdraw(alice)", Body: withdraw("alice")}}},
			{Name: "bob", Txns: []Txn{{Name: "withdraw(bob)", Body: withdraw("bob")}}},
		},
		Final: &Txn{Name: "audit", Body: func(tx *Tx) {
			total := tx.Read("alice") + tx.Read("bob")
			tx.Assert(total >= 0, "the total is %d", total)
		}},
	}
}

// TestOutcome: violated when a history breaks an assertion, satisfied
// when every history was explored and none does, no verdict with the
// reason and the stage when the exploration stopped without a failure.
func TestOutcome(t *testing.T) {
	limit := fmt.Errorf("%w: memory above 1 GiB", progress.ErrResourceLimit)
	ended := func(cause error) context.Context {
		ctx, cancel := context.WithCancelCause(context.Background())
		cancel(cause)
		return ctx
	}
	for _, c := range []struct {
		name    string
		ctx     context.Context
		cfg     Options
		verdict verdict.Verdict
		reason  string
	}{
		{"SER", context.Background(), Options{Level: level.SER}, verdict.Satisfied, ""},
		{"SI", context.Background(), Options{Level: level.SI}, verdict.Violated, ""},
		{"SI, first failure", context.Background(), Options{Level: level.SI, StopAtFailure: true}, verdict.Violated, ""},
		{"SI, 2 workers", context.Background(), Options{Level: level.SI, Workers: 2}, verdict.Violated, ""},
		{"SI, DFS", context.Background(), Options{Level: level.SI, Algorithm: DFS}, verdict.Violated, ""},
		{"timed out", ended(context.DeadlineExceeded), Options{Level: level.SER}, verdict.Unknown, "timed out"},
		{"cancelled", ended(nil), Options{Level: level.SER}, verdict.Unknown, "cancelled"},
		{"resource limit", ended(limit), Options{Level: level.SER, Workers: 2}, verdict.Unknown, limit.Error()},
	} {
		p := writeSkew()
		if c.verdict == verdict.Unknown {
			// Large enough to reach the first look at ctx.
			p = randomRMW(rand.New(rand.NewPCG(1, 2)), 4, 3, 2)
		}
		tr := progress.NewTracker()
		res, err := Explore(progress.WithTracker(c.ctx, tr), p, c.cfg)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if res.Verdict != c.verdict || res.Reason != c.reason {
			t.Errorf("%s: %v (%q), want %v (%q)", c.name, res.Verdict, res.Reason, c.verdict, c.reason)
		}
		if c.verdict == verdict.Unknown && (!res.Stopped || res.Stage != "explore" || res.Complete) {
			t.Errorf("%s: stopped %v in stage %q, complete %v; want stopped in explore, incomplete", c.name, res.Stopped, res.Stage, res.Complete)
		}
		if s := tr.Snapshot(); s.Stage != "explore" || s.Done != int64(res.EndStates) || s.Unit != "end states" {
			t.Errorf("%s: the tracker says %+v, want explore at %d end states", c.name, s, res.EndStates)
		}
	}
}
