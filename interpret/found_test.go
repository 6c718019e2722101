package interpret_test

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/isocheck/isocheck/check"
	"github.com/isocheck/isocheck/format"
	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/internal/testkit/historytest"
	"github.com/isocheck/isocheck/interpret"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/verdict"
)

// TestFoundReports checks the reports of every anomaly a history shows:
// one per anomaly listed, the main one the check's report itself, each
// other violated, minimal, naming an anomaly the level forbids (the one
// listed), its transactions those of the listed example, placed in the
// whole history, and drawn.
func TestFoundReports(t *testing.T) {
	three, err := format.ReadFile("testdata/every/three.jsonl", format.JSONL)
	if err != nil {
		t.Fatal(err)
	}
	// Two lost updates (n, m), two write skews and, as the last two share
	// a session, a session guarantee violation; the transactions
	// without ids but one, so that they are named by their index.
	many := historytest.JSONL(t, `
{"session": 1, "ops": [["r", "n", null], ["w", "n", 1]]}
{"session": 2, "ops": [["r", "n", null], ["w", "n", 2]]}
{"session": 3, "ops": [["r", "m", null], ["w", "m", 1]]}
{"session": 4, "ops": [["r", "m", null], ["w", "m", 2]]}
{"session": 5, "id": "e", "ops": [["r", "x", null], ["r", "y", null], ["w", "x", 1]]}
{"session": 6, "ops": [["r", "x", null], ["r", "y", null], ["r", "z", null], ["w", "y", 1]]}
{"session": 6, "ops": [["r", "z", null], ["r", "y", null], ["w", "z", 1]]}`)
	for _, c := range []struct {
		name  string
		h     *history.History
		level level.Level
		want  int // reports
	}{
		{"three at SER", three, level.SER, 3},
		{"three at SI", three, level.SI, 2},
		{"three at RC", three, level.RC, 1},
		{"many at SER", many, level.SER, 3},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx := context.Background()
			res, err := check.Check(ctx, c.h, c.level)
			if err != nil {
				t.Fatal(err)
			}
			rep, err := interpret.Minimal(ctx, res)
			if err != nil {
				t.Fatal(err)
			}
			if rep.Anomalies, err = interpret.Every(ctx, c.h, res, rep); err != nil {
				t.Fatal(err)
			}
			reports, err := interpret.FoundReports(ctx, c.h, res, rep)
			if err != nil {
				t.Fatal(err)
			}
			if len(reports) != c.want || len(reports) != len(rep.Anomalies) {
				t.Fatalf("%d reports of %d anomalies %v, want %d", len(reports), len(rep.Anomalies), rep.Anomalies, c.want)
			}
			if reports[0] != rep {
				t.Errorf("the first report is not the check's")
			}
			for i, r := range reports {
				f := rep.Anomalies[i]
				a := r.Anomaly
				if r.Satisfied == nil || *r.Satisfied || a == nil {
					t.Errorf("%s: not violated", f.Name)
					continue
				}
				if !a.Minimal {
					t.Errorf("%s: not minimal", f.Name)
				}
				if !verdict.Forbids(c.level, a.Name) {
					t.Errorf("%s: the report names %s, which %v allows", f.Name, a.Name, c.level)
				}
				if i == 0 {
					continue
				}
				if a.Name != f.Name {
					t.Errorf("the example of %s shows %s", f.Name, a.Name)
				}
				var got, want []string
				for _, x := range a.Txns {
					got = append(got, x.Name+"@"+x.Where)
					if x.Index < 0 || x.Index >= len(c.h.Txns) || c.h.Where(x.Index) != x.Where {
						t.Errorf("%s: %s has index %d, which is not its place %s", f.Name, x.Name, x.Index, x.Where)
					}
				}
				for _, x := range f.Example {
					want = append(want, x.Name+"@"+x.Where)
				}
				if !slices.Equal(got, want) {
					t.Errorf("%s: transactions %v, want the example's %v", f.Name, got, want)
				}
				if a.HistoryTxns != len(c.h.Txns) {
					t.Errorf("%s: history of %d transactions, want %d", f.Name, a.HistoryTxns, len(c.h.Txns))
				}
				if n := len(a.Notes); n == 0 || !strings.Contains(a.Notes[n-1], "of the history's "+strconv.Itoa(len(c.h.Txns))) {
					t.Errorf("%s: notes %q do not count the history's transactions", f.Name, a.Notes)
				}
				checkGraph(t, r, r.Graph())
				sub, err := check.Check(ctx, a.Counterexample, c.level)
				if err != nil || sub.Verdict != verdict.Violated {
					t.Errorf("%s: the counterexample does not violate %v: %v %v", f.Name, c.level, sub.Verdict, err)
				}
			}
		})
	}
}
