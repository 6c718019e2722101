package polygraph

import (
	"context"
	"errors"
	"testing"

	"github.com/isocheck/isocheck/histgen"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/progress"
	"github.com/isocheck/isocheck/resolve"
)

// TestStopped: building on a context that has ended returns its cause,
// and reports its stage to the Tracker.
func TestStopped(t *testing.T) {
	h := histgen.Large(histgen.LargeConfig{Sessions: 4, TxnsPerSession: 2000, OpsPerTxn: 6, Keys: 50, ReadProportion: 0.5, Seed: 1, Store: histgen.SnapshotIsolation})
	limit := errors.New("limit")
	tr := progress.NewTracker()
	ctx, cancel := context.WithCancelCause(progress.WithTracker(context.Background(), tr))
	cancel(limit)
	r, err := resolve.Resolve(context.Background(), h)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range []level.Level{level.SER, level.SI, level.SSER} {
		p, err := BuildResolved(ctx, r, Options{Level: l})
		if !errors.Is(err, limit) || p == nil {
			t.Errorf("%v: BuildResolved: %v, want %v and the polygraph so far", l, err, limit)
		}
		if s := tr.Snapshot(); s.Stage != "build polygraph" {
			t.Errorf("%v: BuildResolved reported %+v", l, s)
		}
	}
	if _, err := Build(ctx, h, Options{Level: level.SER, AllPairs: true}); !errors.Is(err, limit) {
		t.Errorf("Build: %v, want %v", err, limit)
	}
}
