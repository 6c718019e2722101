package jsonl_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/isocheck/isocheck/format"
	"github.com/isocheck/isocheck/format/jsonl"
	"github.com/isocheck/isocheck/histgen"
	"github.com/isocheck/isocheck/history"
)

func TestRecorderWritesReadableHistory(t *testing.T) {
	var buf bytes.Buffer
	r := jsonl.NewRecorder(&buf)
	recs := []jsonl.TxnRecord{
		{Session: "0", ID: "0/0", Status: history.Committed, Start: 10, End: 20, Ops: []jsonl.OpRecord{
			{Kind: history.Read, Key: 1, Null: true}, {Kind: history.Write, Key: 1, Value: 1_000_001}}},
		{Session: "1", ID: "1/0", Status: history.Aborted, Start: 12, End: 25, Ops: []jsonl.OpRecord{
			{Kind: history.Write, Key: 2, Value: 2_000_001}}},
		{Session: "1.1", ID: "1/1", Status: history.Unknown, Start: 30, End: history.NoTime, Ops: []jsonl.OpRecord{
			{Kind: history.Read, Key: 1, Value: 1_000_001}, {Kind: history.Write, Key: 2, Value: 2_000_002}}},
	}
	for i := range recs {
		if err := r.Record(&recs[i]); err != nil {
			t.Fatal(err)
		}
	}
	if n := strings.Count(buf.String(), "\n"); n != 3 {
		t.Fatalf("%d lines, want one per transaction", n)
	}
	h, err := format.Read(&buf, "run.jsonl", format.JSONL)
	if err != nil {
		t.Fatalf("the recorded history does not read: %v\n%s", err, buf.String())
	}
	got := histgen.Describe(h)
	want := "init=null\ns0 0/0 committed [10,20]: r(1)=null w(1)=1000001\n" +
		"s1 1/0 aborted [12,25]: w(2)=2000001\n" +
		"s1.1 1/1 unknown [30,?]: r(1)=1000001 w(2)=2000002\n"
	if got != want {
		t.Fatalf("read back:\n%s\nwant:\n%s", got, want)
	}
}

func TestRecorderLists(t *testing.T) {
	var buf bytes.Buffer
	r := jsonl.NewRecorder(&buf)
	for _, rec := range []jsonl.TxnRecord{
		{Session: "0", ID: "a", Start: history.NoTime, End: history.NoTime, Ops: []jsonl.OpRecord{
			{Kind: history.Write, Append: true, Key: 5, Value: 11}, {Kind: history.Read, Key: 5, IsList: true, List: []int64{11}}}},
		{Session: "1", ID: "b", Start: history.NoTime, End: history.NoTime, Ops: []jsonl.OpRecord{
			{Kind: history.Read, Key: 5, IsList: true}}},
	} {
		if err := r.Record(&rec); err != nil {
			t.Fatal(err)
		}
	}
	h, err := format.Read(&buf, "run.jsonl", format.JSONL)
	if err != nil {
		t.Fatalf("%v\n%s", err, buf.String())
	}
	if !h.Lists {
		t.Fatal("a history of appends is not a list history")
	}
	if got, want := histgen.Describe(h), "init=null\ns0 a committed: a(5)=11 r(5)=[11]\ns1 b committed: r(5)=[]\n"; got != want {
		t.Fatalf("read back:\n%s\nwant:\n%s", got, want)
	}
}
