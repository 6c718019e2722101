package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/isocheck/isocheck/check"
	"github.com/isocheck/isocheck/format"
	"github.com/isocheck/isocheck/histgen"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/verdict"
	"github.com/isocheck/isocheck/workload"
)

// TestHelp: every command lists its own flags, on stdout, exit 0.
func TestHelp(t *testing.T) {
	for _, args := range [][]string{{"help", "check"}, {"check", "--help"}, {"check", "-h"}} {
		code, out, errs := runCmd(args...)
		if args[0] != "help" {
			out = errs // a command's own --help goes to stderr, as the flag package does
		}
		if code != exitSatisfied {
			t.Errorf("%v: exit %d", args, code)
		}
		for _, want := range []string{"usage: isocheck check", "-timeout", "-max-memory", "-progress", "-counterexample", "Exit status"} {
			if !strings.Contains(out, want) {
				t.Errorf("%v: help lacks %q:\n%s", args, want, out)
			}
		}
	}
	code, out, _ := runCmd("help", "explain")
	if code != exitSatisfied || !strings.Contains(out, "-svg") {
		t.Errorf("help explain: exit %d, lacks -svg:\n%s", code, out)
	}
	if code, out, _ := runCmd("help"); code != exitSatisfied || !strings.Contains(out, "isocheck lwt") {
		t.Errorf("help: exit %d\n%s", code, out)
	}
	for _, args := range [][]string{{"version"}, {"--version"}} {
		if code, out, _ := runCmd(args...); code != exitSatisfied || !strings.HasPrefix(out, "isocheck ") {
			t.Errorf("%v: exit %d, %q", args, code, out)
		}
	}
}

func TestLongLevelNames(t *testing.T) {
	for name, want := range map[string]int{"serializable": exitViolated, "snapshot-isolation": exitSatisfied, "read-committed": exitSatisfied, "strict-serializable": exitViolated} {
		if code, out, errs := runCmd("check", "--level", name, "../../examples/write-skew.jsonl"); code != want {
			t.Errorf("--level %s: exit %d, want %d\n%s%s", name, code, want, out, errs)
		}
	}
}

// TestEmptyHistory: an empty input is an error unless the user asks to
// check it, with and without --format, and the output says it is empty.
func TestEmptyHistory(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.jsonl")
	blank := filepath.Join(dir, "blank.txt")
	os.WriteFile(empty, nil, 0o644)
	os.WriteFile(blank, []byte("\n\n  \n"), 0o644)
	for _, path := range []string{empty, blank} {
		for _, f := range []string{"auto", "jsonl", "text"} {
			code, out, errs := runCmd("check", "--format", f, path)
			if code != exitBadInput || !strings.Contains(errs, "no transactions") {
				t.Errorf("check --format %s %s: exit %d, want 2 with 'no transactions'\n%s%s", f, path, code, out, errs)
			}
			code, out, errs = runCmd("check", "--format", f, "--allow-empty", path)
			if code != exitSatisfied || !strings.Contains(out, "0 transactions") {
				t.Errorf("check --allow-empty --format %s %s: exit %d, want 0 with '0 transactions'\n%s%s", f, path, code, out, errs)
			}
		}
	}
}

// TestNothingCommitted: a history none of whose transactions committed
// (all aborted, or Jepsen invocations that never completed) is refused as
// an empty one is, unless the user asks to check it, and then the output
// says that nothing was checked.
func TestNothingCommitted(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	aborted := write("aborted.jsonl", `{"session": 0, "id": "a", "status": "aborted", "ops": [["w", "x", 1]]}
{"session": 1, "id": "b", "status": "aborted", "ops": [["r", "x", 1]]}
`)
	invokes := write("invokes.edn", `{:type :invoke, :f :txn, :value [[:r :x nil]], :process 0}
{:type :invoke, :f :txn, :value [[:w :x 1]], :process 1}
`)
	sql := write("aborted-sql.jsonl", `{"session": 1, "id": "t1", "level": "SER", "status": "aborted", "events": [{"select": "t", "where": "a = 1", "rows": []}]}
`)
	for _, tc := range []struct {
		path, why string
	}{
		{aborted, "its 2 transactions all aborted"},
		{invokes, "its 2 transactions all have an unknown outcome"},
		{sql, "its one transaction aborted"},
	} {
		for _, args := range [][]string{{"check"}, {"check", "--level", "all"}, {"explain"}, {"explain", "--level", "all"}} {
			code, out, errs := runCmd(append(args, tc.path)...)
			want := "isocheck: " + tc.path + ": no committed transactions: " + tc.why + ", so there is nothing to check (if that is what you meant to check, pass --allow-empty)\n"
			if code != exitBadInput || errs != want || out != "" {
				t.Errorf("%v %s: exit %d, want 2 and\n%s got\n%s%s", args, tc.path, code, want, errs, out)
			}
			code, out, errs = runCmd(append(append(args, "--allow-empty"), tc.path)...)
			if want := "0 committed transactions (" + tc.why + "): nothing to check"; code != exitSatisfied || !strings.Contains(out, want) {
				t.Errorf("%v --allow-empty %s: exit %d, want 0 and %q\n%s%s", args, tc.path, code, want, out, errs)
			}
		}
	}
}

// TestAllLevelsFlags: --counterexample, --stats and explain work with
// --level all; the counterexample is the weakest broken level's.
func TestAllLevelsFlags(t *testing.T) {
	cex := filepath.Join(t.TempDir(), "cex.jsonl")
	code, out, errs := runCmd("check", "--level", "all", "--stats", "--counterexample", cex, "../../examples/causality-violation.jsonl")
	if code != exitViolated || !strings.Contains(out, "stats:") || !strings.Contains(out, "construct") {
		t.Fatalf("exit %d, want 1 with stats\n%s%s", code, out, errs)
	}
	h, err := format.ReadFile(cex, format.JSONL)
	if err != nil {
		t.Fatalf("the counterexample: %v", err)
	}
	res, err := check.Check(context.Background(), h, level.CC)
	if err != nil || res.Verdict != verdict.Violated {
		t.Errorf("the counterexample does not break CC: %v %v", res.Verdict, err)
	}
	code, out, errs = runCmd("explain", "--level", "all", "../../examples/causality-violation.jsonl")
	if code != exitViolated || !strings.Contains(out, "weakest level broken: CC") || !strings.Contains(out, "What happened") {
		t.Errorf("explain --level all: exit %d\n%s%s", code, out, errs)
	}
}

// TestWriteFailureKeepsVerdict: a picture or counterexample that cannot
// be written is an error on stderr; the verdict's exit status stands.
func TestWriteFailureKeepsVerdict(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "no", "such", "dir", "x")
	for _, args := range [][]string{
		{"explain", "--level", "ser", "--svg", bad + ".svg", "../../examples/write-skew.jsonl"},
		{"explain", "--level", "ser", "--dot", bad + ".dot", "../../examples/write-skew.jsonl"},
		{"check", "--level", "ser", "--counterexample", bad + ".jsonl", "../../examples/write-skew.jsonl"},
	} {
		code, out, errs := runCmd(args...)
		if code != exitViolated || errs == "" {
			t.Errorf("%v: exit %d, stderr %q; want 1 and an error\n%s", args, code, errs, out)
		}
	}
}

// TestDashIsStdout: an OUT of - writes standard output, not a file.
func TestDashIsStdout(t *testing.T) {
	dir := t.TempDir()
	wd, _ := os.Getwd()
	if err := os.Chdir(dir); err != nil {
		t.Fatal(err)
	}
	defer os.Chdir(wd)
	example := filepath.Join(wd, "../../examples/write-skew.jsonl")
	for _, args := range [][]string{
		{"generate", "--sessions", "2", "--txns", "3", "--ops", "2", "-"},
		{"convert", "--to", "jsonl", example, "-"},
		{"check", "--level", "ser", "--counterexample", "-", example},
	} {
		code, out, errs := runCmd(args...)
		if code > exitViolated || !strings.Contains(out, `"ops"`) {
			t.Errorf("%v: exit %d, stdout lacks the history\n%s%s", args, code, out, errs)
		}
		if _, err := os.Stat(filepath.Join(dir, "-")); err == nil {
			t.Errorf("%v created a file named -", args)
			os.Remove(filepath.Join(dir, "-"))
		}
	}
}

func TestGenerateValidates(t *testing.T) {
	out := filepath.Join(t.TempDir(), "h.jsonl")
	for _, args := range [][]string{
		{"--keys", "2000000000"},
		{"--ops", "2000000000"},
		{"--reads", "NaN"},
		{"--reads", "1.5"},
		{"--dist", "gaussian"},
		{"--zipf"},
		{"--sessions", "0"},
	} {
		code, _, errs := runCmd(append(append([]string{"generate"}, args...), out)...)
		if code != exitBadInput || errs == "" {
			t.Errorf("generate %v: exit %d, want 2 with a message", args, code)
		}
	}
	code, _, errs := runCmd("generate", "--dist", "hotspot", "--sessions", "3", "--txns", "10", "--store", "ser", out)
	if code != exitSatisfied {
		t.Fatalf("generate --dist hotspot: exit %d: %s", code, errs)
	}
	if code, _, errs := runCmd("check", "--level", "ser", out); code != exitSatisfied {
		t.Errorf("a serializable store's history: exit %d: %s", code, errs)
	}
}

// bigHistory writes a generated history that takes a while to check.
func bigHistory(t *testing.T) string {
	t.Helper()
	h := histgen.Large(histgen.LargeConfig{Sessions: 20, TxnsPerSession: 1000, OpsPerTxn: 10, Keys: 5000, ReadProportion: 0.5, Dist: workload.Zipf, Seed: 5})
	path := filepath.Join(t.TempDir(), "big.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := format.Write(f, h, format.JSONL); err != nil {
		t.Fatal(err)
	}
	f.Close()
	return path
}

// TestStopsSayWhere: a run stopped by its timeout or its memory limit
// exits 3 and says which stage it reached, in text and in JSON.
func TestStopsSayWhere(t *testing.T) {
	path := bigHistory(t)
	for _, level := range []string{"si", "rc", "all"} {
		code, out, errs := runCmd("check", "--level", level, "--timeout", "1ns", path)
		if code != exitNoVerdict || !strings.Contains(out, "timed out") || !strings.Contains(out, "in stage") || !strings.Contains(out, "--timeout") {
			t.Errorf("--level %s --timeout 1ns: exit %d\n%s%s", level, code, out, errs)
		}
	}
	code, out, errs := runCmd("check", "--json", "--timeout", "1ns", path)
	var got struct {
		Satisfied *bool
		Reason    string
		Stats     struct{ Stage string }
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil || code != exitNoVerdict || got.Satisfied != nil || got.Stats.Stage == "" || got.Reason == "" {
		t.Errorf("--json --timeout 1ns: exit %d, %+v, %v\n%s%s", code, got, err, out, errs)
	}
	code, out, errs = runCmd("check", "--max-memory", "1MB", path)
	if code != exitNoVerdict || !strings.Contains(out, "resource limit") || !strings.Contains(out, "in stage") {
		t.Errorf("--max-memory 1MB: exit %d\n%s%s", code, out, errs)
	}
}

func TestNoTimeoutByDefault(t *testing.T) {
	var l limits
	fs := newFlagSet("check", &bytes.Buffer{})
	lp := addLimitFlags(fs)
	l = *lp
	if l.timeout != 0 {
		t.Errorf("default --timeout %v, want none", l.timeout)
	}
}

// TestTimeoutOnAFIFOWithoutWriter: opening a FIFO waits for a writer, and
// the timeout still holds.
func TestTimeoutOnAFIFOWithoutWriter(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "history.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	code, out, errs := runCmd("check", "--timeout", "100ms", fifo)
	if code != exitNoVerdict || !strings.Contains(out, "timed out") {
		t.Errorf("exit %d, want 3 (timed out)\n%s%s", code, out, errs)
	}
}

// runCmd runs the command args and returns its exit status and output.
func runCmd(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = run(args, &out, &errb)
	return code, out.String(), errb.String()
}
