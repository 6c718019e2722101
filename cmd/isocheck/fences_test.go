package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/online"
)

// fencedArgs are a run of the general workload with fences every 40
// transactions of each session.
func fencedArgs(dsn, out string, extra ...string) []string {
	return append([]string{"run", "--db", dsn, "--workload", "general", "--sessions", "4", "--txns", "300",
		"--ops", "4", "--keys", "100", "--fences", "40", "-o", out}, extra...)
}

// TestRunFencesDecideAsTheWhole checks run --check with fences end to
// end: the pieces between fences give the verdict the check of the whole
// history gives, say so, and a violation is explained by the check of
// the whole, from the history's own transactions.
func TestRunFencesDecideAsTheWhole(t *testing.T) {
	for _, tc := range []struct {
		dsn, level string
		want       int
	}{
		{"sim://ser", "ser", exitSatisfied},
		{"sim://ser", "sser", exitSatisfied},
		{"sim://si", "si", exitSatisfied},
		{"sim://si", "cc", exitSatisfied},
		{"sim://si?fault=lost-update", "si", exitViolated},
	} {
		t.Run(tc.dsn+"@"+tc.level, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "h.jsonl")
			code, stdout, stderr := runCmd(fencedArgs(tc.dsn, out, "--check", tc.level)...)
			if code != tc.want {
				t.Fatalf("exit %d, want %d\n%s\n%s", code, tc.want, stdout, stderr)
			}
			whole, wholeOut, _ := runCmd("check", "--level", tc.level, out)
			if whole != code {
				t.Fatalf("the check of the whole history exits %d, the run %d", whole, code)
			}
			data, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			if n := strings.Count(string(data), `"session":"fence"`); n < 5 {
				t.Fatalf("%d fences in the history", n)
			}
			if code == exitSatisfied {
				if !strings.Contains(stderr, "decided in ") || !strings.HasSuffix(stdout, strings.ToUpper(tc.level)+": satisfied\n") {
					t.Fatalf("the pieces did not decide:\n%s\n%s", stdout, stderr)
				}
				return
			}
			// The explanation is the check of the whole history's.
			verdictLine := wholeOut[:strings.Index(wholeOut, "\n")]
			if !strings.Contains(stdout, verdictLine) || strings.Contains(stdout, "state read by") {
				t.Fatalf("the run's explanation is not the whole history's (%q):\n%s", verdictLine, stdout)
			}
		})
	}
}

// TestFollowFences checks check --follow of a history with fences: the
// same verdict, output and exit status as check (after the early report
// of a violation), decided a piece at a time.
func TestFollowFences(t *testing.T) {
	out := filepath.Join(t.TempDir(), "h.jsonl")
	if code, stdout, stderr := runCmd(fencedArgs("sim://si", out)...); code != exitSatisfied {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	for _, l := range []string{"ser", "si", "pc", "cc", "rc"} {
		code, stdout, stderr := runCmd("check", "--level", l, "--follow", "--idle", "200ms", out)
		wantCode, wantOut, _ := runCmd("check", "--level", l, out)
		if code != wantCode || !strings.HasSuffix(stdout, wantOut) {
			t.Fatalf("%s: --follow exits %d with\n%s\ncheck exits %d with\n%s", l, code, stdout, wantCode, wantOut)
		}
		// RC's pieces are checked at CC, which the SI store keeps.
		if decided := strings.Contains(stderr, "decided in "); decided != (code == exitSatisfied) {
			t.Fatalf("%s: exit %d, stderr:\n%s", l, code, stderr)
		}
	}
}

// TestFencesNeedRegisters: fences read and write registers, which the
// list workload's store has not.
func TestFencesNeedRegisters(t *testing.T) {
	code, _, stderr := runCmd("run", "--db", "sim://ser", "--workload", "append", "--fences", "10", "-o", filepath.Join(t.TempDir(), "h"))
	if code != exitBadInput || !strings.Contains(stderr, "--fences is for --workload general or mini") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
}

// TestEarlyNoteSaysPieces: the progress line says how far the pieces
// between fences decided the input, and when they stopped, why.
func TestEarlyNoteSaysPieces(t *testing.T) {
	for _, tc := range []struct {
		s    online.Stats
		want string
	}{
		{online.Stats{}, "SER: no violation so far"},
		{online.Stats{Pieces: 3, Settled: 120}, "SER: no violation in 3 pieces between fences, up to line 120"},
		{online.Stats{Pieces: 3, Settled: 120, NotApart: "values repeat"}, "SER: no violation so far; 3 pieces decided, then values repeat: memory grows"},
		{online.Stats{Repeated: true}, "SER: values repeat, verdict at the end"},
		{online.Stats{Lines: 100_000}, "SER: no violation so far; no fences, so the whole is checked at the end"},
	} {
		if got := earlyNote(level.SER, tc.s); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.s, got, tc.want)
		}
	}
}
