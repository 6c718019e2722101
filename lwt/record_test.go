package lwt_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/isocheck/isocheck/db"
	"github.com/isocheck/isocheck/db/sim"
	"github.com/isocheck/isocheck/format"
	"github.com/isocheck/isocheck/format/jsonl"
	"github.com/isocheck/isocheck/lwt"
	"github.com/isocheck/isocheck/register"
	"github.com/isocheck/isocheck/run"
	"github.com/isocheck/isocheck/workload"
)

// A history that isocheck run --workload lwt records (native JSONL, one
// compare-and-set or read a transaction) reads as register operations.
func TestReadRecordedRun(t *testing.T) {
	ctx := context.Background()
	plan, err := workload.NewPlan(workload.PlanConfig{Workload: workload.LWT, Sessions: 4, TxnsPerSession: 25, Keys: 3, ReadProportion: -1, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	d, err := sim.Open(ctx, db.Config{DSN: "sim://ser", Keys: plan.Keys})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	var buf bytes.Buffer
	if _, err := run.Run(ctx, d, plan, run.Options{Recorder: jsonl.NewRecorder(&buf)}); err != nil {
		t.Fatal(err)
	}
	ops, info, err := lwt.ReadHistoryContext(ctx, bytes.NewReader(buf.Bytes()), "run.jsonl", lwt.ReadOptions{})
	if err != nil {
		t.Fatalf("%v\n%s", err, buf.Bytes())
	}
	if info.Format != format.JSONL {
		t.Errorf("read as %s, want jsonl", info.Format)
	}
	var cas int
	for _, o := range ops {
		if o.Kind == register.CAS {
			cas++
		}
	}
	if len(ops) != 100 || cas == 0 {
		t.Errorf("read %d operations (%d compare-and-sets), want 100 with some", len(ops), cas)
	}
	if res, err := lwt.Check(ctx, ops, lwt.Nil); err != nil || !res.OK() {
		t.Errorf("a serial store's history: %v, %v", res, err)
	}
}
