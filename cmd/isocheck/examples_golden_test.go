package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExamplesGolden holds what isocheck prints for every shipped example,
// as a user first runs it, to golden files in testdata/examples (rewrite
// them with -update, and read the diff): every level's verdict and the
// weakest broken level's counterexample for key-value histories, the
// linearizability report for a register history. (The full explanation
// of each key-value example at each level it breaks is in
// interpret/testdata/explain; SQL histories have goldens of their own.)
func TestExamplesGolden(t *testing.T) {
	examples, err := filepath.Glob("../../examples/*")
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range examples {
		base := filepath.Base(path)
		var args []string
		switch {
		case strings.HasPrefix(base, "sql-"):
			continue
		case strings.HasPrefix(base, "cas-"):
			args = []string{"lwt", path}
		default:
			args = []string{"check", "--level", "all", path}
		}
		t.Run(base, func(t *testing.T) {
			code, stdout, stderr := runCmd(args...)
			got := strings.Join(args, " ") + "\n" + "exit " + string(rune('0'+code)) + "\n" + stdout + stderr
			golden := filepath.Join("testdata", "examples", strings.TrimSuffix(base, filepath.Ext(base))+".txt")
			if *update {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -run TestExamplesGolden -update)", err)
			}
			if got != string(want) {
				t.Errorf("%s differs from %s (rerun with -update if the change is meant):\n%s", strings.Join(args, " "), golden, got)
			}
		})
	}
}
