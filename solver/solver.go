// Package solver decides SAT modulo graph acyclicity: given a graph of
// fixed edges and of edges guarded by boolean literals, it finds an
// assignment of the literals whose chosen edges keep the graph acyclic, or
// proves that none exists (Huang, Liu, Chen, Wei, Basin, Li and Pan,
// "Efficient Black-box Checking of Snapshot Isolation in Databases"
// (PolySI, PVLDB 16(6), 2023), Section 4.4, posed for MonoSAT there).
//
// The engine is lazy: the pure-Go SAT solver gini proposes an assignment,
// the theory looks for cycles among the chosen edges, and each cycle found
// becomes a clause forbidding its guarded edges together; this repeats until
// an assignment is acyclic or the clauses are unsatisfiable. The theory
// keeps a topological order of the chosen graph up to date as edges come
// and go (Pearce-Kelly), so a round costs only the edges that changed and
// the regions they reorder; every edge that would close a cycle yields a
// shortest such cycle, so a round forbids many at once. The first
// assignment tried is the caller's hint, and variables no clause mentions
// keep it, so valid histories whose hint is right need no SAT call at all.
//
// Search is the same loop with a theory of the caller's over one option
// per choice: check uses it to choose the writers of reads whose values
// repeat, with the level's own check as the theory.
package solver

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/go-air/gini"
	"github.com/go-air/gini/z"

	"github.com/isocheck/isocheck/digraph"
	"github.com/isocheck/isocheck/internal/hugepage"
	"github.com/isocheck/isocheck/progress"
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
	// Fixed may be nil when FixedGraph is given: the graph's edges are
	// then the fixed edges, their ids its OutID or, when it has none,
	// their places in its Out (which saves 4 bytes an edge).
	Fixed []digraph.Edge
	Vars  int
	Cond  []CondEdge
	// Hint, when not nil, is a first assignment to try: Hint[v-1] for
	// variable v.
	Hint []bool
	// Clauses, when not nil, are clauses over the variables that every
	// model must satisfy besides acyclicity (the Lazy engine only). Core
	// then lists cycles that, together with Clauses, leave no assignment.
	Clauses [][]Lit
	// FixedGraph and FixedOrder, when not nil, are the graph of the fixed
	// edges (digraph.New(Nodes, Fixed)) and a topological order of it, if
	// the caller has them already.
	FixedGraph *digraph.Graph
	FixedOrder []int32
}

// NumFixed is the number of fixed edges: len(Fixed), or the number of
// edges of FixedGraph when Fixed is nil.
func (p *Problem) NumFixed() int {
	if p.Fixed == nil && p.FixedGraph != nil {
		return len(p.FixedGraph.Out)
	}
	return len(p.Fixed)
}

// Cycle is a cycle of edges given by id: an id below Problem.NumFixed()
// names a fixed edge, id NumFixed()+i names Cond[i].
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

// ErrGaveUp is returned when the context ends before an answer; the error
// returned wraps the context's reason (context.Cause) too.
var ErrGaveUp = errors.New("solver: no answer before the deadline")

// gaveUp returns ErrGaveUp wrapping the reason m's context ended.
func gaveUp(m *progress.Meter) error {
	if err := m.Err(); err != nil {
		return fmt.Errorf("%w: %w", ErrGaveUp, err)
	}
	return ErrGaveUp
}

// Engine names a way of solving.
type Engine string

const (
	// Lazy is gini proposing whole assignments and the theory blocking
	// the cycles each one closes (Solve).
	Lazy Engine = "lazy"
	// CDCL is a conflict-driven search of its own that propagates the
	// theory as it assigns: an edge that closes a cycle is a conflict at
	// once (see solveCDCL).
	CDCL Engine = "cdcl"
	// DefaultEngine is the engine Solve uses.
	DefaultEngine = Lazy
)

// Engines lists the engines SolveWith knows.
func Engines() []Engine { return []Engine{Lazy, CDCL} }

// SolveWith answers p with engine e ("" is DefaultEngine).
func SolveWith(ctx context.Context, p *Problem, e Engine) (*Result, error) {
	switch e {
	case "", Lazy:
		return Solve(ctx, p)
	case CDCL:
		if p.Clauses != nil {
			return nil, fmt.Errorf("solver: engine %q takes no clauses besides acyclicity", e)
		}
		return solveCDCL(ctx, p)
	}
	return nil, fmt.Errorf("solver: unknown engine %q (have %v)", e, Engines())
}

// Solve answers p. It runs as the stage "solve", counting its rounds.
func Solve(ctx context.Context, p *Problem) (*Result, error) {
	m := progress.Start(ctx, "solve", 0, "rounds")
	s, err := newSession(p)
	if err != nil {
		return nil, err
	}
	res := &Result{}
	hint := make([]bool, p.Vars)
	if p.Hint != nil {
		copy(hint, p.Hint)
	}
	model := slices.Clone(hint)
	// Start from an order that agrees with the hint wherever the fixed
	// edges let it, so that the first round inserts it cheaply.
	s.seedOrder(model)
	// Variables that no clause mentions keep their hinted value; the
	// others take gini's, which is asked to keep the hint where it can.
	inClause := make([]bool, p.Vars)
	var clauseVars []int
	// gini is made only when the hint fails: it is the costliest part of
	// solving the small problems that shrinking a counterexample poses.
	var g *gini.Gini
	seen := make(map[string]bool)
	var clauses [][]Lit
	var cycles []Cycle
	if p.Clauses != nil {
		// The caller's clauses come first: the hint need not satisfy them.
		g = gini.New()
		for i := 0; i < p.Vars; i++ {
			g.Lit()
		}
		for _, clause := range p.Clauses {
			for _, l := range clause {
				g.Add(z.Dimacs2Lit(int(l)))
				if v := l.Var(); !inClause[v-1] {
					inClause[v-1] = true
					clauseVars = append(clauseVars, v)
				}
			}
			g.Add(z.LitNull)
		}
		// A hint that satisfies them is the first model, as without.
		if !satisfies(hint, p.Clauses) {
			switch solve(ctx, g) {
			case 0:
				return res, gaveUp(m)
			case -1:
				return res, nil
			}
			for _, v := range clauseVars {
				model[v-1] = g.Value(z.Var(v).Pos())
			}
		}
	}
	for {
		if err := m.Add(1); err != nil {
			return res, gaveUp(m)
		}
		res.Rounds++
		found, err := s.cycles(m, model)
		if err != nil {
			return res, gaveUp(m)
		}
		if len(found) == 0 {
			res.Sat = true
			res.Model = model
			return res, nil
		}
		added := 0
		// The model satisfies every clause so far, so at least the first
		// cycle found is new.
		if g == nil {
			g = gini.New()
			for i := 0; i < p.Vars; i++ {
				g.Lit()
			}
		}
		for _, c := range found {
			clause := s.blockingClause(c)
			k := clauseKey(clause)
			if seen[k] {
				continue
			}
			seen[k] = true
			for _, l := range clause {
				g.Add(z.Dimacs2Lit(int(l)))
				if v := l.Var(); !inClause[v-1] {
					inClause[v-1] = true
					clauseVars = append(clauseVars, v)
				}
			}
			g.Add(z.LitNull)
			clauses = append(clauses, clause)
			cycles = append(cycles, c)
			added++
		}
		res.Clauses += added
		switch solve(ctx, g) {
		case 0:
			return res, gaveUp(m)
		case -1:
			res.Core = core(ctx, p.Vars, p.Clauses, clauses, cycles)
			return res, nil
		}
		for _, v := range clauseVars {
			model[v-1] = g.Value(z.Var(v).Pos())
		}
	}
}

// satisfies reports whether the assignment model satisfies every clause.
func satisfies(model []bool, clauses [][]Lit) bool {
	for _, c := range clauses {
		ok := false
		for _, l := range c {
			if model[l.Var()-1] == (l > 0) {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

// solve runs gini until it answers (1 or -1) or ctx ends (0). A deadline
// is gini's own, given in slices that grow to half a second, so that a
// cancellation before it (a memory limit watched from outside) is seen
// between them; a context that can only be cancelled is watched from here
// while gini runs on its goroutine.
func solve(ctx context.Context, g *gini.Gini) int {
	if ctx.Err() != nil {
		return 0
	}
	if dl, ok := ctx.Deadline(); ok {
		slice := 10 * time.Millisecond
		for {
			if r := g.Try(min(time.Until(dl), slice)); r != 0 {
				return r
			}
			if ctx.Err() != nil || time.Until(dl) <= 0 {
				return 0
			}
			slice = min(2*slice, 500*time.Millisecond)
		}
	}
	if ctx.Done() == nil {
		return g.Solve()
	}
	sv := g.GoSolve()
	// Poll, at growing intervals: most problems here take microseconds,
	// and a blocking wait cannot be stopped safely.
	wait := 20 * time.Microsecond
	for {
		if r, ok := sv.Test(); ok {
			return r
		}
		if ctx.Err() != nil {
			return sv.Stop()
		}
		time.Sleep(wait)
		wait = min(2*wait, 5*time.Millisecond)
	}
}

// core finds the cycles that an unsatisfiable set of blocking clauses
// needs, by solving again with each clause guarded by an assumption and
// asking gini which assumptions failed. If ctx ends first, it returns them
// all.
func core(ctx context.Context, vars int, base, clauses [][]Lit, cycles []Cycle) []Cycle {
	g := gini.New()
	for i := 0; i < vars; i++ {
		g.Lit()
	}
	for _, clause := range base {
		for _, l := range clause {
			g.Add(z.Dimacs2Lit(int(l)))
		}
		g.Add(z.LitNull)
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
	if solve(ctx, g) != -1 {
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

// session is the theory: the fixed graph, the guarded edges the current
// model chooses, and a topological order of both, kept up to date as edges
// come and go with the dynamic topological sort of Pearce and Kelly. An
// edge that agrees with the order costs nothing to add; one that does not
// costs a search of the nodes between its ends in the order; removing an
// edge never breaks the order. Successive models differ little, so the
// order carries over from round to round and the checks stay local.
type session struct {
	p       *Problem
	fixed   *digraph.Graph
	condOut [][]int32 // per node, the chosen guarded edges leaving it
	condIn  [][]int32
	slotOut []int32 // index of each chosen edge in condOut[From]
	slotIn  []int32
	active  []bool // per guarded edge: in the graph
	ord     []int32
	at      []int32 // at[i]: the node at position i

	// Scratch of the searches.
	mark    []int32 // search stamp per node
	stamp   int32
	parent  []int32 // edge id by which the forward search reached a node
	from    []int32 // the node it came from
	nf      int32   // number of fixed edges
	queue   []int32
	fwd     []int32
	bwd     []int32
	scratch []int32
}

func newSession(p *Problem) (*session, error) {
	g, order := p.FixedGraph, slices.Clone(p.FixedOrder)
	if g == nil || len(order) != p.Nodes {
		g = digraph.New(p.Nodes, p.Fixed)
		var ok bool
		if order, ok = g.TopoOrder(); !ok {
			return nil, errors.New("solver: the fixed edges form a cycle")
		}
	}
	s := &session{
		p:       p,
		fixed:   g,
		condOut: make([][]int32, p.Nodes),
		condIn:  make([][]int32, p.Nodes),
		slotOut: make([]int32, len(p.Cond)),
		slotIn:  make([]int32, len(p.Cond)),
		active:  make([]bool, len(p.Cond)),
		ord:     hugepage.Make[int32](p.Nodes),
		at:      order,
		mark:    hugepage.Make[int32](p.Nodes),
		parent:  hugepage.Make[int32](p.Nodes),
		from:    hugepage.Make[int32](p.Nodes),
		nf:      int32(len(g.Out)),
	}
	for i, u := range order {
		s.ord[u] = int32(i)
	}
	return s, nil
}

func (s *session) holds(l Lit, model []bool) bool {
	if l > 0 {
		return model[l-1]
	}
	return !model[-l-1]
}

// cycles brings the graph to the edges the model chooses and returns the
// cycles that stopped some of them from being added, or nil when the
// chosen graph is acyclic. It returns m's error once there is one.
func (s *session) cycles(m *progress.Meter, model []bool) ([]Cycle, error) {
	p := s.p
	for i, c := range p.Cond {
		if s.active[i] && !s.holds(c.Lit, model) {
			s.remove(int32(i))
		}
	}
	var out []Cycle
	for i, c := range p.Cond {
		// An insertion may search a large part of the graph: look often.
		if i&63 == 63 {
			if err := m.Err(); err != nil {
				return nil, err
			}
		}
		if s.active[i] || !s.holds(c.Lit, model) {
			continue
		}
		if cyc := s.insert(int32(i)); cyc != nil {
			out = append(out, cyc)
		}
	}
	return out, nil
}

func (s *session) remove(i int32) {
	c := s.p.Cond[i]
	s.active[i] = false
	drop := func(list [][]int32, slot []int32, u int32) {
		l := list[u]
		k := slot[i]
		last := l[len(l)-1]
		l[k] = last
		slot[last] = k
		list[u] = l[:len(l)-1]
	}
	drop(s.condOut, s.slotOut, c.From)
	drop(s.condIn, s.slotIn, c.To)
}

func (s *session) add(i int32) {
	c := s.p.Cond[i]
	s.active[i] = true
	s.slotOut[i] = int32(len(s.condOut[c.From]))
	s.condOut[c.From] = append(s.condOut[c.From], i)
	s.slotIn[i] = int32(len(s.condIn[c.To]))
	s.condIn[c.To] = append(s.condIn[c.To], i)
}

// insert adds guarded edge i, or returns the cycle it would close (its
// own id first, then a shortest path back).
func (s *session) insert(i int32) Cycle {
	c := s.p.Cond[i]
	u, v := c.From, c.To
	lb, ub := s.ord[v], s.ord[u]
	if lb > ub {
		s.add(i)
		return nil
	}
	if u == v {
		return Cycle{s.nf + i}
	}
	// Forward from v, breadth first, through nodes not after u.
	s.stamp++
	fwdStamp := s.stamp
	s.fwd = s.fwd[:0]
	s.queue = append(s.queue[:0], v)
	s.mark[v] = fwdStamp
	s.parent[v] = -1
	nf := s.nf
	for q := 0; q < len(s.queue); q++ {
		w := s.queue[q]
		s.fwd = append(s.fwd, w)
		visit := func(x, edge int32) bool {
			if s.mark[x] == fwdStamp || s.ord[x] > ub {
				return false
			}
			s.mark[x] = fwdStamp
			s.parent[x], s.from[x] = edge, w
			s.queue = append(s.queue, x)
			return x == u
		}
		for j := s.fixed.OutStart[w]; j < s.fixed.OutStart[w+1]; j++ {
			id := j
			if s.fixed.OutID != nil {
				id = s.fixed.OutID[j]
			}
			if visit(s.fixed.Out[j], id) {
				return s.cycleTo(i, u)
			}
		}
		for _, e := range s.condOut[w] {
			if visit(s.p.Cond[e].To, nf+e) {
				return s.cycleTo(i, u)
			}
		}
	}
	// Backward from u through nodes not before v.
	s.stamp++
	bwdStamp := s.stamp
	s.bwd = s.bwd[:0]
	s.queue = append(s.queue[:0], u)
	s.mark[u] = bwdStamp
	for q := 0; q < len(s.queue); q++ {
		w := s.queue[q]
		s.bwd = append(s.bwd, w)
		for _, x := range s.fixed.Pred(w) {
			if s.mark[x] != bwdStamp && s.ord[x] >= lb {
				s.mark[x] = bwdStamp
				s.queue = append(s.queue, x)
			}
		}
		for _, e := range s.condIn[w] {
			if x := s.p.Cond[e].From; s.mark[x] != bwdStamp && s.ord[x] >= lb {
				s.mark[x] = bwdStamp
				s.queue = append(s.queue, x)
			}
		}
	}
	// Reorder: the backward set, then the forward set, into the positions
	// they held, each keeping its relative order.
	byOrd := func(a, b int32) int { return int(s.ord[a]) - int(s.ord[b]) }
	slices.SortFunc(s.fwd, byOrd)
	slices.SortFunc(s.bwd, byOrd)
	s.scratch = s.scratch[:0]
	for _, w := range s.bwd {
		s.scratch = append(s.scratch, s.ord[w])
	}
	for _, w := range s.fwd {
		s.scratch = append(s.scratch, s.ord[w])
	}
	slices.Sort(s.scratch)
	k := 0
	for _, list := range [][]int32{s.bwd, s.fwd} {
		for _, w := range list {
			s.ord[w] = s.scratch[k]
			s.at[s.scratch[k]] = w
			k++
		}
	}
	s.add(i)
	return nil
}

// cycleTo returns guarded edge i followed by the forward search's path
// from its head to u, its tail.
func (s *session) cycleTo(i, u int32) Cycle {
	var path []int32
	for w := u; s.parent[w] >= 0; w = s.from[w] {
		path = append(path, s.parent[w])
	}
	slices.Reverse(path)
	return append(Cycle{s.nf + i}, path...)
}

// blockingClause is the clause "not all guarded edges of c": the negations
// of their literals, sorted and without repeats.
func (s *session) blockingClause(c Cycle) []Lit {
	var clause []Lit
	for _, id := range c {
		if id >= s.nf {
			clause = append(clause, -s.p.Cond[id-s.nf].Lit)
		}
	}
	slices.Sort(clause)
	return slices.Compact(clause)
}
