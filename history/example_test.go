package history_test

import (
	"context"
	"fmt"
	"log"

	"github.com/isocheck/isocheck/check"
	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/level"
)

// A Builder assembles a history from interned sessions and keys, one
// transaction at a time; the checker then decides a level. Here two
// doctors each read that both are on call and take themselves off: a
// write skew, which snapshot isolation allows and serializability does
// not.
func ExampleBuilder() {
	b := history.NewBuilder(history.Null, "doctors.jsonl")
	alice, bob := b.Key("alice_on_call"), b.Key("bob_on_call")
	add := func(id, session string, line int64, ops ...history.Op) {
		b.AddTxn(history.Txn{ID: id, Session: b.Session(session), Status: history.Committed,
			Start: history.NoTime, End: history.NoTime, Pos: line}, ops)
	}
	add("setup", "0", 1, history.Op{Kind: history.Write, Key: alice, Value: 1}, history.Op{Kind: history.Write, Key: bob, Value: 1})
	add("alice-leaves", "1", 2, history.Op{Kind: history.Read, Key: alice, Value: 1}, history.Op{Kind: history.Read, Key: bob, Value: 1},
		history.Op{Kind: history.Write, Key: alice, Value: 0})
	add("bob-leaves", "2", 3, history.Op{Kind: history.Read, Key: alice, Value: 1}, history.Op{Kind: history.Read, Key: bob, Value: 1},
		history.Op{Kind: history.Write, Key: bob, Value: 0})
	h := b.History()

	for t := range h.Txns {
		fmt.Printf("%s (session %s, %s):", h.Name(t), h.SessionName(int(h.Txns[t].Session)), h.Where(t))
		for _, op := range h.OpsOf(t) {
			fmt.Printf(" %v(%s,%s)", op.Kind, h.FormatKey(op.Key), h.FormatValue(op.Value))
		}
		fmt.Println()
	}
	for _, l := range []level.Level{level.SI, level.SER} {
		res, err := check.Check(context.Background(), h, l)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(l, res.Verdict)
	}
	// Output:
	// setup (session 0, doctors.jsonl:1): w(alice_on_call,1) w(bob_on_call,1)
	// alice-leaves (session 1, doctors.jsonl:2): r(alice_on_call,1) r(bob_on_call,1) w(alice_on_call,0)
	// bob-leaves (session 2, doctors.jsonl:3): r(alice_on_call,1) r(bob_on_call,1) w(bob_on_call,0)
	// SI satisfied
	// SER violated
}
