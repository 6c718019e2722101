package main

import (
	"flag"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/isocheck/isocheck/format"
	"github.com/isocheck/isocheck/internal/testkit/historytest"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata/help and testdata/examples")

// helps returns the help of every command, and the general help as
// "isocheck", each as `isocheck help NAME` prints it.
func helps(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	code, general, errs := runCmd("help")
	if code != exitSatisfied || errs != "" {
		t.Fatalf("help: exit %d\n%s", code, errs)
	}
	out["isocheck"] = general
	for _, c := range commands() {
		code, help, errs := runCmd("help", c.name)
		if code != exitSatisfied || errs != "" {
			t.Fatalf("help %s: exit %d\n%s", c.name, code, errs)
		}
		out[c.name] = help
	}
	return out
}

// TestHelpGolden compares each command's help with its golden file
// (go test -run TestHelpGolden -update rewrites them), and checks that
// -h and --help print the same on stderr.
func TestHelpGolden(t *testing.T) {
	for name, help := range helps(t) {
		path := filepath.Join("testdata", "help", name+".txt")
		if *update {
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(help), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run go test -run TestHelpGolden -update)", err)
		}
		if help != string(want) {
			t.Errorf("help %s differs from %s (rerun with -update if the change is meant):\n%s", name, path, help)
		}
		if name == "isocheck" {
			continue
		}
		for _, h := range []string{"-h", "--help"} {
			code, out, errs := runCmd(name, h)
			if code != exitSatisfied || out != "" || errs != help {
				t.Errorf("%s %s: exit %d, stdout %q, stderr not the help:\n%s", name, h, code, out, errs)
			}
		}
	}
}

// TestHelpFits checks what every help must hold: its own usage line and
// exit statuses, a PATH line only for a command that reads a PATH, no
// default shown twice or as a sentinel, and no line wider than 80
// columns but those of the flags' usages.
func TestHelpFits(t *testing.T) {
	all := helps(t)
	for _, c := range commands() {
		help := all[c.name]
		if !strings.HasPrefix(help, "usage: isocheck "+c.name) {
			t.Errorf("help %s does not begin with its usage line:\n%s", c.name, help)
		}
		if !strings.Contains(help, "Exit status: 0") {
			t.Errorf("help %s lacks its exit statuses:\n%s", c.name, help)
		}
		if reads, says := strings.Contains(c.synopsis, "PATH"), strings.Contains(help, "PATH - reads"); reads != says {
			t.Errorf("help %s: synopsis takes PATH %v, help explains PATH %v:\n%s", c.name, reads, says, help)
		}
	}
	for name, help := range all {
		for i, line := range strings.Split(help, "\n") {
			if strings.Contains(line, "(default -9223372036854775808)") || strings.Count(line, "(default") > 1 {
				t.Errorf("help %s, line %d shows a default wrongly: %s", name, i+1, line)
			}
		}
	}
	if !strings.Contains(all["check"], "elle-json or sql") {
		t.Errorf("help check: --format does not list sql:\n%s", all["check"])
	}
	if !strings.Contains(all["lwt"], "(default nil)") {
		t.Errorf("help lwt: --init does not show its default as nil:\n%s", all["lwt"])
	}
}

// goIdent matches what looks like a Go identifier: of a package, such as
// format.ReadSQL, or an unexported one in camel case, such as
// exploreReport. Neither means anything to a user of the command line.
var goIdent = regexp.MustCompile(`\b[a-z]+\.[A-Z]\w+|\b[a-z]+[A-Z][A-Za-z]*\b`)

// privateNames returns what in s names Go API or a seed paper by its
// private number rather than by its authors and title.
func privateNames(s string) []string {
	found := goIdent.FindAllString(s, -1)
	if i := strings.Index(s, "seed 0"); i >= 0 {
		found = append(found, s[i:min(len(s), i+12)])
	}
	return found
}

// TestHelpNamesNoPrivateNames scans every help for Go identifiers and the
// seed papers' private names.
func TestHelpNamesNoPrivateNames(t *testing.T) {
	for name, help := range helps(t) {
		if found := privateNames(help); len(found) > 0 {
			t.Errorf("help %s names %q", name, found)
		}
	}
}

// TestMessagesNameNoPrivateNames checks the messages that named Go API or
// seed papers: each now says what to do on the command line.
func TestMessagesNameNoPrivateNames(t *testing.T) {
	dir := t.TempDir()
	kv := filepath.Join(dir, "kv.jsonl")
	if err := os.WriteFile(kv, []byte(`{"session": 1, "ops": [["w", "x", 1]]}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args []string
		code int
		want string // in stderr
	}{
		{[]string{"stats", "../../examples/sql-mixed-ok.jsonl"}, exitBadInput, "only isocheck check and explain read one"},
		{[]string{"convert", "--to", "jsonl", "../../examples/sql-mixed-ok.jsonl", filepath.Join(dir, "out")}, exitBadInput, "only isocheck check and explain read one"},
		{[]string{"convert", "--to", "sql", kv, filepath.Join(dir, "out")}, exitBadInput, "--to must be jsonl, text or dbcop"},
		{[]string{"explore", "--app", "twitter", "--base", "si"}, exitBadInput, "causally extensible"},
	}
	for _, tt := range tests {
		code, out, errs := runCmd(tt.args...)
		if code != tt.code || !strings.Contains(errs, tt.want) {
			t.Errorf("%v: exit %d, want %d with %q\n%s%s", tt.args, code, tt.code, tt.want, out, errs)
		}
		if found := privateNames(errs); len(found) > 0 {
			t.Errorf("%v: the message names %q:\n%s", tt.args, found, errs)
		}
	}
	err := format.Write(io.Discard, historytest.JSONL(t, `{"session": 1, "ops": [["w", "x", 1]]}`), format.SQL)
	if err == nil || len(privateNames(err.Error())) > 0 {
		t.Errorf("writing a key-value history as sql: %v", err)
	}
}

// TestFlagErrorIsShort: a bad flag value gets the flag package's message
// and a pointer to the help, not the whole help, which would bury it.
func TestFlagErrorIsShort(t *testing.T) {
	code, out, errs := runCmd("check", "--max-memory", "1000", "../../examples/write-skew.jsonl")
	if code != exitBadInput {
		t.Fatalf("exit %d, want %d", code, exitBadInput)
	}
	if out != "" {
		t.Errorf("stdout %q, want nothing", out)
	}
	if !strings.Contains(errs, `"1000" has no unit`) || !strings.Contains(errs, "run 'isocheck check -h' for its flags") {
		t.Errorf("stderr lacks the error or the pointer to the help:\n%s", errs)
	}
	if strings.Contains(errs, "flags:") {
		t.Errorf("stderr holds the whole help:\n%s", errs)
	}
}

// TestHelpHelp: help tells its own usage, as every command does.
func TestHelpHelp(t *testing.T) {
	for _, args := range [][]string{{"help", "help"}, {"help", "-h"}, {"help", "--help"}, {"--help", "help"}} {
		code, out, errs := runCmd(args...)
		if code != exitSatisfied || errs != "" || !strings.HasPrefix(out, "usage: isocheck help [COMMAND]\n") || !strings.Contains(out, "Exit status") {
			t.Errorf("%v: exit %d\n%s%s", args, code, out, errs)
		}
	}
	code, out, _ := runCmd("help", "nosuch")
	if code != exitBadInput || !strings.Contains(out, `unknown command "nosuch"`) {
		t.Errorf("help nosuch: exit %d\n%s", code, out)
	}
}
