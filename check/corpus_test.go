package check_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/isocheck/isocheck/check"
	"github.com/isocheck/isocheck/format"
	"github.com/isocheck/isocheck/internal/testkit/corpus"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/verdict"
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
			want := verdict.Satisfied
			if e.Verdict == "REJECT" {
				want = verdict.Violated
			}
			if res.Verdict != want {
				t.Errorf("verdict %v, PolySI says %s", res.Verdict, e.Verdict)
			}
		})
	}
}

// TestCorpusElle checks every Elle list-append history of the corpus at
// every level. The corpus records no verdict for them; the test requires
// a verdict at every level, and that forgetting what the lists reveal (reading
// each list as a register read of its last element) never turns a pass
// into a failure: lists only add what must hold.
func TestCorpusElle(t *testing.T) {
	dir := filepath.Join(corpus.Dir(t), "elle-list-append")
	paths, err := filepath.Glob(filepath.Join(dir, "*.edn"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no histories in %s: %v", dir, err)
	}
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			t.Parallel()
			h, err := format.ReadFile(path, format.Auto)
			if err != nil {
				t.Fatal(err)
			}
			if !h.Lists || len(h.ListReads) == 0 {
				t.Fatalf("read as a history without lists")
			}
			all, err := check.CheckAll(context.Background(), h)
			if err != nil {
				t.Fatal(err)
			}
			registers := *h
			registers.Lists, registers.ListReads = false, nil
			plain, err := check.CheckAll(context.Background(), &registers)
			if err != nil {
				t.Fatal(err)
			}
			var verdicts []string
			for i, res := range all.Results {
				if res.Verdict == verdict.Unknown {
					t.Fatalf("%v: no verdict: %s", res.Level, res.Reason)
				}
				if res.Verdict == verdict.Satisfied && plain.Results[i].Verdict != verdict.Satisfied {
					t.Errorf("%v: satisfied with its lists, %v without", res.Level, plain.Results[i].Verdict)
				}
				verdicts = append(verdicts, res.Level.String()+"="+res.Verdict.String())
			}
			t.Log(verdicts)
		})
	}
}
