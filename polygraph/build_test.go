package polygraph

import (
	"context"
	"testing"

	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/verdict"
)

// TestLostUpdateIsFoundWhileBuilding: read resolution links both
// read-modify-writes of the initial version to it; building the chains
// finds that both overwrote it.
func TestLostUpdateIsFoundWhileBuilding(t *testing.T) {
	b := history.NewBuilder(history.Null, "h.jsonl")
	x := b.Key("x")
	for i, s := range []string{"a", "b"} {
		b.AddTxn(history.Txn{Session: b.Session(s), Status: history.Committed, Start: history.NoTime, End: history.NoTime, Pos: int64(i + 1)},
			[]history.Op{{Kind: history.Read, Key: x, Value: history.Null}, {Kind: history.Write, Key: x, Value: history.Value(i + 1)}})
	}
	p, err := Build(context.Background(), b.History(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Anomalies) != 1 || p.Anomalies[0].Kind != verdict.LostUpdate {
		t.Fatalf("anomalies %+v, want one LostUpdate", p.Anomalies)
	}
}
