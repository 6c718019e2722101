package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestSQLStopsSayWhere: a SQL check stopped by its timeout exits 3 and
// says which stage it reached, in text and in JSON, for one level and for
// every level.
func TestSQLStopsSayWhere(t *testing.T) {
	const path = "../../examples/sql-phantom-ser.jsonl"
	for _, args := range [][]string{
		{"check", "--timeout", "1ns", path},
		{"check", "--timeout", "1ns", "--level", "all", path},
		{"explain", "--timeout", "1ns", "--level", "ser", path},
	} {
		code, out, errs := runCmd(args...)
		if code != exitNoVerdict || !strings.Contains(out, "no verdict: timed out after 1ns in stage parse") || !strings.Contains(out, "--timeout 0 for no limit") {
			t.Errorf("%v: exit %d\n%s%s", args, code, out, errs)
		}
	}
	code, out, errs := runCmd("check", "--json", "--timeout", "1ns", path)
	var got struct {
		Satisfied *bool
		Verdict   string
		Reason    string
		Stats     struct{ Stage string }
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil || code != exitNoVerdict || got.Satisfied != nil || got.Verdict != "no verdict" || got.Stats.Stage != "parse" || !strings.Contains(got.Reason, "in stage parse") {
		t.Errorf("--json: exit %d, %+v, %v\n%s%s", code, got, err, out, errs)
	}
}

// TestWorse: several SQL checks' statuses combine as --level all's do.
func TestWorse(t *testing.T) {
	for _, c := range []struct{ a, b, want int }{
		{exitSatisfied, exitNoVerdict, exitNoVerdict},
		{exitNoVerdict, exitViolated, exitViolated},
		{exitViolated, exitNoVerdict, exitViolated},
		{exitViolated, exitSatisfied, exitViolated},
		{exitViolated, exitBadInput, exitBadInput},
		{exitSatisfied, exitSatisfied, exitSatisfied},
	} {
		if got := worse(c.a, c.b); got != c.want {
			t.Errorf("worse(%d, %d) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}

// TestSQLGolden: the text and JSON reports of every SQL example, each
// transaction at its own level and at every level, match
// testdata/sql/*.golden (go test -run TestSQLGolden -update rewrites
// them). The time a check took is left out of the JSON.
func TestSQLGolden(t *testing.T) {
	paths, err := filepath.Glob("../../examples/sql-*.jsonl")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no SQL examples: %v", err)
	}
	elapsed := regexp.MustCompile(`"check_ms": [0-9.e+-]+`)
	for _, path := range paths {
		name := strings.TrimSuffix(filepath.Base(path), ".jsonl")
		for _, c := range []struct {
			suffix string
			args   []string
		}{
			{"txt", []string{"explain", path}},
			{"all.txt", []string{"explain", "--level", "all", path}},
			{"json", []string{"check", "--json", path}},
			{"all.json", []string{"check", "--json", "--level", "all", path}},
		} {
			code, out, errs := runCmd(c.args...)
			if code != exitSatisfied && code != exitViolated {
				t.Errorf("%v: exit %d\n%s", c.args, code, errs)
				continue
			}
			out = elapsed.ReplaceAllString(out, `"check_ms": 0`)
			golden := filepath.Join("testdata", "sql", name+"."+c.suffix)
			if *update {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, []byte(out), 0o644); err != nil {
					t.Fatal(err)
				}
				continue
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -run TestSQLGolden -update)", err)
			}
			if out != string(want) {
				t.Errorf("%v: the report differs from %s:\n%s", c.args, golden, out)
			}
		}
	}
}

// TestSQLAllJSONIsOneDocument: --level all --json on a SQL history prints
// one JSON document with the top-level keys of a key-value history's,
// each level an object with an anomaly object when broken, sessions as
// numbers, and names each level forbids.
func TestSQLAllJSONIsOneDocument(t *testing.T) {
	keys := func(args ...string) (map[string]json.RawMessage, string) {
		t.Helper()
		_, out, errs := runCmd(args...)
		dec := json.NewDecoder(strings.NewReader(out))
		var doc map[string]json.RawMessage
		if err := dec.Decode(&doc); err != nil {
			t.Fatalf("%v: %v\n%s%s", args, err, out, errs)
		}
		if dec.More() {
			t.Fatalf("%v: more than one JSON document:\n%s", args, out)
		}
		return doc, out
	}
	kv, _ := keys("check", "--json", "--level", "all", "../../examples/write-skew.jsonl")
	// The list of every anomaly at every level is the key-value
	// report's: a SQL check lists none beside each level's own.
	delete(kv, "anomalies")
	sql, out := keys("check", "--json", "--level", "all", "../../examples/sql-phantom-ser.jsonl")
	if got, want := slices.Sorted(maps.Keys(sql)), slices.Sorted(maps.Keys(kv)); !slices.Equal(got, want) {
		t.Errorf("top-level keys %v, want the key-value report's %v", got, want)
	}
	var doc struct {
		Levels []struct {
			Level     string
			Satisfied *bool
			Anomaly   *struct {
				Name         string
				Class        string
				Transactions []struct{ Session json.RawMessage }
			}
			Stats map[string]json.RawMessage
		}
		Strongest string `json:"strongest_kept"`
		Weakest   string `json:"weakest_broken"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Levels) != 6 || doc.Strongest != "SI" || doc.Weakest != "SER" {
		t.Fatalf("%d levels, strongest kept %q, weakest broken %q; want 6, SI, SER", len(doc.Levels), doc.Strongest, doc.Weakest)
	}
	ser := doc.Levels[0]
	if ser.Level != "SER" || ser.Anomaly == nil || ser.Anomaly.Name != "WriteSkew" || ser.Anomaly.Class != "G2-item" {
		t.Fatalf("SER: %+v, want a WriteSkew (G2-item)", ser)
	}
	if s := string(ser.Anomaly.Transactions[0].Session); s != "1" {
		t.Errorf("session %s, want the number 1", s)
	}
	if _, ok := ser.Stats["transactions"]; !ok {
		t.Errorf("stats %v: no transactions", ser.Stats)
	}
}

// TestSQLRefusesFlags: flags that cannot apply to a SQL history exit 2
// and say why, instead of being ignored.
func TestSQLRefusesFlags(t *testing.T) {
	const path = "../../examples/sql-phantom-ser.jsonl"
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"check", "--elle", path}, "--elle"},
		{[]string{"explain", "--elle", path}, "--elle"},
		{[]string{"check", "--no-session-order", path}, "--no-session-order"},
		{[]string{"check", "--level", "all", "--no-session-order", path}, "--no-session-order"},
		{[]string{"stats", path}, "SQL history"},
	} {
		code, out, errs := runCmd(c.args...)
		if code != exitBadInput || !strings.Contains(errs, c.want) || out != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and %q", c.args, code, out, errs, c.want)
		}
	}
}

// TestSQLStats: --stats on a SQL history prints the sizes of the check
// and the table of its stages, as on a key-value history, and with
// --level all a row per level.
func TestSQLStats(t *testing.T) {
	const path = "../../examples/sql-phantom-ser.jsonl"
	stage := regexp.MustCompile(`(?m)^  ([a-zA-Z][a-zA-Z ]*[a-z]) +\d+ ms +[0-9.]+(?:B|KiB|MiB|GiB)$`)
	for _, args := range [][]string{{"check"}, {"explain"}, {"check", "--level", "si"}} {
		code, out, errs := runCmd(append(args, "--stats", path)...)
		if code > exitViolated {
			t.Fatalf("%v: exit %d\n%s", args, code, errs)
		}
		_, st, ok := strings.Cut(out, "\nstats:\n")
		if !ok {
			t.Fatalf("%v --stats: no stats:\n%s", args, out)
		}
		for _, want := range []string{"\n  transactions             3\n", "\n  stage                            time    peak memory\n"} {
			if !strings.Contains(st, want) {
				t.Errorf("%v --stats: lacks %q:\n%s", args, want, st)
			}
		}
		seen := map[string]bool{}
		for _, m := range stage.FindAllStringSubmatch(st, -1) {
			seen[m[1]] = true
		}
		for _, want := range []string{"parse", "build SQL problem"} {
			if !seen[want] {
				t.Errorf("%v --stats: the table of stages lacks %q:\n%s", args, want, st)
			}
		}
	}
	code, out, errs := runCmd("check", "--level", "all", "--stats", path)
	_, st, ok := strings.Cut(out, "\nstats:\n")
	if code != exitViolated || !ok {
		t.Fatalf("--level all --stats: exit %d\n%s%s", code, out, errs)
	}
	for _, l := range []string{"SER", "SI", "PC", "CC", "RA", "RC"} {
		if !regexp.MustCompile(`(?m)^  ` + l + ` +[0-9.]+ +3 `).MatchString(st) {
			t.Errorf("--level all --stats: no row for %s:\n%s", l, st)
		}
	}
}

// TestSQLPredicateTypo: a WHERE clause naming a column no row of its
// table has is an input error at the transaction's line, not a NULL
// that selects nothing.
func TestSQLPredicateTypo(t *testing.T) {
	src, err := os.ReadFile("../../examples/sql-phantom-ser.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	typo := strings.Replace(string(src), `"where": "on_call = TRUE AND shift = 1"`, `"where": "oncall = TRUE AND shift = 1"`, 1)
	if typo == string(src) {
		t.Fatal("the example has no predicate to misspell")
	}
	path := filepath.Join(t.TempDir(), "typo.jsonl")
	if err := os.WriteFile(path, []byte(typo), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"check", path}, {"check", "--level", "rc", path}} {
		code, out, errs := runCmd(args...)
		if code != exitBadInput || !strings.Contains(errs, path+":2:") || !strings.Contains(errs, "column oncall") || out != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 at %s:2 naming oncall", args, code, out, errs, path)
		}
	}
}

// TestSQLDOT: the picture of a SQL violation has a title naming the
// anomaly, a legend, and no edge into the initial state.
func TestSQLDOT(t *testing.T) {
	dot := filepath.Join(t.TempDir(), "g.dot")
	code, _, errs := runCmd("explain", "--dot", dot, "../../examples/sql-phantom-ser.jsonl")
	if code != exitViolated {
		t.Fatalf("exit %d\n%s", code, errs)
	}
	b, err := os.ReadFile(dot)
	if err != nil {
		t.Fatal(err)
	}
	g := string(b)
	for _, want := range []string{`label="SER: VIOLATED: WriteSkew (G2-item)`, "cluster_legend", `label="missed doctors/alice"`, `label="missed doctors/bob"`} {
		if !strings.Contains(g, want) {
			t.Errorf("no %s in\n%s", want, g)
		}
	}
	if strings.Contains(g, "-> init") {
		t.Errorf("an edge into init:\n%s", g)
	}
}

// TestSQLOnStandardInput: a SQL history on standard input, a regular file
// or a pipe, or in a FIFO, is checked as it is from its file.
func TestSQLOnStandardInput(t *testing.T) {
	const path = "../../examples/sql-phantom-ser.jsonl"
	content, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"check"},
		{"check", "--level", "all"},
		{"explain", "--level", "ser"},
	} {
		wantCode, want, _ := runCmd(append(args, path)...)
		for _, stdin := range []string{"file", "pipe"} {
			cmd := exec.Command(os.Args[0])
			cmd.Env = append(os.Environ(), testChildEnv+"=command", testArgsEnv+"="+strings.Join(append(args, "-"), "\n"))
			if stdin == "file" {
				f, err := os.Open(path)
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				cmd.Stdin = f
			} else {
				cmd.Stdin = bytes.NewReader(content) // through a pipe
			}
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			code := 0
			if exit, ok := errors.AsType[*exec.ExitError](err); ok {
				code = exit.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			got := strings.ReplaceAll(stdout.String(), "/dev/stdin", path)
			if code != wantCode || got != want {
				t.Errorf("%v - from a %s: exit %d, want %d\n%s\n%s\nwant:\n%s", args, stdin, code, wantCode, got, stderr.String(), want)
			}
		}
		fifo := filepath.Join(t.TempDir(), "h.jsonl")
		mkfifo(t, fifo)
		go func() {
			if f, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
				f.Write(content)
				f.Close()
			}
		}()
		code, out, errs := runCmdWithin(t, append(args, fifo)...)
		if got := strings.ReplaceAll(out, fifo, path); code != wantCode || got != want {
			t.Errorf("%v FIFO: exit %d, want %d\n%s\n%s", args, code, wantCode, got, errs)
		}
	}
}
