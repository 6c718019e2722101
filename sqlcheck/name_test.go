package sqlcheck_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/predicate"
	"github.com/isocheck/isocheck/sqlcheck"
	"github.com/isocheck/isocheck/sqlhistory"
	"github.com/isocheck/isocheck/verdict"
)

// rereads is a history in which T2, at l, reads row x twice: first T1's
// version, then the initial one.
func rereads(t *testing.T, l level.Level) *sqlhistory.History {
	t.Helper()
	b := sqlhistory.NewBuilder("rereads")
	row := func(v int64) predicate.Row { return predicate.Row{"id": predicate.Int(1), "v": predicate.Int(v)} }
	if err := b.AddInitial("t", "x", "x0", row(0), 0); err != nil {
		t.Fatal(err)
	}
	byID := predicate.MustParse("id = 1")
	if _, err := b.AddTxn(sqlhistory.TxnSpec{Name: "T1", Session: "1", Level: level.SER, Events: []sqlhistory.EventSpec{
		{Kind: sqlhistory.Update, Table: "t", Where: byID, Rows: []sqlhistory.RowSpec{{Key: "x", Read: "x0", Write: "x1", Row: row(1)}}},
	}}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.AddTxn(sqlhistory.TxnSpec{Name: "T2", Session: "2", Level: l, Events: []sqlhistory.EventSpec{
		{Kind: sqlhistory.Select, Table: "t", Where: byID, Rows: []sqlhistory.RowSpec{{Key: "x", Read: "x1"}}},
		{Kind: sqlhistory.Select, Table: "t", Where: byID, Rows: []sqlhistory.RowSpec{{Key: "x", Read: "x0"}}},
	}}); err != nil {
		t.Fatal(err)
	}
	h, err := b.History()
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// TestNamesAreForbidden: at every level, a read that returned an older
// version than an earlier read of the same row is named with a name that
// level forbids, for the level of the reader, and drawn with the writer
// of each read.
func TestNamesAreForbidden(t *testing.T) {
	want := map[level.Level]verdict.Anomaly{
		level.SER: verdict.GSingle, level.SI: verdict.GSingle, level.PC: verdict.PrefixViolation,
		level.CC: verdict.CausalityViolation, level.RA: verdict.NonRepeatableRead, level.RC: verdict.NonMonotonicRead,
	}
	for _, l := range sqlhistory.Levels() {
		res, err := sqlcheck.Check(context.Background(), rereads(t, l))
		if err != nil {
			t.Fatal(err)
		}
		if res.Verdict != verdict.Violated {
			t.Errorf("%v: %v, want violated", l, res.Verdict)
			continue
		}
		a := sqlcheck.Explain(res).Anomaly
		if a.Level != l.String() || a.Name != want[l] || !verdict.Forbids(l, a.Name) {
			t.Errorf("%v: %s at %s, want %s, which %v forbids", l, a.Name, a.Level, want[l], l)
		}
		var dot strings.Builder
		if err := res.WriteDOT(&dot); err != nil {
			t.Fatal(err)
		}
		for _, edge := range []string{`t0 -> t1 [label="wr t/x"`, `init -> t1 [label="wr t/x"`} {
			if !strings.Contains(dot.String(), edge) {
				t.Errorf("%v: no %s in\n%s", l, edge, dot.String())
			}
		}
		if strings.Contains(dot.String(), "-> init") {
			t.Errorf("%v: an edge into init:\n%s", l, dot.String())
		}
	}
}

// TestValidate: a WHERE clause naming a column no row of its table has is
// an input error at its transaction's line.
func TestValidate(t *testing.T) {
	h := rereads(t, level.SER)
	if err := sqlcheck.Validate(h); err != nil {
		t.Fatalf("valid history: %v", err)
	}
	h.Txns[1].Line = 7
	h.Txns[1].Events[1].Where = predicate.MustParse("idd = 1 OR v = 2")
	err := sqlcheck.Validate(h)
	var in *sqlhistory.InputError
	if !errors.As(err, &in) || in.Line != 7 || !strings.Contains(err.Error(), "column idd,") && !strings.Contains(err.Error(), "column idd ") {
		t.Errorf("got %v, want an input error at line 7 naming column idd", err)
	}
}

// TestDOTNoOrder: a violation no single cycle shows is drawn with the
// dependencies every commit order must follow, not as boxes alone.
func TestDOTNoOrder(t *testing.T) {
	h := rereads(t, level.SER)
	res := &sqlcheck.Result{Outcome: verdict.Outcome{Verdict: verdict.Violated}, NoOrder: true, History: h}
	var dot strings.Builder
	if err := res.WriteDOT(&dot); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(dot.String(), `t0 -> t1 [label="wr t/x"`) || !strings.Contains(dot.String(), "VIOLATED") {
		t.Errorf("no dependency or title in\n%s", dot.String())
	}
}

// TestLostUpdate: two serializable transactions that both update the
// initial version of a row are a LostUpdate, not a write skew.
func TestLostUpdate(t *testing.T) {
	b := sqlhistory.NewBuilder("lost")
	row := func(v int64) predicate.Row { return predicate.Row{"id": predicate.Int(1), "v": predicate.Int(v)} }
	if err := b.AddInitial("t", "x", "x0", row(0), 0); err != nil {
		t.Fatal(err)
	}
	for i, name := range []string{"T1", "T2"} {
		if _, err := b.AddTxn(sqlhistory.TxnSpec{Name: name, Session: name, Level: level.SER, Events: []sqlhistory.EventSpec{
			{Kind: sqlhistory.Update, Table: "t", Where: predicate.MustParse("id = 1"),
				Rows: []sqlhistory.RowSpec{{Key: "x", Read: "x0", Write: name, Row: row(int64(i + 1))}}},
		}}); err != nil {
			t.Fatal(err)
		}
	}
	h, err := b.History()
	if err != nil {
		t.Fatal(err)
	}
	res, err := sqlcheck.Check(context.Background(), h)
	if err != nil {
		t.Fatal(err)
	}
	if a := sqlcheck.Explain(res).Anomaly; a == nil || a.Name != verdict.LostUpdate || a.Level != "SER" {
		t.Errorf("%v, %+v; want a LostUpdate at SER", res.Verdict, a)
	}
}
