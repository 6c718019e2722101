package resolve

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/verdict"
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
		want []verdict.Anomaly
	}{
		{"clean", []txn{{"a", history.Committed, []history.Op{w(x, 1)}}, {"b", history.Committed, []history.Op{r(x, 1), r(y, null)}}}, nil},
		{"thin air", []txn{{"a", history.Committed, []history.Op{r(x, 7)}}}, []verdict.Anomaly{verdict.ThinAirRead}},
		{"aborted read", []txn{{"a", history.Aborted, []history.Op{w(x, 1)}}, {"b", history.Committed, []history.Op{r(x, 1)}}}, []verdict.Anomaly{verdict.AbortedRead}},
		{"future read", []txn{{"a", history.Committed, []history.Op{r(x, 1), w(x, 1)}}}, []verdict.Anomaly{verdict.FutureRead}},
		{"not my own write", []txn{{"a", history.Committed, []history.Op{w(x, 1)}}, {"b", history.Committed, []history.Op{w(x, 2), r(x, 1)}}}, []verdict.Anomaly{verdict.NotMyOwnWrite}},
		{"not my last write", []txn{{"a", history.Committed, []history.Op{w(x, 1), w(x, 2), r(x, 1)}}}, []verdict.Anomaly{verdict.NotMyLastWrite}},
		{"intermediate read", []txn{{"a", history.Committed, []history.Op{w(x, 1), w(x, 2)}}, {"b", history.Committed, []history.Op{r(x, 1)}}}, []verdict.Anomaly{verdict.IntermediateRead}},
		{"non-repeatable read", []txn{{"a", history.Committed, []history.Op{w(x, 1)}}, {"b", history.Committed, []history.Op{r(x, null), r(x, 1)}}}, []verdict.Anomaly{verdict.NonRepeatableRead}},
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
			var got []verdict.Anomaly
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
			// Values must be unique in list histories, whose elements
			// name their writers.
			h := makeHistory(c.txns...)
			h.Lists = true
			_, err := Resolve(context.Background(), h)
			var in *InputError
			if !errors.As(err, &in) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want an InputError mentioning %q", err, c.want)
			}
		})
	}
}

// TestResolveRepeatedValues checks which reads of a register history
// whose values repeat become choices, and with which candidates.
func TestResolveRepeatedValues(t *testing.T) {
	cases := []struct {
		name    string
		txns    []txn
		reads   int       // external reads resolved to one writer
		choices [][]int32 // candidates of each choice
		anomaly verdict.Anomaly
	}{
		{"two writers", []txn{{"a", history.Committed, []history.Op{w(x, 1)}}, {"b", history.Committed, []history.Op{w(x, 1)}}, {"c", history.Committed, []history.Op{r(x, 1)}}}, 0, [][]int32{{0, 1}}, 0},
		{"aborted writer is no candidate", []txn{{"a", history.Committed, []history.Op{w(x, 1)}}, {"b", history.Aborted, []history.Op{w(x, 1)}}, {"c", history.Committed, []history.Op{r(x, 1)}}}, 1, nil, 0},
		{"intermediate write is no candidate", []txn{{"a", history.Committed, []history.Op{w(x, 1)}}, {"b", history.Committed, []history.Op{w(x, 1), w(x, 2)}}, {"c", history.Committed, []history.Op{r(x, 1)}}}, 1, nil, 0},
		{"initial value written again", []txn{{"a", history.Committed, []history.Op{w(x, history.Null)}}, {"c", history.Committed, []history.Op{r(x, history.Null)}}}, 0, [][]int32{{2, 0}}, 0},
		{"unknown writer is a candidate", []txn{{"a", history.Committed, []history.Op{w(x, 1)}}, {"b", history.Unknown, []history.Op{w(x, 1)}}, {"c", history.Committed, []history.Op{r(x, 1)}}}, 0, [][]int32{{0, 1}}, 0},
		{"own later write only", []txn{{"a", history.Aborted, []history.Op{w(x, 1)}}, {"c", history.Committed, []history.Op{r(x, 1), w(x, 1)}}}, 0, nil, verdict.FutureRead},
		{"only aborted writers", []txn{{"a", history.Aborted, []history.Op{w(x, 1)}}, {"b", history.Aborted, []history.Op{w(x, 1)}}, {"c", history.Committed, []history.Op{r(x, 1)}}}, 0, nil, verdict.AbortedRead},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := Resolve(context.Background(), makeHistory(c.txns...))
			if err != nil {
				t.Fatal(err)
			}
			var got [][]int32
			for _, ch := range res.Choices {
				got = append(got, ch.Writers)
			}
			if fmt.Sprint(got) != fmt.Sprint(c.choices) || len(res.Reads) != c.reads {
				t.Errorf("choices %v and %d reads, want %v and %d", got, len(res.Reads), c.choices, c.reads)
			}
			var kind verdict.Anomaly
			if len(res.Anomalies) > 0 {
				kind = res.Anomalies[0].Kind
			}
			if kind != c.anomaly {
				t.Errorf("anomaly %v, want %v", kind, c.anomaly)
			}
			// Choosing each candidate resolves the read to it.
			for _, ch := range res.Choices {
				for _, wr := range ch.Writers {
					sub, err := res.Choose(context.Background(), []Pick{{ch.Op, wr}})
					if err != nil {
						t.Fatal(err)
					}
					if len(sub.Choices) != 0 || len(sub.Reads) != c.reads+1 || !slices.ContainsFunc(sub.Reads, func(rd ExternalRead) bool { return rd.Op == ch.Op && rd.Writer == wr }) {
						t.Errorf("choosing %d for the read at %d: reads %+v, choices %v", wr, ch.Op, sub.Reads, sub.Choices)
					}
					if int(wr) < len(sub.History.Txns) && !sub.Included[wr] {
						t.Errorf("choosing %d: it is not included", wr)
					}
				}
			}
		})
	}
}
