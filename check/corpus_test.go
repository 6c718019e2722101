package check_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/isocheck/isocheck/check"
	"github.com/isocheck/isocheck/format"
	"github.com/isocheck/isocheck/internal/corpus"
	"github.com/isocheck/isocheck/level"
)

// TestCorpusSI checks every history of the corpus that comes with a
// verdict, and requires PolySI's SI verdict (see ../shared/corpus/README.md
// for the conventions those verdicts assume).
func TestCorpusSI(t *testing.T) {
	dir := corpus.Dir(t)
	var entries []corpus.Entry
	for _, sub := range []string{"polysi", "dbcop-oopsla19"} {
		entries = append(entries, corpus.Expected(t, filepath.Join(dir, sub))...)
	}
	for _, e := range entries {
		name, _ := filepath.Rel(dir, e.Path)
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			h, err := format.ReadFile(e.Path, format.Auto)
			if err != nil {
				t.Fatal(err)
			}
			res, err := check.Check(context.Background(), h, level.SI)
			if err != nil {
				t.Fatal(err)
			}
			want := check.Satisfied
			if e.Verdict == "REJECT" {
				want = check.Violated
			}
			if res.Verdict != want {
				t.Errorf("verdict %v, PolySI says %s", res.Verdict, e.Verdict)
			}
		})
	}
}
