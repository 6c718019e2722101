package sim_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/isocheck/isocheck/check"
	"github.com/isocheck/isocheck/db"
	"github.com/isocheck/isocheck/db/sim"
	"github.com/isocheck/isocheck/format"
	"github.com/isocheck/isocheck/format/jsonl"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/run"
	"github.com/isocheck/isocheck/verdict"
	"github.com/isocheck/isocheck/workload"
)

// runVerdict runs a small workload of kind on the store dsn names and checks
// the history at l.
func runVerdict(t *testing.T, dsn string, kind workload.Kind, l level.Level, seed int64) verdict.Verdict {
	t.Helper()
	plan, err := workload.NewPlan(workload.PlanConfig{
		Workload: kind, Sessions: 8, TxnsPerSession: 60, OpsPerTxn: 4, Keys: 4,
		ReadProportion: -1, Seed: seed,
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	d, err := sim.Open(ctx, db.Config{DSN: dsn, Keys: plan.Keys, Lists: plan.Lists})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	var buf bytes.Buffer
	sum, err := run.Run(ctx, d, plan, run.Options{Recorder: jsonl.NewRecorder(&buf)})
	if err != nil {
		t.Fatalf("%s: run: %v", dsn, err)
	}
	if sum.Unknown > 0 {
		t.Errorf("%s: %d unknown outcomes", dsn, sum.Unknown)
	}
	h, err := format.Read(&buf, dsn, format.JSONL)
	if err != nil {
		t.Fatalf("%s: read history: %v", dsn, err)
	}
	res, err := check.Check(ctx, h, l)
	if err != nil {
		t.Fatalf("%s: check %v: %v", dsn, l, err)
	}
	return res.Verdict
}

// TestChecked runs workloads on each store and checks the histories with
// isocheck: a store keeps its level, and each fault breaks the level it
// should (within a few tries, since faults need concurrency to show).
func TestChecked(t *testing.T) {
	for _, tc := range []struct {
		dsn   string
		kind  workload.Kind
		level level.Level
		want  verdict.Verdict
	}{
		{"sim://ser", workload.MiniTxn, level.SSER, verdict.Satisfied},
		{"sim://ser", workload.General, level.SSER, verdict.Satisfied},
		{"sim://ser", workload.ListAppend, level.SSER, verdict.Satisfied},
		{"sim://si", workload.MiniTxn, level.SI, verdict.Satisfied},
		{"sim://si", workload.General, level.SI, verdict.Satisfied},
		{"sim://si", workload.ListAppend, level.SI, verdict.Satisfied},
		{"sim://rc", workload.General, level.RC, verdict.Satisfied},
		{"sim://rc", workload.ListAppend, level.RC, verdict.Satisfied},
		{"sim://ser?fault=stale-read&p=0.3", workload.MiniTxn, level.SER, verdict.Satisfied},
		{"sim://ser?fault=stale-read&p=0.3", workload.MiniTxn, level.SSER, verdict.Violated},
		{"sim://si?fault=lost-update", workload.MiniTxn, level.SI, verdict.Violated},
		{"sim://si?fault=lost-update", workload.ListAppend, level.SI, verdict.Violated},
		{"sim://rc?fault=dirty-read&p=0.3", workload.General, level.RC, verdict.Violated},
		{"sim://rc?fault=dirty-read&p=0.3", workload.ListAppend, level.RC, verdict.Violated},
		{"sim://si?fault=fractured-read", workload.General, level.RA, verdict.Violated},
		{"sim://rc?fault=fractured-read", workload.General, level.RA, verdict.Violated},
	} {
		tries := 1
		if tc.want == verdict.Violated {
			tries = 10
		}
		var got verdict.Verdict
		for seed := range int64(tries) {
			if got = runVerdict(t, tc.dsn, tc.kind, tc.level, seed); got == tc.want {
				break
			}
		}
		if got != tc.want {
			t.Errorf("%s, %s workload, %v: %v, want %v", tc.dsn, tc.kind, tc.level, got, tc.want)
		}
	}
}
