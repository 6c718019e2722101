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
	"github.com/isocheck/isocheck/resolve"
	"github.com/isocheck/isocheck/verdict"
	"github.com/isocheck/isocheck/workload"
)

// repeatedHistory is a history of 400 transactions from store whose
// written values repeat: every read of a key whose value up to four
// transactions wrote.
func repeatedHistory(store histgen.Store, seed int) *history.History {
	cfg := histgen.LargeConfig{Sessions: 8, TxnsPerSession: 50, OpsPerTxn: 8, Keys: 40, ReadProportion: 0.5,
		Dist: workload.Uniform, Seed: int64(seed), Store: store}
	return histgen.Repeat(histgen.Large(cfg), histgen.RepeatConfig{Fraction: 1, Writers: 4, Seed: uint64(seed)})
}

// TestGuessSettlesWhatTheStoreKept checks that a history whose values
// repeat, from a store that kept the level, is settled by guessing its
// writers from the times recorded, in a check or two as fast as one of
// unique values, and not by a search over every choice of writers (which
// took a 1,000-transaction SQLite history minutes and gigabytes); and
// that the writers guessed witness the verdict: the history with just
// them satisfies the level.
func TestGuessSettlesWhatTheStoreKept(t *testing.T) {
	kept := []struct {
		store  histgen.Store
		levels []level.Level
	}{
		{histgen.Serializable, []level.Level{level.SER, level.SI, level.PC, level.CC, level.RA, level.RC}},
		{histgen.SnapshotIsolation, []level.Level{level.SI, level.PC, level.CC, level.RA, level.RC}},
		{histgen.SnapshotNoFCW, []level.Level{level.PC, level.CC, level.RC}},
		{histgen.Causal, []level.Level{level.CC, level.RA, level.RC}},
	}
	ctx := context.Background()
	for _, k := range kept {
		for seed := range 3 {
			h := repeatedHistory(k.store, seed)
			r, err := resolve.Resolve(ctx, h)
			if err != nil {
				t.Fatal(err)
			}
			if len(r.Choices) < 100 {
				t.Fatalf("store %v seed %d: %d reads of repeated values: the test checks too little", k.store, seed, len(r.Choices))
			}
			for _, l := range k.levels {
				t.Run(fmt.Sprintf("%v/%d/%v", k.store, seed, l), func(t *testing.T) {
					res, err := checkGuessed(ctx, r, l, Options{})
					if err != nil {
						t.Fatal(err)
					}
					if res == nil || res.Verdict != verdict.Satisfied {
						t.Fatalf("guessing did not settle it: %+v", res)
					}
					if res.Stats.ChoiceRounds > 2 {
						t.Errorf("guessing took %d checks", res.Stats.ChoiceRounds)
					}
					again, err := checkPicked(ctx, r, l, Options{}, res.Picks)
					if err != nil || again.Verdict != verdict.Satisfied {
						t.Errorf("the guessed writers do not satisfy %v: %v, %v", l, again, err)
					}
					full, err := CheckResolved(ctx, r, l)
					if err != nil || full.Verdict != verdict.Satisfied {
						t.Errorf("Check: %v, %v", full, err)
					}
				})
			}
		}
	}
}

// TestChoosingWritersHoldsItsContext checks that the stages a history
// whose values repeat adds, choosing writers and pruning them, stop when
// their context ends (a timeout, or a memory limit watched from outside)
// rather than run on to the next stage: a check of SER that guessing
// cannot settle (the store broke SER) is stopped as each stage begins.
func TestChoosingWritersHoldsItsContext(t *testing.T) {
	h := repeatedHistory(histgen.SnapshotIsolation, 1)
	for _, stage := range []string{"choose writers", "prune"} {
		t.Run(stage, func(t *testing.T) {
			tr := progress.NewTracker()
			ctx, cancel := context.WithCancelCause(progress.WithTracker(context.Background(), tr))
			defer cancel(nil)
			limit := fmt.Errorf("%w: test limit", progress.ErrResourceLimit)
			full := false
			tr.OnStage = func(name string) {
				// Guessing checks without choices; the stages after
				// choosing writers are those of the solver's polygraph,
				// with every choice in.
				if name == "choose writers" {
					full = true
				}
				if name == stage && full {
					cancel(limit)
				}
			}
			res, err := Check(ctx, h, level.SER)
			if err != nil {
				t.Fatal(err)
			}
			if res.Verdict != verdict.Unknown || !res.Stopped {
				t.Fatalf("verdict %v (stopped %v), want none: the stage ran on", res.Verdict, res.Stopped)
			}
			stages := tr.Stages()
			if last := stages[len(stages)-1].Stage; last != stage {
				t.Errorf("stopped in stage %q, want %q (stages %v)", last, stage, stages)
			}
		})
	}
}

// TestStrictHistoryDecidedAsSSER checks that a history a strictly
// serializable store kept, whose values repeat so often that neither
// guessing nor a search settles the weaker levels (each value of a key
// written by up to 64 transactions), is decided at every level at once:
// real time leaves its reads few writers at SSER, and the writers that
// satisfy SSER satisfy every weaker level. Before, SI, PC, CC and RC
// searched for minutes and gigabytes; the deadline only catches that.
func TestStrictHistoryDecidedAsSSER(t *testing.T) {
	cfg := histgen.LargeConfig{Sessions: 10, TxnsPerSession: 60, OpsPerTxn: 15, Keys: 10000, ReadProportion: 0.5,
		Dist: workload.Zipf, Seed: 1, Store: histgen.StrictSerializable}
	h := histgen.Repeat(histgen.Large(cfg), histgen.RepeatConfig{Fraction: 1, Writers: 64, Seed: 1})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	r, err := resolve.Resolve(ctx, h)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Choices) < 1000 {
		t.Fatalf("%d reads of repeated values: the test checks too little", len(r.Choices))
	}
	for _, l := range []level.Level{level.SER, level.SI, level.PC, level.CC, level.RA, level.RC} {
		res, err := CheckResolved(ctx, r, l)
		if err != nil {
			t.Fatal(err)
		}
		if res.Verdict != verdict.Satisfied {
			t.Fatalf("%v: %v (%s, in stage %s), want satisfied", l, res.Verdict, res.Reason, res.Stage)
		}
		again, err := checkPicked(ctx, r, l, Options{}, res.Picks)
		if err != nil || again.Verdict != verdict.Satisfied {
			t.Errorf("%v: the writers found do not satisfy it: %v, %v", l, again, err)
		}
	}
}
