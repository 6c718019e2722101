package solver

import (
	"math/rand/v2"
	"testing"

	"github.com/isocheck/isocheck/digraph"
)

// TestSeedOrder checks on random problems that the seeded order is a
// topological order of the fixed edges, that it puts every chosen edge
// forward whose ends lie on no common cycle, and that the session then
// answers as a fresh one does.
func TestSeedOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := 0; trial < 3000; trial++ {
		p := randomProblem(rng, 13, 8, 36)
		n := p.Nodes
		model := make([]bool, p.Vars)
		for v := range model {
			model[v] = rng.IntN(2) == 0
		}
		s, err := newSession(p)
		if err != nil {
			t.Fatal(err)
		}
		s.seedOrder(model)
		for i, u := range s.at {
			if s.ord[u] != int32(i) {
				t.Fatalf("trial %d: ord and at disagree", trial)
			}
		}
		for _, e := range p.Fixed {
			if s.ord[e.From] >= s.ord[e.To] {
				t.Fatalf("trial %d: fixed edge %v goes backwards", trial, e)
			}
		}
		// The graph the model chooses, to tell which chosen edges lie on
		// a cycle.
		edges := append([]digraph.Edge(nil), p.Fixed...)
		for _, c := range p.Cond {
			if s.holds(c.Lit, model) {
				edges = append(edges, digraph.Edge{From: c.From, To: c.To})
			}
		}
		comp, _ := digraph.New(n, edges).SCC()
		for _, c := range p.Cond {
			if s.holds(c.Lit, model) && comp[c.From] != comp[c.To] && s.ord[c.From] >= s.ord[c.To] {
				t.Fatalf("trial %d: chosen edge %d→%d between components goes backwards", trial, c.From, c.To)
			}
		}
		found, err := s.cycles(nil, model)
		if err != nil {
			t.Fatal(err)
		}
		if (len(found) == 0) != acyclicUnder(p, model) {
			t.Fatalf("trial %d: %d cycles found, acyclic = %v", trial, len(found), acyclicUnder(p, model))
		}
	}
}
