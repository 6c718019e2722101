package predicate_test

import (
	"fmt"

	"github.com/isocheck/isocheck/predicate"
)

func ExampleParse() {
	p, err := predicate.Parse("balance >= 100 and owner in ('alice', 'bob')")
	if err != nil {
		panic(err)
	}
	fmt.Println(p)
	fmt.Println(p.Columns())
	fmt.Println(p.Eval(predicate.Row{"balance": predicate.Int(150), "owner": predicate.String("alice")}))
	fmt.Println(p.Eval(predicate.Row{"balance": predicate.Int(50), "owner": predicate.String("alice")}))
	// balance is NULL: the comparison is UNKNOWN, so the row is not selected.
	fmt.Println(p.Eval(predicate.Row{"owner": predicate.String("bob")}))
	// Output:
	// balance >= 100 AND owner IN ('alice', 'bob')
	// [balance owner]
	// true
	// false
	// false
}
