package lwt_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/isocheck/isocheck/format"
	"github.com/isocheck/isocheck/lwt"
	"github.com/isocheck/isocheck/register"
)

// Reading a Jepsen history of a compare-and-set register (with package
// format) and checking it:
// process 1 reads 0 after process 0's compare-and-set from 0 to 1 has
// returned, a stale read.
func Example() {
	const history = `
{:type :invoke, :f :write, :value 0, :time 0, :process 0}
{:type :ok, :f :write, :value 0, :time 1, :process 0}
{:type :invoke, :f :cas, :value [0 1], :time 2, :process 0}
{:type :ok, :f :cas, :value [0 1], :time 3, :process 0}
{:type :invoke, :f :read, :value nil, :time 4, :process 1}
{:type :ok, :f :read, :value 0, :time 5, :process 1}
`
	rops, _, err := format.ReadRegisterOps(context.Background(), strings.NewReader(history), "history.edn", format.Auto)
	if err != nil {
		fmt.Println(err)
		return
	}
	ops := lwt.FromRegisterOps(rops, lwt.FailAbsent)
	res, err := lwt.Check(context.Background(), ops, lwt.Nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.OK(), res.Verdict)
	fmt.Println(res)

	// Without the stale read, the history is linearizable.
	res, err = lwt.Check(context.Background(), ops[:2], lwt.Nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res)
	// Output:
	// false violated
	// not linearizable: read 0 ok by process 1 at [4,5] (line 6) read 0, but 0 had already been overwritten: cas(0,1) ok by process 0 at [2,3] (line 4) replaced it and returned at 3, before the read was invoked at 4
	// linearizable
}

// Explaining a violation as a report whose JSON starts as every
// isocheck report's does: a write of 1, then a read, after it returned,
// of the register's initial value, nil.
func ExampleExplain() {
	ops := []lwt.Op{
		{Process: 0, Kind: register.Write, Value: 1, Call: 0, Return: 1, Outcome: register.OK},
		{Process: 1, Kind: register.Read, Value: lwt.Nil, Call: 2, Return: 3, Outcome: register.OK},
	}
	res, err := lwt.Check(context.Background(), ops, lwt.Nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	rep := lwt.Explain(res, ops)
	b, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(b))
	// Output:
	// {
	//   "level": "linearizability",
	//   "satisfied": false,
	//   "verdict": "violated",
	//   "anomaly": {
	//     "reason": "read nil ok by process 1 at [2,3] read nil and was invoked too late: the values from the initial one on (nil) must all come before the chain that write 1 ok by process 0 at [0,1] starts, but write 1 ok by process 0 at [0,1], in that chain, returned at 1, before the read was invoked at 2",
	//     "operation": {
	//       "index": 1,
	//       "process": 1,
	//       "kind": "read",
	//       "outcome": "ok",
	//       "value": null,
	//       "call": 2,
	//       "return": 3
	//     },
	//     "related": [
	//       {
	//         "index": 0,
	//         "process": 0,
	//         "kind": "write",
	//         "outcome": "ok",
	//         "value": 1,
	//         "call": 0,
	//         "return": 1
	//       }
	//     ],
	//     "searched": false
	//   },
	//   "registers": 1,
	//   "operations": 2,
	//   "searched": 0
	// }
}
