package report_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/isocheck/isocheck/check"
	"github.com/isocheck/isocheck/draw"
	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/internal/testkit/historytest"
	"github.com/isocheck/isocheck/interpret"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/report"
	"github.com/isocheck/isocheck/verdict"
)

// The histories of the tests: a write skew (SER breaks it, SI keeps it),
// and an aborted read with a lost update and a write skew.
const (
	writeSkew = `
{"session": 1, "id": "alice", "ops": [["r", "x", null], ["r", "y", null], ["w", "x", 1]]}
{"session": 2, "id": "bob", "ops": [["r", "x", null], ["r", "y", null], ["w", "y", 1]]}`
	three = `
{"session": "a", "id": "abort", "status": "aborted", "ops": [["w", "z", 9]]}
{"session": "b", "id": "dirty", "ops": [["r", "z", 9]]}
{"session": "c", "id": "inc-1", "ops": [["r", "n", null], ["w", "n", 1]]}
{"session": "d", "id": "inc-2", "ops": [["r", "n", null], ["w", "n", 2]]}
{"session": "e", "id": "alice", "ops": [["r", "x", null], ["r", "y", null], ["w", "x", 1]]}
{"session": "f", "id": "bob", "ops": [["r", "x", null], ["r", "y", null], ["w", "y", 1]]}`
)

// checked checks h at l and returns the minimal report with the
// anomalies found listed, as isocheck explain makes it.
func checked(t *testing.T, h *history.History, l level.Level) (*check.Result, *interpret.Report) {
	t.Helper()
	ctx := context.Background()
	res, err := check.Check(ctx, h, l)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := interpret.Checked(ctx, res)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Anomalies, err = interpret.Every(ctx, h, res, rep); err != nil {
		t.Fatal(err)
	}
	return res, rep
}

// text joins a line's spans.
func text(l draw.Line) string {
	var b strings.Builder
	for _, s := range l {
		b.WriteString(s.Text)
	}
	return b.String()
}

// TestFromKV checks the anomaly of a report as a page shows it: its
// names, its picture, its transactions with their operations (marked as
// in the picture) and its dependencies with their reasons.
func TestFromKV(t *testing.T) {
	for _, c := range []struct {
		name, history string
		level         level.Level
		anomaly       string
		edges         []string // From Kind Key To, at least
		groups        []string // the titles of the groups of edges, in order
		times         bool     // the transactions say when they ran
	}{
		{"write skew", writeSkew, level.SER, "WriteSkew", []string{"alice RW y bob", "bob RW x alice"}, []string{"the cycle"}, false},
		{"aborted read", three, level.RC, "AbortedRead", []string{"abort WR z dirty"}, []string{"dependencies"}, false},
		{"cases of writers", `
{"session": "alice", "id": "T1", "ops": [["w","status","paid"],["w","invoice",1]]}
{"session": "bob", "id": "T2", "ops": [["w","status","paid"],["w","receipt",1]]}
{"session": "carol", "id": "T3", "ops": [["r","invoice",null],["r","receipt",null],["r","status","paid"]]}`,
			level.RA, "FracturedRead", []string{"T2 WR status T3", "T1 WR status T3"},
			[]string{`case 1: with T3 reading status="paid" from T2, FracturedRead`, `case 2: with T3 reading status="paid" from T1, FracturedRead`}, false},
		{"sources apart from the cycle, in real time", `
{"session": 0, "id": "setup", "ops": [["w", "a", 1], ["w", "b", 1]], "start": 0, "end": 10}
{"session": 1, "id": "alice", "ops": [["r", "a", 1], ["r", "b", 1], ["w", "a", 2]], "start": 20, "end": 30}
{"session": 2, "id": "bob", "ops": [["r", "a", 1], ["r", "b", 1], ["w", "b", 2]], "start": 20, "end": 30}`,
			level.SER, "WriteSkew", []string{"alice RW b bob", "setup WR a bob"}, []string{"the cycle", "where the values read came from"}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, rep := checked(t, historytest.JSONL(t, c.history), c.level)
			a := report.FromKV(rep)
			if a.Level != c.level.String() || a.Name != c.anomaly || a.Class == "" || a.Description == "" || a.Summary == "" || a.Minimal != (len(a.Shown) == 0) {
				t.Errorf("level %q, name %q, class %q, description %q, summary %q, minimal %v", a.Level, a.Name, a.Class, a.Description, a.Summary, a.Minimal)
			}
			if a.Graph == nil || !strings.Contains(a.Graph.Title, c.anomaly) {
				t.Fatalf("picture %+v", a.Graph)
			}
			nodes := map[string]draw.Node{}
			for _, l := range a.Graph.Lanes {
				for _, n := range l.Nodes {
					nodes[n.ID] = n
				}
			}
			if len(a.Txns) != len(rep.Anomaly.Txns) {
				t.Fatalf("%d transactions, want %d", len(a.Txns), len(rep.Anomaly.Txns))
			}
			for i, tx := range a.Txns {
				want := rep.Anomaly.Txns[i]
				if tx.Name != want.Name || tx.Session != string(want.Session) || tx.Position != want.Position || tx.Status != want.Status || tx.Where != want.Where {
					t.Errorf("transaction %+v, want %+v", tx, want)
				}
				if len(tx.Ops) != len(want.Ops) {
					t.Errorf("%s: %d operations, want %d", tx.Name, len(tx.Ops), len(want.Ops))
					continue
				}
				for j, op := range tx.Ops {
					if text(op) != want.Ops[j].String() {
						t.Errorf("%s: operation %q, want %q", tx.Name, text(op), want.Ops[j])
					}
				}
				if !slices.EqualFunc(tx.Ops, nodes[tx.Name].Lines, slices.Equal) {
					t.Errorf("%s: operations %v, but the picture's %v", tx.Name, tx.Ops, nodes[tx.Name].Lines)
				}
			}
			var edges, groups []string
			for _, e := range a.Edges {
				if !slices.Contains(edges, e.From+" "+e.Kind+" "+e.Key+" "+e.To) {
					edges = append(edges, e.From+" "+e.Kind+" "+e.Key+" "+e.To)
				}
				if e.Reason == "" {
					t.Errorf("%s -%s-> %s has no reason", e.From, e.Kind, e.To)
				}
				if len(groups) == 0 || groups[len(groups)-1] != e.Group {
					groups = append(groups, e.Group)
				}
			}
			for _, e := range c.edges {
				if !slices.Contains(edges, e) {
					t.Errorf("edges %q, want %q among them", edges, e)
				}
			}
			if len(edges) != len(a.Graph.Edges) {
				t.Errorf("%d edges listed, %d drawn", len(edges), len(a.Graph.Edges))
			}
			if !slices.Equal(groups, c.groups) {
				t.Errorf("groups of edges %q, want %q", groups, c.groups)
			}
			for _, tx := range a.Txns {
				if (tx.Times != "") != c.times {
					t.Errorf("%s: times %q, want them shown: %v", tx.Name, tx.Times, c.times)
				}
			}
		})
	}
}

// TestLevelRow checks the row of each verdict.
func TestLevelRow(t *testing.T) {
	ws := historytest.JSONL(t, writeSkew)
	for _, c := range []struct {
		level level.Level
		want  report.Level
	}{
		{level.SER, report.Level{Name: "SER", Verdict: verdict.Violated, Anomaly: "WriteSkew"}},
		{level.SI, report.Level{Name: "SI", Verdict: verdict.Satisfied}},
	} {
		_, rep := checked(t, ws, c.level)
		if got := report.LevelRow(rep); got != c.want {
			t.Errorf("%v: %+v, want %+v", c.level, got, c.want)
		}
	}
	no := &interpret.Report{Report: verdict.NewReport[interpret.Anomaly]("SER", verdict.Outcome{Reason: "timed out"})}
	if got, want := report.LevelRow(no), (report.Level{Name: "SER", Verdict: verdict.Unknown, Reason: "timed out"}); got != want {
		t.Errorf("no verdict: %+v, want %+v", got, want)
	}
}

// TestKVPage checks the page of one level with several anomalies found
// (each drawn, counted) and of several levels (the strongest kept, the
// anomaly of each violated level).
func TestKVPage(t *testing.T) {
	ctx := context.Background()
	h := historytest.JSONL(t, three)
	res, rep := checked(t, h, level.SER)
	found, err := interpret.FoundReports(ctx, h, res, rep)
	if err != nil {
		t.Fatal(err)
	}
	p := report.KVPage("three.jsonl", []*interpret.Report{rep}, found)
	if p.Title != "three.jsonl" || len(p.Levels) != 1 || p.Levels[0].Verdict != verdict.Violated || p.Strongest != "" {
		t.Errorf("title %q, levels %+v, strongest %q", p.Title, p.Levels, p.Strongest)
	}
	var names []string
	for i, a := range p.Anomalies {
		names = append(names, a.Name)
		if a.Graph == nil || len(a.Txns) == 0 || a.Count != rep.Anomalies[i].Count {
			t.Errorf("%s: picture %v, %d transactions, count %d (want %d)", a.Name, a.Graph != nil, len(a.Txns), a.Count, rep.Anomalies[i].Count)
		}
	}
	if want := []string{"AbortedRead", "LostUpdate", "WriteSkew"}; !slices.Equal(names, want) {
		t.Errorf("anomalies %v, want %v", names, want)
	}

	ws := historytest.JSONL(t, writeSkew)
	var levels []*interpret.Report
	for _, l := range []level.Level{level.SSER, level.SER, level.SI, level.PC} {
		_, r := checked(t, ws, l)
		levels = append(levels, r)
	}
	p = report.KVPage("write-skew.jsonl", levels, nil)
	if p.Strongest != "SI" {
		t.Errorf("strongest %q, want SI", p.Strongest)
	}
	var broken []string
	for _, a := range p.Anomalies {
		broken = append(broken, a.Level+" "+a.Name)
	}
	if want := []string{"SSER WriteSkew", "SER WriteSkew"}; !slices.Equal(broken, want) {
		t.Errorf("anomalies %v, want %v", broken, want)
	}
}

// TestKVFacts checks the statistics of a history.
func TestKVFacts(t *testing.T) {
	got := report.KVFacts(historytest.JSONL(t, three))
	want := []report.Fact{{"transactions", "6"}, {"committed", "5"}, {"aborted", "1"}, {"sessions", "6"}, {"keys", "4"}, {"operations", "12"}}
	if !slices.Equal(got, want) {
		t.Errorf("facts %v, want %v", got, want)
	}
}
