package bench

import (
	"fmt"
	"testing"

	"github.com/isocheck/isocheck/histgen"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/verdict"
	"github.com/isocheck/isocheck/workload"
)

// BenchmarkRepeated checks histories of a serializable store whose
// written values repeat: on keys holding half or all of the reads, each
// value is written by 4 transactions, so those reads have several
// candidate writers. Every level holds.
func BenchmarkRepeated(b *testing.B) {
	cfg := histgen.LargeConfig{Sessions: 20, TxnsPerSession: 500, OpsPerTxn: 15, Keys: 1000, ReadProportion: 0.5,
		Dist: workload.Uniform, Seed: 13, Store: histgen.Serializable}
	h := histgen.Large(cfg)
	for _, fraction := range []float64{0.5, 1} {
		rep := histgen.Repeat(h, histgen.RepeatConfig{Fraction: fraction, Writers: 4, Seed: 1})
		for _, l := range []level.Level{level.SER, level.SI, level.CC} {
			b.Run(fmt.Sprintf("10k/fraction=%g/%v", fraction, l), func(b *testing.B) { benchCheck(b, rep, l, verdict.Satisfied) })
		}
	}
}
