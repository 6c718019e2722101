package sqlcheck_test

import (
	"context"
	"fmt"
	"os"

	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/predicate"
	"github.com/isocheck/isocheck/sqlcheck"
	"github.com/isocheck/isocheck/sqlhistory"
)

// A phantom at SERIALIZABLE: T1 counts the open orders, T2 inserts one,
// and T1 then reads T2's insert by its key without having seen it in its
// count. A READ COMMITTED T1 may do that; a serializable one may not.
func ExampleCheck() {
	for _, l := range []level.Level{level.RC, level.SER} {
		b := sqlhistory.NewBuilder("")
		open := predicate.MustParse("status = 'open'")
		order := func(id int64) predicate.Row {
			return predicate.Row{"id": predicate.Int(id), "status": predicate.String("open")}
		}
		b.AddInitial("orders", "1", "o1", order(1), 0)
		b.AddTxn(sqlhistory.TxnSpec{Name: "T2", Session: "s2", Level: level.SER, Events: []sqlhistory.EventSpec{
			{Kind: sqlhistory.Insert, Table: "orders", Rows: []sqlhistory.RowSpec{{Key: "2", Write: "o2", Row: order(2)}}},
		}})
		b.AddTxn(sqlhistory.TxnSpec{Name: "T1", Session: "s1", Level: l, Events: []sqlhistory.EventSpec{
			{Kind: sqlhistory.Select, Table: "orders", Where: open, Rows: []sqlhistory.RowSpec{{Key: "1", Read: "o1"}}},
			{Kind: sqlhistory.Select, Table: "orders", Where: predicate.MustParse("id = 2"), Rows: []sqlhistory.RowSpec{{Key: "2", Read: "o2"}}},
		}})
		h, err := b.History()
		if err != nil {
			fmt.Println(err)
			return
		}
		res, err := sqlcheck.Check(context.Background(), h)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("T1 at %v: %v\n", l, res.Verdict)
		if l == level.SER {
			sqlcheck.Explain(res).WriteText(os.Stdout)
		}
	}
	// Output:
	// T1 at RC: satisfied
	// T1 at SER: violated
	// SER: VIOLATED: G-single
	//   T1 [SER] statement 1 (SELECT orders WHERE status = 'open') did not return orders/2, and every version of it the statement may have seen instead leads to a violation (a phantom)
	//   G-single (read skew): a cycle of dependencies with exactly one anti-dependency: a transaction missed a write that, by the other dependencies, it must have seen
	//
	// counterexample: 2 transactions
	//   T2 [SER] session s2, committed
	//     1. INSERT orders: orders/2@o2 {id: 2, status: 'open'}
	//   T1 [SER] session s1, committed
	//     1. SELECT orders WHERE status = 'open' → orders/1@o1 {id: 1, status: 'open'}
	//     2. SELECT orders WHERE id = 2 → orders/2@o2 {id: 2, status: 'open'}
	//
	// because:
	//   T1 [SER] statement 1 (SELECT orders WHERE status = 'open') did not return orders/2, so it saw a version its predicate rejects, not one of T2's
	//   if it saw init's orders/2 absent (no row):
	//     T1 [SER] statement 1 (SELECT orders WHERE status = 'open') missed T2's write of orders/2: it did not return orders/2, so it saw the initial version, which its predicate rejects: orders/2 absent (no row), but T2, which also writes orders/2, is visible to that statement under SER (it commits before the reader)
	//         because T2 → T1: T1 [SER] statement 2 (SELECT orders WHERE id = 2) read orders/2@o2 {id: 2, status: 'open'}
}
