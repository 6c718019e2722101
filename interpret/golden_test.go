package interpret_test

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/isocheck/isocheck/check"
	"github.com/isocheck/isocheck/format"
	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/interpret"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/verdict"
)

var update = flag.Bool("update", false, "rewrite the golden files of TestExplainGolden from the reports")

// examplesDir holds the example histories of the README.
const examplesDir = "../examples"

// goldenDir holds the text of explain on each example at each level.
const goldenDir = "testdata/explain"

// explainLevels are the levels TestExplainGolden explains each example
// history at: every level it breaks, whose anomaly explain shows in full
// (each level's in its own terms), and the strongest it keeps. Every
// example the key-value checker reads must be listed.
var explainLevels = map[string][]level.Level{
	"causality-violation.jsonl": {level.SSER, level.SER, level.SI, level.PC, level.CC, level.RA},
	"jepsen-list-append.edn":    {level.SSER, level.SER, level.SI, level.PC},
	"long-fork.jsonl":           {level.SSER, level.SER, level.SI, level.PC, level.CC},
	"lost-update.jsonl":         {level.SSER, level.SER, level.SI, level.PC},
	"repeated-values.jsonl":     {level.SSER, level.SER, level.SI, level.PC, level.CC, level.RA},
	"serializable.jsonl":        {level.SSER},
	"write-skew.jsonl":          {level.SSER, level.SER, level.SI},
}

// TestExplainGolden checks the text of `isocheck explain --level L` on
// every example history the key-value checker reads against
// testdata/explain/NAME-L.golden: a minimal counterexample explained in
// full for a broken level, the verdict for a kept one. SQL histories
// (another checker's) and histories of registers (lwt's) are skipped.
// Run with -update to write the golden files from the reports.
func TestExplainGolden(t *testing.T) {
	entries, err := os.ReadDir(examplesDir)
	if err != nil {
		t.Fatal(err)
	}
	golden := map[string]bool{} // the golden files the examples need
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		h, ok := readKeyValueExample(t, e.Name())
		if !ok {
			continue
		}
		levels, listed := explainLevels[e.Name()]
		if !listed {
			t.Errorf("%s: no levels to explain it at in explainLevels", e.Name())
			continue
		}
		stem := strings.TrimSuffix(e.Name(), filepath.Ext(e.Name()))
		for _, l := range levels {
			name := stem + "-" + strings.ToLower(l.String())
			path := filepath.Join(goldenDir, name+".golden")
			if golden[path] {
				t.Errorf("%s: two examples named %s", e.Name(), name)
			}
			golden[path] = true
			t.Run(name, func(t *testing.T) {
				compareGolden(t, path, explainText(t, h, l))
			})
		}
	}
	for name := range explainLevels {
		if _, err := os.Stat(filepath.Join(examplesDir, name)); err != nil {
			t.Errorf("explainLevels lists %s, which examples/ lacks: %v", name, err)
		}
	}
	stale, err := filepath.Glob(filepath.Join(goldenDir, "*.golden"))
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range stale {
		if !golden[path] {
			t.Errorf("%s explains no example at a level of explainLevels: remove it", path)
		}
	}
}

// readKeyValueExample reads examples/name as a history of transactions.
// It reports false for a SQL history and for a history of registers,
// which the key-value checker does not read.
func readKeyValueExample(t *testing.T, name string) (*history.History, bool) {
	t.Helper()
	path := filepath.Join(examplesDir, name)
	f, err := format.Detect(path)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if f == format.SQL {
		return nil, false
	}
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// Named as the README's commands name it, for the positions the
	// reports give.
	shown := "examples/" + name
	h, err := format.Read(bytes.NewReader(src), shown, f)
	if err == nil {
		return h, true
	}
	if _, _, lwtErr := format.ReadRegisterOps(context.Background(), bytes.NewReader(src), shown, f); lwtErr == nil {
		return nil, false
	}
	t.Fatalf("%s: neither transactions nor registers: %v", name, err)
	return nil, false
}

// explainText is what explain prints of h at l, without colours: the
// report on a minimal counterexample when l is broken.
func explainText(t *testing.T, h *history.History, l level.Level) string {
	t.Helper()
	ctx := context.Background()
	res, err := check.Check(ctx, h, l)
	if err != nil {
		t.Fatal(err)
	}
	rep := interpret.Explain(res)
	if res.Verdict == verdict.Violated {
		if rep, err = interpret.Minimal(ctx, res); err != nil {
			t.Fatal(err)
		}
	}
	var b bytes.Buffer
	if err := rep.WriteExplanation(&b, false); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// compareGolden compares got with the golden file at path, or writes it
// there with -update.
func compareGolden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		t.Fatalf("%s is missing: run go test ./interpret -run TestExplainGolden -update\ngot:\n%s", path, got)
	}
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		n, w, g := firstDiff(string(want), got)
		t.Errorf("the explanation differs from %s at line %d (run with -update to accept it):\nwant: %s\ngot:  %s\nthe whole explanation:\n%s", path, n, w, g, got)
	}
}

// firstDiff returns the number of the first line where want and got
// differ, and that line of each ("(end)" past the last).
func firstDiff(want, got string) (int, string, string) {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	line := func(l []string, i int) string {
		if i < len(l) {
			return l[i]
		}
		return "(end)"
	}
	i := 0
	for i < len(w) && i < len(g) && w[i] == g[i] {
		i++
	}
	return i + 1, line(w, i), line(g, i)
}
