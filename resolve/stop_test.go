package resolve

import (
	"context"
	"errors"
	"testing"

	"github.com/isocheck/isocheck/histgen"
	"github.com/isocheck/isocheck/progress"
)

// TestStopped: resolving on a context that has ended returns its cause,
// and reports its stage to the Tracker.
func TestStopped(t *testing.T) {
	h := histgen.Large(histgen.LargeConfig{Sessions: 4, TxnsPerSession: 2000, OpsPerTxn: 6, Keys: 50, ReadProportion: 0.5, Seed: 1, Store: histgen.SnapshotIsolation})
	limit := errors.New("limit")
	tr := progress.NewTracker()
	ctx, cancel := context.WithCancelCause(progress.WithTracker(context.Background(), tr))
	cancel(limit)
	if _, err := Resolve(ctx, h); !errors.Is(err, limit) {
		t.Errorf("Resolve: %v, want %v", err, limit)
	}
	if s := tr.Snapshot(); s.Stage != "index writes" || s.Total != int64(len(h.Txns)) {
		t.Errorf("Resolve reported %+v", s)
	}
}
