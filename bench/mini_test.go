package bench

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"github.com/isocheck/isocheck/check"
	"github.com/isocheck/isocheck/format"
	"github.com/isocheck/isocheck/histgen"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/verdict"
)

// BenchmarkMini parses and checks histories of mini-transactions (Wei,
// Xiao, Yang, Liu, Yin, Chen and Pan, "Boosting End-to-End Database
// Isolation Checking via Mini-Transactions" (MTC, ICDE 2025), Section III)
// of 10k, 100k and 1M transactions: read-modify-write chains fix every
// version order, so no constraint reaches the solver.
func BenchmarkMini(b *testing.B) {
	for _, n := range []int{10_000, 100_000, 1_000_000} {
		h := histgen.Mini(histgen.MiniConfig{Sessions: 20, Txns: n, Keys: n / 10, Seed: 1})
		var buf bytes.Buffer
		if err := format.Write(&buf, h, format.JSONL); err != nil {
			b.Fatal(err)
		}
		for _, l := range []level.Level{level.SER, level.SI, level.SSER} {
			b.Run(fmt.Sprintf("%dk/ParseCheck%v", n/1000, l), func(b *testing.B) {
				b.SetBytes(int64(buf.Len()))
				for b.Loop() {
					h, err := format.Read(bytes.NewReader(buf.Bytes()), "mini.jsonl", format.JSONL)
					if err != nil {
						b.Fatal(err)
					}
					res, err := check.Check(context.Background(), h, l)
					if err != nil {
						b.Fatal(err)
					}
					if res.Verdict != verdict.Satisfied || res.Stats.Constraints != 0 {
						b.Fatalf("verdict %v with %d constraints, want satisfied with none", res.Verdict, res.Stats.Constraints)
					}
				}
			})
		}
	}
}
