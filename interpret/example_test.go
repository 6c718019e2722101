package interpret_test

import (
	"context"
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
