package histgen

import (
	"testing"

	"github.com/isocheck/isocheck/workload"
)

// TestCompaction checks that dropping old versions changes no read: large
// histories come out the same with and without it.
func TestCompaction(t *testing.T) {
	for _, store := range []Store{SnapshotIsolation, SnapshotNoFCW, Causal, ReadAtomic} {
		cfg := LargeConfig{Sessions: 6, TxnsPerSession: 600, OpsPerTxn: 6, Keys: 50,
			ReadProportion: 0.6, Dist: workload.Zipf, Seed: 7, Store: store, KeepAborted: true}
		with, without := Describe(large(cfg, true)), Describe(large(cfg, false))
		if with != without {
			t.Errorf("%v: compaction changed the history", store)
		}
	}
}
