package bench

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/isocheck/isocheck/check"
	"github.com/isocheck/isocheck/format"
	"github.com/isocheck/isocheck/histgen"
	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/internal/testkit/corpus"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/verdict"
	"github.com/isocheck/isocheck/workload"
)

// corpusHistories are the PolySI paper's benchmark histories in the corpus.
var corpusHistories = []struct{ name, path string }{
	{"Default2k", "polysi/20_100_15_10000_0.5_zipf__hist-00000.bincode"},
	{"RUBiS", "polysi/cobra-rubis"},
	{"TPCC", "polysi/cobra-tpcc"},
	{"Twitter", "polysi/cobra-twitter"},
}

func BenchmarkCorpus(b *testing.B) {
	dir := corpus.Dir(b)
	for _, c := range corpusHistories {
		path := filepath.Join(dir, c.path)
		b.Run(c.name+"/Parse", func(b *testing.B) {
			for b.Loop() {
				if _, err := format.ReadFile(path, format.Auto); err != nil {
					b.Fatal(err)
				}
			}
		})
		h, err := format.ReadFile(path, format.Auto)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(c.name+"/CheckSI", func(b *testing.B) { benchCheck(b, h, level.SI, verdict.Satisfied) })
		b.Run(c.name+"/CheckSER", func(b *testing.B) { benchCheck(b, h, level.SER, verdict.Unknown) })
	}
}

// benchCheck checks h at l once per iteration; want, unless NoVerdict,
// is the verdict every run must give.
func benchCheck(b *testing.B, h *history.History, l level.Level, want verdict.Verdict) {
	b.Helper()
	var res *check.Result
	for b.Loop() {
		var err error
		res, err = check.Check(context.Background(), h, l)
		if err != nil {
			b.Fatal(err)
		}
		if want != verdict.Unknown && res.Verdict != want {
			b.Fatalf("verdict %v, want %v", res.Verdict, want)
		}
	}
	b.ReportMetric(float64(res.Stats.ConstraintsAfter), "constraints-left")
	b.ReportMetric(float64(res.Stats.SolverRounds), "solver-rounds")
}

// generatedSI describes the generated snapshot-isolation histories: 20
// sessions, 15 operations per transaction, half of them reads, keys drawn
// zipfian over 10,000 keys, run by a simulated SI store with
// first-committer-wins.
func generatedSI(txns int) histgen.LargeConfig {
	return histgen.LargeConfig{Sessions: 20, TxnsPerSession: txns / 20, OpsPerTxn: 15, Keys: 10000, ReadProportion: 0.5, Dist: workload.Zipf, Seed: 1, Store: histgen.SnapshotIsolation}
}

func BenchmarkGenerated(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		h := histgen.Large(generatedSI(n))
		var buf bytes.Buffer
		if err := format.Write(&buf, h, format.JSONL); err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("SI%dk/Parse", n/1000), func(b *testing.B) {
			b.SetBytes(int64(buf.Len()))
			for b.Loop() {
				if _, err := format.Read(bytes.NewReader(buf.Bytes()), "generated.jsonl", format.JSONL); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("SI%dk/CheckSI", n/1000), func(b *testing.B) { benchCheck(b, h, level.SI, verdict.Satisfied) })
	}
}
