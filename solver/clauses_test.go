package solver_test

import (
	"context"
	"testing"

	"github.com/isocheck/isocheck/solver"
)

// TestClauses: the caller's clauses hold in every model, and with the
// cycles they force they make a problem unsatisfiable.
func TestClauses(t *testing.T) {
	edges := []solver.CondEdge{{From: 0, To: 1, Lit: 1}, {From: 1, To: 0, Lit: 2}, {From: 1, To: 2, Lit: 3}, {From: 2, To: 0, Lit: 3}}
	for _, tc := range []struct {
		name    string
		clauses [][]solver.Lit
		sat     bool
		model   []bool // nil: any
	}{
		{"either edge", [][]solver.Lit{{1, 2}, {-1}}, true, []bool{false, true, false}},
		{"the hint is overridden", [][]solver.Lit{{3}}, true, nil},
		{"both ways", [][]solver.Lit{{1}, {2}}, false, nil},
		{"a long cycle", [][]solver.Lit{{1}, {3}}, false, nil},
		{"contradiction", [][]solver.Lit{{1}, {-1}}, false, nil},
	} {
		p := &solver.Problem{Nodes: 3, Vars: 3, Cond: edges, Clauses: tc.clauses, Hint: []bool{false, false, false}}
		res, err := solver.Solve(context.Background(), p)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if res.Sat != tc.sat {
			t.Errorf("%s: sat %v, want %v", tc.name, res.Sat, tc.sat)
			continue
		}
		if !res.Sat {
			continue
		}
		for _, c := range tc.clauses {
			ok := false
			for _, l := range c {
				ok = ok || res.Model[l.Var()-1] == (l > 0)
			}
			if !ok {
				t.Errorf("%s: model %v breaks clause %v", tc.name, res.Model, c)
			}
		}
		if tc.model != nil {
			for i, v := range tc.model {
				if res.Model[i] != v {
					t.Errorf("%s: model %v, want %v", tc.name, res.Model, tc.model)
					break
				}
			}
		}
	}
	if _, err := solver.SolveWith(context.Background(), &solver.Problem{Nodes: 1, Vars: 1, Clauses: [][]solver.Lit{{1}}}, solver.CDCL); err == nil {
		t.Error("cdcl took clauses")
	}
}
