package tpcc_test

import (
	"context"
	"testing"

	"github.com/isocheck/isocheck/sqlrun"
	"github.com/isocheck/isocheck/sqlrun/sqlruntest"
	"github.com/isocheck/isocheck/sqlrun/tpcc"
)

// TestRun runs TPC-C at mixed levels on every database at hand, checks
// the histories, and TPC-C's consistency conditions after each run.
func TestRun(t *testing.T) {
	cfg := sqlrun.Config{Sessions: 3, TxnsPerSession: 10, Seed: 3, Prefix: "tpcctest_"}
	sqlruntest.RunApp(t, tpcc.New(tpcc.DefaultConfig), []string{"ser+rc", "si+rc", "random"}, cfg, func(t *testing.T, d sqlruntest.Database) {
		if err := tpcc.Consistent(context.Background(), d.DB, cfg.Prefix); err != nil {
			t.Error(err)
		}
	})
}
