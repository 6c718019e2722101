package interpret_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/isocheck/isocheck/check"
	"github.com/isocheck/isocheck/format"
	"github.com/isocheck/isocheck/history"
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

// A history of lists (Elle's list-append, as a Jepsen EDN history records
// it) is explained in its own terms: appends, and reads with the whole
// list they returned; keys as the input wrote them. Checked with
// WeakestBroken, a violation of SI that breaks read atomic already is
// explained as read atomic's, by the rule that broke.
func ExampleReport_WriteText_lists() {
	b := history.NewBuilder(history.Null, "history.edn")
	x, y := b.Key(":x"), b.Key(":y")
	// T1 appends 1 to both lists; T2 reads :y without T1's append, then
	// :x with it.
	b.AddListTxn(history.Txn{ID: "T1", Session: b.IntSession(0), Start: history.NoTime, End: history.NoTime, Pos: 1},
		[]history.Op{{Kind: history.Write, Key: x, Value: 1}, {Kind: history.Write, Key: y, Value: 1}}, nil)
	b.AddListTxn(history.Txn{ID: "T2", Session: b.IntSession(1), Start: history.NoTime, End: history.NoTime, Pos: 2},
		[]history.Op{{Kind: history.Read, Key: y}, {Kind: history.Read, Key: x}}, [][]history.Value{nil, {1}})
	res, _ := check.CheckWith(context.Background(), b.History(), level.SI, check.Options{WeakestBroken: true})
	rep := interpret.Explain(res)
	_ = rep.WriteText(os.Stdout)
	fmt.Println("Elle:", rep.Anomaly.ElleType)
	// Output:
	// SI: VIOLATED: FracturedRead (G-single)
	//   as RA: the history breaks RA, a weaker level, already; what follows is that violation, which breaks SI too
	//   a cycle of 2 dependencies that checking RA derived from read atomic's rule that a transaction that sees one write of another sees all of them
	// cycle:
	//   T1 -WR :x-> T2: T2 read :x=[1], ending in T1's append of 1
	//   T2 -RW :y-> T1: T2 read :y=[], without T1's append of 1
	// transactions:
	//   T1 (session 0, committed) append(:x, 1) append(:y, 1)  [history.edn:1]
	//   T2 (session 1, committed) r(:y, []) r(:x, [1])  [history.edn:2]
	// Elle: G-single
}

// ElleResult gives the checks' verdicts as Elle's result map, for tools
// that read Elle's: a read of a later transaction of the same session is
// G1c-process, which rules out read atomic (isocheck's RA) and
// strong-session read committed (its RC), the weakest models broken, and
// every model above them (AlsoNot).
func ExampleElleResult() {
	h, _ := format.Read(strings.NewReader(`{"session": 1, "id": "T1", "ops": [["r", "x", 1]]}
{"session": 1, "id": "T2", "ops": [["w", "x", 1]]}
`), "h.jsonl", format.JSONL)
	all, _ := check.CheckAll(context.Background(), h)
	m := interpret.ElleResult(h, all.Results, true)
	fmt.Println(m.Valid, m.AnomalyTypes, m.Not)
	b, _ := json.Marshal(m.Anomalies["G1c-process"][0].Steps)
	fmt.Println(string(b))
	// Output:
	// false [G1c-process] [read-atomic strong-session-read-committed]
	// [{"type":"process"},{"type":"wr","key":"x","value":1}]
}
