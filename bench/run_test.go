package bench

import (
	"context"
	"os"
	"testing"

	"github.com/isocheck/isocheck/db"
	"github.com/isocheck/isocheck/db/dial"
	"github.com/isocheck/isocheck/format/jsonl"
	"github.com/isocheck/isocheck/run"
	"github.com/isocheck/isocheck/workload"
)

// BenchmarkRun runs a mini-transaction workload (8 sessions × 50
// transactions, 100 keys) against each database, with the history recorded
// to a file and without recording, to measure the recorder's overhead.
// SQLite and the simulated stores always run; PostgreSQL when
// ISOCHECK_POSTGRES_DSN is set, MySQL with ISOCHECK_MYSQL_DSN, Galera with
// ISOCHECK_GALERA_DSN, etcd with ISOCHECK_ETCD_DSN, at each of their
// levels. It reports transactions per second and the share that aborted;
// compare Record and NoRecord with benchstat for the recorder's cost.
func BenchmarkRun(b *testing.B) {
	type target struct{ name, dsn, level string }
	targets := []target{
		{"SQLite", "sqlite://" + b.TempDir() + "/bench.db", "serializable"},
		{"SimSER", "sim://ser", ""},
		{"SimSI", "sim://si", ""},
		{"SimRC", "sim://rc", ""},
	}
	for _, env := range []struct {
		name, env string
		levels    []string
	}{
		{"PostgreSQL", "ISOCHECK_POSTGRES_DSN", []string{"read-committed", "repeatable-read", "serializable"}},
		{"MySQL", "ISOCHECK_MYSQL_DSN", []string{"read-committed", "repeatable-read", "serializable"}},
		{"Galera", "ISOCHECK_GALERA_DSN", []string{"read-committed", "repeatable-read", "serializable"}},
		{"etcd", "ISOCHECK_ETCD_DSN", []string{"strict-serializable"}},
	} {
		if dsn := os.Getenv(env.env); dsn != "" {
			for _, l := range env.levels {
				targets = append(targets, target{env.name + "/" + l, dsn, l})
			}
		}
	}
	plan, err := workload.NewPlan(workload.PlanConfig{Workload: workload.MiniTxn, Sessions: 8, TxnsPerSession: 50, Keys: 100, ReadProportion: -1, Dist: workload.Zipf})
	if err != nil {
		b.Fatal(err)
	}
	for _, t := range targets {
		for _, record := range []bool{true, false} {
			name := t.name + "/NoRecord"
			if record {
				name = t.name + "/Record"
			}
			b.Run(name, func(b *testing.B) {
				ctx := context.Background()
				var committed, aborted, all int
				for b.Loop() {
					d, err := dial.Open(ctx, db.Config{DSN: t.dsn, Level: t.level, Keys: plan.Keys, Table: "isocheck_bench"})
					if err != nil {
						b.Fatal(err)
					}
					var opts run.Options
					if record {
						f, err := os.Create(b.TempDir() + "/h.jsonl")
						if err != nil {
							b.Fatal(err)
						}
						opts.Recorder = jsonl.NewRecorder(f)
						defer f.Close()
					}
					sum, err := run.Run(ctx, d, plan, opts)
					d.Close()
					if err != nil {
						b.Fatal(err)
					}
					committed += sum.Committed
					aborted += sum.Aborted
					all += sum.Committed + sum.Aborted + sum.Unknown
				}
				b.ReportMetric(float64(all)/b.Elapsed().Seconds(), "txn/s")
				b.ReportMetric(100*float64(aborted)/float64(max(all, 1)), "%aborted")
				b.ReportMetric(0, "ns/op")
			})
		}
	}
}
