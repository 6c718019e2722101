package interpret_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/isocheck/isocheck/check"
	"github.com/isocheck/isocheck/format"
	"github.com/isocheck/isocheck/interpret"
	"github.com/isocheck/isocheck/level"
)

// Minimal shrinks a violation to the transactions that cause it and
// explains each dependency.
func ExampleMinimal() {
	h, _ := format.Read(strings.NewReader(`
{"session": 1, "id": "deposit", "ops": [["r", "balance", 100], ["w", "balance", 150]]}
{"session": 2, "id": "withdraw", "ops": [["r", "balance", 100], ["w", "balance", 70]]}
{"session": 0, "id": "open", "ops": [["w", "balance", 100]]}
{"session": 3, "id": "audit", "ops": [["r", "owner", null]]}
`), "bank.jsonl", format.JSONL)
	res, _ := check.Check(context.Background(), h, level.SI)
	rep, _ := interpret.Minimal(context.Background(), res)
	fmt.Println(rep.Anomaly.Name, len(rep.Anomaly.Txns), "of", rep.Anomaly.HistoryTxns, "transactions")
	fmt.Println(rep.Anomaly.Summary)
	// format.Write(file, rep.Anomaly.Counterexample, format.JSONL) saves it.
	_ = format.Write(os.Stdout, rep.Anomaly.Counterexample, format.JSONL)
	// Output:
	// LostUpdate 3 of 4 transactions
	// deposit and withdraw both read balance=100 from open and both wrote balance (150 and 70): whichever wrote second overwrote an update it never saw, so one update is lost
	// {"session":1,"id":"deposit","ops":[["r","balance",100],["w","balance",150]]}
	// {"session":2,"id":"withdraw","ops":[["r","balance",100],["w","balance",70]]}
	// {"session":0,"id":"open","ops":[["w","balance",100]]}
}

// The JSON of a report (isocheck's --json) keeps the input's types:
// integer ids, sessions and keys are numbers, values are numbers, strings
// or null, and operations are objects. Steps name transactions as the
// transaction list does.
func ExampleReport_json() {
	h, _ := format.Read(strings.NewReader(`{"session": 1, "id": 1, "ops": [["r", "x", null], ["w", "y", "yes"]]}
{"session": "b", "id": 2, "ops": [["r", "y", null], ["w", "x", 7]]}
`), "skew.jsonl", format.JSONL)
	res, _ := check.Check(context.Background(), h, level.SER)
	rep, _ := interpret.Minimal(context.Background(), res)
	for _, v := range []any{rep.Anomaly.Txns[0], rep.Anomaly.Cycles[0][0]} {
		b, _ := json.Marshal(v)
		fmt.Println(string(b))
	}
	// Output:
	// {"name":"T1","id":1,"session":1,"session_position":1,"status":"committed","ops":[{"kind":"r","key":"x","value":null},{"kind":"w","key":"y","value":"yes"}],"source":"skew.jsonl:1","index":0}
	// {"from":"T1","to":"T2","kind":"RW","key":"x","from_value":null,"to_value":7,"reason":"T1 read x=null, which T2 overwrote with 7"}
}
