package explore_test

import (
	"context"
	"testing"

	"github.com/isocheck/isocheck/check"
	"github.com/isocheck/isocheck/explore"
	"github.com/isocheck/isocheck/explore/apps"
	"github.com/isocheck/isocheck/interpret"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/verdict"
)

// TestFailuresExplainedAtTheirLevel explores the applications at the weak
// levels and explains every history that breaks an assertion at each
// stronger level that forbids it, as isocheck explore's "L would not"
// lines do: each report names an anomaly that L forbids, both check's
// (Explain) and explain's (Minimal).
func TestFailuresExplainedAtTheirLevel(t *testing.T) {
	const perRun = 4 // failing histories explained per application and level
	ctx := context.Background()
	stronger := map[level.Level][]level.Level{
		level.RC: {level.RA, level.CC, level.PC, level.SI, level.SER},
		level.RA: {level.CC, level.PC, level.SI, level.SER},
		level.CC: {level.PC, level.SI, level.SER},
	}
	explained := 0
	for _, a := range apps.All() {
		for _, kept := range []level.Level{level.RC, level.RA, level.CC} {
			var failed []*explore.History
			cfg := explore.Options{Level: kept, OnHistory: func(h *explore.History) error {
				if h.Failed() && len(failed) < perRun {
					failed = append(failed, h)
				}
				return nil
			}}
			if _, err := explore.Explore(ctx, a.Program(2, 2, 1), cfg); err != nil {
				t.Fatalf("%s, %v: %v", a.Name, kept, err)
			}
			for _, h := range failed {
				for _, l := range stronger[kept] {
					res, err := check.Check(ctx, h.KV(), l)
					if err != nil {
						t.Fatalf("%s, %v: %v", a.Name, l, err)
					}
					if res.Verdict != verdict.Violated {
						continue
					}
					full, err := interpret.Minimal(ctx, res)
					if err != nil {
						t.Fatalf("%s, %v: %v", a.Name, l, err)
					}
					for _, rep := range []*interpret.Report{interpret.Explain(res), full} {
						if name := rep.Anomaly.Name; !verdict.Forbids(l, name) {
							t.Errorf("%s kept %v: %v would not, says the report, by %s, which %v allows\n%s", a.Name, kept, l, name, l, h)
						}
					}
					explained++
				}
			}
		}
	}
	if explained == 0 {
		t.Error("no failing history explained")
	}
	t.Logf("%d reports", explained)
}
