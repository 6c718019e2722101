package check

import (
	"context"
	"testing"

	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/verdict"
)

type tx struct {
	sess string
	ops  []history.Op
}

func r(k history.Key, v history.Value) history.Op {
	return history.Op{Kind: history.Read, Key: k, Value: v}
}
func w(k history.Key, v history.Value) history.Op {
	return history.Op{Kind: history.Write, Key: k, Value: v}
}

func build(txs []tx) *history.History {
	b := history.NewBuilder(0, "test")
	b.Key("x")
	b.Key("y")
	for i, t := range txs {
		b.AddTxn(history.Txn{Session: b.Session(t.sess), Start: history.NoTime, End: history.NoTime, Pos: int64(i + 1)}, t.ops)
	}
	return b.History()
}

func TestSmoke(t *testing.T) {
	const x, y = 0, 1
	cases := []struct {
		name string
		txs  []tx
		want map[level.Level]verdict.Verdict
	}{
		{"write skew", []tx{
			{"a", []history.Op{r(x, 0), r(y, 0), w(x, 1)}},
			{"b", []history.Op{r(x, 0), r(y, 0), w(y, 1)}},
		}, map[level.Level]verdict.Verdict{level.SER: verdict.Violated, level.SI: verdict.Satisfied}},
		{"lost update", []tx{
			{"a", []history.Op{r(x, 0), w(x, 1)}},
			{"b", []history.Op{r(x, 0), w(x, 2)}},
		}, map[level.Level]verdict.Verdict{level.SER: verdict.Violated, level.SI: verdict.Violated}},
		{"blind writes", []tx{
			{"a", []history.Op{w(x, 1), w(y, 1)}},
			{"b", []history.Op{w(x, 2), w(y, 2)}},
			{"c", []history.Op{r(x, 1), r(y, 2)}},
		}, map[level.Level]verdict.Verdict{level.SER: verdict.Violated, level.SI: verdict.Violated}},
		{"serial", []tx{
			{"a", []history.Op{w(x, 1), w(y, 1)}},
			{"b", []history.Op{w(x, 2), w(y, 2)}},
			{"c", []history.Op{r(x, 2), r(y, 2)}},
		}, map[level.Level]verdict.Verdict{level.SER: verdict.Satisfied, level.SI: verdict.Satisfied}},
	}
	for _, c := range cases {
		for l, want := range c.want {
			res, err := Check(context.Background(), build(c.txs), l)
			if err != nil {
				t.Fatal(err)
			}
			if res.Verdict != want {
				t.Errorf("%s at %v: got %v, want %v (%+v)", c.name, l, res.Verdict, want, res)
			}
		}
	}
}
