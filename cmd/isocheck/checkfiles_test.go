package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/isocheck/isocheck/format"
)

// TestNothingToWrite: a file asked for that a run without a violation
// cannot write is not written, and stderr says so and why.
func TestNothingToWrite(t *testing.T) {
	dir := t.TempDir()
	file := func(name string) string { return filepath.Join(dir, name) }
	tests := []struct {
		args []string
		code int
		want []string // in stderr
	}{
		{[]string{"explain", "--svg", file("a.svg"), "../../examples/serializable.jsonl"}, exitSatisfied,
			[]string{"--svg " + file("a.svg") + ": the history satisfies SI; nothing to draw, " + file("a.svg") + " not written"}},
		{[]string{"explain", "--dot", file("a.dot"), "--png", file("a.png"), "../../examples/serializable.jsonl"}, exitSatisfied,
			[]string{"--dot " + file("a.dot") + ": the history satisfies SI; nothing to draw", "--png " + file("a.png") + ": the history satisfies SI; nothing to draw"}},
		{[]string{"check", "--counterexample", file("c.jsonl"), "../../examples/serializable.jsonl"}, exitSatisfied,
			[]string{"--counterexample " + file("c.jsonl") + ": the history satisfies SI; no counterexample, " + file("c.jsonl") + " not written"}},
		{[]string{"explain", "--level", "all", "--svg", file("b.svg"), "../../examples/serializable.jsonl"}, exitSatisfied,
			[]string{"--svg " + file("b.svg") + ": no level is broken; nothing to draw"}},
		{[]string{"explain", "--svg", file("c.svg"), "../../examples/sql-mixed-ok.jsonl"}, exitSatisfied,
			[]string{"--svg " + file("c.svg") + ": the history satisfies its levels; nothing to draw"}},
		{[]string{"explain", "--counterexample", "-", "../../examples/serializable.jsonl"}, exitSatisfied,
			[]string{"--counterexample -: the history satisfies SI; no counterexample, nothing written"}},
	}
	for _, tt := range tests {
		code, _, errs := runCmd(tt.args...)
		if code != tt.code {
			t.Errorf("%v: exit %d, want %d\n%s", tt.args, code, tt.code, errs)
		}
		for _, w := range tt.want {
			if !strings.Contains(errs, w) {
				t.Errorf("%v: stderr lacks %q:\n%s", tt.args, w, errs)
			}
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) > 0 {
		t.Errorf("files written: %v", entries)
	}
}

// TestDashCarriesTheFileAlone: with --counterexample - (or --dot -),
// stdout holds that file alone, which reads back whole, and the report
// goes to stderr.
func TestDashCarriesTheFileAlone(t *testing.T) {
	for _, args := range [][]string{
		{"check", "--counterexample", "-", "../../examples/lost-update.jsonl"},
		{"explain", "--counterexample", "-", "../../examples/lost-update.jsonl"},
		{"check", "--json", "--counterexample", "-", "../../examples/lost-update.jsonl"},
		{"check", "--level", "all", "--counterexample", "-", "../../examples/lost-update.jsonl"},
	} {
		code, out, errs := runCmd(args...)
		if code != exitViolated {
			t.Fatalf("%v: exit %d\n%s", args, code, errs)
		}
		h, err := format.Read(strings.NewReader(out), "stdout", format.JSONL)
		if err != nil || len(h.Txns) != 3 {
			t.Errorf("%v: stdout is not the counterexample alone: %v\n%s", args, err, out)
		}
		if !strings.Contains(errs, "VIOLATED") && !strings.Contains(errs, `"satisfied": false`) {
			t.Errorf("%v: stderr lacks the report:\n%s", args, errs)
		}
	}
	code, out, errs := runCmd("explain", "--dot", "-", "../../examples/lost-update.jsonl")
	if code != exitViolated || !strings.HasPrefix(out, "digraph") || !strings.HasSuffix(out, "}\n") || !strings.Contains(errs, "VIOLATED") {
		t.Errorf("explain --dot -: exit %d, stdout is not the graph alone:\n%s\nstderr:\n%s", code, out, errs)
	}
	if code, _, errs := runCmd("explain", "--dot", "-", "--counterexample", "-", "../../examples/lost-update.jsonl"); code != exitBadInput {
		t.Errorf("explain --dot - --counterexample -: exit %d, want 2\n%s", code, errs)
	}
}
