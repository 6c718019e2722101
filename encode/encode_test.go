package encode

import (
	"context"
	"errors"
	"testing"

	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/polygraph"
	"github.com/isocheck/isocheck/solver"
)

// Two blind writers of x in different sessions, each read by a third
// transaction: one constraint, whose sides the encoding guards with one
// variable's two literals, lowered for the level.
func makeHistory() *history.History {
	b := history.NewBuilder(history.Null)
	x := b.Key("x")
	add := func(sess string, ops ...history.Op) {
		b.AddTxn(history.Txn{Session: b.Session(sess), Start: history.NoTime, End: history.NoTime}, ops)
	}
	add("a", history.Op{Kind: history.Write, Key: x, Value: 1})
	add("b", history.Op{Kind: history.Write, Key: x, Value: 2})
	add("c", history.Op{Kind: history.Read, Key: x, Value: 1})
	return b.History()
}

func TestEncodeConstraint(t *testing.T) {
	const x history.Key = 0
	for _, l := range []level.Level{level.SER, level.SI} {
		p, err := polygraph.Build(context.Background(), makeHistory(), polygraph.Options{Level: l, AllPairs: true})
		if err != nil {
			t.Fatal(err)
		}

		if len(p.Constraints) != 1 {
			t.Fatalf("%v: %d constraints, want 1", l, len(p.Constraints))
		}
		enc, err := Encode(context.Background(), p, p.Known, []int{0})
		if err != nil {
			t.Fatal(err)
		}
		pr := &enc.Problem
		if pr.Vars != 1 || len(enc.Constraints) != 1 {
			t.Fatalf("%v: %d variables", l, pr.Vars)
		}
		wantNodes := p.NumNodes
		if l == level.SI {
			wantNodes *= 2
		}
		if pr.Nodes != wantNodes {
			t.Errorf("%v: %d nodes, want %d", l, pr.Nodes, wantNodes)
		}
		lits := map[solver.Lit]int{}
		for _, c := range pr.Cond {
			lits[c.Lit]++
		}
		// Either: WW a→b and RW c→b; Or: WW b→a. SI lowers WW to two edges.
		c := p.Constraints[0]
		want := map[solver.Lit]int{1: len(c.Either), -1: len(c.Or)}
		if l == level.SI {
			want = map[solver.Lit]int{1: 2 + 1, -1: 2}
		}
		if lits[1] != want[1] || lits[-1] != want[-1] {
			t.Errorf("%v: guarded edges per literal %v, want %v", l, lits, want)
		}
		// Every guarded edge maps back to a typed edge of its side.
		for i := range pr.Cond {
			e := enc.Edges(solver.Cycle{int32(len(pr.Fixed) + i)})[0]
			if e.Key != x {
				t.Errorf("%v: guarded edge %d maps to %+v", l, i, e)
			}
		}
		if pr.Hint == nil || pr.FixedGraph == nil {
			t.Errorf("%v: no hint or fixed graph", l)
		}
	}
}

// TestStopped: on a context that has ended, Encode returns its cause.
func TestStopped(t *testing.T) {
	p, err := polygraph.Build(context.Background(), makeHistory(), polygraph.Options{Level: level.SER, AllPairs: true})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Encode(ctx, p, p.Known, []int{0}); !errors.Is(err, context.Canceled) {
		t.Errorf("Encode: %v, want %v", err, context.Canceled)
	}
}
