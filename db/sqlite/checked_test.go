package sqlite_test

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"

	"github.com/isocheck/isocheck/check"
	"github.com/isocheck/isocheck/db"
	"github.com/isocheck/isocheck/db/sqlite"
	"github.com/isocheck/isocheck/format"
	"github.com/isocheck/isocheck/format/jsonl"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/run"
	"github.com/isocheck/isocheck/verdict"
	"github.com/isocheck/isocheck/workload"
)

// TestChecked runs workloads on SQLite and checks the histories with
// isocheck: they are strict serializable.
func TestChecked(t *testing.T) {
	if testing.Short() {
		t.Skip("runs workloads")
	}
	for _, dsn := range []string{
		"sqlite::memory:",
		"sqlite://" + filepath.Join(t.TempDir(), "checked.db"),
		"sqlite://" + filepath.Join(t.TempDir(), "immediate.db") + "?begin=immediate",
	} {
		for _, kind := range []workload.Kind{workload.General, workload.MiniTxn, workload.ListAppend} {
			plan, err := workload.NewPlan(workload.PlanConfig{
				Workload: kind, Sessions: 8, TxnsPerSession: 40, OpsPerTxn: 4, Keys: 6, ReadProportion: -1, Seed: 1,
			})
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			d, err := sqlite.Open(ctx, db.Config{DSN: dsn, Keys: plan.Keys, Lists: plan.Lists, Table: "isocheck_" + string(kind)})
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			sum, err := run.Run(ctx, d, plan, run.Options{Recorder: jsonl.NewRecorder(&buf)})
			d.Close()
			if err != nil {
				t.Fatalf("%s: run: %v", dsn, err)
			}
			if sum.Unknown > 0 || sum.Committed == 0 {
				t.Errorf("%s, %s workload: %d committed, %d unknown", dsn, kind, sum.Committed, sum.Unknown)
			}
			h, err := format.Read(&buf, dsn, format.JSONL)
			if err != nil {
				t.Fatalf("%s: read history: %v", dsn, err)
			}
			res, err := check.Check(ctx, h, level.SSER)
			if err != nil {
				t.Fatalf("%s: check: %v", dsn, err)
			}
			if res.Verdict != verdict.Satisfied {
				t.Errorf("%s, %s workload: SSER %v", dsn, kind, res.Verdict)
			}
			t.Logf("%s, %s workload: %d committed, aborts %v", dsn, kind, sum.Committed, sum.AbortReasons)
		}
	}
}
