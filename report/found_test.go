package report_test

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"testing"

	"github.com/isocheck/isocheck/check"
	"github.com/isocheck/isocheck/draw"
	"github.com/isocheck/isocheck/histgen"
	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/internal/testkit/reference"
	"github.com/isocheck/isocheck/interpret"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/report"
	"github.com/isocheck/isocheck/shrink"
	"github.com/isocheck/isocheck/verdict"
	"github.com/isocheck/isocheck/workload"
)

// TestKVPageFoundExamplesAtSI builds the page of SI checks of histories
// of a store without first-committer-wins, which show lost updates,
// write skews and G-nonadjacent cycles, and checks each example of an
// anomaly found besides the main one: its transactions are those the
// check's list names, its picture draws a cycle SI forbids (no two
// anti-dependencies in a row: a write skew's two alone is no violation),
// and what its note claims of the transactions shown holds, by the
// reference checker.
func TestKVPageFoundExamplesAtSI(t *testing.T) {
	for _, c := range []struct {
		sessions, txns, keys int
		seed                 int64
	}{
		// Histories that show G-single and G-nonadjacent cycles beside
		// lost updates (and write skews, which SI allows).
		{8, 30, 100, 1},
		{8, 30, 100, 6},
		{8, 30, 300, 3},
		{8, 30, 300, 11},
	} {
		name := fmt.Sprintf("%dx%d keys %d seed %d", c.sessions, c.txns, c.keys, c.seed)
		t.Run(name, func(t *testing.T) {
			h := histgen.Large(histgen.LargeConfig{
				Sessions: c.sessions, TxnsPerSession: c.txns, Keys: c.keys,
				ReadProportion: 0.7, Dist: workload.Uniform, Seed: c.seed, Store: histgen.SnapshotNoFCW,
			})
			rep, found := foundAtSI(t, h)
			page := report.KVPage(name, []*interpret.Report{rep}, found)
			if len(page.Anomalies) != len(found) {
				t.Fatalf("the page shows %d anomalies of the %d found", len(page.Anomalies), len(found))
			}
			subject := shrink.NewSubject(h)
			for i := 1; i < len(found); i++ {
				a, listed := page.Anomalies[i], rep.Anomalies[i]
				var shown, want []string
				for _, x := range a.Txns {
					shown = append(shown, x.Name)
				}
				for _, x := range listed.Example {
					want = append(want, x.Name)
				}
				if !slices.Equal(shown, want) {
					t.Errorf("%s: the page shows %v, the list names %v", listed.Name, shown, want)
				}
				if !siForbids(a.Graph.Edges) {
					t.Errorf("%s: the picture draws no cycle SI forbids: %v", listed.Name, drawn(a.Graph.Edges))
				}
				checkClaim(t, subject, found[i].Anomaly)
			}
		})
	}
}

// foundAtSI checks h at SI and returns the check's report, with every
// anomaly found listed, and the reports of the examples (FoundReports).
func foundAtSI(t *testing.T, h *history.History) (*interpret.Report, []*interpret.Report) {
	t.Helper()
	ctx := context.Background()
	res, err := check.Check(ctx, h, level.SI)
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != verdict.Violated {
		t.Fatalf("SI: %v, want violated", res.Verdict)
	}
	rep := interpret.Explain(res)
	if rep.Anomalies, err = interpret.Every(ctx, h, res, rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Anomalies) < 2 {
		t.Fatalf("only %d anomaly found: the test needs examples", len(rep.Anomalies))
	}
	found, err := interpret.FoundReports(ctx, h, res, rep)
	if err != nil {
		t.Fatal(err)
	}
	return rep, found
}

// shownClaim matches a note's claim about the transactions shown.
var shownClaim = regexp.MustCompile(`the (\d+) shown violate (\S+) on their own(, and without any one of them the rest would not)?`)

// checkClaim checks, by the reference checker on the sub-history of h
// they are, what a's notes claim of its transactions: that they violate
// the level on their own and, if the note says so, that without any one
// of them the rest do not.
func checkClaim(t *testing.T, subject *shrink.Subject, a *interpret.Anomaly) {
	t.Helper()
	var txns []int32
	for _, x := range a.Txns {
		txns = append(txns, int32(x.Index))
	}
	slices.Sort(txns)
	claims := 0
	for _, n := range a.Notes {
		m := shownClaim.FindStringSubmatch(n)
		if m == nil {
			continue
		}
		claims++
		l, err := level.Parse(m[2])
		if err != nil {
			t.Fatal(err)
		}
		if k, _ := strconv.Atoi(m[1]); k != len(txns) {
			t.Errorf("%s: the note speaks of %s shown, the report shows %d: %q", a.Name, m[1], len(txns), n)
		}
		if ok := satisfies(t, subject, txns, l); ok {
			t.Errorf("%s: %q, but the reference checker finds that %v satisfy %v", a.Name, n, txns, l)
		}
		if m[3] == "" {
			continue
		}
		for i := range txns {
			rest := slices.Delete(slices.Clone(txns), i, i+1)
			if !satisfies(t, subject, rest, l) {
				t.Errorf("%s: %q, but without transaction %d the rest violate %v", a.Name, n, txns[i], l)
			}
		}
	}
	if claims != 1 {
		t.Errorf("%s: %d claims of the transactions shown in %q, want 1", a.Name, claims, a.Notes)
	}
}

// satisfies reports whether the sub-history of txns satisfies l, by the
// reference checker, or by isocheck's own on more transactions than the
// reference takes (whose verdicts other tests compare with it).
func satisfies(t *testing.T, subject *shrink.Subject, txns []int32, l level.Level) bool {
	t.Helper()
	sub := subject.Sub(shrink.Selection{Txns: txns})
	if len(txns) > maxReference {
		res, err := check.Check(context.Background(), sub, l)
		if err != nil {
			t.Fatal(err)
		}
		return res.Verdict == verdict.Satisfied
	}
	ok, err := reference.Check(sub, l)
	if err != nil {
		t.Fatal(err)
	}
	return ok
}

// maxReference is the most transactions the reference checker takes.
const maxReference = 9

// siForbids says whether edges hold a cycle that snapshot isolation
// forbids: one in which no two anti-dependencies (RW) follow each other.
func siForbids(edges []draw.Edge) bool {
	// walk extends a simple path, which starts at path[0].From, by the
	// edges that put no two RW in a row, until it closes a cycle.
	var walk func(path []draw.Edge) bool
	walk = func(path []draw.Edge) bool {
		first, last := path[0], path[len(path)-1]
		if last.To == first.From {
			return last.Kind != "RW" || first.Kind != "RW"
		}
		for _, e := range edges {
			if e.From != last.To || last.Kind == "RW" && e.Kind == "RW" {
				continue
			}
			if e.To != first.From && slices.ContainsFunc(path, func(p draw.Edge) bool { return p.From == e.To }) {
				continue
			}
			if walk(append(slices.Clip(path), e)) {
				return true
			}
		}
		return false
	}
	for _, e := range edges {
		if walk([]draw.Edge{e}) {
			return true
		}
	}
	return false
}

// drawn lists edges as "A -KIND-> B".
func drawn(edges []draw.Edge) []string {
	var out []string
	for _, e := range edges {
		out = append(out, e.From+" -"+e.Label+"-> "+e.To)
	}
	return out
}
