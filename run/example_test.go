package run_test

import (
	"bytes"
	"context"
	"fmt"
	"log"

	"github.com/isocheck/isocheck/check"
	"github.com/isocheck/isocheck/db"
	"github.com/isocheck/isocheck/db/sim"
	"github.com/isocheck/isocheck/format"
	"github.com/isocheck/isocheck/format/jsonl"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/run"
	"github.com/isocheck/isocheck/workload"
)

// Run drives a database with a plan's sessions, concurrently, and records
// the history they produced; the checker then decides whether the
// database kept its level. The simulated serializable store runs one
// transaction at a time, so its history is serializable however the
// sessions interleave (which changes from run to run, as do the values
// read: the counts and the verdict do not).
func ExampleRun() {
	ctx := context.Background()
	plan, err := workload.NewPlan(workload.PlanConfig{Sessions: 3, TxnsPerSession: 10, OpsPerTxn: 4, Keys: 5, ReadProportion: 0.5, Seed: 1})
	if err != nil {
		log.Fatal(err)
	}
	d, err := sim.Open(ctx, db.Config{DSN: "sim://ser", Keys: plan.Keys})
	if err != nil {
		log.Fatal(err)
	}
	defer d.Close()

	var recorded bytes.Buffer
	sum, err := run.Run(ctx, d, plan, run.Options{Recorder: jsonl.NewRecorder(&recorded)})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d of %d transactions committed\n", sum.Committed, sum.Planned)

	h, err := format.Read(&recorded, "run.jsonl", format.JSONL)
	if err != nil {
		log.Fatal(err)
	}
	res, err := check.Check(ctx, h, level.SER)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(h.Txns), "transactions recorded;", level.SER, res.Verdict)
	// Output:
	// 30 of 30 transactions committed
	// 30 transactions recorded; SER satisfied
}
