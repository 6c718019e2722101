package run

import (
	"context"
	"strings"
	"testing"

	"github.com/isocheck/isocheck/format/jsonl"
	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/lwt"
	"github.com/isocheck/isocheck/workload"
)

func TestLWTOpsAdd(t *testing.T) {
	r := func(k, v int64) jsonl.OpRecord { return jsonl.OpRecord{Kind: history.Read, Key: k, Value: v} }
	null := func(k int64) jsonl.OpRecord { return jsonl.OpRecord{Kind: history.Read, Key: k, Null: true} }
	w := func(k, v int64) jsonl.OpRecord { return jsonl.OpRecord{Kind: history.Write, Key: k, Value: v} }
	for _, tc := range []struct {
		name   string
		status history.Status
		ops    []jsonl.OpRecord
		want   string // the operation, "" for none
	}{
		{"read", history.Committed, []jsonl.OpRecord{r(1, 5)}, "read 5 on \"1\" ok by process 0 at [10,20] (line 1)"},
		{"read of nothing", history.Committed, []jsonl.OpRecord{null(1)}, "read nil on \"1\" ok by process 0 at [10,20] (line 1)"},
		{"cas", history.Committed, []jsonl.OpRecord{null(2), w(2, 11)}, "cas(nil,11) on \"2\" ok by process 0 at [10,20] (line 1)"},
		{"unknown cas", history.Unknown, []jsonl.OpRecord{r(2, 11), w(2, 12)}, "cas(11,12) on \"2\" info by process 0 at [10,never] (line 1)"},
		{"write", history.Committed, []jsonl.OpRecord{w(3, 7)}, "write 7 on \"3\" ok by process 0 at [10,20] (line 1)"},
		{"aborted", history.Aborted, []jsonl.OpRecord{r(2, 11), w(2, 12)}, ""},
		{"unknown read", history.Unknown, []jsonl.OpRecord{r(2, 11)}, ""},
	} {
		var c LWTOps
		c.Add(&jsonl.TxnRecord{Session: "0", ID: "0/0", Status: tc.status, Start: 10, End: 20, Ops: tc.ops})
		ops, err := c.Ops()
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		got := ""
		if len(ops) == 1 {
			got = ops[0].String()
		}
		if len(ops) > 1 || got != tc.want {
			t.Errorf("%s: %v, want %q", tc.name, ops, tc.want)
		}
	}
	// Lines and processes as the recorded history has them: an aborted
	// transaction takes its line too; a session's number is its process.
	var named LWTOps
	named.Add(&jsonl.TxnRecord{Session: "3", ID: "3/0", Status: history.Committed, Start: 1, End: 2, Ops: []jsonl.OpRecord{r(1, 5)}})
	named.Add(&jsonl.TxnRecord{Session: "3", ID: "3/1", Status: history.Aborted, Start: 3, End: 4, Ops: []jsonl.OpRecord{r(1, 5)}})
	named.Add(&jsonl.TxnRecord{Session: "7", ID: "7/0", Status: history.Committed, Start: 5, End: 6, Ops: []jsonl.OpRecord{w(1, 6)}})
	ops, _ := named.Ops()
	if len(ops) != 2 || ops[0].Line != 1 || ops[0].Process != 3 || ops[1].Line != 3 || ops[1].Process != 7 {
		t.Errorf("operations %v, want lines 1 and 3, processes 3 and 7", ops)
	}
	var c LWTOps
	c.Add(&jsonl.TxnRecord{ID: "0/3", Status: history.Committed, Ops: []jsonl.OpRecord{r(1, 5), w(2, 6)}})
	if _, err := c.Ops(); err == nil || !strings.Contains(err.Error(), "0/3") {
		t.Fatalf("a transaction of two registers: %v", err)
	}
}

// TestLWTOpsOfARun: the operations of a serial run of the lwt workload
// are linearizable.
func TestLWTOpsOfARun(t *testing.T) {
	plan, err := workload.NewPlan(workload.PlanConfig{Workload: workload.LWT, Sessions: 3, TxnsPerSession: 30, Keys: 2, ReadProportion: -1, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	var c LWTOps
	d := &faultyDB{data: map[int64]int64{}, fail: func(int) error { return nil }}
	if _, err := Run(context.Background(), d, plan, Options{Completed: c.Add}); err != nil {
		t.Fatal(err)
	}
	ops, err := c.Ops()
	if err != nil {
		t.Fatal(err)
	}
	if len(ops) != 90 {
		t.Fatalf("%d operations, want 90", len(ops))
	}
	if res, err := lwt.Check(context.Background(), ops, lwt.Nil); err != nil || !res.OK() {
		t.Fatalf("a serial store's run: %v, %v", res, err)
	}
}
