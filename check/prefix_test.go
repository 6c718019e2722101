package check_test

import (
	"context"
	"testing"

	"github.com/isocheck/isocheck/check"
	"github.com/isocheck/isocheck/internal/testkit/historytest"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/polygraph"
	"github.com/isocheck/isocheck/verdict"
)

// TestPrefixEvidenceIsOriginal checks that PC's result, found on the
// history split into reads and writes, is over the history checked: its
// polygraph is that history's, and its evidence joins its transactions,
// without the session order between the halves of one.
func TestPrefixEvidenceIsOriginal(t *testing.T) {
	cases := map[string]string{
		"long fork": `
{"session": 1, "id": "T1", "ops": [["w", "x", 1]]}
{"session": 2, "id": "T2", "ops": [["w", "y", 1]]}
{"session": 3, "id": "T3", "ops": [["r", "x", 1], ["r", "y", null]]}
{"session": 4, "id": "T4", "ops": [["r", "x", null], ["r", "y", 1]]}`,
		// Each transaction reads and writes: the cycle passes through
		// both halves of some.
		"read-modify-writes": `
{"session": 1, "id": "A", "ops": [["r", "y", null], ["w", "x", 1]]}
{"session": 2, "id": "B", "ops": [["r", "x", null], ["w", "y", 1]]}
{"session": 3, "id": "C", "ops": [["r", "x", 1], ["r", "y", null], ["w", "z", 1]]}
{"session": 4, "id": "D", "ops": [["r", "y", 1], ["r", "x", null], ["r", "z", 1]]}`,
	}
	for name, jsonl := range cases {
		h := historytest.JSONL(t, jsonl)
		res, err := check.Check(context.Background(), h, level.PC)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if res.Verdict != verdict.Violated {
			t.Fatalf("%s: %v, want a violation", name, res.Verdict)
		}
		if res.Polygraph.History != h || res.Stats.Txns != len(h.Txns) {
			t.Errorf("%s: the result is over another history (%d transactions counted)", name, res.Stats.Txns)
		}
		var edges []polygraph.Edge
		edges = append(edges, res.Cycle...)
		for _, c := range res.Core {
			edges = append(edges, c...)
		}
		if c := res.Conflict; c != nil {
			edges = append(append(edges, c.EitherCycle...), c.OrCycle...)
		}
		if len(edges) == 0 {
			t.Fatalf("%s: no evidence", name)
		}
		for _, e := range edges {
			if e.From == e.To || int(e.From) > len(h.Txns) || int(e.To) > len(h.Txns) {
				t.Errorf("%s: edge %v is not between transactions of the history", name, e)
			}
		}
	}
}
