package explore_test

import (
	"context"
	"fmt"

	"github.com/isocheck/isocheck/explore"
	"github.com/isocheck/isocheck/level"
)

// Two clients withdraw from a couple's two accounts, each checking that
// the couple's total stays non-negative. Every serial execution keeps
// it, but under snapshot isolation both can see the total before the
// other's withdrawal: write skew.
func Example() {
	withdraw := func(from string) func(*explore.Tx) {
		return func(tx *explore.Tx) {
			if tx.Read("alice")+tx.Read("bob") >= 100 {
				tx.Write(from, tx.Read(from)-100)
			}
		}
	}
	p := &explore.Program{
		Init: map[string]explore.Value{"alice": 60, "bob": 60},
		Sessions: []explore.Session{
			{Name: "alice", Txns: []explore.Txn{{Name: "withdraw(alice)", Body: withdraw("alice")}}},
			{Name: "bob", Txns: []explore.Txn{{Name: "withdraw(bob)", Body: withdraw("bob")}}},
		},
		Final: &explore.Txn{Name: "audit", Body: func(tx *explore.Tx) {
			total := tx.Read("alice") + tx.Read("bob")
			tx.Assert(total >= 0, "the total is %d", total)
		}},
	}
	for _, l := range []level.Level{level.SER, level.SI} {
		res, err := explore.Explore(context.Background(), p, explore.Options{Level: l})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%v: %d histories, %d break an assertion\n", l, res.Histories, res.Failed)
		if res.First != nil {
			fmt.Println(res.First.Failures()[0])
		}
	}
	// Output:
	// SER: 2 histories, 0 break an assertion
	// SI: 3 histories, 1 break an assertion
	// audit: the total is -80
}
