package polygraph

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/isocheck/isocheck/history"
)

type txn struct {
	session string
	status  history.Status
	ops     []history.Op
}

func r(k history.Key, v history.Value) history.Op {
	return history.Op{Kind: history.Read, Key: k, Value: v}
}
func w(k history.Key, v history.Value) history.Op {
	return history.Op{Kind: history.Write, Key: k, Value: v}
}

func makeHistory(txns ...txn) *history.History {
	b := history.NewBuilder(history.Null, "h.jsonl")
	b.Key("x")
	b.Key("y")
	for i, t := range txns {
		b.AddTxn(history.Txn{Session: b.Session(t.session), Status: t.status, Start: history.NoTime, End: history.NoTime, Pos: int64(i + 1)}, t.ops)
	}
	return b.History()
}

const x, y = 0, 1

func TestResolveAnomalies(t *testing.T) {
	null := history.Null
	cases := []struct {
		name string
		txns []txn
		want []AnomalyKind
	}{
		{"clean", []txn{{"a", history.Committed, []history.Op{w(x, 1)}}, {"b", history.Committed, []history.Op{r(x, 1), r(y, null)}}}, nil},
		{"thin air", []txn{{"a", history.Committed, []history.Op{r(x, 7)}}}, []AnomalyKind{ThinAirRead}},
		{"aborted read", []txn{{"a", history.Aborted, []history.Op{w(x, 1)}}, {"b", history.Committed, []history.Op{r(x, 1)}}}, []AnomalyKind{AbortedRead}},
		{"future read", []txn{{"a", history.Committed, []history.Op{r(x, 1), w(x, 1)}}}, []AnomalyKind{FutureRead}},
		{"not my own write", []txn{{"a", history.Committed, []history.Op{w(x, 1)}}, {"b", history.Committed, []history.Op{w(x, 2), r(x, 1)}}}, []AnomalyKind{NotMyOwnWrite}},
		{"not my last write", []txn{{"a", history.Committed, []history.Op{w(x, 1), w(x, 2), r(x, 1)}}}, []AnomalyKind{NotMyLastWrite}},
		{"intermediate read", []txn{{"a", history.Committed, []history.Op{w(x, 1), w(x, 2)}}, {"b", history.Committed, []history.Op{r(x, 1)}}}, []AnomalyKind{IntermediateRead}},
		{"non-repeatable read", []txn{{"a", history.Committed, []history.Op{w(x, 1)}}, {"b", history.Committed, []history.Op{r(x, null), r(x, 1)}}}, []AnomalyKind{NonRepeatableRead}},
		{"unknown writer read commits it", []txn{{"a", history.Unknown, []history.Op{w(x, 1)}}, {"b", history.Committed, []history.Op{r(x, 1)}}}, nil},
		{"unknown reader of thin air is left out", []txn{{"a", history.Unknown, []history.Op{r(x, 7)}}}, nil},
		{"aborted reader is not checked", []txn{{"a", history.Aborted, []history.Op{r(x, 7)}}}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := Resolve(context.Background(), makeHistory(c.txns...))
			if err != nil {
				t.Fatal(err)
			}
			var got []AnomalyKind
			for _, a := range res.Anomalies {
				got = append(got, a.Kind)
			}
			if len(got) != len(c.want) || (len(got) > 0 && got[0] != c.want[0]) {
				t.Fatalf("anomalies %v, want %v", got, c.want)
			}
		})
	}
}

func TestResolveInputErrors(t *testing.T) {
	cases := []struct {
		name string
		txns []txn
		want string
	}{
		{"duplicate write", []txn{{"a", history.Committed, []history.Op{w(x, 1)}}, {"b", history.Aborted, []history.Op{w(x, 1)}}}, "h.jsonl:2"},
		{"write of the initial value", []txn{{"a", history.Committed, []history.Op{w(x, history.Null)}}}, "initial value"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Resolve(context.Background(), makeHistory(c.txns...))
			var in *InputError
			if !errors.As(err, &in) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want an InputError mentioning %q", err, c.want)
			}
		})
	}
}

func TestLostUpdateIsFoundWhileBuilding(t *testing.T) {
	h := makeHistory(
		txn{"a", history.Committed, []history.Op{r(x, history.Null), w(x, 1)}},
		txn{"b", history.Committed, []history.Op{r(x, history.Null), w(x, 2)}},
	)
	p, err := Build(context.Background(), h, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Anomalies) != 1 || p.Anomalies[0].Kind != LostUpdate {
		t.Fatalf("anomalies %+v, want one LostUpdate", p.Anomalies)
	}
}
