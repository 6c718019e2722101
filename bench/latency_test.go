package bench

import (
	"context"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/isocheck/isocheck/check"
	"github.com/isocheck/isocheck/format"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/progress"
	"github.com/isocheck/isocheck/verdict"
)

// TestStopLatency measures, for every level and every stage of its check
// that takes long enough to land in, how long the check takes to return
// once its context ends mid-stage. It needs a large history, named by
// $ISOCHECK_LATENCY_HISTORY (such as a generated one of a million
// transactions), and $ISOCHECK_LATENCY_LEVELS may list the levels
// (rc,ra,cc,pc,si,ser,sser,all; default all of them) and
// $ISOCHECK_LATENCY_STAGES the stages to stop in (default all).
//
// For each level it runs the check once to time its stages, then once per
// stage, cancelling (with the cause context.DeadlineExceeded, as a
// deadline would) half-way through it, or 2 s into it if it is longer.
// For "all", only the first run of each stage is stopped.
func TestStopLatency(t *testing.T) {
	path := os.Getenv("ISOCHECK_LATENCY_HISTORY")
	if path == "" {
		t.Skip("set ISOCHECK_LATENCY_HISTORY to a large history")
	}
	h, err := format.ReadFile(path, format.Auto)
	if err != nil {
		t.Fatal(err)
	}
	names := "rc,ra,cc,pc,si,ser,sser,all"
	only := os.Getenv("ISOCHECK_LATENCY_STAGES")
	if s := os.Getenv("ISOCHECK_LATENCY_LEVELS"); s != "" {
		names = s
	}
	for _, name := range strings.Split(names, ",") {
		run := func(ctx context.Context) (verdict.Verdict, string) {
			if name == "all" {
				rep, err := check.CheckAll(ctx, h)
				if err != nil {
					t.Fatal(err)
				}
				v, reason := verdict.Satisfied, ""
				for _, res := range rep.Results {
					if res.Verdict == verdict.Unknown {
						v, reason = verdict.Unknown, res.Reason
					}
				}
				return v, reason
			}
			l, err := level.Parse(name)
			if err != nil {
				t.Fatal(err)
			}
			res, err := check.Check(ctx, h, l)
			if err != nil {
				t.Fatal(err)
			}
			return res.Verdict, res.Reason
		}
		stages, total := timeStages(run)
		t.Logf("%s: %v in all; stages %v", name, total.Round(time.Millisecond), stages)
		for i, st := range stages {
			d := st.End - st.Start
			if d < 20*time.Millisecond {
				continue
			}
			nth := 0
			for _, before := range stages[:i] {
				if before.Stage == st.Stage {
					nth++
				}
			}
			if name == "all" && nth > 0 {
				continue // measured at its first run: the levels share stages
			}
			if only != "" && !slices.Contains(strings.Split(only, ","), st.Stage) {
				continue
			}
			after := min(d/2, 2*time.Second)
			lat, v, reason := stopIn(run, st.Stage, nth, after)
			t.Logf("%-4s %-16s (%8v) stopped after %8v: returned in %8v (%v, %q)",
				name, st.Stage, d.Round(time.Millisecond), after.Round(time.Millisecond), lat.Round(10*time.Microsecond), v, reason)
			if v != verdict.Unknown {
				t.Errorf("%s: stopped in %s, verdict %v", name, st.Stage, v)
			}
		}
	}
}

// timeStages runs run to the end under a Tracker and returns the stages
// it went through and the time it took.
func timeStages(run func(context.Context) (verdict.Verdict, string)) ([]progress.Span, time.Duration) {
	tr := progress.NewTracker()
	start := time.Now()
	run(progress.WithTracker(context.Background(), tr))
	return tr.Stages(), time.Since(start)
}

// stopIn runs run and cancels it once it has spent after in the stage
// name's run number nth (from 0); it returns the time from the
// cancellation to the return (-1 if it returned first).
func stopIn(run func(context.Context) (verdict.Verdict, string), name string, nth int, after time.Duration) (time.Duration, verdict.Verdict, string) {
	tr := progress.NewTracker()
	ctx, cancel := context.WithCancelCause(progress.WithTracker(context.Background(), tr))
	defer cancel(nil)
	var mu sync.Mutex
	var at time.Time
	seen := -1
	tr.OnStage = func(stage string) {
		if stage != name {
			return
		}
		if seen++; seen == nth {
			time.AfterFunc(after, func() {
				mu.Lock()
				at = time.Now()
				mu.Unlock()
				cancel(context.DeadlineExceeded)
			})
		}
	}
	v, reason := run(ctx)
	end := time.Now()
	mu.Lock()
	defer mu.Unlock()
	if at.IsZero() {
		return -1, v, reason
	}
	return end.Sub(at), v, reason
}
