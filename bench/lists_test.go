package bench

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/isocheck/isocheck/check"
	"github.com/isocheck/isocheck/format"
	"github.com/isocheck/isocheck/histgen"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/verdict"
)

var listTxns = flag.Int("lists.txns", 100_000, "transactions of the generated list-append history of BenchmarkListAppend (1000000 for issue 9's target)")

// BenchmarkListAppend measures Elle's list-append workload end to end: a
// history from a simulated snapshot-isolation store (20 processes, 4
// micro-ops a transaction, half reads of whole lists, a key per 50
// transactions, uniform, so that lists grow to about 100 elements as
// under Elle's generator),
// written as Jepsen EDN, parsed, and checked for SI. Reads reveal the
// version order of every key up to the last read, so the check is near
// linear; the goal is check time within 2× parse time, and 1M
// transactions parsed and checked in under 10 s.
func BenchmarkListAppend(b *testing.B) {
	n := *listTxns
	cfg := histgen.LargeConfig{Sessions: 20, TxnsPerSession: n / 20, OpsPerTxn: 4, Keys: n / 50, ReadProportion: 0.5,
		Seed: 1, Store: histgen.SnapshotIsolation, Lists: true}
	path := filepath.Join(b.TempDir(), "history.edn")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	if err := format.Write(f, histgen.Large(cfg), format.EDN); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	name := fmt.Sprintf("%dk", n/1000)
	b.Run(name, func(b *testing.B) {
		var parse, checkSI time.Duration
		for b.Loop() {
			start := time.Now()
			h, err := format.ReadFile(path, format.EDN)
			if err != nil {
				b.Fatal(err)
			}
			parse += time.Since(start)
			start = time.Now()
			res, err := check.Check(context.Background(), h, level.SI)
			if err != nil {
				b.Fatal(err)
			}
			checkSI += time.Since(start)
			if res.Verdict != verdict.Satisfied {
				b.Fatalf("SI: %v", res.Verdict)
			}
			b.ReportMetric(float64(res.Stats.ConstraintsAfter), "constraints-left")
		}
		b.ReportMetric(parse.Seconds()/float64(b.N), "parse-s/op")
		b.ReportMetric(checkSI.Seconds()/float64(b.N), "check-s/op")
		b.ReportMetric(checkSI.Seconds()/parse.Seconds(), "check/parse")
	})
}
