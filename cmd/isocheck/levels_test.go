package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// TestLevelSpellings: a level spelled any way level.Parse reads it works
// alike for check --level, run --check, run --level (which names the
// database's level) and run --levels.
func TestLevelSpellings(t *testing.T) {
	ser := []string{"ser", "SER", "serializable", "Serializable", "SERIALIZABLE", "serializability"}
	for _, s := range ser {
		t.Run("check/"+s, func(t *testing.T) {
			code, out, errs := runCmd("check", "--level", s, "../../examples/write-skew.jsonl")
			if code != exitViolated || !strings.Contains(out, "SER: VIOLATED") {
				t.Errorf("exit %d, want %d and SER violated\n%s%s", code, exitViolated, out, errs)
			}
		})
		t.Run("run-check/"+s, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "h.jsonl")
			code, stdout, stderr := runCmd("run", "--db", "sim://ser", "--workload", "mini", "--sessions", "2", "--txns", "5", "-o", out, "--check", s)
			if code != exitSatisfied || !strings.Contains(stdout, "SER: satisfied") {
				t.Errorf("exit %d, want 0 and SER satisfied\n%s%s", code, stdout, stderr)
			}
		})
		t.Run("run-level/"+s, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "h.jsonl")
			code, stdout, stderr := runCmd("run", "--db", "sim://ser", "--workload", "mini", "--sessions", "1", "--txns", "2", "--level", s, "-o", out)
			if code != exitSatisfied || !strings.Contains(stdout, "on sim://ser at serializable") {
				t.Errorf("exit %d, want 0 at serializable\n%s%s", code, stdout, stderr)
			}
		})
	}
	for _, tc := range []struct{ dsn, level, want string }{
		{"sim://si", "si", "snapshot"},
		{"sim://si", "Snapshot Isolation", "snapshot"},
		{"sim://rc", "READ COMMITTED", "read-committed"},
		{"sim://rc", "rc", "read-committed"},
		{"sqlite::memory:", "SER", "serializable"},
	} {
		out := filepath.Join(t.TempDir(), "h.jsonl")
		code, stdout, stderr := runCmd("run", "--db", tc.dsn, "--workload", "mini", "--sessions", "1", "--txns", "2", "--level", tc.level, "-o", out)
		if want := fmt.Sprintf("on %s at %s", tc.dsn, tc.want); code != exitSatisfied || !strings.Contains(stdout, want) {
			t.Errorf("run --db %s --level %q: exit %d, want 0 and %q\n%s%s", tc.dsn, tc.level, code, want, stdout, stderr)
		}
	}
	// A level the database does not have is refused in its own words.
	code, _, stderr := runCmd("run", "--db", "sim://si", "--level", "REPEATABLE READ")
	if code != exitBadInput || !strings.Contains(stderr, "repeatable-read") {
		t.Errorf("run --db sim://si --level 'REPEATABLE READ': exit %d, want 2 naming repeatable-read\n%s", code, stderr)
	}
	for _, levels := range []string{"ser", "SER", "serializable", "Serializable"} {
		dir := t.TempDir()
		code, stdout, stderr := runCmd("run", "--workload", "twitter", "--db", "sqlite://"+filepath.Join(dir, "x.db"), "--levels", levels,
			"--sessions", "2", "--txns", "3", "-o", filepath.Join(dir, "h.jsonl"), "--check")
		if code != exitSatisfied || !strings.Contains(stdout, "at levels ser (SER)") {
			t.Errorf("run --levels %s: exit %d, want 0 at ser\n%s%s", levels, code, stdout, stderr)
		}
	}
}

// TestLevelMixSpellings: parseLevelMix reads each level of a mix in any
// spelling, and names a bad mix as given.
func TestLevelMixSpellings(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"ser+rc", "ser+rc"}, {"SER+RC", "ser+rc"}, {"serializable+read-committed", "ser+rc"},
		{"Snapshot Isolation+READ COMMITTED", "si+rc"}, {"si", "si"}, {"snapshot", "si"},
		{"random", "random"}, {"RANDOM", "random"},
	} {
		mix, err := parseLevelMix(tc.in)
		if err != nil || mix.String() != tc.want {
			t.Errorf("parseLevelMix(%q) = %v, %v, want %s", tc.in, mix, err, tc.want)
		}
	}
	for _, bad := range []string{"sometimes", "pc", "ser+", "ser+rc+si", "causal+rc"} {
		_, err := parseLevelMix(bad)
		if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("%q", bad)) {
			t.Errorf("parseLevelMix(%q): %v, want an error naming %q", bad, err, bad)
		}
	}
}
