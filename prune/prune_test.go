package prune

import (
	"context"
	"testing"

	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/polygraph"
	"github.com/isocheck/isocheck/verdict"
)

func op(kind history.OpKind, k history.Key, v history.Value) history.Op {
	return history.Op{Kind: kind, Key: k, Value: v}
}

// build makes a polygraph with a constraint for every pair of write
// chains, so that pruning has something to decide.
func build(t *testing.T, sessions []string, txns [][]history.Op) *polygraph.Polygraph {
	t.Helper()
	b := history.NewBuilder(history.Null)
	b.Key("x")
	b.Key("y")
	for i, ops := range txns {
		b.AddTxn(history.Txn{Session: b.Session(sessions[i]), Start: history.NoTime, End: history.NoTime}, ops)
	}
	p, err := polygraph.Build(context.Background(), b.History(), polygraph.Options{Level: level.SER, AllPairs: true})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

const x, y = 0, 1

// Two blind writers of x in one session: the order against the session is
// impossible, so pruning decides it and nothing is left.
func TestSessionOrderDecides(t *testing.T) {
	p := build(t, []string{"a", "a"}, [][]history.Op{
		{op(history.Write, x, 1)},
		{op(history.Write, x, 2)},
	})
	if len(p.Constraints) != 1 {
		t.Fatalf("%d constraints, want 1", len(p.Constraints))
	}
	res, err := Prune(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if res.Violation != nil || len(res.Remaining) != 0 || len(res.Resolved) != 1 {
		t.Fatalf("violation %v, remaining %v, resolved %v; want one constraint decided", res.Violation, res.Remaining, res.Resolved)
	}
	if r := res.Resolved[0]; !r.Either || r.Blocked.Kind != verdict.WW {
		t.Errorf("resolution %+v: want the Either side (first writer first), blocked by the WW edge of the other", r)
	}
}

// c reads x from a and y from b, while a and b each overwrite what the
// other wrote: neither order of the writes of x works.
func TestConflictIsAViolation(t *testing.T) {
	p := build(t, []string{"a", "b", "c"}, [][]history.Op{
		{op(history.Write, x, 1), op(history.Write, y, 1)},
		{op(history.Write, x, 2), op(history.Write, y, 2)},
		{op(history.Read, x, 1), op(history.Read, y, 2)},
	})
	res, err := Prune(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	v := res.Violation
	if v == nil {
		t.Fatal("no violation")
	}
	if v.Constraint < 0 && len(v.Cycle) == 0 {
		t.Fatalf("violation without evidence: %+v", v)
	}
	if v.Constraint >= 0 && (len(v.EitherCycle) < 2 || len(v.OrCycle) < 2) {
		t.Fatalf("conflict without a cycle for each side: %+v", v)
	}
}

func TestPruneHonoursContext(t *testing.T) {
	p := build(t, []string{"a", "b"}, [][]history.Op{{op(history.Write, x, 1)}, {op(history.Write, x, 2)}})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Prune(ctx, p); err == nil {
		t.Error("Prune ran on a cancelled context")
	}
}
