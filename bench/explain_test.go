package bench

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/isocheck/isocheck/check"
	"github.com/isocheck/isocheck/format"
	"github.com/isocheck/isocheck/internal/testkit/corpus"
	"github.com/isocheck/isocheck/interpret"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/verdict"
)

// rejectedHistories are corpus histories PolySI rejects at SI.
var rejectedHistories = []struct{ name, path string }{
	{"Dgraph", "polysi/dgraph.bincode"},
	{"Galera", "polysi/galera.txt"},
	{"RoachAll900", "dbcop-oopsla19/roachdb_all_writes/15_30_20_900__hist-00083.bincode"},
	{"RoachGeneral900", "dbcop-oopsla19/roachdb_general_all_writes/15_30_20_900__hist-00013.bincode"},
	{"GaleraPartition720", "dbcop-oopsla19/galera_partition_writes/12_30_20_720__hist-00000.bincode"},
	{"Antidote720", "dbcop-oopsla19/antidote_all_writes/12_30_20_720__hist-00000.bincode"},
}

// BenchmarkExplain compares, on rejected corpus histories, the check
// (CheckSI) with the explanation of its violation (ExplainSI: shrinking to
// a minimal counterexample and explaining every edge). Explaining should
// cost no more than checking.
func BenchmarkExplain(b *testing.B) {
	dir := corpus.Dir(b)
	for _, c := range rejectedHistories {
		h, err := format.ReadFile(filepath.Join(dir, c.path), format.Auto)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(c.name+"/CheckSI", func(b *testing.B) { benchCheck(b, h, level.SI, verdict.Violated) })
		res, err := check.Check(context.Background(), h, level.SI)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(c.name+"/ExplainSI", func(b *testing.B) {
			var rep *interpret.Report
			for b.Loop() {
				rep, err = interpret.Minimal(context.Background(), res)
				if err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(rep.Anomaly.Txns)), "txns")
		})
	}
}
