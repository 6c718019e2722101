package histgen

import (
	"testing"

	"github.com/isocheck/isocheck/workload"
)

// BenchmarkLarge generates a 100k-transaction SI history (20 sessions ×
// 5000 × 15 operations, uniform over 1M keys): the shape of the size
// experiments, whose generation must not dwarf their checking.
func BenchmarkLarge(b *testing.B) {
	for b.Loop() {
		h := Large(LargeConfig{Store: SnapshotIsolation, Sessions: 20, TxnsPerSession: 5000, OpsPerTxn: 15, Keys: 1_000_000, ReadProportion: 0.5, Dist: workload.Uniform, Seed: 1})
		if len(h.Txns) == 0 {
			b.Fatal("no transactions")
		}
	}
}
