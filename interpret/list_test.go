package interpret_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/isocheck/isocheck/check"
	"github.com/isocheck/isocheck/format"
	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/interpret"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/resolve"
	"github.com/isocheck/isocheck/verdict"
)

// TestListReports checks that reports on a history of lists show appends
// and whole lists, in text, JSON and DOT, both from the checker's
// evidence and from the minimal counterexample (whose sub-history is cut
// from the list history).
func TestListReports(t *testing.T) {
	h := listHistory(
		listTxn{id: "T1", session: "1", ops: []any{ap(":x", 1), ap(":y", 1)}},
		listTxn{id: "T2", session: "2", ops: []any{rl(":x", 1), rl(":y")}},
		listTxn{id: "T3", session: "3", ops: []any{ap(":z", 7), rl(":z", 7)}},
	)
	res, err := check.Check(context.Background(), h, level.SI)
	if err != nil {
		t.Fatal(err)
	}
	min, err := interpret.Minimal(context.Background(), res)
	if err != nil {
		t.Fatal(err)
	}
	for name, rep := range map[string]*interpret.Report{"explain": interpret.Explain(res), "minimal": min} {
		t.Run(name, func(t *testing.T) {
			var text, dot bytes.Buffer
			rep.WriteExplanation(&text, false)
			rep.WriteDOT(&dot)
			js, _ := json.Marshal(rep)
			for _, c := range []struct {
				what, got string
				want      []string
			}{
				{"text", text.String(), []string{
					"append(:x, 1) append(:y, 1)", "r(:x, [1]) r(:y, [])",
					"T2 read :x=[1], ending in T1's append of 1", "T2 read :y=[], without T1's append of 1",
				}},
				{"JSON", string(js), []string{`{"kind":"append","key":":x","value":1}`, `{"kind":"r","key":":x","value":[1]}`, `{"kind":"r","key":":y","value":[]}`}},
				{"DOT", dot.String(), []string{"append(:x, 1) append(:y, 1)", "r(:x, [1]) r(:y, [])", "B appended after the list A read", "B read a list ending in A's append"}},
			} {
				for _, w := range c.want {
					if !strings.Contains(c.got, w) {
						t.Errorf("%s lacks %q:\n%s", c.what, w, c.got)
					}
				}
			}
			if rep.Anomaly.ElleType != "G-single" {
				t.Errorf("Elle's name %q, want G-single", rep.Anomaly.ElleType)
			}
		})
	}
}

// TestListAnomalies checks the sentences and transactions of the
// anomalies of lists.
func TestListAnomalies(t *testing.T) {
	h := listHistory(
		listTxn{id: "T1", session: "1", ops: []any{ap("x", 1), ap("x", 2)}},
		listTxn{id: "T2", session: "2", ops: []any{ap("x", 3)}},
		listTxn{id: "T3", session: "3", ops: []any{rl("x", 1, 3, 2)}},
		listTxn{id: "T4", session: "4", ops: []any{rl("x", 3, 1)}},
		listTxn{id: "T5", session: "5", status: history.Aborted, ops: []any{ap("y", 9)}},
		listTxn{id: "T6", session: "6", ops: []any{rl("y", 9, 9, 8)}},
		listTxn{id: "T7", session: "7", ops: []any{rl("x", 1, 3)}},
	)
	for _, c := range []struct {
		a       resolve.Anomaly
		summary string
		elle    string
		txns    []string
	}{
		{resolve.Anomaly{Kind: verdict.SplitAppends, Txn: 2, Op: 3, Writer: 0, OtherTxn: -1, OtherOp: -1, Key: 0, Value: 3},
			"T3 read x=[1 3 2]: T2's append of 3 came between T1's appends of 1 and 2", "G0", []string{"T1", "T2", "T3"}},
		{resolve.Anomaly{Kind: verdict.SplitAppends, Txn: 6, Op: 7, Writer: 0, OtherTxn: -1, OtherOp: -1, Key: 0, Value: 1},
			"T7 read x=[1 3]: T2's append of 3 came after T1's append of 1, before its append of 2, which the list lacks", "G0", []string{"T1", "T2", "T7"}},
		{resolve.Anomaly{Kind: verdict.SplitAppends, Txn: 3, Op: 4, Writer: 0, OtherTxn: -1, OtherOp: -1, Key: 0, Value: 1},
			"T4 read x=[3 1], which holds only [1] of T1's appends to x, [1 2]", "G1b", []string{"T1", "T4"}},
		{resolve.Anomaly{Kind: verdict.IncompatibleOrder, Txn: 3, Op: 4, Writer: -1, OtherTxn: -1, OtherOp: 3, Key: 0},
			"T4 read x=[3 1] and T3 read x=[1 3 2]: neither list is a prefix of the other, so no order of the appends explains both", "incompatible-order", []string{"T3", "T4"}},
		{resolve.Anomaly{Kind: verdict.AbortedRead, Txn: 5, Op: 6, Writer: 4, OtherTxn: -1, OtherOp: 5, Key: 1, Value: 9},
			"T6 read y=[9 9 8], whose element 9 was appended by T5, which aborted", "G1a", []string{"T5", "T6"}},
		{resolve.Anomaly{Kind: verdict.ThinAirRead, Txn: 5, Op: 6, Writer: -1, OtherTxn: -1, OtherOp: -1, Key: 1, Value: 8},
			"T6 read y=[9 9 8], whose element 8 no transaction appended", "G1a", []string{"T6"}},
		{resolve.Anomaly{Kind: verdict.DuplicateElements, Txn: 5, Op: 6, Writer: 4, OtherTxn: -1, OtherOp: -1, Key: 1, Value: 9},
			"T6 read y=[9 9 8], which holds 9 more than once", "duplicate-elements", []string{"T5", "T6"}},
	} {
		rep := interpret.Explain(violation(h, level.SER, []resolve.Anomaly{c.a}, nil))
		a := rep.Anomaly
		var txns []string
		for _, x := range a.Txns {
			txns = append(txns, x.Name)
		}
		if a.Summary != c.summary || a.ElleType != c.elle || !slices.Equal(txns, c.txns) || a.Description == "" {
			t.Errorf("%v: summary %q, Elle %q, transactions %v, description %q\nwant %q, %q, %v", c.a.Kind, a.Summary, a.ElleType, txns, a.Description, c.summary, c.elle, c.txns)
		}
	}
}

// TestJepsenHistory checks a list-append history as Jepsen writes it
// (EDN), end to end: the report shows the operations as the file wrote
// them (keyword keys and values, appends, whole lists), and Elle's map
// gives each transaction its :index.
func TestJepsenHistory(t *testing.T) {
	src := `{:type :invoke, :f :txn, :value [[:append :x 1] [:append :y :a]], :process 0, :time 10, :index 0}
{:type :ok, :f :txn, :value [[:append :x 1] [:append :y :a]], :process 0, :time 20, :index 1}
{:type :invoke, :f :txn, :value [[:r :x nil] [:r :y nil]], :process 1, :time 30, :index 2}
{:type :ok, :f :txn, :value [[:r :x [1]] [:r :y []]], :process 1, :time 40, :index 3}
`
	h, err := format.Read(strings.NewReader(src), "history.edn", format.EDN)
	if err != nil {
		t.Fatal(err)
	}
	res, err := check.Check(context.Background(), h, level.SI)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	rep := interpret.Explain(res)
	rep.WriteText(&b)
	for _, want := range []string{
		"T1 (session 0, committed) append(:x, 1) append(:y, :a)  [history.edn:2]",
		"T3 (session 1, committed) r(:x, [1]) r(:y, [])  [history.edn:4]",
		"T3 read :y=[], without T1's append of :a",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, b.String())
		}
	}
	if rep.ElleRow(true) != "strong-session-snapshot-isolation\tfalse\tG-single" {
		t.Errorf("row %q", rep.ElleRow(true))
	}
	js, _ := json.Marshal(interpret.ElleResult(h, []*check.Result{res}, true))
	for _, want := range []string{
		`{"name":"T1","index":1,"source":"history.edn:2","process":0,"type":"ok","value":[["append",":x",1],["append",":y",":a"]]}`,
		`{"name":"T3","index":3,"source":"history.edn:4","process":1,"type":"ok","value":[["r",":x",[1]],["r",":y",[]]]}`,
		`{"type":"rw","key":":y","value":null,"value'":":a"}`,
		`{"type":"wr","key":":x","value":1}`,
	} {
		if !strings.Contains(string(js), want) {
			t.Errorf("Elle's map lacks %s:\n%s", want, js)
		}
	}
}

// TestJepsenListAnomalies checks Elle's names of the anomalies the
// checker finds in list-append histories as Jepsen writes them.
func TestJepsenListAnomalies(t *testing.T) {
	for _, c := range []struct {
		name  string
		txns  []string // the :value of each transaction's completion, one process each
		elle  string   // the report's
		types []string // Elle's map's
	}{
		{"another's append between", []string{"[[:append :x 1] [:append :x 2]]", "[[:append :x 3]]", "[[:r :x [1 3 2]]]"}, "G0", []string{"G0"}},
		{"another's append after a missing one", []string{"[[:append :x 1] [:append :x 2]]", "[[:append :x 3]]", "[[:r :x [1 3]]]"}, "G0", []string{"G0"}},
		{"appends swapped", []string{"[[:append :x 1] [:append :x 2]]", "[[:r :x [2 1]]]"}, "G1b", []string{"G1b"}},
		{"incompatible orders", []string{"[[:append :x 1]]", "[[:append :x 2]]", "[[:r :x [1 2]]]", "[[:r :x [2 1]]]"}, "incompatible-order", []string{"incompatible-order"}},
		{"duplicate elements", []string{"[[:append :x 1]]", "[[:r :x [1 1]]]"}, "duplicate-elements", []string{"duplicate-elements"}},
		{"an element nobody appended", []string{"[[:append :x 1]]", "[[:r :x [5 1]]]"}, "G1a", []string{"G1a"}},
		{"write cycle", []string{"[[:append :x 1] [:append :y 2]]", "[[:append :x 3] [:append :y 1]]", "[[:r :x [1 3]] [:r :y [1 2]]]"}, "G0", []string{"G0"}},
		{"own append not read", []string{"[[:append :x 1] [:r :x [2]]]", "[[:append :x 2]]"}, "internal", []string{"internal"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var src strings.Builder
			for p, v := range c.txns {
				fmt.Fprintf(&src, "{:type :invoke, :f :txn, :value %s, :process %d, :index %d}\n", v, p, 2*p)
				fmt.Fprintf(&src, "{:type :ok, :f :txn, :value %s, :process %d, :index %d}\n", v, p, 2*p+1)
			}
			h, err := format.Read(strings.NewReader(src.String()), "history.edn", format.EDN)
			if err != nil {
				t.Fatal(err)
			}
			res, err := check.Check(context.Background(), h, level.SER)
			if err != nil {
				t.Fatal(err)
			}
			rep, err := interpret.Minimal(context.Background(), res)
			if err != nil {
				t.Fatal(err)
			}
			if rep.Anomaly == nil || rep.Anomaly.ElleType != c.elle {
				t.Fatalf("report %+v, want Elle's %s", rep.Anomaly, c.elle)
			}
			if m := interpret.ElleResult(h, []*check.Result{res}, true); !slices.Equal(m.AnomalyTypes, c.types) {
				t.Errorf("anomaly types %v, want %v", m.AnomalyTypes, c.types)
			}
			var b bytes.Buffer
			rep.WriteText(&b)
			if !strings.Contains(b.String(), "history.edn:") || strings.Contains(b.String(), "w(") {
				t.Errorf("text:\n%s", b.String())
			}
		})
	}
}
