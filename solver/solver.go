// Package solver decides SAT modulo graph acyclicity: given a graph of fixed
// edges and of edges guarded by boolean literals, it finds an assignment of
// the literals whose chosen edges keep the graph acyclic, or proves that none
// exists (seed 002, Section 4.4, posed for MonoSAT there).
//
// The engine is lazy: the pure-Go SAT solver gini proposes an assignment,
// the theory looks for cycles among the chosen edges, and each cycle found
// becomes a clause forbidding its guarded edges together; this repeats until
// an assignment is acyclic or the clauses are unsatisfiable. Rounds block
// many short cycles at once (breadth-first, through distinct nodes), and the
// first assignment tried is the caller's hint, so valid histories whose
// hint is right need no SAT call at all.
package solver

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/go-air/gini"
	"github.com/go-air/gini/z"

	"github.com/isocheck/isocheck/internal/digraph"
)

// Lit is a literal in DIMACS form: v or -v for a variable v ≥ 1.
type Lit int32

// Var returns the literal's variable.
func (l Lit) Var() int {
	if l < 0 {
		return int(-l)
	}
	return int(l)
}

// CondEdge is an edge present exactly when Lit is true.
type CondEdge struct {
	From, To int32
	Lit      Lit
}

// Problem is an acyclicity problem.
type Problem struct {
	Nodes int
	// Fixed edges are always present; they must form an acyclic graph.
	Fixed []digraph.Edge
	Vars  int
	Cond  []CondEdge
	// Hint, when not nil, is a first assignment to try: Hint[v-1] for
	// variable v.
	Hint []bool
}

// Cycle is a cycle of edges given by id: an id below len(Problem.Fixed)
// names a fixed edge, id len(Fixed)+i names Cond[i].
type Cycle []int32

// Result is the solver's answer.
type Result struct {
	Sat bool
	// Model gives, when Sat, the value of variable v at Model[v-1].
	Model []bool
	// Core lists, when not Sat, cycles whose forbidding together leaves
	// no assignment: every assignment chooses all guarded edges of one.
	Core []Cycle
	// Rounds counts theory checks; Clauses the cycles forbidden.
	Rounds  int
	Clauses int
}

// maxCyclesPerRound bounds the cycles forbidden after one assignment.
const maxCyclesPerRound = 256

// ErrGaveUp is returned when the context ends before an answer.
var ErrGaveUp = errors.New("solver: no answer before the deadline")

// Solve answers p.
func Solve(ctx context.Context, p *Problem) (*Result, error) {
	s := newSession(p)
	res := &Result{}
	model := make([]bool, p.Vars)
	if p.Hint != nil {
		copy(model, p.Hint)
	}
	g := gini.New()
	for i := 0; i < p.Vars; i++ {
		g.Lit()
	}
	seen := make(map[string]bool)
	var clauses [][]Lit
	var cycles []Cycle
	for {
		if err := ctx.Err(); err != nil {
			return res, ErrGaveUp
		}
		res.Rounds++
		found := s.cycles(model)
		if len(found) == 0 {
			res.Sat = true
			res.Model = model
			return res, nil
		}
		added := 0
		// The model satisfies every clause so far, so at least the first
		// cycle found is new.
		for _, c := range found {
			clause := s.blockingClause(c)
			k := clauseKey(clause)
			if seen[k] {
				continue
			}
			seen[k] = true
			for _, l := range clause {
				g.Add(z.Dimacs2Lit(int(l)))
			}
			g.Add(z.LitNull)
			clauses = append(clauses, clause)
			cycles = append(cycles, c)
			added++
		}
		res.Clauses += added
		switch solve(ctx, g) {
		case 0:
			return res, ErrGaveUp
		case -1:
			res.Core = core(p.Vars, clauses, cycles)
			return res, nil
		}
		for v := 1; v <= p.Vars; v++ {
			model[v-1] = g.Value(z.Var(v).Pos())
		}
	}
}

func solve(ctx context.Context, g *gini.Gini) int {
	if dl, ok := ctx.Deadline(); ok {
		d := time.Until(dl)
		if d <= 0 {
			return 0
		}
		return g.Try(d)
	}
	return g.Solve()
}

// core finds the cycles that an unsatisfiable set of blocking clauses
// needs, by solving again with each clause guarded by an assumption and
// asking gini which assumptions failed.
func core(vars int, clauses [][]Lit, cycles []Cycle) []Cycle {
	g := gini.New()
	for i := 0; i < vars; i++ {
		g.Lit()
	}
	acts := make([]z.Lit, len(clauses))
	for i, clause := range clauses {
		acts[i] = g.Lit()
		g.Add(acts[i].Not())
		for _, l := range clause {
			g.Add(z.Dimacs2Lit(int(l)))
		}
		g.Add(z.LitNull)
	}
	g.Assume(acts...)
	if g.Solve() != -1 {
		return cycles
	}
	failed := make(map[z.Lit]bool)
	for _, m := range g.Why(nil) {
		failed[m] = true
	}
	var out []Cycle
	for i, a := range acts {
		if failed[a] {
			out = append(out, cycles[i])
		}
	}
	return out
}

func clauseKey(c []Lit) string {
	b := make([]byte, 0, 4*len(c))
	for _, l := range c {
		b = append(b, byte(l), byte(l>>8), byte(l>>16), byte(l>>24))
	}
	return string(b)
}

// session holds the scratch space of the theory checks.
type session struct {
	p     *Problem
	edges []digraph.Edge
	ids   []int32 // ids[i]: the problem edge id of edges[i]
}

func newSession(p *Problem) *session {
	s := &session{
		p:     p,
		edges: make([]digraph.Edge, len(p.Fixed), len(p.Fixed)+len(p.Cond)),
		ids:   make([]int32, len(p.Fixed), len(p.Fixed)+len(p.Cond)),
	}
	copy(s.edges, p.Fixed)
	for i := range p.Fixed {
		s.ids[i] = int32(i)
	}
	return s
}

func (s *session) holds(l Lit, model []bool) bool {
	if l > 0 {
		return model[l-1]
	}
	return !model[-l-1]
}

// cycles returns short cycles of the graph the model chooses, through
// distinct nodes where it can, or nil when that graph is acyclic.
func (s *session) cycles(model []bool) []Cycle {
	p := s.p
	s.edges = s.edges[:len(p.Fixed)]
	s.ids = s.ids[:len(p.Fixed)]
	for i, c := range p.Cond {
		if s.holds(c.Lit, model) {
			s.edges = append(s.edges, digraph.Edge{From: c.From, To: c.To})
			s.ids = append(s.ids, int32(len(p.Fixed)+i))
		}
	}
	g := digraph.New(p.Nodes, s.edges)
	if _, ok := g.TopoOrder(); ok {
		return nil
	}
	// Every cycle lies inside one strongly connected component; search
	// each only within its own.
	comp, sizes := g.SCC()
	var out []Cycle
	search := digraph.NewSearcher(g)
	used := make(map[int32]bool)
	for i := len(p.Fixed); i < len(s.edges) && len(out) < maxCyclesPerRound; i++ {
		e := s.edges[i]
		c := comp[e.From]
		if c != comp[e.To] || sizes[c] < 2 && e.From != e.To || used[e.From] || used[e.To] {
			continue
		}
		path := search.PathEdges(e.To, e.From, func(v int32) bool { return comp[v] == c })
		cycle := make(Cycle, 0, 1+len(path))
		cycle = append(cycle, s.ids[i])
		for _, id := range path {
			cycle = append(cycle, s.ids[id])
			used[s.edges[id].From] = true
		}
		used[e.From] = true
		out = append(out, cycle)
	}
	if len(out) == 0 {
		// Every cycle's guarded edges touched nodes used above: take the
		// first guarded edge inside a component regardless.
		for i := len(p.Fixed); i < len(s.edges); i++ {
			e := s.edges[i]
			c := comp[e.From]
			if c == comp[e.To] && (sizes[c] >= 2 || e.From == e.To) {
				path := search.PathEdges(e.To, e.From, func(v int32) bool { return comp[v] == c })
				cycle := Cycle{s.ids[i]}
				for _, id := range path {
					cycle = append(cycle, s.ids[id])
				}
				return []Cycle{cycle}
			}
		}
	}
	return out
}

// blockingClause is the clause "not all guarded edges of c": the negations
// of their literals, sorted and without repeats.
func (s *session) blockingClause(c Cycle) []Lit {
	var clause []Lit
	for _, id := range c {
		if int(id) >= len(s.p.Fixed) {
			clause = append(clause, -s.p.Cond[int(id)-len(s.p.Fixed)].Lit)
		}
	}
	slices.Sort(clause)
	return slices.Compact(clause)
}
