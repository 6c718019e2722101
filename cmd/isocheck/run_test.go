package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/isocheck/isocheck/format"
	"github.com/isocheck/isocheck/history"
)

// small is a short mini-transaction workload on few keys: enough
// contention for a faulty store to show its anomaly.
var small = []string{"--workload", "mini", "--sessions", "6", "--txns", "60", "--keys", "10"}

func runArgs(extra ...string) []string { return append(append([]string{"run"}, small...), extra...) }

// TestRunEmbedded: the whole loop on embedded SQLite, recorded and checked
// at every level.
func TestRunEmbedded(t *testing.T) {
	out := filepath.Join(t.TempDir(), "h.jsonl")
	code, stdout, stderr := runCmd(runArgs("--db", "sqlite://"+filepath.Join(t.TempDir(), "x.db"), "-o", out, "--check", "all")...)
	if code != exitSatisfied {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	for _, want := range []string{"360 transactions", "committed", "history: " + out, "SSER  satisfied"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	h, err := format.ReadFile(out, format.JSONL)
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Txns) != 360 {
		t.Fatalf("%d transactions recorded, want 360", len(h.Txns))
	}
	for _, tx := range h.Txns {
		if !tx.HasTime() && tx.Status != history.Unknown {
			t.Fatalf("%s has no times", tx.ID)
		}
	}
}

// TestRunFindsInjectedBugs: each fault of the simulated stores is found at
// the level it breaks, through the same path as a real database.
func TestRunFindsInjectedBugs(t *testing.T) {
	for _, tc := range []struct {
		dsn, level, anomaly string
		extra               []string
	}{
		{"sim://si?fault=lost-update", "si", "LostUpdate", nil},
		{"sim://rc?fault=dirty-read", "rc", "AbortedRead", nil},
		// A fractured read whose reader saw the newer write first
		// breaks RC already (its reads go back in commit order), which
		// the report then names; the run's interleaving decides which.
		{"sim://si?fault=fractured-read", "ra", "FracturedRead|NonMonotonicRead", []string{"--workload", "general", "--ops", "4", "--sessions", "8", "--txns", "200"}},
		{"sim://ser?fault=stale-read&p=0.5", "sser", "RealTimeViolation", []string{"--reads", "0.5"}},
	} {
		t.Run(tc.dsn, func(t *testing.T) {
			args := append(runArgs("--db", tc.dsn, "-o", filepath.Join(t.TempDir(), "h.jsonl"), "--check", tc.level), tc.extra...)
			code, stdout, stderr := runCmd(args...)
			if code != exitViolated {
				t.Fatalf("exit %d, want %d (violated)\n%s\n%s", code, exitViolated, stdout, stderr)
			}
			if !slices.ContainsFunc(strings.Split(tc.anomaly, "|"), func(a string) bool { return strings.Contains(stdout, "VIOLATED: "+a) }) {
				t.Errorf("no %q in:\n%s", tc.anomaly, stdout)
			}
		})
	}
	// Without the fault the same stores keep their levels.
	for dsn, lvl := range map[string]string{"sim://si": "si", "sim://ser": "sser", "sim://rc": "rc"} {
		code, stdout, stderr := runCmd(runArgs("--db", dsn, "-o", filepath.Join(t.TempDir(), "h.jsonl"), "--check", lvl)...)
		if code != exitSatisfied {
			t.Errorf("%s at %s: exit %d\n%s\n%s", dsn, lvl, code, stdout, stderr)
		}
	}
}

func TestRunBadArguments(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--db", "nosuch://x"}, "unknown database"},
		{[]string{"run", "--db", "sqlite://" + dir + "/a.db", "--level", "read-committed"}, "read-committed"},
		{[]string{"run", "--db", "postgres://isocheck@127.0.0.1:1/isocheck?sslmode=disable&connect_timeout=2", "--level", "serializable"}, "127.0.0.1"},
		{[]string{"run", "--workload", "nope"}, "unknown workload"},
		{[]string{"run", "--reads", "2"}, "--reads"},
		{[]string{"run", "--check", "strongest"}, "--check"},
		{[]string{"run", "--workload-file", dir + "/missing.json"}, "missing.json"},
		{[]string{"run", "--db", "sim://si?fault=nope"}, "nope"},
	} {
		start := time.Now()
		code, stdout, stderr := runCmd(tc.args...)
		if code != exitBadInput || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, want 2 and %q in:\n%s%s", tc.args, code, tc.want, stdout, stderr)
		}
		// A hang, not a slow machine: connecting gives up after 2 s.
		if d := time.Since(start); d > time.Minute {
			t.Errorf("%v took %v to fail", tc.args, d)
		}
	}
}

// TestGenThenRun: a workload written by gen runs from its file and gives
// the history the plan says.
func TestGenThenRun(t *testing.T) {
	dir := t.TempDir()
	plan := filepath.Join(dir, "w.json")
	code, _, stderr := runCmd("gen", "--workload", "append", "--sessions", "3", "--txns", "20", "--ops", "3", "--keys", "5", "-o", plan)
	if code != exitSatisfied {
		t.Fatalf("gen: exit %d: %s", code, stderr)
	}
	out := filepath.Join(dir, "h.jsonl")
	code, stdout, stderr := runCmd("run", "--db", "sqlite://"+dir+"/db", "--workload-file", plan, "-o", out, "--check", "sser")
	if code != exitSatisfied {
		t.Fatalf("run: exit %d\n%s\n%s", code, stdout, stderr)
	}
	h, err := format.ReadFile(out, format.JSONL)
	if err != nil {
		t.Fatal(err)
	}
	if !h.Lists || len(h.Txns) != 60 {
		t.Fatalf("lists %v, %d transactions; want a list history of 60", h.Lists, len(h.Txns))
	}
	code, _, stderr = runCmd("gen", "--sessions", "0")
	if code != exitBadInput || !strings.Contains(stderr, "positive") {
		t.Fatalf("gen --sessions 0: exit %d: %s", code, stderr)
	}
}

func TestDemo(t *testing.T) {
	dir := t.TempDir()
	code, stdout, stderr := runCmd("demo", "--dir", dir)
	if code != exitSatisfied {
		t.Fatalf("demo: exit %d\n%s\n%s", code, stdout, stderr)
	}
	for _, want := range []string{"Embedded SQLite", "SSER  satisfied", "VIOLATED: LostUpdate", "Demo done"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("demo output lacks %q:\n%s", want, stdout)
		}
	}
	for _, f := range []string{"demo-1.jsonl", "demo-2.jsonl"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
}

// TestRunInterrupted: Ctrl-C stops the sessions after their current
// transaction, leaves a valid history of every transaction the summary
// counts, prints the summary and exits 3.
func TestRunInterrupted(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "h.jsonl")
	args := []string{"run", "--db", "sqlite://" + dir + "/db", "--workload", "general", "--sessions", "4", "--txns", "1000000", "--ops", "4", "--keys", "100", "-o", out}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), testChildEnv+"=command", testArgsEnv+"="+strings.Join(args, "\n"))
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Interrupt once some transactions are recorded.
	deadline := time.Now().Add(2 * time.Minute)
	for {
		if fi, err := os.Stat(out); err == nil && fi.Size() > 10_000 {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("no history after 2 minutes:\n%s\n%s", stdout.String(), stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	start := time.Now()
	cmd.Process.Signal(os.Interrupt)
	err := cmd.Wait()
	if d := time.Since(start); d > time.Minute {
		t.Errorf("stopping took %v", d)
	}
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != exitNoVerdict {
		t.Fatalf("exit %v, want %d\n%s\n%s", err, exitNoVerdict, stdout.String(), stderr.String())
	}
	if !strings.Contains(stdout.String(), "interrupted") {
		t.Errorf("the summary does not say the run was interrupted:\n%s", stdout.String())
	}
	h, err := format.ReadFile(out, format.JSONL)
	if err != nil {
		t.Fatalf("the history of an interrupted run: %v", err)
	}
	if want := fmt.Sprintf("%d transactions in", len(h.Txns)); !strings.Contains(stdout.String(), want) {
		t.Errorf("history holds %d transactions; the summary says otherwise:\n%s", len(h.Txns), stdout.String())
	}
	if code, _, errs := runCmd("check", "--level", "sser", out); code != exitSatisfied {
		t.Errorf("the interrupted history: exit %d: %s", code, errs)
	}
}

// TestRunTableOfAnotherShape: a table holding lists is not silently used
// for registers.
func TestRunTableOfAnotherShape(t *testing.T) {
	dsn := "sqlite://" + filepath.Join(t.TempDir(), "db")
	o := filepath.Join(t.TempDir(), "h.jsonl")
	if code, stdout, stderr := runCmd("run", "--db", dsn, "--table", "shared", "--workload", "append", "--sessions", "2", "--txns", "5", "-o", o); code != exitSatisfied {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	code, _, stderr := runCmd("run", "--db", dsn, "--table", "shared", "--workload", "mini", "--sessions", "2", "--txns", "5", "-o", o, "--force")
	if code != exitBadInput || !strings.Contains(stderr, "shared") {
		t.Fatalf("registers on a table of lists: exit %d: %s", code, stderr)
	}
}

// TestRunDatabaseDies: a database that stops answering mid-run is no pass:
// the run ends soon after, says which part of its plan did not run and
// why, checks what did run, and exits 3, or 1 for a violation in it.
func TestRunDatabaseDies(t *testing.T) {
	for _, tc := range []struct {
		dsn   string
		check string
		want  int
	}{
		{"sim://si?down-after=100", "si", exitNoVerdict},
		// Few keys and many commits: concurrent read-modify-writes of
		// one key are certain even on a loaded machine.
		{"sim://si?fault=lost-update&down-after=1000", "si", exitViolated},
	} {
		t.Run(tc.dsn, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "h.jsonl")
			code, stdout, stderr := runCmd("run", "--db", tc.dsn, "--workload", "mini", "--sessions", "4", "--txns", "1000", "--keys", "3",
				"--reconnect", "1s", "-o", out, "--check", tc.check)
			if code != tc.want {
				t.Fatalf("exit %d, want %d\n%s\n%s", code, tc.want, stdout, stderr)
			}
			for _, want := range []string{"INCOMPLETE: ", "of the plan's 4000 transactions not run (the database stopped answering",
				"connection refused", "history: " + out, "The run is INCOMPLETE"} {
				if !strings.Contains(stdout, want) {
					t.Errorf("output lacks %q:\n%s", want, stdout)
				}
			}
			if !strings.Contains(stderr, "sessions waiting to reconnect to "+tc.dsn+": sim: dial: connection refused") &&
				!strings.Contains(stderr, "1 session waiting to reconnect to "+tc.dsn) {
				t.Errorf("stderr does not say what the sessions wait for:\n%s", stderr)
			}
			if tc.want == exitNoVerdict && !strings.Contains(stdout, "SI: satisfied") {
				t.Errorf("the verdict of the partial history is not printed:\n%s", stdout)
			}
			h, err := format.ReadFile(out, format.JSONL)
			if err != nil {
				t.Fatal(err)
			}
			if want := fmt.Sprintf("%d transactions in", len(h.Txns)); !strings.Contains(stdout, want) {
				t.Errorf("the history holds %d transactions; the summary says otherwise:\n%s", len(h.Txns), stdout)
			}
		})
	}
}

// TestRunOutput: -o - writes the history alone to standard output, the
// rest to stderr; -o FILE refuses a file that exists unless --force.
func TestRunOutput(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	for _, check := range [][]string{nil, {"--check", "si"}} {
		code, stdout, stderr := runCmd(append(runArgs("--db", "sim://si", "-o", "-"), check...)...)
		if code != exitSatisfied {
			t.Fatalf("-o - %v: exit %d\n%s\n%s", check, code, stdout, stderr)
		}
		if _, err := os.Stat(filepath.Join(dir, "-")); err == nil {
			t.Fatal("-o - created a file named -")
		}
		h, err := format.Read(strings.NewReader(stdout), "stdout", format.JSONL)
		if err != nil {
			t.Fatalf("-o - %v: standard output is not a history: %v\n%s", check, err, stdout)
		}
		if len(h.Txns) != 360 {
			t.Errorf("-o - %v: %d transactions on standard output, want 360", check, len(h.Txns))
		}
		for _, want := range []string{"360 transactions", "history: standard output"} {
			if !strings.Contains(stderr, want) {
				t.Errorf("-o - %v: stderr lacks %q:\n%s", check, want, stderr)
			}
		}
		if check != nil && !strings.Contains(stderr, "SI: satisfied") {
			t.Errorf("-o - --check: the verdict is not on stderr:\n%s", stderr)
		}
	}

	out := filepath.Join(dir, "h.jsonl")
	if err := os.WriteFile(out, []byte("precious\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCmd(runArgs("--db", "sim://si", "-o", out)...)
	if code != exitBadInput || !strings.Contains(stderr, out+" exists; remove it or pass --force") {
		t.Fatalf("-o EXISTING: exit %d, want 2 and the reason\n%s\n%s", code, stdout, stderr)
	}
	if b, _ := os.ReadFile(out); string(b) != "precious\n" {
		t.Fatalf("-o EXISTING changed the file: %q", b)
	}
	if code, stdout, stderr := runCmd(runArgs("--db", "sim://si", "-o", out, "--force")...); code != exitSatisfied {
		t.Fatalf("-o EXISTING --force: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if h, err := format.ReadFile(out, format.JSONL); err != nil || len(h.Txns) != 360 {
		t.Fatalf("-o EXISTING --force did not overwrite the file: %v", err)
	}
}

// TestRunCheckLWT: --check lwt checks the registers of a run of the lwt
// workload for linearizability, from the run's own record of them.
func TestRunCheckLWT(t *testing.T) {
	for _, tc := range []struct {
		dsn  string
		want int
		text string
	}{
		{"sim://ser", exitSatisfied, "linearizability: linearizable (600 operations on 3 registers)"},
		{"sim://si?fault=lost-update", exitViolated, "linearizability: not linearizable on key"},
		{"sim://ser?fault=stale-read&p=0.5", exitViolated, "linearizability: not linearizable on key"},
	} {
		t.Run(tc.dsn, func(t *testing.T) {
			code, stdout, stderr := runCmd("run", "--db", tc.dsn, "--workload", "lwt", "--sessions", "6", "--txns", "100", "--keys", "3",
				"-o", filepath.Join(t.TempDir(), "h.jsonl"), "--check", "lwt")
			if code != tc.want || !strings.Contains(stdout, tc.text) {
				t.Fatalf("exit %d, want %d and %q\n%s\n%s", code, tc.want, tc.text, stdout, stderr)
			}
			if tc.want == exitViolated && !strings.Contains(stdout, "operation:\n  ") {
				t.Errorf("the violation names no operation:\n%s", stdout)
			}
		})
	}
	code, _, stderr := runCmd("run", "--db", "sim://ser", "--workload", "mini", "--check", "lwt")
	if code != exitBadInput || !strings.Contains(stderr, "--check lwt checks the registers of --workload lwt") {
		t.Fatalf("--check lwt of --workload mini: exit %d: %s", code, stderr)
	}
}
