package sqlcheck_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/isocheck/isocheck/draw"
	"github.com/isocheck/isocheck/format/sqljsonl"
	"github.com/isocheck/isocheck/internal/testkit/historytest"
	"github.com/isocheck/isocheck/sqlcheck"
	"github.com/isocheck/isocheck/verdict"
)

var updateFigures = flag.Bool("update", false, "rewrite the golden files of testdata/figure from the pictures")

// figureInputs are the SQL histories whose pictures are checked.
func figureInputs(t *testing.T) []string {
	t.Helper()
	var paths []string
	for _, pattern := range []string{"testdata/figure/*.jsonl", "testdata/tpcc*.jsonl", "../examples/sql-*.jsonl"} {
		m, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		paths = append(paths, m...)
	}
	if len(paths) < 8 {
		t.Fatalf("found %d histories: %v", len(paths), paths)
	}
	return paths
}

func checkFile(t *testing.T, path string, opts sqlcheck.Options) *sqlcheck.Result {
	t.Helper()
	h, err := sqljsonl.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// Shrinking is not bounded in time here: the goldens hold minimal
	// counterexamples, which a loaded machine must reach too.
	return sqlcheck.CheckUnbudgeted(t, h, opts)
}

// TestFigure: the picture of every counterexample shows each of its
// transactions, in its session's lane, with arrows between boxes that
// exist, under a title that names the anomaly; it matches its golden
// file.
func TestFigure(t *testing.T) {
	for _, path := range figureInputs(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			res := checkFile(t, path, sqlcheck.Options{})
			g := res.Graph()
			if res.Verdict != verdict.Violated {
				if g != nil {
					t.Fatalf("%v history: got a picture %q", res.Verdict, g.Title)
				}
				return
			}
			rep := sqlcheck.Explain(res).Anomaly
			if !strings.Contains(g.Title, " violated: "+rep.Name.String()) || !strings.HasPrefix(g.Title, rep.Level+" ") {
				t.Errorf("title %q does not name %s at %s", g.Title, rep.Name, rep.Level)
			}
			if len(g.Caption) == 0 || g.Caption[0] != rep.Summary {
				t.Errorf("caption %q, want the summary %q", g.Caption, rep.Summary)
			}
			nodes := checkNodes(t, g)
			for _, txn := range rep.Transactions {
				n, ok := nodes[txn.Name]
				if !ok {
					t.Errorf("transaction %s has no box", txn.Name)
					continue
				}
				if len(n.node.Lines) == 0 {
					t.Errorf("%s: no statements", txn.Name)
				}
				if want := "session " + string(txn.Session); n.lane != want {
					t.Errorf("%s is on lane %q, want %q", txn.Name, n.lane, want)
				}
				if !strings.HasPrefix(n.node.Sub, txn.Level+" · #") {
					t.Errorf("%s: sub %q does not begin with its level and place", txn.Name, n.node.Sub)
				}
			}
			checkEdges(t, g)
			checkNotes(t, g)
			golden(t, filepath.Join("testdata", "figure", strings.TrimSuffix(filepath.Base(path), ".jsonl")+".json"), g)
		})
	}
}

// TestFigureWholeHistory: without shrinking, the picture keeps only the
// transactions the violation involves.
func TestFigureWholeHistory(t *testing.T) {
	res := checkFile(t, "testdata/tpcc2.jsonl", sqlcheck.Options{NoShrink: true})
	g := res.Graph()
	if g == nil {
		t.Fatal("no picture of a violation")
	}
	nodes := checkNodes(t, g)
	if len(nodes) == 0 || len(nodes) >= len(res.History.Txns) {
		t.Errorf("%d boxes for a history of %d transactions", len(nodes), len(res.History.Txns))
	}
	shown := res.Shown()
	for _, i := range shown {
		if _, ok := nodes[res.History.TxnName(i)]; !ok {
			t.Errorf("%s is shown but has no box", res.History.TxnName(i))
		}
	}
	if _, init := nodes["init"]; len(shown) != len(nodes) && !(init && len(shown) == len(nodes)-1) {
		t.Errorf("%d transactions shown, %d boxes", len(shown), len(nodes))
	}
	checkEdges(t, g)
}

// TestFigureMarks: the rows the violation rests on are marked, in the
// boxes and in the full statements.
func TestFigureMarks(t *testing.T) {
	for _, tc := range []struct {
		file string
		txn  string
		want []string // marked spans of the box's lines
	}{
		// The phantom: T1's count missed the order T2 inserted.
		{"testdata/figure/phantom.jsonl", "T1", []string{"2", "2@o2"}},
		{"testdata/figure/phantom.jsonl", "T2", []string{"2@o2"}},
		// The aborted read: the version the audit read.
		{"testdata/figure/aborted-read.jsonl", "audit", []string{"a@a-1"}},
		// Write skew: each read the other's row at its initial version.
		{"../examples/sql-phantom-ser.jsonl", "bob-leaves", []string{"alice@alice-0", "bob@bob-1"}},
		{"../examples/sql-phantom-ser.jsonl", "alice-leaves", []string{"bob@bob-0", "alice@alice-1"}},
	} {
		res := checkFile(t, tc.file, sqlcheck.Options{})
		g := res.Graph()
		if g == nil {
			t.Fatalf("%s: no picture", tc.file)
		}
		n, ok := checkNodes(t, g)[tc.txn]
		if !ok {
			t.Fatalf("%s: no box for %s", tc.file, tc.txn)
		}
		var got []string
		for _, l := range n.node.Lines {
			for _, s := range l {
				if s.Mark {
					got = append(got, s.Text)
				}
			}
		}
		if strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("%s %s: marked %q, want %q", tc.file, tc.txn, got, tc.want)
		}
		idx := -1
		for i := range res.History.Txns {
			if res.History.TxnName(i) == tc.txn {
				idx = i
			}
		}
		full := 0
		for _, l := range res.Statements(idx) {
			for _, s := range l {
				if s.Mark {
					full++
				}
			}
		}
		if full != len(tc.want) {
			t.Errorf("%s %s: %d marks in the full statements, want %d", tc.file, tc.txn, full, len(tc.want))
		}
	}
}

type placed struct {
	lane string
	node draw.Node
}

// checkNodes checks that node IDs are unique and returns the nodes by
// title.
func checkNodes(t *testing.T, g *draw.Graph) map[string]placed {
	t.Helper()
	ids := map[string]bool{}
	byTitle := map[string]placed{}
	for _, l := range g.Lanes {
		if len(l.Nodes) == 0 {
			t.Errorf("lane %q is empty", l.Name)
		}
		for _, n := range l.Nodes {
			if ids[n.ID] {
				t.Errorf("two nodes %s", n.ID)
			}
			ids[n.ID] = true
			byTitle[n.Title] = placed{l.Name, n}
		}
	}
	return byTitle
}

// checkEdges checks that every edge joins two nodes, with a label and a
// reason.
func checkEdges(t *testing.T, g *draw.Graph) {
	t.Helper()
	ids := map[string]bool{}
	lines := map[string][]draw.Line{}
	for _, l := range g.Lanes {
		for _, n := range l.Nodes {
			ids[n.ID] = true
			lines[n.ID] = n.Lines
		}
	}
	if len(g.Edges) == 0 {
		t.Error("no edges")
	}
	attached := 0
	for _, e := range g.Edges {
		if !ids[e.From] || !ids[e.To] {
			t.Errorf("edge %s → %s (%s) joins a node that is not drawn", e.From, e.To, e.Label)
		}
		if e.Label == "" || e.Why == "" || e.Kind == "" {
			t.Errorf("edge %s → %s: kind %q, label %q, why %q", e.From, e.To, e.Kind, e.Label, e.Why)
		}
		// An arrow attached to a statement is attached to one that
		// marks a version of the row it is about.
		_, key, _ := strings.Cut(e.Label, " ")
		_, row, _ := strings.Cut(key, "/")
		for _, end := range []struct {
			node string
			line int
		}{{e.From, e.FromLine}, {e.To, e.ToLine}} {
			if end.line == 0 {
				continue
			}
			attached++
			ls := lines[end.node]
			if end.line > len(ls) || !slices.ContainsFunc(ls[end.line-1], func(s draw.Span) bool { return s.Mark && strings.HasPrefix(s.Text, row+"@") }) {
				t.Errorf("edge %s → %s (%s): attached to line %d of %s, which marks no version of %s", e.From, e.To, e.Label, end.line, end.node, row)
			}
		}
	}
	if attached == 0 && slices.ContainsFunc(g.Edges, func(e draw.Edge) bool { return strings.Contains(e.Label, "/") }) {
		t.Error("no arrow about a row is attached to a statement")
	}
}

// noteEdge matches an arrow a picture's note names: "A → B (KIND K".
var noteEdge = regexp.MustCompile(`([^\s,:()]+) → ([^\s,:()]+) \(([A-Z]+(?: [^\s,:()]+)?)`)

// checkNotes checks that each arrow g's notes name is one g draws, with
// the same ends and label: a note must not say one edge where the
// picture, and the page's table of dependencies, say another.
func checkNotes(t *testing.T, g *draw.Graph) {
	t.Helper()
	title := map[string]string{}
	for _, l := range g.Lanes {
		for _, n := range l.Nodes {
			title[n.ID] = n.Title
		}
	}
	drawn := map[string]bool{}
	for _, e := range g.Edges {
		drawn[title[e.From]+" → "+title[e.To]+" ("+e.Label] = true
	}
	for _, n := range g.Notes {
		for _, m := range noteEdge.FindAllStringSubmatch(n, -1) {
			if !drawn[m[0]] {
				t.Errorf("note %q names %s), which the picture does not draw", n, m[0])
			}
		}
	}
}

// golden compares g, as indented JSON, with the file at path, or rewrites
// it with -update.
func golden(t *testing.T, path string, g any) {
	t.Helper()
	got, err := json.MarshalIndent(g, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	if *updateFigures {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -run Figure -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("the picture differs from %s (run go test -run Figure -update and read the diff):\n%s", path, got)
	}
}

// TestFigureRandom: the pictures of the counterexamples of random
// histories, shrunk or whole, draw a box for every transaction shown and
// arrows only between boxes.
func TestFigureRandom(t *testing.T) {
	cfgs := []historytest.SQLConfig{
		{},
		{Txns: 7, Sessions: 3, Keys: 3, Tables: 1, Events: 3},
		{Txns: 5, Sessions: 2, Keys: 4, Tables: 1, Events: 4, FaultProb: -1},
	}
	shapes := map[string]int{}
	for seed := range 400 {
		rng := rand.New(rand.NewPCG(uint64(seed), 0xf16))
		h := historytest.RandomSQL(rng, cfgs[seed%len(cfgs)])
		for _, opts := range []sqlcheck.Options{{}, {NoShrink: true, Paper: true}} {
			res, err := sqlcheck.CheckWith(context.Background(), h, opts)
			if err != nil {
				t.Fatal(err)
			}
			g := res.Graph()
			if res.Verdict != verdict.Violated {
				continue
			}
			switch {
			case res.Either != nil:
				shapes["either"]++
			case res.Missed != nil:
				shapes["missed"]++
			case res.Cycle != nil:
				shapes["cycle"]++
			case len(res.Anomalies) > 0:
				shapes["anomaly"]++
			default:
				shapes["no order"]++
			}
			if name := sqlcheck.Explain(res).Anomaly.Name; !strings.Contains(g.Title, name.String()) {
				t.Errorf("seed %d: title %q does not name %s", seed, g.Title, name)
			}
			nodes := checkNodes(t, g)
			for _, i := range res.Shown() {
				if _, ok := nodes[res.History.TxnName(i)]; !ok {
					t.Errorf("seed %d: %s has no box", seed, res.History.TxnName(i))
				}
			}
			ids := map[string]bool{}
			for _, l := range g.Lanes {
				for _, n := range l.Nodes {
					ids[n.ID] = true
				}
			}
			for _, e := range g.Edges {
				if !ids[e.From] || !ids[e.To] || e.Why == "" {
					t.Errorf("seed %d: edge %+v", seed, e)
				}
			}
			checkNotes(t, g)
		}
	}
	t.Logf("violations by shape: %v", shapes)
	if shapes["cycle"] == 0 || shapes["anomaly"] == 0 {
		t.Errorf("violations by shape: %v, want cycles and anomalies among them", shapes)
	}
}
