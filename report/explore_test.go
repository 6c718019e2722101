package report_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/isocheck/isocheck/draw"
	"github.com/isocheck/isocheck/explore"
	"github.com/isocheck/isocheck/explore/apps"
	"github.com/isocheck/isocheck/format"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/report"
)

// TestFromExplore checks the page's anomaly of courseware explored at RC,
// where two sessions both take course 0's one seat: every transaction of
// the broken history is a node with its reads and writes, every read
// that saw another transaction's write (or the initial state) is a WR
// edge from it (drawn as one arrow per pair of transactions), each
// session's transactions are joined by SO edges, and the detail holds
// the assertion broken and the history, which reads back.
func TestFromExplore(t *testing.T) {
	app, ok := apps.Lookup("courseware")
	if !ok {
		t.Fatal("no courseware")
	}
	res, err := explore.Explore(context.Background(), app.Program(2, 2, 1), explore.Options{Level: level.RC, StopAtFailure: true})
	if err != nil {
		t.Fatal(err)
	}
	h := res.First
	if h == nil {
		t.Fatal("courseware keeps its assertions at RC")
	}
	a, err := report.FromExplore(res)
	if err != nil {
		t.Fatal(err)
	}
	g := a.Graph
	if a.Name != report.BrokenAssertion || a.Count < 1 || g == nil || !strings.Contains(g.Title, "RC") {
		t.Fatalf("name %q, count %d, picture %+v", a.Name, a.Count, g)
	}
	nodes := map[string]draw.Node{}
	lanes := 0
	for _, l := range g.Lanes {
		if l.Name != "initial state" {
			lanes++
		}
		for _, n := range l.Nodes {
			nodes[n.ID] = n
		}
	}
	sessions := map[int]int{}
	for _, tx := range h.Txns {
		sessions[tx.ID.Session]++
	}
	if lanes != len(sessions) {
		t.Errorf("%d lanes of sessions, want %d", lanes, len(sessions))
	}
	if len(a.Txns) != len(h.Txns) {
		t.Errorf("%d transactions listed, want %d", len(a.Txns), len(h.Txns))
	}
	edges := map[string]bool{}
	for _, e := range g.Edges {
		for _, end := range []string{e.From, e.To} {
			if _, ok := nodes[end]; !ok {
				t.Errorf("edge %s -%s-> %s: %s is no node", e.From, e.Kind, e.To, end)
			}
		}
		// A read's arrow leaves the write of its key and enters the read.
		if e.Kind == draw.WR {
			key, _, _ := strings.Cut(strings.TrimPrefix(e.Label, "WR "), ", ")
			for _, end := range []struct {
				node, want string
				line       int
			}{{e.From, key, e.FromLine}, {e.To, "r(" + key + ")", e.ToLine}} {
				ls := nodes[end.node].Lines
				if end.line < 1 || end.line > len(ls) || !strings.Contains(ls[end.line-1][0].Text, end.want) {
					t.Errorf("edge %s -%s-> %s: attached to line %d of %s, not to its operation on %s", e.From, e.Label, e.To, end.line, end.node, key)
				}
			}
		}
	}
	for _, e := range a.Edges {
		edges[e.From+" "+e.Kind+" "+e.Key+" "+e.To] = true
		if !slices.ContainsFunc(g.Edges, func(d draw.Edge) bool {
			return d.From == e.From && d.To == e.To && d.Kind == e.Kind && strings.Contains(d.Label, e.Key)
		}) {
			t.Errorf("%s -%s %s-> %s is not drawn", e.From, e.Kind, e.Key, e.To)
		}
	}
	name := map[explore.TxnID]string{explore.Init: "init"}
	for _, tx := range a.Txns {
		name[idOf(t, tx.Where)] = tx.Name
	}
	wantSO := 0
	for _, tx := range h.Txns {
		n, ok := nodes[name[tx.ID]]
		if !ok {
			t.Errorf("%s (%s) is no node", tx.ID, tx.Name)
			continue
		}
		ops := 0
		for _, e := range tx.Events {
			if e.Kind != explore.Read && e.Kind != explore.Write {
				continue
			}
			ops++
			if e.Kind == explore.Read && !e.Internal && !edges[name[e.From]+" WR "+e.Key+" "+name[tx.ID]] {
				t.Errorf("%s read %s from %s: no WR edge", name[tx.ID], e.Key, e.From)
			}
		}
		if len(n.Lines) != ops+len(tx.Failures) {
			t.Errorf("%s: %d lines, want %d operations and %d assertions", n.ID, len(n.Lines), ops, len(tx.Failures))
		}
		if len(tx.Failures) > 0 && !marked(n) {
			t.Errorf("%s broke an assertion, but nothing of it is marked", n.ID)
		}
		if tx.ID.Index > 0 {
			wantSO++
		}
	}
	so := 0
	for _, e := range a.Edges {
		if e.Kind == draw.SO {
			so++
		}
	}
	if wantSO == 0 {
		t.Error("no session ran two transactions: session order is not tested")
	}
	if so != wantSO {
		t.Errorf("%d SO edges, want %d", so, wantSO)
	}
	for _, f := range h.Failures() {
		if !strings.Contains(a.Detail, f) || !slices.Contains(g.Caption, f) {
			t.Errorf("the assertion %q is not in the detail and the caption:\n%s", f, a.Detail)
		}
	}
	_, jsonl, ok := strings.Cut(a.Detail, "The history (native JSONL):\n")
	if !ok {
		t.Fatalf("the detail has no history:\n%s", a.Detail)
	}
	kv, err := format.Read(strings.NewReader(jsonl), "history", format.JSONL)
	if err != nil || len(kv.Txns) != len(h.Txns) {
		t.Errorf("the detail's history does not read back: %v\n%s", err, jsonl)
	}

	if t.Failed() {
		b, _ := json.MarshalIndent(a, "", "  ")
		t.Logf("the anomaly:\n%s", b)
	}
	res.First = nil
	if _, err := report.FromExplore(res); err == nil {
		t.Error("an exploration without a broken history gives no error")
	}
}

// idOf parses a TxnID as TxnID.String writes it ("s0.t1").
func idOf(t *testing.T, s string) explore.TxnID {
	var id explore.TxnID
	if _, err := fmt.Sscanf(s, "s%d.t%d", &id.Session, &id.Index); err != nil {
		t.Fatalf("transaction place %q: %v", s, err)
	}
	return id
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
