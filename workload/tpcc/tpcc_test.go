package tpcc_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/isocheck/isocheck/sqlhistory"
	"github.com/isocheck/isocheck/sqlrun"
	"github.com/isocheck/isocheck/sqlrun/sqlruntest"
	"github.com/isocheck/isocheck/workload/tpcc"
)

func TestRun(t *testing.T) {
	for _, d := range sqlruntest.Databases(t) {
		for _, mix := range []string{"ser+rc", "si+rc", "random"} {
			t.Run(d.Name+"/"+mix, func(t *testing.T) {
				levels, err := sqlrun.ParseLevelMix(mix)
				if err != nil {
					t.Fatal(err)
				}
				cfg := sqlrun.Config{Sessions: 3, TxnsPerSession: 10, Seed: 3, Levels: levels, Prefix: "tpcctest_"}
				start := time.Now()
				h, err := sqlrun.Run(context.Background(), d.DB, tpcc.New(tpcc.DefaultConfig), cfg)
				if err != nil {
					t.Fatal(err)
				}
				elapsed := time.Since(start)
				sqlruntest.Check(t, h, cfg)
				sqlruntest.Satisfied(t, h, d.Name)
				size := len(sqlruntest.RoundTrip(t, h))
				kinds := map[string]int{}
				status := map[sqlhistory.Status]int{}
				events := 0
				for _, tx := range h.Txns {
					kind, _, _ := strings.Cut(tx.Name, "-")
					kinds[kind]++
					status[tx.Status]++
					events += len(tx.Events)
				}
				t.Logf("%v: %d txns %v, %v, %d events, %d versions, %d keys, %d bytes written", elapsed, len(h.Txns), status, kinds, events, len(h.Versions), len(h.Keys), size)
				if status[sqlhistory.Committed] == 0 {
					t.Error("nothing committed")
				}
				if err := tpcc.Consistent(context.Background(), d.DB, cfg.Prefix); err != nil {
					t.Error(err)
				}
			})
		}
	}
}
