package interpret_test

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/isocheck/isocheck/check"
	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/internal/testkit/historytest"
	"github.com/isocheck/isocheck/interpret"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/verdict"
)

func minimal(t *testing.T, h *history.History, l level.Level) (*interpret.Report, *check.Result) {
	t.Helper()
	res, err := check.Check(context.Background(), h, l)
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != verdict.Violated {
		t.Fatalf("%v: verdict %v, want violated", l, res.Verdict)
	}
	rep, err := interpret.Minimal(context.Background(), res)
	if err != nil {
		t.Fatal(err)
	}
	return rep, res
}

// edgeSet writes a report's cycle edges as "T1 -WR x-> T2", sorted.
func edgeSet(a *interpret.Anomaly) []string {
	var out []string
	for _, c := range a.Cycles {
		for _, s := range c {
			label := s.Kind
			if s.Key != "" {
				label += " " + string(s.Key)
			}
			out = append(out, s.From+" -"+label+"-> "+s.To)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// TestNamedAnomalies checks, for a small history showing each anomaly,
// the name the report gives it, the transactions of the minimal
// counterexample and the edges of its cycles.
func TestNamedAnomalies(t *testing.T) {
	tests := []struct {
		name    string
		level   level.Level
		history string
		want    string   // anomaly name
		class   string   // Adya class
		elle    string   // Elle's name (ElleType)
		txns    []string // counterexample transactions
		edges   []string // cycle edges (nil: no cycle)
	}{
		{
			name: "MTC lost update", level: level.SI, elle: "lost-update", want: "LostUpdate", class: "G-single",
			history: `
{"session": 1, "id": "T1", "ops": [["r", "x", null], ["w", "x", 1]]}
{"session": 2, "id": "T2", "ops": [["r", "x", null], ["w", "x", 2]]}
{"session": 3, "id": "T3", "ops": [["r", "y", null]]}`,
			txns:  []string{"T1", "T2"},
			edges: []string{"T1 -RW x-> T2", "T1 -WW x-> T2", "T2 -RW x-> T1", "T2 -WW x-> T1"},
		},
		{
			name: "MTC write skew", level: level.SER, elle: "G2-item", want: "WriteSkew", class: "G2-item",
			history: `
{"session": 1, "id": "T1", "ops": [["r", "x", null], ["r", "y", null], ["w", "x", 1]]}
{"session": 2, "id": "T2", "ops": [["r", "x", null], ["r", "y", null], ["w", "y", 1]]}
{"session": 3, "id": "T3", "ops": [["w", "z", 1]]}`,
			txns:  []string{"T1", "T2"},
			edges: []string{"T1 -RW y-> T2", "T2 -RW x-> T1"},
		},
		{
			name: "MTC long fork", level: level.SI, elle: "G-nonadjacent", want: "LongFork", class: "G2",
			history: `
{"session": 1, "id": "T1", "ops": [["w", "x", 1]]}
{"session": 2, "id": "T2", "ops": [["w", "y", 1]]}
{"session": 3, "id": "T3", "ops": [["r", "x", 1], ["r", "y", null]]}
{"session": 4, "id": "T4", "ops": [["r", "x", null], ["r", "y", 1]]}`,
			txns:  []string{"T1", "T2", "T3", "T4"},
			edges: []string{"T1 -WR x-> T3", "T2 -WR y-> T4", "T3 -RW y-> T2", "T4 -RW x-> T1"},
		},
		{
			name: "MTC causality violation", level: level.SI, elle: "G-single", want: "CausalityViolation", class: "G-single",
			history: `
{"session": 1, "id": "T1", "ops": [["w", "x", 1]]}
{"session": 2, "id": "T2", "ops": [["r", "x", 1], ["w", "y", 1]]}
{"session": 3, "id": "T3", "ops": [["r", "y", 1], ["r", "x", null]]}`,
			txns:  []string{"T1", "T2", "T3"},
			edges: []string{"T1 -WR x-> T2", "T2 -WR y-> T3", "T3 -RW x-> T1"},
		},
		{
			name: "MTC session guarantee (read your writes)", level: level.SI, elle: "G-single-process", want: "SessionGuaranteeViolation", class: "G-single",
			history: `
{"session": 1, "id": "T1", "ops": [["w", "x", 1]]}
{"session": 2, "id": "T9", "ops": [["w", "z", 1]]}
{"session": 1, "id": "T2", "ops": [["r", "x", null]]}`,
			txns:  []string{"T1", "T2"},
			edges: []string{"T1 -SO-> T2", "T2 -RW x-> T1"},
		},
		{
			// Monotonic reads: a causal path (a read, then session
			// order), which CC forbids and RA allows.
			name: "session guarantee (monotonic reads)", level: level.SI, elle: "G-single-process", want: "CausalityViolation", class: "G-single",
			history: `
{"session": 1, "id": "T1", "ops": [["w", "x", 1], ["w", "y", 1]]}
{"session": 2, "id": "T2", "ops": [["r", "y", 1]]}
{"session": 2, "id": "T3", "ops": [["r", "x", null]]}`,
			txns:  []string{"T1", "T2", "T3"},
			edges: []string{"T1 -WR y-> T2", "T2 -SO-> T3", "T3 -RW x-> T1"},
		},
		{
			name: "fractured read", level: level.SI, elle: "G-single", want: "FracturedRead", class: "G-single",
			history: `
{"session": 1, "id": "T1", "ops": [["w", "x", 1], ["w", "y", 1]]}
{"session": 2, "id": "T2", "ops": [["r", "y", null], ["r", "x", 1]]}`,
			txns:  []string{"T1", "T2"},
			edges: []string{"T1 -WR x-> T2", "T2 -RW y-> T1"},
		},
		{
			name: "G1c circular information flow", level: level.SI, elle: "G1c", want: "G1c", class: "G1c",
			history: `
{"session": 1, "id": "T1", "ops": [["w", "x", 1], ["r", "y", 1]]}
{"session": 2, "id": "T2", "ops": [["w", "y", 1], ["r", "x", 1]]}`,
			txns:  []string{"T1", "T2"},
			edges: []string{"T1 -WR x-> T2", "T2 -WR y-> T1"},
		},
		{
			// Session order and a read alone close the cycle, with no
			// anti-dependency: information flowed in a circle (G1c; Elle's
			// G1c-process), no write was missed.
			name: "read from a later transaction of the session", level: level.SER, elle: "G1c-process", want: "G1c", class: "G1c",
			history: `
{"session": 1, "id": "T1", "ops": [["r", "x", 1]]}
{"session": 1, "id": "T2", "ops": [["w", "x", 1]]}`,
			txns:  []string{"T1", "T2"},
			edges: []string{"T1 -SO-> T2", "T2 -WR x-> T1"},
		},
		{
			name: "real-time violation", level: level.SSER, elle: "G-single-realtime", want: "RealTimeViolation",
			history: `
{"session": 1, "id": "T1", "ops": [["w", "x", 1]], "start": 0, "end": 10}
{"session": 2, "id": "T2", "ops": [["r", "x", null]], "start": 20, "end": 30}`,
			txns:  []string{"T1", "T2"},
			edges: []string{"T1 -RT-> T2", "T2 -RW x-> T1"},
		},
		{
			name: "thin-air read", level: level.SER, elle: "G1a", want: "ThinAirRead",
			history: `
{"session": 1, "id": "T1", "ops": [["w", "x", 1]]}
{"session": 2, "id": "T2", "ops": [["r", "x", 5]]}`,
			txns: []string{"T2"},
		},
		{
			name: "G1a aborted read", level: level.SI, elle: "G1a", want: "AbortedRead", class: "G1a",
			history: `
{"session": 1, "id": "T1", "status": "aborted", "ops": [["w", "x", 1]]}
{"session": 2, "id": "T2", "ops": [["r", "x", 1]]}`,
			txns: []string{"T1", "T2"},
		},
		{
			name: "G1b intermediate read", level: level.SI, elle: "G1b", want: "IntermediateRead", class: "G1b",
			history: `
{"session": 1, "id": "T1", "ops": [["w", "x", 1], ["w", "x", 2]]}
{"session": 2, "id": "T2", "ops": [["r", "x", 1]]}`,
			txns: []string{"T1", "T2"},
		},
		{
			name: "future read", level: level.SER, elle: "future-read", want: "FutureRead",
			history: `{"session": 1, "id": "T1", "ops": [["r", "x", 1], ["w", "x", 1]]}`,
			txns:    []string{"T1"},
		},
		{
			name: "not my own write", level: level.SER, elle: "internal", want: "NotMyOwnWrite",
			history: `
{"session": 1, "id": "T1", "ops": [["w", "x", 1], ["r", "x", 2]]}
{"session": 2, "id": "T2", "ops": [["w", "x", 2]]}`,
			txns: []string{"T1", "T2"},
		},
		{
			name: "not my last write", level: level.SER, elle: "internal", want: "NotMyLastWrite",
			history: `{"session": 1, "id": "T1", "ops": [["w", "x", 1], ["w", "x", 2], ["r", "x", 1]]}`,
			txns:    []string{"T1"},
		},
		{
			name: "non-repeatable read", level: level.SER, elle: "internal", want: "NonRepeatableRead",
			history: `
{"session": 1, "id": "T1", "ops": [["w", "x", 1]]}
{"session": 2, "id": "T2", "ops": [["r", "x", null], ["r", "x", 1]]}`,
			txns: []string{"T1", "T2"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep, _ := minimal(t, historytest.JSONL(t, tt.history), tt.level)
			a := rep.Anomaly
			if a.Name.String() != tt.want {
				t.Errorf("name %q, want %q", a.Name, tt.want)
			}
			if tt.class != "" && a.Class != tt.class {
				t.Errorf("class %q, want %q", a.Class, tt.class)
			}
			if a.ElleType != tt.elle {
				t.Errorf("Elle's name %q, want %q", a.ElleType, tt.elle)
			}
			var txns []string
			for _, x := range a.Txns {
				txns = append(txns, x.Name)
			}
			if !slices.Equal(txns, tt.txns) {
				t.Errorf("transactions %v, want %v", txns, tt.txns)
			}
			if got := edgeSet(a); !slices.Equal(got, tt.edges) {
				t.Errorf("edges\n  %v\nwant\n  %v", got, tt.edges)
			}
			if tt.want == "G1c" && tt.edges[0] == "T1 -SO-> T2" && !strings.HasPrefix(a.Summary, "T1 read T2's write of x, which its session ran after it") {
				t.Errorf("summary %q", a.Summary)
			}
			if !a.Minimal || a.Summary == "" || a.Description == "" {
				t.Errorf("minimal %v, summary %q, description %q", a.Minimal, a.Summary, a.Description)
			}
			for _, c := range a.Cycles {
				for _, s := range c {
					if s.Reason == "" {
						t.Errorf("edge %s -%s-> %s has no reason", s.From, s.Kind, s.To)
					}
				}
			}
			if t.Failed() {
				var b bytes.Buffer
				rep.WriteExplanation(&b, false)
				t.Log("\n" + b.String())
			}
		})
	}
}

// TestInferredEdge checks that an edge that follows from the order of two
// writes says which cycle the other order would close.
func TestInferredEdge(t *testing.T) {
	// A long fork whose anti-dependencies are both inferred: session
	// order puts A1's x before A2's and B1's y before B2's, so R2, which
	// read A1's x, read before A2's write, and R1 read before B2's. It
	// breaks PC, the weakest level that forbids it: checked at SI, the
	// report is PC's, in PC's terms.
	h := historytest.JSONL(t, `
{"session": 1, "id": "A1", "ops": [["w", "x", 1]]}
{"session": 1, "id": "A2", "ops": [["w", "x", 2]]}
{"session": 2, "id": "B1", "ops": [["w", "y", 1]]}
{"session": 2, "id": "B2", "ops": [["w", "y", 2]]}
{"session": 3, "id": "R1", "ops": [["r", "x", 2], ["r", "y", 1]]}
{"session": 4, "id": "R2", "ops": [["r", "x", 1], ["r", "y", 2]]}`)
	rep, _ := minimal(t, h, level.SI)
	a := rep.Anomaly
	if a.Name.String() != "LongFork" || len(a.Txns) != 6 || rep.ImpliedBy != "PC" {
		t.Errorf("name %q (as %q) with %d transactions, want LongFork as PC with 6", a.Name, rep.ImpliedBy, len(a.Txns))
	}
	var rw *interpret.Step
	for i, s := range a.Cycles[0] {
		if s.Kind == "RW" && s.From == "R2" {
			rw = &a.Cycles[0][i]
		}
	}
	if rw == nil {
		t.Fatalf("no RW edge in %+v", a.Cycles[0])
	}
	if !rw.Inferred || !strings.Contains(rw.Because, "A1's write of x must come before A2's") || !strings.Contains(rw.Because, "prefix consistency's rule") {
		t.Errorf("RW edge: inferred %v, because %q; want the order of A1's and A2's writes, by prefix consistency's rule", rw.Inferred, rw.Because)
	}
	if !strings.Contains(a.Summary, "derived by checking PC from prefix consistency") {
		t.Errorf("summary %q does not say the check of PC derived the order", a.Summary)
	}
}

// TestInferredEdgeCycle checks that an edge that follows from the order
// of two writes says which cycle the other order would close.
func TestInferredEdgeCycle(t *testing.T) {
	h := historytest.JSONL(t, `
{"session": 0, "id": "T0", "ops": [["w", 1, 1]]}
{"session": 2, "id": "T1", "ops": [["r", 1, 1], ["w", 0, 1]]}
{"session": 0, "id": "T3", "ops": [["r", 0, null], ["w", 1, 2]]}`)
	rep, _ := minimal(t, h, level.SER)
	var rw *interpret.Step
	for i, s := range rep.Anomaly.Cycles[0] {
		if s.Kind == "RW" && s.From == "T1" {
			rw = &rep.Anomaly.Cycles[0][i]
		}
	}
	if rw == nil {
		t.Fatalf("no RW edge from T1 in %+v", rep.Anomaly.Cycles[0])
	}
	if !rw.Inferred || !strings.Contains(rw.Because, "T0's write of key 1") {
		t.Errorf("RW edge: inferred %v, because %q; want the order of T0's and T3's writes", rw.Inferred, rw.Because)
	}
}

// TestConflict checks a violation that no single cycle shows: the report
// names the two writes and gives a cycle for each order.
func TestConflict(t *testing.T) {
	// A write skew whose second cycle rests on session order: T3's write
	// of key 1 before T0's would put T3 before T0, its session's first.
	h := historytest.JSONL(t, `
{"session": 0, "id": "T0", "ops": [["w", 1, 1]]}
{"session": 2, "id": "T1", "ops": [["r", 1, 1], ["w", 0, 1]]}
{"session": 0, "id": "T3", "ops": [["r", 0, null], ["w", 1, 2]]}`)
	rep, _ := minimal(t, h, level.SER)
	a := rep.Anomaly
	if a.Name.String() != "WriteSkew" || a.Constraint == nil || len(a.Cycles) != 2 || rep.ImpliedBy != "" {
		t.Fatalf("name %q (as %q), constraint %+v, %d cycles; want WriteSkew at SER itself with a constraint and 2 cycles", a.Name, rep.ImpliedBy, a.Constraint, len(a.Cycles))
	}
	if c := a.Constraint; c.Key != "1" || c.A != "T0" || c.B != "T3" {
		t.Errorf("constraint %+v, want key 1 between T0 and T3", c)
	}
	assumed := 0
	for _, c := range a.Cycles {
		for _, s := range c {
			if s.Inferred {
				assumed++
			}
		}
	}
	if assumed != 2 {
		t.Errorf("%d assumed edges, want one per cycle", assumed)
	}
}

// TestExplainJSON checks the JSON shape: the fields of check --json stay,
// and every edge has its kind, key, values and reason.
func TestExplainJSON(t *testing.T) {
	h := historytest.JSONL(t, `
{"session": 1, "id": "T1", "ops": [["r", "x", null], ["r", "y", null], ["w", "x", 1]]}
{"session": 2, "id": "T2", "ops": [["r", "x", null], ["r", "y", null], ["w", "y", 1]]}`)
	rep, _ := minimal(t, h, level.SER)
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	an, _ := m["anomaly"].(map[string]any)
	for _, k := range []string{"name", "summary", "transactions", "cycles", "edges", "class", "minimal"} {
		if _, ok := an[k]; !ok {
			t.Errorf("anomaly has no %q: %s", k, b)
		}
	}
	for _, e := range an["edges"].([]any) {
		e := e.(map[string]any)
		for _, k := range []string{"from", "to", "kind", "key", "from_value", "to_value", "reason"} {
			if _, ok := e[k]; !ok {
				t.Errorf("edge has no %q: %v", k, e)
			}
		}
	}
}

// TestDOT checks that the picture has every transaction, styled edges and
// the anomaly in its title.
func TestDOT(t *testing.T) {
	h := historytest.JSONL(t, `
{"session": 1, "id": "T1", "ops": [["r", "x", null], ["w", "x", 1]]}
{"session": 2, "id": "T2", "ops": [["r", "x", null], ["w", "x", 2]]}
{"session": 3, "id": "T3", "ops": [["w", "x", 3]]}`)
	rep, _ := minimal(t, h, level.SI)
	var b bytes.Buffer
	if err := rep.WriteDOT(&b); err != nil {
		t.Fatal(err)
	}
	dot := b.String()
	for _, want := range []string{"digraph", `<b>SI violated: LostUpdate`, `"T1" -> "T2"`, `"T2" -> "T1"`, "style=dashed", `color="red"`, `color="blue"`} {
		if !strings.Contains(dot, want) {
			t.Errorf("DOT lacks %q:\n%s", want, dot)
		}
	}
}

// TestExplainQuick checks the report built from the checker's evidence
// alone, as check prints it: the classic anomalies are named from the
// first cycle the checker finds, at the strong levels and at the weak
// ones (whose checker infers write orders into the initial state).
func TestExplainQuick(t *testing.T) {
	fractured := `
{"session": 1, "id": "T1", "ops": [["w", "x", 1], ["w", "y", 1]]}
{"session": 2, "id": "T2", "ops": [["r", "x", 1], ["r", "y", null]]}`
	cases := []struct {
		history string
		level   level.Level
		name    string
		text    []string
	}{
		{fractured, level.SI, "FracturedRead", []string{"SI: VIOLATED: FracturedRead", "T2 read y=null, which T1 overwrote with 1"}},
		{fractured, level.RA, "FracturedRead", []string{"RA: VIOLATED: FracturedRead", "T1 -WR x-> T2", "T2 read y=null, which T1 overwrote with 1"}},
		{`
{"session": 1, "id": "T1", "ops": [["w", "x", 1]]}
{"session": 1, "id": "T2", "ops": [["r", "x", null]]}`, level.RA, "SessionGuaranteeViolation",
			[]string{"T1 -SO-> T2", "T2 read x=null, which T1 overwrote with 1"}},
		{`
{"session": 1, "id": "T1", "ops": [["w", "x", 1]]}
{"session": 2, "id": "T2", "ops": [["r", "x", 1], ["w", "y", 1]]}
{"session": 3, "id": "T3", "ops": [["r", "y", 1], ["r", "x", null]]}`, level.CC, "CausalityViolation",
			[]string{"T1 -WR x-> T2", "T2 -WR y-> T3", "T3 read x=null, which T1 overwrote with 1"}},
		{`
{"session": 1, "id": "T1", "ops": [["w", "x", 1], ["w", "y", 1]]}
{"session": 2, "id": "T2", "ops": [["r", "y", 1], ["r", "x", null]]}`, level.RC, "",
			[]string{"RC: VIOLATED", "T1 -WR y-> T2", "T2 read x=null, which T1 overwrote with 1"}},
		// Three writers forced in a circle by three readers: whatever
		// their commit order, one reader missed a write it had observed.
		{`
{"session": 1, "id": "T1", "ops": [["w", "x", 1], ["w", "y", 1]]}
{"session": 2, "id": "T2", "ops": [["w", "y", 2], ["w", "z", 2]]}
{"session": 3, "id": "T3", "ops": [["w", "z", 3], ["w", "x", 3]]}
{"session": 4, "id": "Ra", "ops": [["r", "x", 1], ["r", "y", 2]]}
{"session": 5, "id": "Rb", "ops": [["r", "y", 2], ["r", "z", 3]]}
{"session": 6, "id": "Rc", "ops": [["r", "z", 3], ["r", "x", 1]]}`, level.RC, "NonMonotonicRead",
			[]string{"every choice closes one of the 3 cycles", "cycle 3:", "Ra read y=2, which T1 overwrote with 1", "Rc read x=1, which T3 overwrote with 3"}},
	}
	for _, c := range cases {
		h := historytest.JSONL(t, c.history)
		res, err := check.Check(context.Background(), h, c.level)
		if err != nil {
			t.Fatal(err)
		}
		rep := interpret.Explain(res)
		if rep.Anomaly == nil || len(rep.Anomaly.Cycles) == 0 || (c.name != "" && rep.Anomaly.Name.String() != c.name) {
			t.Errorf("%v: report %+v, want %s", c.level, rep.Anomaly, c.name)
			continue
		}
		var b bytes.Buffer
		rep.WriteText(&b)
		for _, want := range append(c.text, "cycle:", "transactions:") {
			if !strings.Contains(b.String(), want) {
				t.Errorf("%v: text lacks %q:\n%s", c.level, want, b.String())
			}
		}
	}
}
