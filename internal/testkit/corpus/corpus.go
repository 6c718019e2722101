// Package corpus locates the shared corpus of third-party histories
// (../shared/corpus beside the repository) for tests and benchmarks, and
// reads the verdicts listed in its EXPECTED.tsv files.
package corpus

import (
	"bufio"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// Dir returns the corpus directory: $ISOCHECK_CORPUS, or shared/corpus
// beside the repository. When it is missing the test is skipped, or fails
// under CI (CI=true), where the corpus must be present.
func Dir(tb testing.TB) string {
	tb.Helper()
	dir := os.Getenv("ISOCHECK_CORPUS")
	if dir == "" {
		_, file, _, _ := runtime.Caller(0)
		dir = filepath.Join(filepath.Dir(file), "..", "..", "..", "..", "shared", "corpus")
	}
	if _, err := os.Stat(dir); err != nil {
		if os.Getenv("CI") != "" {
			tb.Fatalf("corpus not found at %s (set ISOCHECK_CORPUS): %v", dir, err)
		}
		tb.Skipf("corpus not found at %s (set ISOCHECK_CORPUS)", dir)
	}
	return dir
}

// Entry is one row of an EXPECTED.tsv file.
type Entry struct {
	// Path is the history's path (a file, or a directory of Cobra logs).
	Path string
	// Verdict is PolySI's SI verdict: ACCEPT or REJECT.
	Verdict string
}

// Expected reads the EXPECTED.tsv in dir (a subfolder of the corpus).
func Expected(tb testing.TB, dir string) []Entry {
	tb.Helper()
	f, err := os.Open(filepath.Join(dir, "EXPECTED.tsv"))
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var out []Entry
	sc := bufio.NewScanner(f)
	for first := true; sc.Scan(); first = false {
		fields := strings.Split(sc.Text(), "\t")
		if first || len(fields) < 2 {
			continue
		}
		out = append(out, Entry{Path: filepath.Join(dir, fields[0]), Verdict: fields[1]})
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	if len(out) == 0 {
		tb.Fatalf("%s/EXPECTED.tsv lists no histories", dir)
	}
	return out
}
