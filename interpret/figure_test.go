package interpret_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/isocheck/isocheck/check"
	"github.com/isocheck/isocheck/draw"
	"github.com/isocheck/isocheck/format"
	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/internal/testkit/historytest"
	"github.com/isocheck/isocheck/internal/textsafe"
	"github.com/isocheck/isocheck/interpret"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/verdict"
)

// figureDir holds the pictures of the example histories' minimal
// counterexamples, as the JSON of their draw.Graph.
const figureDir = "testdata/figure"

// figureCase is a history to draw at a level.
type figureCase struct {
	name  string // of the golden file; "" for none
	h     *history.History
	level level.Level
}

// figureCases returns the histories of the golden tests (the examples at
// the levels they break, testdata/every) and of the DOT tests, at the
// levels they break.
func figureCases(t *testing.T) []figureCase {
	t.Helper()
	var cases []figureCase
	names := make([]string, 0, len(explainLevels))
	for name := range explainLevels {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		h, ok := readKeyValueExample(t, name)
		if !ok {
			continue
		}
		stem := strings.TrimSuffix(name, filepath.Ext(name))
		for _, l := range explainLevels[name] {
			cases = append(cases, figureCase{stem + "-" + strings.ToLower(l.String()), h, l})
		}
	}
	three, err := format.ReadFile("testdata/every/three.jsonl", format.JSONL)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range []level.Level{level.SER, level.SI, level.RC} {
		cases = append(cases, figureCase{"three-" + strings.ToLower(l.String()), three, l})
	}
	for _, p := range pictures {
		cases = append(cases, figureCase{"", historytest.JSONL(t, p.history), p.level})
	}
	return cases
}

// TestFigureGraph checks the picture of every violation of figureCases,
// from the checker's evidence (Explain) and from a minimal counterexample
// (Minimal): the title names the level and the anomaly, every transaction
// is a node with its operations as its lines, every dependency of every
// cycle is an edge between nodes, lanes read in order, and dashed edges
// are the assumed ones. The minimal counterexample's picture is compared
// with testdata/figure/NAME.json (-update writes it).
func TestFigureGraph(t *testing.T) {
	ctx := context.Background()
	golden := map[string]bool{}
	for _, c := range figureCases(t) {
		res, err := check.Check(ctx, c.h, c.level)
		if err != nil {
			t.Fatal(err)
		}
		if res.Verdict != verdict.Violated {
			continue
		}
		min, err := interpret.Minimal(ctx, res)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range []struct {
			what string
			rep  *interpret.Report
		}{{"explain", interpret.Explain(res)}, {"minimal", min}} {
			t.Run(c.name+"/"+c.level.String()+"/"+r.what, func(t *testing.T) {
				g := r.rep.Graph()
				checkGraph(t, r.rep, g)
				if t.Failed() {
					b, _ := json.MarshalIndent(g, "", "  ")
					t.Logf("the graph:\n%s", b)
				}
				if r.what == "minimal" && c.name != "" {
					path := filepath.Join(figureDir, c.name+".json")
					golden[path] = true
					b, err := json.MarshalIndent(g, "", "  ")
					if err != nil {
						t.Fatal(err)
					}
					compareGolden(t, path, string(b)+"\n")
				}
			})
		}
	}
	stale, err := filepath.Glob(filepath.Join(figureDir, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range stale {
		if !golden[path] {
			t.Errorf("%s draws no case of figureCases: remove it", path)
		}
	}
}

// checkGraph checks g, the picture of rep.
func checkGraph(t *testing.T, rep *interpret.Report, g *draw.Graph) {
	t.Helper()
	a := rep.Anomaly
	if g == nil {
		t.Fatal("no graph of a violation")
	}
	if want := rep.Level + " violated: " + textsafe.Escape(a.Name.String()); !strings.HasPrefix(g.Title, want) {
		t.Errorf("title %q, want it to start with %q", g.Title, want)
	}
	nodes := map[string]draw.Node{}
	for _, l := range g.Lanes {
		for i, n := range l.Nodes {
			if _, dup := nodes[n.ID]; dup {
				t.Errorf("two nodes %q", n.ID)
			}
			nodes[n.ID] = n
			if i > 0 && n.Order < l.Nodes[i-1].Order {
				t.Errorf("lane %q: %s (order %d) after %s (order %d)", l.Name, n.ID, n.Order, l.Nodes[i-1].ID, l.Nodes[i-1].Order)
			}
		}
	}
	for _, tx := range a.Txns {
		name := textsafe.Escape(tx.Name)
		n, ok := nodes[name]
		if !ok {
			joined := slices.ContainsFunc(g.Edges, func(e draw.Edge) bool { return e.From == name || e.To == name })
			noted := slices.ContainsFunc(g.Notes, func(n string) bool { return strings.Contains(n, "left out of the picture") })
			if joined || !noted {
				t.Errorf("transaction %s is not a node (joined by an edge: %v; the notes say some are left out: %v)", name, joined, noted)
			}
			continue
		}
		if len(n.Lines) != len(tx.Ops) {
			t.Errorf("%s: %d lines, want its %d operations", name, len(n.Lines), len(tx.Ops))
			continue
		}
		for i, line := range n.Lines {
			var text strings.Builder
			for _, s := range line {
				text.WriteString(s.Text)
			}
			if want := tx.Ops[i].String(); !elidedFrom(text.String(), textsafe.Escape(want)) {
				t.Errorf("%s: line %d is %q, want %q", name, i, text.String(), want)
			}
		}
		if (tx.Status != "committed") != (n.Status != "") {
			t.Errorf("%s: status %q drawn as %q", name, tx.Status, n.Status)
		}
	}
	for _, e := range g.Edges {
		for _, end := range []string{e.From, e.To} {
			if _, ok := nodes[end]; !ok {
				t.Errorf("edge %s -%s-> %s: %s is no node", e.From, e.Kind, e.To, end)
			}
		}
		if !strings.HasPrefix(e.Label, e.Kind) || e.Why == "" {
			t.Errorf("edge %s -%s-> %s: label %q, why %q", e.From, e.Kind, e.To, e.Label, e.Why)
		}
		// An arrow attached to an operation is attached to one of its
		// key (the label's second word).
		key, _, _ := strings.Cut(strings.TrimPrefix(e.Label, e.Kind+" "), " (")
		for _, end := range []struct {
			node string
			line int
		}{{e.From, e.FromLine}, {e.To, e.ToLine}} {
			n, ok := nodes[end.node]
			if !ok || end.line == 0 || key == "" || key == e.Label {
				continue
			}
			if end.line > len(n.Lines) {
				t.Errorf("edge %s -%s-> %s: line %d of %s, which has %d", e.From, e.Label, e.To, end.line, end.node, len(n.Lines))
				continue
			}
			var text strings.Builder
			for _, sp := range n.Lines[end.line-1] {
				text.WriteString(sp.Text)
			}
			if !strings.Contains(text.String(), key) {
				t.Errorf("edge %s -%s-> %s: attached to %s's line %d, %q, not an operation on %s", e.From, e.Label, e.To, end.node, end.line, text.String(), key)
			}
		}
	}
	assumed := false
	for _, c := range a.Cycles {
		for _, s := range c {
			assumed = assumed || s.Assumed
			label := s.Kind
			if s.Key != "" {
				label += " " + textsafe.Escape(string(s.Key))
			}
			found := false
			for _, e := range g.Edges {
				if e.From == textsafe.Escape(s.From) && e.To == textsafe.Escape(s.To) && e.Kind == s.Kind && strings.HasPrefix(e.Label, label) {
					found = true
				}
			}
			if !found {
				t.Errorf("the cycle's %s -%s-> %s is no edge", s.From, label, s.To)
			}
		}
	}
	// Edges that hold in some cases of writer choices only are dashed
	// too, and so are each case's cycles edges.
	for _, c := range a.Cases {
		for _, cy := range c.Cycles {
			for _, s := range cy {
				found := slices.ContainsFunc(g.Edges, func(e draw.Edge) bool {
					return e.From == textsafe.Escape(s.From) && e.To == textsafe.Escape(s.To) && e.Kind == s.Kind
				})
				if !found {
					t.Errorf("case %v: the cycle's %s -%s-> %s is no edge", c.Picks, s.From, s.Kind, s.To)
				}
			}
		}
	}
	assumed = assumed || len(a.Cases) > 1
	dashed := slices.ContainsFunc(g.Edges, func(e draw.Edge) bool { return e.Dashed })
	if dashed != assumed {
		t.Errorf("dashed edges %v, assumed steps %v", dashed, assumed)
	}
	if len(g.Edges) > 0 && !slices.ContainsFunc(g.Lanes, func(l draw.Lane) bool {
		return slices.ContainsFunc(l.Nodes, func(n draw.Node) bool { return marked(n) })
	}) {
		t.Errorf("no value marked")
	}
}

// marked reports whether some span of n is marked.
func marked(n draw.Node) bool {
	for _, l := range n.Lines {
		for _, s := range l {
			if s.Mark {
				return true
			}
		}
	}
	return false
}

// TestFigureNonCycle checks the pictures of anomalies without a cycle:
// the read and the write it read, with the dependency between them, the
// writer's status, and the values marked (the elements, in a read of a
// list); a read of a value none of the transactions wrote marked, with a
// note when nothing else is drawn.
func TestFigureNonCycle(t *testing.T) {
	for _, c := range []struct {
		name, history string
		level         level.Level
		edge          string // From Kind To, "" for none
		marked        []string
		status        string // of the writer
	}{
		{"aborted read", `
{"session": "a", "id": "abort", "status": "aborted", "ops": [["w", "z", 9]]}
{"session": "b", "id": "dirty", "ops": [["r", "z", 9]]}`, level.RC, "abort WR dirty", []string{"w(z,9)", "r(z,9)"}, "aborted"},
		{"intermediate read", `
{"session": "a", "id": "twice", "ops": [["w", "z", 1], ["w", "z", 2]]}
{"session": "b", "id": "early", "ops": [["r", "z", 1]]}`, level.RC, "twice WR early", []string{"w(z,1)", "r(z,1)"}, ""},
		{"thin-air read", `
{"session": "a", "id": "ghost", "ops": [["r", "z", 7]]}`, level.RC, "", []string{"r(z,7)"}, ""},
		{"duplicate elements", `
{:type :invoke, :f :txn, :value [[:append :x 1]], :process 0, :index 0}
{:type :ok, :f :txn, :value [[:append :x 1]], :process 0, :index 1}
{:type :invoke, :f :txn, :value [[:r :x nil]], :process 1, :index 2}
{:type :ok, :f :txn, :value [[:r :x [1 1]]], :process 1, :index 3}`, level.SER, "T1 WR T3", []string{"append(:x, 1)", "1", "1"}, ""},
		{"an element nobody appended", `
{:type :invoke, :f :txn, :value [[:append :x 1]], :process 0, :index 0}
{:type :ok, :f :txn, :value [[:append :x 1]], :process 0, :index 1}
{:type :invoke, :f :txn, :value [[:r :x nil]], :process 1, :index 2}
{:type :ok, :f :txn, :value [[:r :x [5 1]]], :process 1, :index 3}`, level.SER, "T1 WR T3", []string{"append(:x, 1)", "5", "1"}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			var h *history.History
			if strings.HasPrefix(c.history, "\n{:") {
				var err error
				if h, err = format.Read(strings.NewReader(c.history), "history.edn", format.EDN); err != nil {
					t.Fatal(err)
				}
			} else {
				h = historytest.JSONL(t, c.history)
			}
			rep, _ := minimal(t, h, c.level)
			g := rep.Graph()
			checkGraph(t, rep, g)
			var edges []string
			for _, e := range g.Edges {
				edges = append(edges, e.From+" "+e.Kind+" "+e.To)
			}
			switch {
			case c.edge == "" && len(edges) > 0:
				t.Errorf("edges %v, want none", edges)
			case c.edge != "" && !slices.Contains(edges, c.edge):
				t.Errorf("edges %v, want %s", edges, c.edge)
			}
			if c.edge == "" && len(g.Notes) == 0 {
				t.Errorf("no edge and no note")
			}
			var got []string
			for _, l := range g.Lanes {
				for _, n := range l.Nodes {
					for _, line := range n.Lines {
						for _, s := range line {
							if s.Mark {
								got = append(got, s.Text)
							}
						}
					}
					if c.status != "" && c.edge != "" && n.ID == strings.Fields(c.edge)[0] && n.Status != c.status {
						t.Errorf("writer %s drawn %q, want %q", n.ID, n.Status, c.status)
					}
				}
			}
			slices.Sort(got)
			slices.Sort(c.marked)
			if !slices.Equal(got, c.marked) {
				t.Errorf("marked %q, want %q", got, c.marked)
			}
			if !strings.Contains(g.Title, rep.Anomaly.Name.String()) {
				t.Errorf("title %q does not name %s", g.Title, rep.Anomaly.Name)
			}
		})
	}
}

// TestFigureListElement checks that a picture of a history of lists marks
// the element of a list read that a dependency rests on, not the whole
// read.
func TestFigureListElement(t *testing.T) {
	h, _ := readKeyValueExample(t, "jepsen-list-append.edn")
	rep, _ := minimal(t, h, level.SER)
	g := rep.Graph()
	found := false
	for _, l := range g.Lanes {
		for _, n := range l.Nodes {
			for _, line := range n.Lines {
				if len(line) > 1 && strings.HasPrefix(line[0].Text, "r(") && slices.ContainsFunc(line, func(s draw.Span) bool { return s.Mark }) {
					found = true
				}
			}
		}
	}
	if !found {
		b, _ := json.MarshalIndent(g, "", "  ")
		t.Errorf("no read of a list with an element marked:\n%s", b)
	}
}

// TestFigureSatisfied checks that a report without a violation has no
// picture.
func TestFigureSatisfied(t *testing.T) {
	h, _ := readKeyValueExample(t, "serializable.jsonl")
	res, err := check.Check(context.Background(), h, level.SER)
	if err != nil {
		t.Fatal(err)
	}
	if g := interpret.Explain(res).Graph(); g != nil {
		t.Errorf("a satisfied level drawn: %+v", g)
	}
}

// TestFigureInitialState checks that a dependency on the initial state
// puts it on a lane of its own on top, with the value read marked.
func TestFigureInitialState(t *testing.T) {
	f := false
	rep := &interpret.Report{Report: verdict.Report[interpret.Anomaly]{Level: "SER", Summary: verdict.Summary{Satisfied: &f, Verdict: "violated"}, Anomaly: &interpret.Anomaly{
		Finding: verdict.Finding{Name: verdict.GSingle, Summary: "T1 read x's initial value, which T2 overwrote"},
		Txns: []interpret.TxnInfo{
			{Name: "T1", Session: "1", Position: 1, Status: "committed", Where: "h.jsonl:1", Index: 0,
				Ops: []interpret.Op{{Kind: "r", Key: "x", Value: interpret.NullValue()}, {Kind: "w", Key: "y", Value: interpret.IntValue(1)}}},
			{Name: "T2", Session: "2", Position: 1, Status: "committed", Where: "h.jsonl:2", Index: 1,
				Ops: []interpret.Op{{Kind: "r", Key: "y", Value: interpret.IntValue(1)}, {Kind: "w", Key: "x", Value: interpret.IntValue(2)}}},
		},
		Cycles: [][]interpret.Step{{
			{From: "T1", To: "T2", Kind: "RW", Key: "x", FromValue: interpret.NullValue(), ToValue: interpret.IntValue(2), Reason: "T1 read x=null, which T2 overwrote with 2"},
			{From: "T2", To: "T1", Kind: "WR", Key: "y", FromValue: interpret.IntValue(1), ToValue: interpret.IntValue(1), Reason: "T1 read y=1 written by T2"},
		}},
		Edges: []interpret.Step{
			{From: "init", To: "T1", Kind: "WR", Key: "x", FromValue: interpret.NullValue(), ToValue: interpret.NullValue(), Reason: "T1 read the initial x=null"},
		},
	}}}
	g := rep.Graph()
	checkGraph(t, rep, g)
	if len(g.Lanes) != 3 || g.Lanes[0].Name != "initial state" || len(g.Lanes[0].Nodes) != 1 {
		t.Fatalf("lanes %+v, want the initial state's on top", g.Lanes)
	}
	init := g.Lanes[0].Nodes[0]
	if init.ID != "init" || !marked(init) || init.Order >= g.Lanes[1].Nodes[0].Order {
		t.Errorf("the initial state %+v, want init, its value marked, first", init)
	}
	if !slices.ContainsFunc(g.Edges, func(e draw.Edge) bool { return e.From == "init" && e.To == "T1" && e.Label == "WR x" }) {
		t.Errorf("edges %+v, want init -WR x-> T1", g.Edges)
	}
}

// TestFigureCycleFirst: in a picture of several cycles one of which every
// order of the writes closes, the dependencies not in every cycle are
// named by their cycles' numbers, as the text numbers them, and what is
// shown beside the cycles (where a value read came from) is faded.
func TestFigureCycleFirst(t *testing.T) {
	step := func(from, to, kind string) interpret.Step {
		return interpret.Step{From: from, To: to, Kind: kind, Key: "x", Reason: from + " " + kind + " " + to}
	}
	txn := func(name string) interpret.TxnInfo {
		return interpret.TxnInfo{Name: name, Session: verdict.ID(name), Position: 1, Status: "committed"}
	}
	a := &interpret.Anomaly{
		Finding: verdict.Finding{Name: verdict.G2, Class: "G2", Summary: "two cycles"},
		Txns:    []interpret.TxnInfo{txn("T0"), txn("T1"), txn("T2"), txn("T3")},
		Cycles: [][]interpret.Step{
			{step("T1", "T2", "RW"), step("T2", "T1", "WW")},
			{step("T1", "T2", "RW"), step("T2", "T3", "WW"), step("T3", "T1", "WW")},
		},
		Edges: []interpret.Step{step("T0", "T1", "WR")},
	}
	g := (&interpret.Report{Report: verdict.Report[interpret.Anomaly]{Level: "SER", Anomaly: a}}).Graph()
	labels := map[string]string{}
	context := map[string]bool{}
	for _, e := range g.Edges {
		labels[e.From+"-"+e.To] = e.Label
		context[e.From+"-"+e.To] = e.Context
	}
	want := map[string]string{"T1-T2": "RW x", "T2-T1": "WW x (cycle 1)", "T2-T3": "WW x (cycle 2)", "T3-T1": "WW x (cycle 2)", "T0-T1": "WR x"}
	for k, l := range want {
		if labels[k] != l {
			t.Errorf("edge %s labelled %q, want %q", k, labels[k], l)
		}
		if context[k] != (k == "T0-T1") {
			t.Errorf("edge %s faded: %v, want it faded only if outside every cycle", k, context[k])
		}
	}
	for _, l := range g.Lanes {
		for _, n := range l.Nodes {
			if n.Context != (n.ID == "T0") {
				t.Errorf("node %s faded: %v, want only T0, in no cycle, faded", n.ID, n.Context)
			}
		}
	}
}

// elidedFrom reports whether line is want, or want with runs of a
// list's elements cut to their ends ("1 … 80").
func elidedFrom(line, want string) bool {
	if !strings.Contains(line, " … ") {
		return line == want
	}
	pattern := strings.ReplaceAll(regexp.QuoteMeta(line), " … ", " (?:[^ ]+ )*")
	return regexp.MustCompile("^" + pattern + "$").MatchString(want)
}

// TestFigureLongLists: an incompatible order seen through lists of
// hundreds of appends, whose counterexample holds every appender of the
// lists' shared prefix, is too large to draw whole; its picture draws the
// two reads that part and the appends they part on, marks those, cuts
// the shared prefix out of the lines, and says what it left out.
func TestFigureLongLists(t *testing.T) {
	const shared = 80
	var b strings.Builder
	var list []string
	for i := 1; i <= shared; i++ {
		list = append(list, fmt.Sprint(i))
		fmt.Fprintf(&b, `{"session": "loader", "id": "load%d", "ops": [["append", "x", %d], ["r", "x", [%s]]]}`+"\n", i, i, strings.Join(list, ","))
	}
	prefix := strings.Join(list, ",")
	fmt.Fprintf(&b, `{"session": "a", "id": "a", "ops": [["append", "x", 1001]]}`+"\n")
	fmt.Fprintf(&b, `{"session": "c", "id": "c", "ops": [["r", "x", [%s,1001]]]}`+"\n", prefix)
	fmt.Fprintf(&b, `{"session": "d", "id": "d", "ops": [["append", "x", 2001], ["r", "x", [%s,2001]]]}`+"\n", prefix)
	rep, _ := minimal(t, historytest.JSONL(t, b.String()), level.SER)
	if rep.Anomaly.Name != verdict.IncompatibleOrder {
		t.Fatalf("anomaly %v, want %v", rep.Anomaly.Name, verdict.IncompatibleOrder)
	}
	if len(rep.Anomaly.Txns) < shared {
		t.Fatalf("the counterexample has %d transactions: not the case of a picture too large", len(rep.Anomaly.Txns))
	}
	g := rep.Graph()
	checkGraph(t, rep, g)
	var nodes, marks []string
	for _, l := range g.Lanes {
		for _, n := range l.Nodes {
			nodes = append(nodes, n.ID)
			for _, line := range n.Lines {
				text := ""
				for _, s := range line {
					text += s.Text
					if s.Mark {
						marks = append(marks, s.Text)
					}
				}
				if strings.HasPrefix(text, "r(") && !strings.Contains(text, "1 … 80") {
					t.Errorf("%s: the read %q, its shared prefix not cut", n.ID, text)
				}
			}
		}
	}
	slices.Sort(nodes)
	if want := []string{"a", "c", "d"}; !slices.Equal(nodes, want) {
		t.Errorf("drawn %v, want %v", nodes, want)
	}
	for _, want := range []string{"1001", "2001"} {
		if !slices.Contains(marks, want) {
			t.Errorf("%s not marked among %q", want, marks)
		}
	}
	if len(g.Edges) != 1 || g.Edges[0].From != "a" || g.Edges[0].To != "c" {
		t.Errorf("edges %+v, want a WR c", g.Edges)
	}
	notes := strings.Join(g.Notes, "\n")
	for _, want := range []string{
		"left out of the picture: the 80 appends to x that both its last reads hold in the same order ([1 2 3 … 79 80])",
		fmt.Sprintf("%d more transactions of the counterexample", len(rep.Anomaly.Txns)-3),
	} {
		if !strings.Contains(notes, want) {
			t.Errorf("no %q in the notes:\n%s", want, notes)
		}
	}
}
