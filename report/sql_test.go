package report_test

import (
	"context"
	"strings"
	"testing"

	"github.com/isocheck/isocheck/format/sqljsonl"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/predicate"
	"github.com/isocheck/isocheck/report"
	"github.com/isocheck/isocheck/sqlcheck"
	"github.com/isocheck/isocheck/sqlhistory"
	"github.com/isocheck/isocheck/verdict"
)

func checkSQL(t *testing.T, path string) *sqlcheck.Result {
	t.Helper()
	h, err := sqljsonl.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	res, err := sqlcheck.Check(context.Background(), h)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestFromSQL: the anomaly of a SQL counterexample, as the page shows
// it: named as the text report names it, at a level that forbids it,
// with every transaction placed and its statements marked, and every
// dependency between transactions of the counterexample justified.
func TestFromSQL(t *testing.T) {
	for _, tc := range []struct {
		path    string
		name    verdict.Anomaly
		txns    []string // name@where
		assumed int      // dependencies that hold only under a choice
	}{
		{"../examples/sql-phantom-ser.jsonl", verdict.WriteSkew,
			[]string{"alice-leaves@sql-phantom-ser.jsonl:2", "bob-leaves@sql-phantom-ser.jsonl:3"}, 4},
		{"../sqlcheck/testdata/figure/phantom.jsonl", verdict.GSingle,
			[]string{"T2@phantom.jsonl:2", "T1@phantom.jsonl:3"}, 1},
		{"../sqlcheck/testdata/figure/aborted-read.jsonl", verdict.AbortedRead,
			[]string{"withdraw@aborted-read.jsonl:2", "audit@aborted-read.jsonl:3"}, 0},
	} {
		res := checkSQL(t, tc.path)
		a := report.FromSQL(res)
		rep := sqlcheck.Explain(res).Anomaly
		if a.Name != tc.name.String() || a.Name != rep.Name.String() || a.Level != rep.Level || a.Summary != rep.Summary || a.Class != rep.Class {
			t.Errorf("%s: %s %s (%s) %q, want %s as Explain has it: %+v", tc.path, a.Level, a.Name, a.Class, a.Summary, tc.name, rep)
		}
		if l, err := level.Parse(a.Level); err != nil || !verdict.Forbids(l, tc.name) {
			t.Errorf("%s: level %q does not forbid %s (%v)", tc.path, a.Level, a.Name, err)
		}
		if a.Graph == nil || a.Description == "" {
			t.Errorf("%s: no picture or description", tc.path)
		}
		var got []string
		names := map[string]bool{"init": true}
		marks := 0
		for _, txn := range a.Txns {
			got = append(got, txn.Name+"@"+txn.Where)
			names[txn.Name] = true
			if txn.Position < 1 || txn.Session == "" || txn.Status == "" {
				t.Errorf("%s: %s at %d of session %q, status %q", tc.path, txn.Name, txn.Position, txn.Session, txn.Status)
			}
			for _, l := range txn.Ops {
				for _, s := range l {
					if s.Mark {
						marks++
					}
				}
			}
		}
		if strings.Join(got, " ") != strings.Join(tc.txns, " ") {
			t.Errorf("%s: transactions %q, want %q", tc.path, got, tc.txns)
		}
		if marks == 0 {
			t.Errorf("%s: nothing marked in the statements", tc.path)
		}
		assumed := 0
		for _, e := range a.Edges {
			if !names[e.From] || !names[e.To] || e.Reason == "" || e.Kind == "" {
				t.Errorf("%s: edge %+v", tc.path, e)
			}
			if e.Assumed {
				assumed++
			}
		}
		if len(a.Edges) == 0 || assumed != tc.assumed {
			t.Errorf("%s: %d edges, %d assumed, want %d assumed", tc.path, len(a.Edges), assumed, tc.assumed)
		}
	}
}

// TestFromSQLSatisfied: a history that keeps its levels has no anomaly.
func TestFromSQLSatisfied(t *testing.T) {
	a := report.FromSQL(checkSQL(t, "../examples/sql-mixed-ok.jsonl"))
	if a.Name != "" || a.Graph != nil || len(a.Txns) != 0 {
		t.Errorf("satisfied history: %+v", a)
	}
}

// TestFromSQLStatements: every transaction of a counterexample of
// long transactions lists its statements, or counts those it leaves
// out, keeping those the violation rests on.
func TestFromSQLStatements(t *testing.T) {
	res := checkSQL(t, "../sqlcheck/testdata/tpcc2.jsonl")
	a := report.FromSQL(res)
	if len(a.Txns) != len(res.History.Txns) {
		t.Fatalf("%d transactions, want the counterexample's %d", len(a.Txns), len(res.History.Txns))
	}
	for i, txn := range a.Txns {
		if n := len(res.History.Txns[i].Events); len(txn.Ops)+txn.OmittedOps != n {
			t.Errorf("%s: %d statements and %d left out, want %d in all", txn.Name, len(txn.Ops), txn.OmittedOps, n)
		}
		for j, l := range txn.Ops {
			if txn.OmittedOps > 0 {
				break
			}
			e := res.History.Txns[i].Events[j]
			kind := e.Kind
			if e.Was != nil {
				kind = e.Was.Kind // a blind write: the statement recorded
			}
			if len(l) == 0 || !strings.HasPrefix(l[0].Text, strings.ToUpper(kind.String())) {
				t.Errorf("%s: statement %d is %v", txn.Name, j+1, l)
			}
		}
	}
}

// TestFromSQLOmitsStatements: a transaction of many statements keeps
// those the violation rests on and counts the others.
func TestFromSQLOmitsStatements(t *testing.T) {
	b := sqlhistory.NewBuilder("long.jsonl")
	row := predicate.Row{"id": predicate.Int(1)}
	if _, err := b.AddTxn(sqlhistory.TxnSpec{Name: "writer", Session: "1", Level: level.RC, Status: sqlhistory.Aborted,
		Events: []sqlhistory.EventSpec{{Kind: sqlhistory.Insert, Table: "a", Rows: []sqlhistory.RowSpec{{Key: "1", Write: "a1", Row: row}}}}}); err != nil {
		t.Fatal(err)
	}
	var events []sqlhistory.EventSpec
	for range 24 {
		events = append(events, sqlhistory.EventSpec{Kind: sqlhistory.Select, Table: "b", Where: predicate.MustParse("id = 2")})
	}
	events = append(events, sqlhistory.EventSpec{Kind: sqlhistory.Select, Table: "a", Where: predicate.MustParse("id = 1"),
		Rows: []sqlhistory.RowSpec{{Key: "1", Read: "a1"}}})
	if _, err := b.AddTxn(sqlhistory.TxnSpec{Name: "reader", Session: "2", Level: level.RC, Events: events}); err != nil {
		t.Fatal(err)
	}
	h, err := b.History()
	if err != nil {
		t.Fatal(err)
	}
	// Shrinking would leave the reads of no rows out.
	res, err := sqlcheck.CheckWith(context.Background(), h, sqlcheck.Options{NoShrink: true})
	if err != nil {
		t.Fatal(err)
	}
	a := report.FromSQL(res)
	if a.Name != verdict.AbortedRead.String() || len(a.Txns) != 2 {
		t.Fatalf("%s with %d transactions, want %s with 2", a.Name, len(a.Txns), verdict.AbortedRead)
	}
	r := a.Txns[1]
	if r.Name != "reader" || len(r.Ops) != 1 || r.OmittedOps != 24 {
		t.Fatalf("%s: %d statements, %d left out; want the marked one and 24", r.Name, len(r.Ops), r.OmittedOps)
	}
	if got := r.Ops[0]; len(got) != 2 || got[0].Text != "SELECT a WHERE id = 1 → " || got[1].Text != "a/1@a1 {id: 1}" || !got[1].Mark {
		t.Errorf("the aborted read is %+v", got)
	}
}
