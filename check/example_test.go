package check_test

import (
	"context"
	"fmt"

	"github.com/isocheck/isocheck/check"
	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/level"
)

// Two doctors each read that both are on call and take themselves off:
// write skew, allowed by snapshot isolation, not by serializability.
func ExampleCheck() {
	b := history.NewBuilder(history.Null)
	alice, bob := b.Key("alice_on_call"), b.Key("bob_on_call")
	read := func(k history.Key, v history.Value) history.Op {
		return history.Op{Kind: history.Read, Key: k, Value: v}
	}
	write := func(k history.Key, v history.Value) history.Op {
		return history.Op{Kind: history.Write, Key: k, Value: v}
	}
	txn := func(session string) history.Txn {
		return history.Txn{Session: b.Session(session), Start: history.NoTime, End: history.NoTime}
	}
	b.AddTxn(txn("setup"), []history.Op{write(alice, 1), write(bob, 1)})
	b.AddTxn(txn("alice"), []history.Op{read(alice, 1), read(bob, 1), write(alice, 0)})
	b.AddTxn(txn("bob"), []history.Op{read(alice, 1), read(bob, 1), write(bob, 0)})
	h := b.History()

	for _, l := range []level.Level{level.SI, level.SER} {
		res, err := check.Check(context.Background(), h, l)
		if err != nil {
			panic(err)
		}
		fmt.Printf("%v: %v\n", l, res.Verdict)
	}
	// Output:
	// SI: satisfied
	// SER: violated
}
