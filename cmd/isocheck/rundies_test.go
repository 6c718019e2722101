package main

import (
	"bytes"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// startOwnPostgres starts a throwaway PostgreSQL server of its own with
// scripts/postgres.sh, for a test that stops it, and returns its DSN and
// the PID of its postmaster. It skips the test unless PostgreSQL tests are
// asked for ($ISOCHECK_POSTGRES_DSN) and the script can start a server.
func startOwnPostgres(t *testing.T) (dsn string, pid int) {
	t.Helper()
	serviceDSN(t, "ISOCHECK_POSTGRES_DSN", "scripts/postgres.sh start")
	if _, err := exec.LookPath("pg_ctl"); err != nil {
		if m, _ := filepath.Glob("/usr/lib/postgresql/*/bin/pg_ctl"); len(m) == 0 {
			t.Skip("no pg_ctl to start a server of the test's own")
		}
	}
	// The server may run as user postgres (when the test runs as root),
	// which must reach its directory: not one under t.TempDir (0700).
	parent, err := os.MkdirTemp("", "isocheck-pg-dies-")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(parent, 0o755); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(parent, "pg")
	script, err := filepath.Abs("../../scripts/postgres.sh")
	if err != nil {
		t.Fatal(err)
	}
	port := freePort(t)
	t.Cleanup(func() {
		if out, err := exec.Command(script, "stop", dir).CombinedOutput(); err != nil {
			t.Errorf("stopping the server: %v\n%s", err, out)
		}
		os.RemoveAll(parent)
	})
	cmd := exec.Command(script, "start", dir)
	cmd.Env = append(os.Environ(), "PGPORT="+strconv.Itoa(port))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Skipf("scripts/postgres.sh could not start a server: %v\n%s", err, stderr.String())
	}
	pidFile, err := os.ReadFile(filepath.Join(dir, "data", "postmaster.pid"))
	if err != nil {
		t.Fatal(err)
	}
	first, _, _ := strings.Cut(string(pidFile), "\n")
	if pid, err = strconv.Atoi(strings.TrimSpace(first)); err != nil {
		t.Fatalf("postmaster.pid: %v", err)
	}
	return strings.TrimSpace(string(out)), pid
}

// freePort returns a TCP port of 127.0.0.1 that nobody listens on now.
func freePort(t *testing.T) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// TestRunPostgresDies: PostgreSQL stopped mid-run (pg_ctl stop -m
// immediate: SIGQUIT to the postmaster) ends the run within its reconnect
// window, and the run says it is incomplete and exits 3, having checked
// the part that ran.
func TestRunPostgresDies(t *testing.T) {
	dsn, pid := startOwnPostgres(t)
	out := filepath.Join(t.TempDir(), "h.jsonl")
	type result struct {
		code           int
		stdout, stderr string
	}
	done := make(chan result, 1)
	go func() {
		code, stdout, stderr := runCmd("run", "--db", dsn, "--level", "repeatable-read", "--workload", "mini", "--sessions", "8",
			"--txns", "100000", "--reconnect", "2s", "-o", out, "--check", "si")
		done <- result{code, stdout, stderr}
	}()
	// Stop the server once some transactions are recorded.
	deadline := time.Now().Add(30 * time.Second)
	for {
		if fi, err := os.Stat(out); err == nil && fi.Size() > 20_000 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no history after 30 s")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := syscall.Kill(pid, syscall.SIGQUIT); err != nil {
		t.Fatalf("stopping the server: %v", err)
	}
	var r result
	select {
	case r = <-done:
	case <-time.After(2 * time.Minute):
		t.Fatal("the run goes on 2 minutes after its database stopped")
	}
	if r.code != exitNoVerdict {
		t.Fatalf("exit %d, want %d\n%s\n%s", r.code, exitNoVerdict, r.stdout, r.stderr)
	}
	for _, want := range []string{"of the plan's 800000 transactions not run", "connection refused", "SI: satisfied", "The run is INCOMPLETE"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, r.stdout)
		}
	}
	if !strings.Contains(r.stderr, "waiting to reconnect to "+redact(dsn)) {
		t.Errorf("stderr does not say what the sessions wait for:\n%s", r.stderr)
	}
}
