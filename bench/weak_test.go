package bench

import (
	"context"
	"fmt"
	"testing"

	"github.com/isocheck/isocheck/check"
	"github.com/isocheck/isocheck/histgen"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/resolve"
	"github.com/isocheck/isocheck/verdict"
)

// BenchmarkWeak checks the levels that need no solver (RC, RA, CC) on
// generated SI histories of 100k and 1M transactions, reporting
// transactions per second. Resolving reads, measured on its own, is shared,
// as --level all does.
func BenchmarkWeak(b *testing.B) {
	for _, n := range []int{100_000, 1_000_000} {
		h := histgen.Large(generatedSI(n))
		r, err := resolve.Resolve(context.Background(), h)
		if err != nil {
			b.Fatal(err)
		}
		// Resolving reads is the part every level shares.
		b.Run(fmt.Sprintf("%dk/Resolve", n/1000), func(b *testing.B) {
			for b.Loop() {
				if _, err := resolve.Resolve(context.Background(), h); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "txns/s")
		})
		for _, l := range []level.Level{level.RC, level.RA, level.CC} {
			b.Run(fmt.Sprintf("%dk/%v", n/1000, l), func(b *testing.B) {
				for b.Loop() {
					res, err := check.CheckResolved(context.Background(), r, l)
					if err != nil {
						b.Fatal(err)
					}
					if res.Verdict != verdict.Satisfied {
						b.Fatalf("verdict %v", res.Verdict)
					}
				}
				b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "txns/s")
			})
		}
	}
}
