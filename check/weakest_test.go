package check_test

import (
	"context"
	"testing"

	"github.com/isocheck/isocheck/check"
	"github.com/isocheck/isocheck/internal/testkit/historytest"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/verdict"
)

// TestWeakestBroken checks that a violation is explained by the weakest
// level the history breaks: the result keeps the level asked for, names
// the weaker level in ImpliedBy, carries that level's evidence, and keeps
// its own in Own.
func TestWeakestBroken(t *testing.T) {
	tests := []struct {
		name    string
		l       level.Level
		history string
		implied level.Level // 0: the level asked for is the weakest broken
	}{
		{"fractured read at SER is RA's", level.SER, `
{"session": 1, "id": "T1", "ops": [["w", "x", 1], ["w", "y", 1]]}
{"session": 2, "id": "T2", "ops": [["r", "y", null], ["r", "x", 1]]}`, level.RA},
		{"the G0 of the issue at PC is RA's", level.PC, `
{"session": 1, "id": "t0", "ops": [["w", "x", 1], ["w", "y", 1]]}
{"session": 2, "id": "t1", "ops": [["w", "x", 2], ["w", "y", 2]]}
{"session": 3, "id": "t2", "ops": [["r", "x", 1], ["r", "y", 2]]}`, level.RA},
		{"lost update at SSER is SI's", level.SSER, `
{"session": 0, "id": "open", "ops": [["w", "x", 100]]}
{"session": 1, "id": "a", "ops": [["r", "x", 100], ["w", "x", 150]]}
{"session": 2, "id": "b", "ops": [["r", "x", 100], ["w", "x", 70]]}`, level.SI},
		{"write skew at SER is SER's", level.SER, `
{"session": 1, "id": "T1", "ops": [["r", "x", null], ["r", "y", null], ["w", "x", 1]]}
{"session": 2, "id": "T2", "ops": [["r", "x", null], ["r", "y", null], ["w", "y", 1]]}`, 0},
		{"aborted read at RC has nothing weaker", level.RC, `
{"session": 1, "id": "T1", "status": "aborted", "ops": [["w", "x", 1]]}
{"session": 2, "id": "T2", "ops": [["r", "x", 1]]}`, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := historytest.JSONL(t, tt.history)
			res, err := check.CheckWith(context.Background(), h, tt.l, check.Options{WeakestBroken: true})
			if err != nil {
				t.Fatal(err)
			}
			if res.Verdict != verdict.Violated || res.Level != tt.l || !res.WeakerChecked || res.Undecided != 0 {
				t.Fatalf("%v at %v, weaker checked %v, undecided %v; want violated at %v, every weaker level decided", res.Verdict, res.Level, res.WeakerChecked, res.Undecided, tt.l)
			}
			if res.ImpliedBy != tt.implied {
				t.Errorf("implied by %v, want %v", res.ImpliedBy, tt.implied)
			}
			if tt.implied != 0 && (res.Own == nil || res.Own.Level != tt.l || res.Own.Verdict != verdict.Violated) {
				t.Errorf("own result %+v, want the violation of %v", res.Own, tt.l)
			}
			// Weakest on the plain result finds the same.
			plain, err := check.Check(context.Background(), h, tt.l)
			if err != nil {
				t.Fatal(err)
			}
			w, err := check.Weakest(context.Background(), h, plain, check.Options{})
			if err != nil || w.ImpliedBy != tt.implied {
				t.Errorf("Weakest: implied by %v (%v), want %v", w.ImpliedBy, err, tt.implied)
			}
		})
	}
}

// TestWeakestStopped checks that a walk stopped before it decided the
// weaker levels says so, and leaves the violation as it was found.
func TestWeakestStopped(t *testing.T) {
	h := historytest.JSONL(t, `
{"session": 1, "id": "T1", "ops": [["r", "x", null], ["r", "y", null], ["w", "x", 1]]}
{"session": 2, "id": "T2", "ops": [["r", "x", null], ["r", "y", null], ["w", "y", 1]]}`)
	res, err := check.Check(context.Background(), h, level.SER)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	w, err := check.Weakest(ctx, h, res, check.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if w.Verdict != verdict.Violated || w.ImpliedBy != 0 || w.Undecided != level.RC || !w.WeakerChecked {
		t.Errorf("violated %v, implied by %v, undecided %v, weaker checked %v; want SER's violation with RC undecided", w.Verdict, w.ImpliedBy, w.Undecided, w.WeakerChecked)
	}
}
