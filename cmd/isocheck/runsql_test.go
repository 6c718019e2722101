package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/isocheck/isocheck/format/sqljsonl"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/sqlhistory"
)

// readSQLRun reads the SQL history a run wrote and checks that it has
// sessions × txns transactions, txns in each session.
func readSQLRun(t *testing.T, path string, sessions, txns int) *sqlhistory.History {
	t.Helper()
	h, err := sqljsonl.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Txns) != sessions*txns || len(h.Sessions) != sessions {
		t.Fatalf("%s: %d transactions in %d sessions, want %d × %d", path, len(h.Txns), len(h.Sessions), sessions, txns)
	}
	for s, ts := range h.Sessions {
		if len(ts) != txns {
			t.Errorf("session %d has %d transactions, want %d", s, len(ts), txns)
		}
	}
	return h
}

// TestRunSQLEmbedded: the SQL workloads on embedded SQLite, recorded,
// written and checked. SQLite runs every transaction at SER: without
// --levels the run says so and runs them all at SER, and every
// transaction is recorded at SER; a mix with other levels is refused
// rather than recorded at levels the transactions did not have.
func TestRunSQLEmbedded(t *testing.T) {
	for _, tc := range []struct{ workload, levels string }{
		{"tpcc", ""}, {"tpcc", "ser"}, {"twitter", ""}, {"twitter", "ser"},
	} {
		t.Run(tc.workload+"/"+tc.levels, func(t *testing.T) {
			dir := t.TempDir()
			out := filepath.Join(dir, "h.jsonl")
			args := []string{"run", "--workload", tc.workload, "--db", "sqlite://" + filepath.Join(dir, "x.db"), "--sessions", "3", "--txns", "10", "-o", out, "--check"}
			if tc.levels != "" {
				args = append(args, "--levels", tc.levels)
			}
			code, stdout, stderr := runCmd(args...)
			if code != exitSatisfied {
				t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
			}
			want := []string{
				fmt.Sprintf("running %s workload: 3 sessions × 10 transactions", tc.workload),
				"at levels ser (SER)", "30 transactions in", "committed", "levels: SER 30\n", "history: " + out,
				"satisfied: every transaction kept its isolation level",
			}
			if tc.levels == "" {
				want = append(want, "note: sqlite runs every transaction at SER: --levels ser (not random)")
			}
			if tc.workload == "tpcc" {
				want = append(want, "TPC-C consistency conditions 1-4: hold")
			}
			for _, w := range want {
				if !strings.Contains(stdout, w) {
					t.Errorf("output lacks %q:\n%s", w, stdout)
				}
			}
			h := readSQLRun(t, out, 3, 10)
			for i, tx := range h.Txns {
				if tx.Level != level.SER {
					t.Fatalf("%s recorded at %v on SQLite", h.TxnName(i), tx.Level)
				}
			}
		})
	}
	for _, levels := range []string{"random", "si", "rc", "ser+rc", "si+rc"} {
		dir := t.TempDir()
		out := filepath.Join(dir, "h.jsonl")
		code, stdout, stderr := runCmd("run", "--workload", "tpcc", "--db", "sqlite://"+filepath.Join(dir, "x.db"), "--levels", levels,
			"--sessions", "3", "--txns", "10", "-o", out, "--check")
		if code != exitBadInput || !strings.Contains(stderr, "--levels "+levels+": sqlite runs every transaction at SER") || !strings.Contains(stderr, "use --levels ser") {
			t.Errorf("--levels %s on SQLite: exit %d, want 2 and the reason\n%s\n%s", levels, code, stdout, stderr)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("--levels %s on SQLite: a refused run left a history", levels)
		}
	}
}

// TestRunSQLDefaults: without --sessions and --txns a SQL workload runs
// a size its check handles quickly; without -o the history goes to a
// temporary file, which check reads as a SQL history.
func TestRunSQLDefaults(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	code, stdout, stderr := runCmd("run", "--workload", "twitter")
	if code != exitSatisfied {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	_, path, ok := strings.Cut(stdout, "history: ")
	if !ok {
		t.Fatalf("no history named:\n%s", stdout)
	}
	path = strings.TrimSpace(path)
	readSQLRun(t, path, sqlSessions, sqlTxns)
	if code, stdout, stderr := runCmd("check", path); code != exitSatisfied {
		t.Fatalf("check: exit %d\n%s\n%s", code, stdout, stderr)
	}
}

// TestRunSQLUsage: flags that do not go together are refused, with a
// message that says what to do.
func TestRunSQLUsage(t *testing.T) {
	db := "sqlite://" + filepath.Join(t.TempDir(), "x.db")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--workload", "tpcc", "--level", "serializable"}, "use --levels"},
		{[]string{"--workload", "twitter", "--check", "si"}, "--check takes no LEVEL with --workload twitter"},
		{[]string{"--workload", "tpcc", "--check", "all", "--sessions", "2"}, "--check takes no LEVEL"},
		{[]string{"--workload", "tpcc", "--levels", "sometimes"}, "--levels: "},
		{[]string{"--workload", "tpcc", "--keys", "10"}, "--keys is for the key-value workloads"},
		{[]string{"--workload", "twitter", "--nemesis", "pause"}, "--nemesis is for the key-value workloads"},
		{[]string{"--workload", "tpcc", "--sessions", "0"}, "must be positive"},
		{[]string{"--workload", "mini", "--levels", "random"}, "--levels is for --workload tpcc or twitter"},
		{[]string{"--workload", "mini", "--check"}, "--check needs a LEVEL"},
		{[]string{"--workload", "mini", "--check", "-o", "x"}, "--check needs a LEVEL"},
		{[]string{"--workload", "tpcc", "--db", "sim://si"}, "unknown SQL database"},
	} {
		args := append([]string{"run"}, tc.args...)
		if !slices.Contains(args, "--db") {
			args = append(args, "--db", db)
		}
		code, stdout, stderr := runCmd(args...)
		if code != exitBadInput || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, want 2 with %q\n%s\n%s", tc.args, code, tc.want, stdout, stderr)
		}
	}
}

// TestRunSQLPostgres: TPC-C with random levels on PostgreSQL, when
// ISOCHECK_POSTGRES_DSN names one (scripts/postgres.sh starts one).
//
// With --levels random or ser+rc the check may find a violation:
// PostgreSQL protects a SERIALIZABLE transaction only from other
// SERIALIZABLE ones (its SSI tracks neither REPEATABLE READ nor READ
// COMMITTED transactions' reads and writes), so a history mixing SER with
// SI or RC is not always consistent with one commit order, as the
// definition of the levels of Bouajjani, Enea and Román-Calvo, "On the
// Complexity of Checking Mixed Isolation Levels for SQL Transactions" (CAV
// 2025) asks. It is rare: a run under the race detector met one, a cycle
// of SER Payment and NewOrder transactions through an RC Delivery's
// writes, once in many runs. The test asks for a verdict there, and for
// "satisfied" with SI and RC, whose snapshots and first-committer-wins
// PostgreSQL applies whatever the other transactions' levels.
func TestRunSQLPostgres(t *testing.T) {
	dsn := os.Getenv("ISOCHECK_POSTGRES_DSN")
	if dsn == "" {
		t.Skip("ISOCHECK_POSTGRES_DSN is not set (scripts/postgres.sh start prints one)")
	}
	for _, levels := range []string{"random", "ser+rc", "si+rc"} {
		t.Run(levels, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "tpcc.jsonl")
			code, stdout, stderr := runCmd("run", "--workload", "tpcc", "--db", dsn, "--table", "isocheck_test_runsql_",
				"--levels", levels, "--sessions", "3", "--txns", "10", "-o", out, "--check")
			switch {
			case code == exitSatisfied:
			case code == exitViolated && levels != "si+rc":
				t.Logf("PostgreSQL's mix of SER with weaker levels broke a level (see the test's comment):\n%s", stdout)
			default:
				t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
			}
			if !strings.Contains(stdout, "TPC-C consistency conditions 1-4: hold") {
				t.Errorf("TPC-C's consistency conditions do not hold:\n%s", stdout)
			}
			readSQLRun(t, out, 3, 10)
		})
	}
}

// TestRunSQLRefusesKVFlags: the key-value workloads' flags given to a
// SQL application are named, every one.
func TestRunSQLRefusesKVFlags(t *testing.T) {
	code, stdout, stderr := runCmd("run", "--workload", "tpcc", "--progress", "--keys", "3", "--cluster", "x")
	want := "--cluster, --keys and --progress are for the key-value workloads"
	if code != exitBadInput || !strings.Contains(stderr, want) {
		t.Errorf("exit %d, want 2 with %q\n%s\n%s", code, want, stdout, stderr)
	}
}
