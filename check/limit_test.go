package check_test

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/isocheck/isocheck/check"
	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/verdict"
)

// TestHostileHistoryGivesNoVerdict: 30,000 sessions of one blind write to
// one key each, every pair unordered, would need ~10^9 constraint edges.
// Two readers that saw the first two writes in opposite orders leave no
// order of writes a witness, so the search must decide; the check must
// say it cannot (no verdict, a resource limit) rather than run out of
// memory.
func TestHostileHistoryGivesNoVerdict(t *testing.T) {
	b := history.NewBuilder(history.Null)
	x := b.Key("x")
	for i := 0; i < 30000; i++ {
		b.AddTxn(history.Txn{Session: b.Session(strconv.Itoa(i)), Start: history.NoTime, End: history.NoTime},
			[]history.Op{{Kind: history.Write, Key: x, Value: history.Value(i + 1)}})
	}
	for i, vs := range [][]history.Value{{2, 1}, {1, 2}} {
		reader := b.Session("reader" + strconv.Itoa(i))
		for _, v := range vs {
			b.AddTxn(history.Txn{Session: reader, Start: history.NoTime, End: history.NoTime},
				[]history.Op{{Kind: history.Read, Key: x, Value: v}})
		}
	}
	res, err := check.Check(context.Background(), b.History(), level.SI)
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != verdict.Unknown || res.Reason == "" {
		t.Fatalf("verdict %v (%q), want no verdict with a reason", res.Verdict, res.Reason)
	}
}

// lostUpdate is a history with a lost update in two sessions: SI and the
// stronger levels are broken, CC and the weaker ones kept.
func lostUpdate() *history.History {
	b := history.NewBuilder(history.Null)
	x := b.Key("x")
	for i, s := range []string{"a", "b"} {
		b.AddTxn(history.Txn{Session: b.Session(s), Start: history.NoTime, End: history.NoTime}, []history.Op{
			{Kind: history.Read, Key: x, Value: history.Null},
			{Kind: history.Write, Key: x, Value: history.Value(i + 1)},
		})
	}
	return b.History()
}

// TestCheckAllPastCCClockLimit: when CC's clocks would pass their limit,
// CC's own check has no verdict, says why in terms of sessions and
// memory, and every other level still gets its verdict; PC, kept, keeps
// CC too, which the report says rather than leave CC undecided.
func TestCheckAllPastCCClockLimit(t *testing.T) {
	want := map[level.Level]verdict.Verdict{
		level.SSER: verdict.Violated, level.SER: verdict.Violated, level.SI: verdict.Violated,
		level.PC: verdict.Satisfied, level.CC: verdict.Satisfied, level.RA: verdict.Satisfied, level.RC: verdict.Satisfied,
	}
	// One 4-byte entry: no clock of two sessions fits.
	rep, err := check.CheckAllWith(context.Background(), lostUpdate(), check.Options{MaxClockBytes: 4})
	if err != nil {
		t.Fatal(err)
	}
	for _, res := range rep.Results {
		if res.Verdict != want[res.Level] {
			t.Errorf("%v: %v (%s), want %v", res.Level, res.Verdict, res.Reason, want[res.Level])
		}
	}
	cc := rep.Results[slices.Index(level.All(), level.CC)]
	if !strings.Contains(cc.Reason, "vector clocks") || !strings.Contains(cc.Reason, "2 sessions") || cc.Stopped || cc.NotChecked || cc.KeptBy != level.PC {
		t.Errorf("CC: reason %q, stopped %v, not checked %v, kept by %v; want the clocks' limit, not a stop, kept by PC", cc.Reason, cc.Stopped, cc.NotChecked, cc.KeptBy)
	}
	if len(rep.Undecided) != 0 {
		t.Errorf("undecided %v, want none", rep.Undecided)
	}
	if rep.Strongest != level.PC || rep.Weakest != level.SI {
		t.Errorf("strongest kept %v, weakest broken %v; want PC, SI", rep.Strongest, rep.Weakest)
	}
	// The same with a single level, and with no bound.
	for _, c := range []struct {
		bytes int64
		want  verdict.Verdict
	}{{4, verdict.Unknown}, {-1, verdict.Satisfied}, {0, verdict.Satisfied}} {
		res, err := check.CheckWith(context.Background(), lostUpdate(), level.CC, check.Options{MaxClockBytes: c.bytes})
		if err != nil || res.Verdict != c.want {
			t.Errorf("CC with MaxClockBytes %d: %v, %v; want %v", c.bytes, res.Verdict, err, c.want)
		}
	}
}

// TestViolationBesideManyWriters: a long fork (PC broken) beside 5,000
// concurrent blind writes of one key, which would take 12.5 million
// constraints to order: the check finds the fork with the writes of its
// own keys alone ordered, and names it.
func TestViolationBesideManyWriters(t *testing.T) {
	b := history.NewBuilder(history.Null)
	x, y, z := b.Key("x"), b.Key("y"), b.Key("z")
	none := func(s string) history.Txn {
		return history.Txn{Session: b.Session(s), Start: history.NoTime, End: history.NoTime}
	}
	for i := range 5000 {
		b.AddTxn(none("w"+strconv.Itoa(i)), []history.Op{{Kind: history.Write, Key: x, Value: history.Value(i + 1)}})
	}
	b.AddTxn(none("wy"), []history.Op{{Kind: history.Write, Key: y, Value: 1}})
	b.AddTxn(none("wz"), []history.Op{{Kind: history.Write, Key: z, Value: 1}})
	b.AddTxn(none("r1"), []history.Op{{Kind: history.Read, Key: y, Value: 1}, {Kind: history.Read, Key: z, Value: history.Null}})
	b.AddTxn(none("r2"), []history.Op{{Kind: history.Read, Key: z, Value: 1}, {Kind: history.Read, Key: y, Value: history.Null}})
	h := b.History()
	for _, l := range []level.Level{level.PC, level.SI, level.SER} {
		res, err := check.Check(context.Background(), h, l)
		if err != nil {
			t.Fatal(err)
		}
		if res.Verdict != verdict.Violated || len(res.Cycle) == 0 || res.Stats.Constraints > 10 {
			t.Errorf("%v: %v (%s), cycle %v, %d constraints; want the fork's cycle from a few", l, res.Verdict, res.Reason, res.Cycle, res.Stats.Constraints)
		}
	}
}
