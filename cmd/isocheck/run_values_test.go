package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestRunValuesRepeat runs workloads whose writes repeat values (--values)
// and checks them: embedded SQLite keeps every level, and a store that
// loses updates breaks SI, with an explanation.
func TestRunValuesRepeat(t *testing.T) {
	dir := t.TempDir()
	code, stdout, stderr := runCmd("run", "--values", "3", "--sessions", "4", "--txns", "25", "--keys", "20",
		"-o", filepath.Join(dir, "sqlite.jsonl"), "--check", "all")
	if code != exitSatisfied || !strings.Contains(stdout, "strongest level kept: SSER") {
		t.Fatalf("sqlite: exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	code, stdout, stderr = runCmd("run", "--db", "sim://si?fault=lost-update", "--values", "3", "--sessions", "4", "--txns", "40", "--keys", "5",
		"-o", filepath.Join(dir, "sim.jsonl"), "--check", "si")
	if code != exitViolated || !strings.Contains(stdout, "SI: VIOLATED") {
		t.Fatalf("lost updates: exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	if code, _, stderr := runCmd("run", "--workload", "append", "--values", "3", "-o", filepath.Join(dir, "x.jsonl")); code != exitBadInput || !strings.Contains(stderr, "values repeat only") {
		t.Fatalf("append with --values: exit %d, stderr %s", code, stderr)
	}
}
