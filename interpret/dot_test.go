package interpret_test

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/isocheck/isocheck/internal/testkit/historytest"
	"github.com/isocheck/isocheck/level"
)

// pictures are histories whose pictures have several edges between two
// transactions: write skew (an anti-dependency each way), a lost update
// (two orders of the writes, each with its own cycle) and a session
// guarantee violation (a constraint and session order).
var pictures = []struct {
	name    string
	level   level.Level
	history string
	dashed  bool // some edges hold only under one order of the writes
}{
	{"write skew", level.SER, `
{"session": 0, "id": "setup", "ops": [["w", "alice_on_call", 1], ["w", "bob_on_call", 1]]}
{"session": 1, "id": "alice-leaves", "ops": [["r", "alice_on_call", 1], ["r", "bob_on_call", 1], ["w", "alice_on_call", 2]]}
{"session": 2, "id": "bob-leaves", "ops": [["r", "alice_on_call", 1], ["r", "bob_on_call", 1], ["w", "bob_on_call", 2]]}`, false},
	{"lost update", level.SI, `
{"session": "alice", "id": "deposit-1", "ops": [["w", "balance", 100]]}
{"session": "alice", "id": "deposit-2", "ops": [["r", "balance", 100], ["w", "balance", 150]]}
{"session": "bob", "id": "withdraw", "ops": [["r", "balance", 100], ["w", "balance", 70]]}`, true},
	{"names to escape", level.SER, `
{"session": "<s> & \"t\"", "id": "a \"b\" <c> & \\d", "ops": [["r", "k<1>", null], ["w", "k&2", "v<&>\"\n"]]}
{"session": "é", "id": "]]> \\n", "ops": [["r", "k&2", null], ["w", "k<1>", 1]]}`, false},
	{"session guarantee", level.SI, `
{"session": 0, "id": 5, "ops": [["w", "x", 2]]}
{"session": 0, "id": 6, "ops": [["w", "x", 3]]}
{"session": 0, "id": 7, "ops": [["r", "x", 2]]}`, false},
	{"write skew through session order", level.SER, `
{"session": 0, "id": "T0", "ops": [["w", 1, 1]]}
{"session": 2, "id": "T1", "ops": [["r", 1, 1], ["w", 0, 1]]}
{"session": 0, "id": "T3", "ops": [["r", 0, null], ["w", 1, 2]]}`, true},
}

var dotEdge = regexp.MustCompile(`(?m)^  ("(?:[^"\\]|\\.)*") -> ("(?:[^"\\]|\\.)*") \[label=<(.*?)>, `)

// TestDOTLegendAndLabels checks the picture's DOT: a legend for the edge
// kinds it draws and for solid and dashed lines, a label on every edge
// that no other edge from and to the same transactions has (TestDOTLayout
// checks where they go), no session clusters, and dashed edges
// exactly for the dependencies that hold under one order of the writes.
func TestDOTLegendAndLabels(t *testing.T) {
	for _, p := range pictures {
		t.Run(p.name, func(t *testing.T) {
			rep, _ := minimal(t, historytest.JSONL(t, p.history), p.level)
			var b bytes.Buffer
			if err := rep.WriteDOT(&b); err != nil {
				t.Fatal(err)
			}
			dot := b.String()
			defer func() {
				if t.Failed() {
					t.Log("\n" + dot)
				}
			}()
			if !strings.Contains(dot, "<b>legend</b>") || !strings.Contains(dot, "labelloc=b") {
				t.Errorf("no legend below the picture")
			}
			kinds := map[string]bool{}
			for _, s := range rep.Anomaly.Edges {
				kinds[s.Kind] = true
			}
			for k := range kinds {
				if !strings.Contains(dot, "<b>"+k+"</b></font></td>") {
					t.Errorf("the legend lacks %s", k)
				}
			}
			if !strings.Contains(dot, ">solid<") {
				t.Errorf("the legend does not say what solid lines are")
			}
			if got := strings.Contains(dot, ">dashed<"); got != p.dashed {
				t.Errorf("legend of dashed lines: %v, want %v", got, p.dashed)
			}
			edges := dotEdge.FindAllStringSubmatch(dot, -1)
			if len(edges) != len(rep.Anomaly.Edges) {
				t.Fatalf("%d edges in the DOT, want %d", len(edges), len(rep.Anomaly.Edges))
			}
			labels := map[string]bool{}
			for i, e := range edges {
				s := rep.Anomaly.Edges[i]
				k := e[1] + " -> " + e[2] + " " + e[3]
				if e[3] == "" || labels[k] {
					t.Errorf("edge %s -> %s: label %q is empty or another edge's from and to the same", e[1], e[2], e[3])
				}
				labels[k] = true
				if !strings.HasPrefix(e[3], s.Kind) {
					t.Errorf("edge %s -> %s: label %q does not start with its kind %s", e[1], e[2], e[3], s.Kind)
				}
			}
			for _, line := range strings.Split(dot, "\n") {
				if strings.Contains(line, " -> ") && strings.Contains(line, "style=dashed") != strings.Contains(line, "if order") {
					t.Errorf("a dashed edge says no order, or an edge with an order is not dashed: %s", line)
				}
			}
			if strings.Contains(dot, "subgraph cluster_0") {
				t.Errorf("sessions are drawn as clusters, between which Graphviz draws opposite edges on top of each other")
			}
		})
	}
}
