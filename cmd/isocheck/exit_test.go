package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/isocheck/isocheck/internal/testkit/corpus"
)

// TestExitStatus pins the command line's contract: scripts depend on the
// exit status and on errors naming the file and line.
func TestExitStatus(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	syntax := write("syntax.jsonl", "{\"session\": 0, \"ops\": [[\"r\",\"x\",null]]}\n{\"session\": 0, \"ops\": [[\"r\",\"x\"]]}\n")
	// Values may repeat in a register history, not in a list history.
	repeated := write("repeated.jsonl", "{\"session\": 0, \"ops\": [[\"w\",\"x\",1]]}\n{\"session\": 1, \"ops\": [[\"w\",\"x\",1]]}\n{\"session\": 2, \"ops\": [[\"r\",\"x\",1]]}\n")
	// Jepsen's rw-register with a value two transactions wrote: whichever
	// the read read from, it missed that writer's other write.
	repeatedEDN := write("repeated.edn", `{:type :ok, :f :txn, :value [[:w :x 1] [:w :y 1]], :process 0, :index 0}
{:type :ok, :f :txn, :value [[:w :x 1] [:w :z 1]], :process 1, :index 1}
{:type :ok, :f :txn, :value [[:r :x 1] [:r :y nil] [:r :z nil]], :process 2, :index 2}
`)
	dup := write("dup.edn", "{:type :ok, :f :txn, :value [[:append :x 1]], :process 0, :index 0}\n{:type :ok, :f :txn, :value [[:append :x 1]], :process 1, :index 1}\n")
	cases := []struct {
		name       string
		args       []string
		status     int
		wantStdout string
		wantStderr string
	}{
		{"satisfied", []string{"check", "../../examples/serializable.jsonl"}, exitSatisfied, "SI: satisfied", ""},
		{"violated", []string{"check", "../../examples/lost-update.jsonl"}, exitViolated, "LostUpdate", ""},
		{"write skew is SI", []string{"check", "--level", "si", "../../examples/write-skew.jsonl"}, exitSatisfied, "satisfied", ""},
		{"write skew is not SER", []string{"check", "../../examples/write-skew.jsonl", "--level", "ser"}, exitViolated, "WriteSkew", ""},
		{"json", []string{"check", "--json", "../../examples/lost-update.jsonl"}, exitViolated, `"satisfied": false`, ""},
		{"all levels", []string{"check", "--level", "all", "../../examples/write-skew.jsonl"}, exitViolated, "strongest level kept: SI; weakest level broken: SER", ""},
		{"all levels kept", []string{"check", "--level", "all", "../../examples/serializable.jsonl"}, exitSatisfied, "strongest level kept: SSER; weakest level broken: none", ""},
		{"causality violation", []string{"check", "--level", "cc", "../../examples/causality-violation.jsonl"}, exitViolated, "read-thread read post:1=null, which post overwrote", ""},
		{"all levels, causality violation", []string{"check", "--level", "all", "../../examples/causality-violation.jsonl"}, exitViolated, "strongest level kept: RA; weakest level broken: CC", ""},
		{"all levels, long fork", []string{"check", "--level", "all", "--json", "../../examples/long-fork.jsonl"}, exitViolated, `"weakest_broken": "PC"`, ""},
		{"syntax error names the line", []string{"check", syntax}, exitBadInput, "", "syntax.jsonl:2:"},
		{"repeated values", []string{"check", repeated}, exitSatisfied, "SI: satisfied", ""},
		{"repeated values in EDN", []string{"check", "--level", "ra", repeatedEDN}, exitViolated, "could have read from T0 or T1", ""},
		{"duplicate append names both", []string{"check", dup}, exitBadInput, "", "dup.edn:1"},
		{"missing file", []string{"check", filepath.Join(dir, "nope.jsonl")}, exitBadInput, "", "nope.jsonl"},
		{"unknown level", []string{"check", "--level", "xx", "../../examples/lost-update.jsonl"}, exitBadInput, "", "unknown isolation level"},
		{"no path", []string{"check"}, exitBadInput, "", "want one PATH"},
		{"lwt stale read", []string{"lwt", "../../examples/cas-stale-read.edn"}, exitViolated, "not linearizable", ""},
		{"lwt bad input", []string{"lwt", syntax}, exitBadInput, "", "syntax.jsonl"},
		{"lwt endless input", []string{"lwt", "/dev/zero"}, exitBadInput, "", "/dev/zero"},
		{"lwt stopped", []string{"lwt", "--timeout", "1ns", "../../examples/cas-stale-read.edn"}, exitNoVerdict, "--timeout 0 for no limit", ""},
		{"unknown command", []string{"frobnicate"}, exitBadInput, "", "unknown command"},
		{"SQL write skew at SER", []string{"check", "../../examples/sql-phantom-ser.jsonl"}, exitViolated, "alice-leaves and bob-leaves close a cycle in whichever order they commit", ""},
		{"SQL write skew at RC", []string{"check", "../../examples/sql-phantom-rc-ok.jsonl"}, exitSatisfied, "satisfied", ""},
		{"SQL mixed levels", []string{"explain", "../../examples/sql-mixed-ok.jsonl"}, exitSatisfied, "satisfied", ""},
		{"SQL at one level", []string{"check", "--level", "rc", "../../examples/sql-phantom-ser.jsonl"}, exitSatisfied, "RC: satisfied", ""},
		{"SQL at all levels", []string{"check", "--level", "all", "../../examples/sql-phantom-ser.jsonl"}, exitViolated, "strongest level kept: SI; weakest level broken: SER", ""},
		{"SQL json", []string{"check", "--json", "../../examples/sql-phantom-ser.jsonl"}, exitViolated, `"name": "WriteSkew"`, ""},
		{"SQL bad level", []string{"check", "--level", "sser", "../../examples/sql-phantom-ser.jsonl"}, exitBadInput, "", "SQL history"},
		{"SQL timeout", []string{"check", "--timeout", "1ns", "../../examples/sql-phantom-ser.jsonl"}, exitNoVerdict, "no verdict", ""},
		{"SQL syntax error", []string{"check", "--format", "sql", syntax}, exitBadInput, "", "syntax.jsonl:"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if got := run(c.args, &stdout, &stderr); got != c.status {
				t.Fatalf("exit status %d, want %d\nstdout: %s\nstderr: %s", got, c.status, stdout.String(), stderr.String())
			}
			if !strings.Contains(stdout.String(), c.wantStdout) {
				t.Errorf("stdout %q does not contain %q", stdout.String(), c.wantStdout)
			}
			if !strings.Contains(stderr.String(), c.wantStderr) {
				t.Errorf("stderr %q does not contain %q", stderr.String(), c.wantStderr)
			}
		})
	}
}

// TestTimeoutGivesNoVerdict: a check that runs out of time exits 3.
func TestTimeoutGivesNoVerdict(t *testing.T) {
	path := filepath.Join(corpus.Dir(t), "polysi", "20_100_15_10000_0.5_zipf__hist-00000.bincode")
	var stdout, stderr bytes.Buffer
	if got := run([]string{"check", "--timeout", "1ns", path}, &stdout, &stderr); got != exitNoVerdict {
		t.Fatalf("exit status %d, want %d (stdout %q, stderr %q)", got, exitNoVerdict, stdout.String(), stderr.String())
	}
}

// TestConvertRoundTrip converts a corpus history to the native format and
// checks that both give the same verdict.
func TestConvertRoundTrip(t *testing.T) {
	src := filepath.Join(corpus.Dir(t), "polysi", "galera.txt")
	out := filepath.Join(t.TempDir(), "galera.jsonl")
	var stdout, stderr bytes.Buffer
	if got := run([]string{"convert", "--to", "jsonl", src, out}, &stdout, &stderr); got != exitSatisfied {
		t.Fatalf("convert: exit %d: %s", got, stderr.String())
	}
	for _, path := range []string{src, out} {
		if got := run([]string{"check", path}, &stdout, &stderr); got != exitViolated {
			t.Errorf("check %s: exit %d, want %d", path, got, exitViolated)
		}
	}
}

// TestConvertTextNotesAborted: PolySI's loader refuses the id -1 that the
// text format gives aborted transactions, so convert says so when it
// writes one, and only then.
func TestConvertTextNotesAborted(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "in.jsonl")
	history := `{"session":1,"id":"A","ops":[["w","1",1]]}
{"session":1,"id":"B","status":"aborted","ops":[["w","1",2]]}
`
	if err := os.WriteFile(src, []byte(history), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		to       string
		wantNote bool
	}{{"text", true}, {"jsonl", false}} {
		var stdout, stderr bytes.Buffer
		if got := run([]string{"convert", "--to", tc.to, src, "-"}, &stdout, &stderr); got != exitSatisfied {
			t.Fatalf("convert --to %s: exit %d: %s", tc.to, got, stderr.String())
		}
		if got := strings.Contains(stderr.String(), "PolySI's own loader"); got != tc.wantNote {
			t.Errorf("convert --to %s: note about aborted transactions %v, want %v (stderr %q)", tc.to, got, tc.wantNote, stderr.String())
		}
	}
}
