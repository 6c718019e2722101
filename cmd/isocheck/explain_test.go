package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/isocheck/isocheck/check"
	"github.com/isocheck/isocheck/format"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/progress"
	"github.com/isocheck/isocheck/verdict"
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

// TestExplanationCutShort: when the run's limit ends the explanation of a
// violation (here at once, as the stage "explain" begins: explainContext
// ends its context as a timeout or a memory limit would), check,
// explain and --level all still print the verdict and the anomaly of the
// checker's evidence, say that the explanation was cut short, at which
// limit and in which stage, claim no minimal counterexample, and exit
// with the status of a violation; --json says it in a field. It sets a
// hook of the package: it must not run in parallel.
func TestExplanationCutShort(t *testing.T) {
	endWith := func(cause error) {
		explainContext = func(ctx context.Context) context.Context {
			ctx, cancel := context.WithCancelCause(ctx)
			cancel(cause)
			return ctx
		}
	}
	t.Cleanup(func() { explainContext = nil })
	memory := fmt.Errorf("%w: resident memory 2.0GiB went past --max-memory 1GiB", progress.ErrResourceLimit)
	const ws = "../../examples/write-skew.jsonl"
	tests := []struct {
		cause error
		args  []string
		want  []string
	}{
		{context.DeadlineExceeded, []string{"check", "--level", "ser", "--timeout", "1h", ws},
			[]string{"SER: VIOLATED: WriteSkew", "cycle:", "note: explanation cut short at --timeout: the counterexample shown is the checker's evidence, not shrunk to a minimal one", "the other anomalies of the history are not listed", "timed out after 1h0m0s in stage explain"}},
		{context.DeadlineExceeded, []string{"explain", "--level", "ser", "--timeout", "1h", ws},
			[]string{"SER: VIOLATED: WriteSkew", "The cycle", "explanation cut short at --timeout", "in stage explain"}},
		{context.DeadlineExceeded, []string{"check", "--level", "all", "--timeout", "1h", ws},
			[]string{"weakest level broken: SER", "SER: VIOLATED: WriteSkew", "explanation cut short at --timeout", "in stage explain"}},
		{memory, []string{"check", "--level", "ser", "--max-memory", "1TiB", ws},
			[]string{"SER: VIOLATED: WriteSkew", "explanation cut short at --max-memory", "went past --max-memory 1GiB", "in stage explain", "allow more with --max-memory"}},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			endWith(tt.cause)
			code, out, errs := runCmd(tt.args...)
			if code != exitViolated {
				t.Errorf("exit %d, want %d\n%s%s", code, exitViolated, out, errs)
			}
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
			if strings.Contains(out, "of the history's 3 transactions; without any one of them") {
				t.Errorf("a cut short explanation claims a minimal counterexample:\n%s", out)
			}
		})
	}

	t.Run("json", func(t *testing.T) {
		endWith(context.DeadlineExceeded)
		code, out, errs := runCmd("check", "--level", "ser", "--timeout", "1h", "--json", ws)
		if code != exitViolated {
			t.Fatalf("exit %d, want %d\n%s%s", code, exitViolated, out, errs)
		}
		var rep struct {
			Satisfied *bool `json:"satisfied"`
			CutShort  bool  `json:"explanation_cut_short"`
			Anomaly   struct {
				Name    string   `json:"name"`
				Minimal bool     `json:"minimal"`
				Notes   []string `json:"notes"`
			} `json:"anomaly"`
			Stats struct {
				Stage string `json:"stage"`
			} `json:"stats"`
		}
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("%v:\n%s", err, out)
		}
		if rep.Satisfied == nil || *rep.Satisfied || rep.Anomaly.Name != "WriteSkew" || !rep.CutShort || rep.Anomaly.Minimal || rep.Stats.Stage != "explain" {
			t.Errorf("satisfied %v, anomaly %q, cut short %v, minimal %v, stage %q; want false, WriteSkew, true, false, explain", rep.Satisfied, rep.Anomaly.Name, rep.CutShort, rep.Anomaly.Minimal, rep.Stats.Stage)
		}
		if !slices.ContainsFunc(rep.Anomaly.Notes, func(n string) bool { return strings.HasPrefix(n, "explanation cut short at --timeout") }) {
			t.Errorf("no note says the explanation was cut short: %q", rep.Anomaly.Notes)
		}
	})

	t.Run("counterexample", func(t *testing.T) {
		endWith(context.DeadlineExceeded)
		cex := filepath.Join(t.TempDir(), "cex.jsonl")
		code, out, errs := runCmd("check", "--level", "ser", "--timeout", "1h", "--counterexample", cex, ws)
		if code != exitViolated || !strings.Contains(out, "VIOLATED") {
			t.Errorf("exit %d, want %d\n%s%s", code, exitViolated, out, errs)
		}
		if !strings.Contains(errs, "cut short before a minimal counterexample was found, nothing written") {
			t.Errorf("stderr does not say why no counterexample was written: %q", errs)
		}
		if _, err := os.Stat(cex); err == nil {
			t.Errorf("a counterexample written although the shrinking was cut short")
		}
	})

	// Without the hook, the same run is not cut short.
	explainContext = nil
	code, out, _ := runCmd("explain", "--level", "ser", "--timeout", "1h", ws)
	if code != exitViolated || strings.Contains(out, "cut short") || !strings.Contains(out, "of the history's 3 transactions; without any one of them") {
		t.Errorf("explain with time to spare: exit %d\n%s", code, out)
	}
}
