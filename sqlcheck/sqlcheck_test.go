package sqlcheck_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/predicate"
	"github.com/isocheck/isocheck/sqlcheck"
	"github.com/isocheck/isocheck/sqlhistory"
	"github.com/isocheck/isocheck/verdict"
)

// doctors builds the on-call history: two doctors are on call; each of two
// transactions checks that both are, and takes one off call. Levels a and
// b are the two transactions'; see says how many on-call rows the second
// one's SELECT returned (2: it did not see the first's update; 1: it did).
func doctors(t *testing.T, a, b level.Level, see int) *sqlhistory.History {
	t.Helper()
	bld := sqlhistory.NewBuilder("doctors")
	row := func(id int64, on bool) predicate.Row {
		return predicate.Row{"id": predicate.Int(id), "on_call": predicate.Bool(on)}
	}
	for _, id := range []string{"1", "2"} {
		n := int64(id[0] - '0')
		if err := bld.AddInitial("doctors", id, "init-"+id, row(n, true), 0); err != nil {
			t.Fatal(err)
		}
	}
	onCall := predicate.MustParse("on_call = TRUE")
	txn := func(name, session string, lvl level.Level, reads []sqlhistory.RowSpec, id string, read string) sqlhistory.TxnSpec {
		n := int64(id[0] - '0')
		return sqlhistory.TxnSpec{Name: name, Session: session, Level: lvl, Events: []sqlhistory.EventSpec{
			{Kind: sqlhistory.Select, Table: "doctors", Where: onCall, Rows: reads},
			{Kind: sqlhistory.Update, Table: "doctors", Where: predicate.MustParse("id = " + id),
				Rows: []sqlhistory.RowSpec{{Key: id, Read: read, Write: name + "-" + id, Row: row(n, false)}}},
		}}
	}
	both := []sqlhistory.RowSpec{{Key: "1", Read: "init-1"}, {Key: "2", Read: "init-2"}}
	if _, err := bld.AddTxn(txn("T1", "a", a, both, "1", "init-1")); err != nil {
		t.Fatal(err)
	}
	second := both
	if see == 1 {
		second = []sqlhistory.RowSpec{{Key: "2", Read: "init-2"}}
	}
	if _, err := bld.AddTxn(txn("T2", "b", b, second, "2", "init-2")); err != nil {
		t.Fatal(err)
	}
	h, err := bld.History()
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func TestDoctors(t *testing.T) {
	for _, tc := range []struct {
		a, b    level.Level
		see     int
		want    verdict.Verdict
		anomaly string
	}{
		// Write skew: both saw two doctors on call.
		{level.SER, level.SER, 2, verdict.Violated, "WriteSkew"},
		{level.SER, level.RC, 2, verdict.Satisfied, ""}, // T1, then T2 reading stale rows at RC
		{level.SI, level.SI, 2, verdict.Satisfied, ""},
		{level.RC, level.RC, 2, verdict.Satisfied, ""},
		// T2 saw T1's update: T1 then T2, serial.
		{level.SER, level.SER, 1, verdict.Satisfied, ""},
	} {
		h := doctors(t, tc.a, tc.b, tc.see)
		res, err := sqlcheck.Check(context.Background(), h)
		if err != nil {
			t.Fatal(err)
		}
		if res.Verdict != tc.want {
			t.Errorf("%v+%v, saw %d: %v, want %v", tc.a, tc.b, tc.see, res.Verdict, tc.want)
			continue
		}
		if tc.want != verdict.Violated {
			continue
		}
		rep := sqlcheck.Explain(res)
		if rep.Anomaly == nil || rep.Anomaly.Name.String() != tc.anomaly {
			t.Errorf("%v+%v: anomaly %+v, want %q", tc.a, tc.b, rep.Anomaly, tc.anomaly)
		}
		var b strings.Builder
		rep.WriteText(&b)
		t.Logf("%v+%v:\n%s", tc.a, tc.b, b.String())
	}
}

// TestReportJSON: the head of the JSON report, which the command line
// prints as it is.
func TestReportJSON(t *testing.T) {
	for _, c := range []struct {
		o    verdict.Outcome
		want string
	}{
		{verdict.Outcome{Verdict: verdict.Satisfied}, `{"level":"per transaction","satisfied":true,"verdict":"satisfied"}`},
		{verdict.Outcome{Reason: "timed out", Stopped: true}, `{"level":"per transaction","satisfied":null,"verdict":"no verdict","reason":"timed out"}`},
	} {
		b, err := json.Marshal(sqlcheck.Explain(&sqlcheck.Result{Outcome: c.o}))
		if err != nil || string(b) != c.want {
			t.Errorf("%v: %s, %v; want %s", c.o, b, err, c.want)
		}
	}
	h := doctors(t, level.SER, level.SER, 2)
	res, err := sqlcheck.Check(context.Background(), h)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(sqlcheck.Explain(res))
	if want := `{"level":"per transaction","satisfied":false,"verdict":"violated","anomaly":{"name":"WriteSkew","class":"G2-item"`; err != nil || !strings.HasPrefix(string(b), want) {
		t.Errorf("violated: %s, %v; want it to begin %s", b, err, want)
	}
}
