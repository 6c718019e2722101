package report_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/isocheck/isocheck/format"
	"github.com/isocheck/isocheck/lwt"
	"github.com/isocheck/isocheck/report"
)

// TestFromLWT: the stale read of examples/cas-stale-read.edn as the page
// shows it: the reason, the timeline, and the read that cannot be
// linearized first among the operations, with its process and line.
func TestFromLWT(t *testing.T) {
	f, err := os.Open("../examples/cas-stale-read.edn")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rops, _, err := format.ReadRegisterOps(context.Background(), f, "cas-stale-read.edn", format.Auto)
	if err != nil {
		t.Fatal(err)
	}
	ops := lwt.FromRegisterOps(rops, lwt.FailAbsent)
	res, err := lwt.Check(context.Background(), ops, lwt.Nil)
	if err != nil {
		t.Fatal(err)
	}
	a := report.FromLWT(res, ops)
	if a.Name != report.NotLinearizable || a.Level != report.Linearizability || a.Summary != res.Violation.Reason || a.Description == "" {
		t.Errorf("anomaly %s at %s: %q", a.Name, a.Level, a.Summary)
	}
	if a.Timeline == nil || len(a.Timeline.Lanes) != 2 {
		t.Fatalf("timeline %+v, want two processes", a.Timeline)
	}
	var got []string
	for _, txn := range a.Txns {
		line := ""
		for _, s := range txn.Ops[0] {
			line += s.Text
		}
		got = append(got, strings.Join([]string{txn.Name, txn.Session, txn.Status, txn.Where, line}, " | "))
	}
	want := []string{
		"line 5 | process 0 | ok | line 5 | read 1 ok by process 0 at [5,6] (line 5)",
		"line 3 | process 1 | ok | line 3 | cas(1,2) ok by process 1 at [3,4] (line 3)",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("operations:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if a.Txns[0].Position != 2 || !a.Txns[0].Ops[0][0].Mark || a.Txns[1].Ops[0][0].Mark {
		t.Errorf("the read is %d of its process, marked %v; the cas marked %v", a.Txns[0].Position, a.Txns[0].Ops[0][0].Mark, a.Txns[1].Ops[0][0].Mark)
	}
}

// TestFromLWTLinearizable: a linearizable history has no anomaly.
func TestFromLWTLinearizable(t *testing.T) {
	ops, _ := lwt.Generate(lwt.GenConfig{Processes: 3, Ops: 50, Seed: 1, ReadFrac: 0.4, CASHit: 0.8})
	res, err := lwt.Check(context.Background(), ops, lwt.Nil)
	if err != nil || !res.OK() {
		t.Fatalf("generated history: %v, %v", res, err)
	}
	if a := report.FromLWT(res, ops); a.Name != "" || a.Timeline != nil {
		t.Errorf("linearizable history: %+v", a)
	}
}
