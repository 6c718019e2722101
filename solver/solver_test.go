package solver

import (
	"context"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/isocheck/isocheck/digraph"
)

// acyclicUnder reports whether the graph p chooses under model is acyclic.
func acyclicUnder(p *Problem, model []bool) bool {
	edges := append([]digraph.Edge(nil), p.Fixed...)
	for _, c := range p.Cond {
		v := model[c.Lit.Var()-1]
		if (c.Lit > 0) == v {
			edges = append(edges, digraph.Edge{From: c.From, To: c.To})
		}
	}
	_, ok := digraph.New(p.Nodes, edges).TopoOrder()
	return ok
}

// bruteForce tries every assignment.
func bruteForce(p *Problem) bool {
	model := make([]bool, p.Vars)
	for mask := 0; mask < 1<<p.Vars; mask++ {
		for v := range model {
			model[v] = mask>>v&1 == 1
		}
		if acyclicUnder(p, model) {
			return true
		}
	}
	return false
}

// TestSolveAgreesWithBruteForce solves random small problems and checks
// the answer by trying every assignment; a model must be acyclic, and a
// core's cycles must each be real cycles of guarded and fixed edges.
func TestSolveAgreesWithBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	counts := map[bool]int{}
	for trial := 0; trial < 1500; trial++ {
		p := randomProblem(rng, 8, 6, 10)
		res, err := Solve(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		want := bruteForce(p)
		counts[want]++
		if res.Sat != want {
			t.Fatalf("trial %d: Sat = %v, brute force says %v: %+v", trial, res.Sat, want, p)
		}
		if res.Sat && !acyclicUnder(p, res.Model) {
			t.Fatalf("trial %d: the model chooses a cycle", trial)
		}
		if !res.Sat {
			if len(res.Core) == 0 {
				t.Fatalf("trial %d: unsatisfiable without a core", trial)
			}
			for _, c := range res.Core {
				checkCycle(t, p, c)
			}
		}
	}
	if counts[true] == 0 || counts[false] == 0 {
		t.Errorf("one-sided problems: %v", counts)
	}
}

// randomProblem is a small random problem: fixed edges forward in a
// random order (so acyclic), guarded edges anywhere, a hint half the time.
func randomProblem(rng *rand.Rand, maxNodes, maxVars, maxCond int) *Problem {
	n := 2 + rng.IntN(maxNodes-1)
	p := &Problem{Nodes: n, Vars: 1 + rng.IntN(maxVars)}
	perm := rng.Perm(n)
	density := 2 + rng.IntN(6)
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			if rng.IntN(density) == 0 {
				p.Fixed = append(p.Fixed, digraph.Edge{From: int32(perm[i]), To: int32(perm[j])})
			}
		}
	}
	for i := 0; i < 1+rng.IntN(maxCond); i++ {
		lit := Lit(1 + rng.IntN(p.Vars))
		if rng.IntN(2) == 0 {
			lit = -lit
		}
		p.Cond = append(p.Cond, CondEdge{From: int32(rng.IntN(n)), To: int32(rng.IntN(n)), Lit: lit})
	}
	if rng.IntN(2) == 0 {
		p.Hint = make([]bool, p.Vars)
		for v := range p.Hint {
			p.Hint[v] = rng.IntN(2) == 0
		}
	}
	return p
}

func checkCycle(t *testing.T, p *Problem, c Cycle) {
	t.Helper()
	ends := func(id int32) (int32, int32) {
		if int(id) < len(p.Fixed) {
			return p.Fixed[id].From, p.Fixed[id].To
		}
		e := p.Cond[int(id)-len(p.Fixed)]
		return e.From, e.To
	}
	for i, id := range c {
		_, to := ends(id)
		from, _ := ends(c[(i+1)%len(c)])
		if to != from {
			t.Fatalf("core cycle %v is not closed", c)
		}
	}
}

func TestFixedCycleIsAnError(t *testing.T) {
	p := &Problem{Nodes: 2, Fixed: []digraph.Edge{{From: 0, To: 1}, {From: 1, To: 0}}}
	if _, err := Solve(context.Background(), p); err == nil {
		t.Error("Solve accepted cyclic fixed edges")
	}
}

// TestStopped: on a context that has ended, Solve gives up with the
// context's cause.
func TestStopped(t *testing.T) {
	p := &Problem{Nodes: 2, Vars: 1, Cond: []CondEdge{{From: 0, To: 1, Lit: 1}, {From: 1, To: 0, Lit: -1}}}
	limit := errors.New("limit")
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(limit)
	if _, err := Solve(ctx, p); !errors.Is(err, ErrGaveUp) || !errors.Is(err, limit) {
		t.Errorf("Solve: %v, want %v wrapping %v", err, ErrGaveUp, limit)
	}
}
