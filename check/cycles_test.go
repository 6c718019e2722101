package check

import (
	"context"
	"testing"

	"github.com/isocheck/isocheck/internal/historytest"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/polygraph"
)

func TestCycles(t *testing.T) {
	e := func(from, to int32, k polygraph.EdgeKind) polygraph.Edge {
		key := polygraph.NoKey
		if k != polygraph.SO && k != polygraph.RT {
			key = 0
		}
		return polygraph.Edge{From: from, To: to, Kind: k, Key: key}
	}
	ww, wr, rw, so := polygraph.WW, polygraph.WR, polygraph.RW, polygraph.SO
	for _, c := range []struct {
		name  string
		edges []polygraph.Edge
		limit int
		// want is the kinds of each cycle found, in order.
		want [][]polygraph.EdgeKind
	}{
		{"none", []polygraph.Edge{e(0, 1, ww), e(1, 2, wr), e(0, 2, rw)}, 10, nil},
		{"G0", []polygraph.Edge{e(0, 1, ww), e(1, 0, ww)}, 10, [][]polygraph.EdgeKind{{ww, ww}}},
		{"G1c", []polygraph.Edge{e(0, 1, ww), e(1, 0, wr)}, 10, [][]polygraph.EdgeKind{{ww, wr}}},
		{"G-single and G2-item", []polygraph.Edge{e(0, 1, rw), e(1, 0, wr), e(1, 2, rw), e(2, 1, rw)}, 10,
			[][]polygraph.EdgeKind{{rw, wr}, {rw, rw}}},
		{"the shortest path back", []polygraph.Edge{e(0, 1, rw), e(1, 2, ww), e(2, 3, ww), e(3, 0, ww), e(1, 0, wr)}, 10,
			[][]polygraph.EdgeKind{{rw, wr}}},
		{"session order", []polygraph.Edge{e(0, 1, so), e(1, 0, wr)}, 10, [][]polygraph.EdgeKind{{so, wr}}},
		{"a limit of one per search", []polygraph.Edge{e(0, 1, ww), e(1, 0, ww), e(2, 3, ww), e(3, 2, ww)}, 1,
			[][]polygraph.EdgeKind{{ww, ww}, {ww, ww}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := Cycles(4, c.edges, c.limit)
			if len(got) != len(c.want) {
				t.Fatalf("%d cycles %v, want %d", len(got), got, len(c.want))
			}
			for i, cycle := range got {
				for j, edge := range cycle {
					if next := cycle[(j+1)%len(cycle)]; edge.To != next.From {
						t.Errorf("cycle %v is not closed", cycle)
					}
				}
				var kinds []polygraph.EdgeKind
				for _, edge := range cycle {
					kinds = append(kinds, edge.Kind)
				}
				if len(kinds) != len(c.want[i]) {
					t.Errorf("cycle %d: kinds %v, want %v", i, kinds, c.want[i])
					continue
				}
				for j := range kinds {
					if kinds[j] != c.want[i][j] {
						t.Errorf("cycle %d: kinds %v, want %v", i, kinds, c.want[i])
						break
					}
				}
			}
		})
	}
}

// TestDependenciesAfterAnomalies checks that a check stopped at an
// aborted read still yields the write skew's cycle: the polygraph built
// again from the other reads has it.
func TestDependenciesAfterAnomalies(t *testing.T) {
	h := historytest.JSONL(t, `
{"session": "a", "id": "abort", "status": "aborted", "ops": [["w", "z", 9]]}
{"session": "b", "id": "dirty", "ops": [["r", "z", 9]]}
{"session": "e", "id": "alice", "ops": [["r", "x", null], ["r", "y", null], ["w", "x", 1]]}
{"session": "f", "id": "bob", "ops": [["r", "x", null], ["r", "y", null], ["w", "y", 1]]}`)
	for _, l := range []level.Level{level.SER, level.SI, level.SSER, level.RC} {
		res, err := Check(context.Background(), h, l)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Anomalies) != 1 || res.Known != nil {
			t.Fatalf("%v: anomalies %v, known %v: want the aborted read alone, and no edge", l, res.Anomalies, res.Known)
		}
		p, known, err := Dependencies(context.Background(), res)
		if err != nil {
			t.Fatal(err)
		}
		if l == level.RC {
			if p != nil || known != nil {
				t.Errorf("RC: a dependency graph, which its check does not build")
			}
			continue
		}
		var skew []polygraph.Edge
		for _, c := range Cycles(p.NumNodes, known, 10) {
			if len(c) == 2 && c[0].Kind == polygraph.RW && c[1].Kind == polygraph.RW {
				skew = c
			}
		}
		if skew == nil || h.Name(int(skew[0].From)) != "alice" && h.Name(int(skew[0].From)) != "bob" {
			t.Errorf("%v: no write skew of alice and bob among the cycles of %v", l, known)
		}
	}
}
