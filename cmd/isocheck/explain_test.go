package main

import (
	"bytes"
	"context"
	"encoding/json"
	"github.com/isocheck/isocheck/verdict"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/isocheck/isocheck/check"
	"github.com/isocheck/isocheck/format"
	"github.com/isocheck/isocheck/level"
)

// TestExplain runs explain and check on the shipped examples and checks
// the exit status and the heart of the output.
func TestExplain(t *testing.T) {
	tests := []struct {
		args []string
		code int
		want []string
	}{
		{[]string{"explain", "--level", "ser", "../../examples/write-skew.jsonl"}, exitViolated,
			[]string{"SER: VIOLATED: WriteSkew (G2-item)", "What happened", "Counterexample: 3 of the history's 3 transactions", "alice-leaves -RW bob_on_call-> bob-leaves"}},
		{[]string{"explain", "../../examples/lost-update.jsonl"}, exitViolated,
			[]string{"SI: VIOLATED: LostUpdate", "Neither order of the writes of balance by deposit-2 and withdraw works", "why:"}},
		{[]string{"explain", "../../examples/long-fork.jsonl"}, exitViolated, []string{"LongFork"}},
		{[]string{"explain", "../../examples/serializable.jsonl"}, exitSatisfied, []string{"SI: satisfied"}},
		{[]string{"check", "--level", "ser", "../../examples/write-skew.jsonl"}, exitViolated, []string{"SER: VIOLATED: WriteSkew", "cycle:", "transactions:"}},
		{[]string{"explain", "--color", "sometimes", "../../examples/write-skew.jsonl"}, exitBadInput, nil},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			code, out, errs := runCmd(tt.args...)
			if code != tt.code {
				t.Errorf("exit %d, want %d\n%s%s", code, tt.code, out, errs)
			}
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
			if strings.Contains(out, "\x1b[") {
				t.Errorf("colour written to a non-terminal:\n%s", out)
			}
		})
	}
}

// TestExplainFiles writes the counterexample, the JSON report and the
// DOT graph, and checks that the counterexample fails check on its own.
func TestExplainFiles(t *testing.T) {
	dir := t.TempDir()
	cex := filepath.Join(dir, "cex.jsonl")
	dot := filepath.Join(dir, "cex.dot")
	code, out, errs := runCmd("explain", "--json", "--counterexample", cex, "--dot", dot, "../../examples/lost-update.jsonl")
	if code != exitViolated {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	var rep struct {
		Level     string `json:"level"`
		Satisfied *bool  `json:"satisfied"`
		Anomaly   struct {
			Name    string           `json:"name"`
			Summary string           `json:"summary"`
			Txns    []map[string]any `json:"transactions"`
			Cycles  [][]map[string]any
			Edges   []map[string]any `json:"edges"`
			Minimal bool             `json:"minimal"`
		} `json:"anomaly"`
		Stats map[string]any `json:"stats"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if rep.Level != "SI" || rep.Satisfied == nil || *rep.Satisfied || rep.Anomaly.Name != "LostUpdate" || !rep.Anomaly.Minimal || len(rep.Anomaly.Edges) == 0 || rep.Stats["explain_ms"] == nil {
		t.Errorf("report %+v", rep)
	}
	if code, out, _ := runCmd("check", cex); code != exitViolated {
		t.Errorf("check of the counterexample: exit %d\n%s", code, out)
	}
	b, err := os.ReadFile(dot)
	if err != nil || !bytes.Contains(b, []byte("digraph")) {
		t.Errorf("DOT file: %v\n%s", err, b)
	}
	// The pictures, which need Graphviz: graphviz_test.go.
}

// TestCheckCounterexample checks that check --counterexample writes a
// counterexample that fails at the same level.
func TestCheckCounterexample(t *testing.T) {
	cex := filepath.Join(t.TempDir(), "cex.jsonl")
	if code, out, errs := runCmd("check", "--level", "ser", "--counterexample", cex, "../../examples/write-skew.jsonl"); code != exitViolated {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	h, err := format.ReadFile(cex, format.JSONL)
	if err != nil {
		t.Fatal(err)
	}
	res, err := check.Check(context.Background(), h, level.SER)
	if err != nil || res.Verdict != verdict.Violated || len(h.Txns) != 3 {
		t.Errorf("counterexample: %d transactions, verdict %v, %v", len(h.Txns), res.Verdict, err)
	}
}
