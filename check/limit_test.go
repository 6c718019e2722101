package check_test

import (
	"context"
	"strconv"
	"testing"

	"github.com/isocheck/isocheck/check"
	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/level"
)

// TestHostileHistoryGivesNoVerdict: 30,000 sessions of one blind write to
// one key each, every pair unordered, would need ~10^9 constraint edges.
// The check must say so (no verdict, a resource limit) rather than run out
// of memory.
func TestHostileHistoryGivesNoVerdict(t *testing.T) {
	b := history.NewBuilder(history.Null)
	x := b.Key("x")
	for i := 0; i < 30000; i++ {
		b.AddTxn(history.Txn{Session: b.Session(strconv.Itoa(i)), Start: history.NoTime, End: history.NoTime},
			[]history.Op{{Kind: history.Write, Key: x, Value: history.Value(i + 1)}})
	}
	res, err := check.Check(context.Background(), b.History(), level.SI)
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != check.NoVerdict || res.Reason == "" {
		t.Fatalf("verdict %v (%q), want no verdict with a reason", res.Verdict, res.Reason)
	}
}
