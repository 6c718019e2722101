package interpret_test

import (
	"context"
	"flag"
	"path/filepath"
	"testing"

	"github.com/isocheck/isocheck/check"
	"github.com/isocheck/isocheck/format"
	"github.com/isocheck/isocheck/internal/testkit/corpus"
	"github.com/isocheck/isocheck/internal/testkit/testsize"
	"github.com/isocheck/isocheck/interpret"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/shrink"
	"github.com/isocheck/isocheck/verdict"
)

// dbcopEvery is 4 by default, 1 (every history) under make test-long.
var dbcopEvery = flag.Int("explain.dbcop-every", testsize.N(4, 1), "explain every n-th rejected dbcop history in TestCorpusCounterexamples")

// TestCorpusCounterexamples explains the corpus histories PolySI rejects
// (all of its own, and a sample of dbcop's) and requires each
// counterexample, written and read back, to violate SI on its own and to
// pass without any one of its transactions.
func TestCorpusCounterexamples(t *testing.T) {
	dir := corpus.Dir(t)
	var entries []corpus.Entry
	for _, e := range corpus.Expected(t, filepath.Join(dir, "polysi")) {
		if e.Verdict == "REJECT" {
			entries = append(entries, e)
		}
	}
	n := 0
	for _, e := range corpus.Expected(t, filepath.Join(dir, "dbcop-oopsla19")) {
		if e.Verdict == "REJECT" {
			if n%*dbcopEvery == 0 {
				entries = append(entries, e)
			}
			n++
		}
	}
	wantName := map[string]string{
		"polysi/galera.txt":     "LostUpdate",
		"polysi/dgraph.bincode": "CausalityViolation",
		"polysi/yugabyte.txt":   "SessionGuaranteeViolation",
	}
	for _, e := range entries {
		name, _ := filepath.Rel(dir, e.Path)
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			h, err := format.ReadFile(e.Path, format.Auto)
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			res, err := check.Check(ctx, h, level.SI)
			if err != nil {
				t.Fatal(err)
			}
			if res.Verdict != verdict.Violated {
				t.Fatalf("verdict %v, PolySI rejects it", res.Verdict)
			}
			rep, err := interpret.Minimal(ctx, res)
			if err != nil {
				t.Fatal(err)
			}
			a := rep.Anomaly
			if want, ok := wantName[name]; ok && a.Name.String() != want {
				t.Errorf("anomaly %s, want %s", a.Name, want)
			}
			if !a.Minimal || a.Counterexample == nil {
				t.Fatalf("no minimal counterexample: %+v", a)
			}
			cex := roundTrip(t, a.Counterexample)
			if !violates(t, cex, level.SI) {
				t.Fatalf("the counterexample of %d transactions passes SI", len(cex.Txns))
			}
			subj := shrink.NewSubject(cex)
			for i := range cex.Txns {
				var rest []int32
				for j := range cex.Txns {
					if j != i {
						rest = append(rest, int32(j))
					}
				}
				if violates(t, subj.Sub(shrink.Selection{Txns: rest}), level.SI) {
					t.Errorf("without %s the counterexample still violates SI", cex.Name(i))
				}
			}
			t.Logf("%s: %d of %d transactions", a.Name, len(cex.Txns), len(h.Txns))
		})
	}
}
