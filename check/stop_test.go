package check

import (
	"context"
	"fmt"
	"testing"

	"github.com/isocheck/isocheck/histgen"
	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/internal/testkit/testsize"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/progress"
	"github.com/isocheck/isocheck/verdict"
	"github.com/isocheck/isocheck/workload"
)

// stopHistory is a generated history large enough that every stage of
// every level has more to do than a meter counts between its looks at
// the context (progress.Every): 10,000 transactions of a simulated SI
// store, 20,000 under make test-long.
func stopHistory(t *testing.T) *history.History {
	t.Helper()
	if testing.Short() {
		t.Skip("large history")
	}
	n := testsize.N(500, 1000)
	return histgen.Large(histgen.LargeConfig{Sessions: 20, TxnsPerSession: n, OpsPerTxn: 15, Keys: 10 * n, ReadProportion: 0.5, Dist: workload.Zipf, Seed: 1, Store: histgen.SnapshotIsolation})
}

// stopLevels are the levels to stop, "all" standing for CheckAll.
var stopLevels = []string{"rc", "ra", "cc", "pc", "si", "ser", "sser", "all"}

// runLevel checks h at the level named name (or all of them) and returns
// the verdict (verdict.Unknown if any level has none), the reason and the Stats
// of the level without a verdict.
func runLevel(t *testing.T, ctx context.Context, h *history.History, name string) (verdict.Verdict, string, Stats) {
	if name == "all" {
		rep, err := CheckAll(ctx, h)
		if err != nil {
			t.Fatal(err)
		}
		// The weakest level without a verdict is the one stopped; the
		// stronger ones were not begun.
		for i := len(rep.Results) - 1; i >= 0; i-- {
			if res := rep.Results[i]; res.Verdict == verdict.Unknown {
				return verdict.Unknown, res.Reason, res.Stats
			}
		}
		return rep.Results[0].Verdict, "", Stats{}
	}
	l, err := level.Parse(name)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Check(ctx, h, l)
	if err != nil {
		t.Fatal(err)
	}
	return res.Verdict, res.Reason, res.Stats
}

// TestStopBeforeStart: a check whose context has ended gives no verdict,
// says why, and does no work: no stage gets further than its start.
func TestStopBeforeStart(t *testing.T) {
	h := stopHistory(t)
	limit := fmt.Errorf("%w: memory above 4 GiB", progress.ErrResourceLimit)
	for _, name := range stopLevels {
		if v, _, _ := runLevel(t, context.Background(), h, name); v == verdict.Unknown {
			t.Fatalf("%s: no verdict without a deadline", name)
		}
		for _, c := range []struct {
			cause  error
			reason string
		}{{context.DeadlineExceeded, "timed out"}, {limit, limit.Error()}, {nil, "cancelled"}} {
			tr := progress.NewTracker()
			var began []string
			tr.OnStage = func(stage string) { began = append(began, stage) }
			ctx, cancel := context.WithCancelCause(progress.WithTracker(context.Background(), tr))
			cancel(c.cause)
			v, reason, _ := runLevel(t, ctx, h, name)
			if v != verdict.Unknown || reason != c.reason {
				t.Errorf("%s, cancelled with %v: verdict %v (%q), want no verdict (%q)", name, c.cause, v, reason, c.reason)
			}
			if snap := tr.Snapshot(); len(began) > 1 || snap.Done != 0 {
				t.Errorf("%s, cancelled with %v: began stages %q, and did %d %s of the last", name, c.cause, began, snap.Done, snap.Unit)
			}
		}
	}
}

// TestStopInEveryStage cancels the check of every level as each of its
// stages begins (the Tracker's OnStage cancels it), every stage of every
// level, and of CheckAll the first run of each stage. The check must give
// no verdict (unless the stage had found the verdict before it looked),
// stop in that stage, and stop before it has done all of the stage's
// work: what the stage's meter counts, not the time it takes, which a
// loaded machine stretches.
func TestStopInEveryStage(t *testing.T) {
	h := stopHistory(t)
	for _, name := range stopLevels {
		var want verdict.Verdict
		stages := timeStages(func(ctx context.Context) { want, _, _ = runLevel(t, ctx, h, name) })
		for i, st := range stages {
			nth := 0
			for _, before := range stages[:i] {
				if before.Stage == st.Stage {
					nth++
				}
			}
			if name == "all" && nth > 0 {
				continue // stopped at its first run: the levels share stages
			}
			tr := progress.NewTracker()
			ctx, cancel := context.WithCancelCause(progress.WithTracker(context.Background(), tr))
			seen := -1
			tr.OnStage = func(stage string) {
				if stage == st.Stage {
					if seen++; seen == nth {
						cancel(context.DeadlineExceeded)
					}
				}
			}
			v, reason, stats := runLevel(t, ctx, h, name)
			cancel(nil)
			if v != want && (v != verdict.Unknown || reason != "timed out") {
				t.Errorf("%s, stopped in %s: verdict %v (%q), want no verdict (timed out)", name, st.Stage, v, reason)
				continue
			}
			if v != verdict.Unknown {
				continue
			}
			snap := tr.Snapshot()
			if snap.Stage != st.Stage {
				t.Errorf("%s, stopped in %s: went on to %s", name, st.Stage, snap.Stage)
			} else if snap.Total > 0 && snap.Done >= snap.Total {
				t.Errorf("%s, stopped in %s: did all its %d %s before it looked", name, st.Stage, snap.Total, snap.Unit)
			}
			if st.Stage != "index writes" && st.Stage != "resolve reads" && stats.Txns == 0 {
				t.Errorf("%s, stopped in %s: no transactions counted", name, st.Stage)
			}
		}
	}
}

// timeStages runs run to its end under a Tracker and returns the stages
// it went through.
func timeStages(run func(context.Context)) []progress.Span {
	tr := progress.NewTracker()
	run(progress.WithTracker(context.Background(), tr))
	return tr.Stages()
}
