package check

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/isocheck/isocheck/histgen"
	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/progress"
	"github.com/isocheck/isocheck/verdict"
	"github.com/isocheck/isocheck/workload"
)

// stopHistory is a generated history large enough that every stage of
// every level takes a while: 20,000 transactions of a simulated SI store.
func stopHistory(t *testing.T) *history.History {
	t.Helper()
	if testing.Short() {
		t.Skip("large history")
	}
	return histgen.Large(histgen.LargeConfig{Sessions: 20, TxnsPerSession: 1000, OpsPerTxn: 15, Keys: 10000, ReadProportion: 0.5, Dist: workload.Zipf, Seed: 1, Store: histgen.SnapshotIsolation})
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
// says why, and does no work.
func TestStopBeforeStart(t *testing.T) {
	h := stopHistory(t)
	limit := fmt.Errorf("%w: memory above 4 GiB", progress.ErrResourceLimit)
	for _, name := range stopLevels {
		begin := time.Now()
		if v, _, _ := runLevel(t, context.Background(), h, name); v == verdict.Unknown {
			t.Fatalf("%s: no verdict without a deadline", name)
		}
		full := time.Since(begin)
		for _, c := range []struct {
			cause  error
			reason string
		}{{context.DeadlineExceeded, "timed out"}, {limit, limit.Error()}, {nil, "cancelled"}} {
			ctx, cancel := context.WithCancelCause(context.Background())
			cancel(c.cause)
			begin := time.Now()
			v, reason, _ := runLevel(t, ctx, h, name)
			took := time.Since(begin)
			if v != verdict.Unknown || reason != c.reason {
				t.Errorf("%s, cancelled with %v: verdict %v (%q), want no verdict (%q)", name, c.cause, v, reason, c.reason)
			}
			if took > full/4 {
				t.Errorf("%s, cancelled with %v: took %v, a quarter of the full check's %v at most", name, c.cause, took, full)
			}
		}
	}
}

// TestStopInEveryStage cancels the check of every level as each of its
// stages that lasts long enough to matter begins (the Tracker's OnStage
// cancels it). The check must give no verdict (unless the stage had found
// the verdict before it looked), stop in that stage, and return within a
// fraction of what the stage would have taken.
func TestStopInEveryStage(t *testing.T) {
	h := stopHistory(t)
	for _, name := range stopLevels {
		var want verdict.Verdict
		stages := timeStages(func(ctx context.Context) { want, _, _ = runLevel(t, ctx, h, name) })
		for i, st := range stages {
			if st.End-st.Start < 20*time.Millisecond {
				continue
			}
			nth := 0
			for _, before := range stages[:i] {
				if before.Stage == st.Stage {
					nth++
				}
			}
			tr := progress.NewTracker()
			ctx, cancel := context.WithCancelCause(progress.WithTracker(context.Background(), tr))
			var at time.Time
			seen := -1
			tr.OnStage = func(stage string) {
				if stage == st.Stage {
					if seen++; seen == nth {
						at = time.Now()
						cancel(context.DeadlineExceeded)
					}
				}
			}
			v, reason, stats := runLevel(t, ctx, h, name)
			took := time.Since(at)
			cancel(nil)
			if v != want && (v != verdict.Unknown || reason != "timed out") {
				t.Errorf("%s, stopped in %s: verdict %v (%q), want no verdict (timed out)", name, st.Stage, v, reason)
				continue
			}
			if v != verdict.Unknown {
				continue
			}
			if now := tr.Snapshot().Stage; now != st.Stage {
				t.Errorf("%s, stopped in %s: went on to %s", name, st.Stage, now)
			}
			// Shorter stages are mostly the allocation of their tables,
			// which no meter interrupts. Running on after the stop for
			// most of what the stage took means it did not look.
			if d := st.End - st.Start; d >= 200*time.Millisecond && took > d*3/4 {
				t.Errorf("%s, stopped in %s (which takes %v): returned after %v", name, st.Stage, d, took)
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
