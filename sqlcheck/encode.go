package sqlcheck

import (
	"github.com/isocheck/isocheck/digraph"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/solver"
)

// The SAT encoding decides what Algorithms 3 and 4 of Bouajjani et al.
// (CAV 2025) search: the writer of every conflict (a read that did not
// return a row some version of which its predicate selects) and a commit
// order. It goes beyond the paper, whose bottleneck is enumerating
// conflicts' choices one product at a time (§6): here the choices and the
// order are variables of one problem of SAT modulo acyclicity, solved by
// the same engine as key-value histories (package solver, after Huang, Liu,
// Chen, Wei, Basin, Li and Pan, "Efficient Black-box Checking of Snapshot
// Isolation in Databases" (PolySI), PVLDB 16(6), 2023, §4.4), which learns
// from each failure instead of backtracking chronologically.
//
// Variables:
//   - an order variable for each pair of transactions {a, b} the axioms
//     ask about that pco leaves unordered: true puts a before b, false b
//     before a (both are guarded edges, so an acyclic model is a total
//     order of the pairs asked about, extended by any topological sort);
//   - a choice variable for each conflict and each writer of a version
//     its predicate rejects: chosen, the writer precedes the reader.
//
// Clauses: each conflict chooses at least one writer (choosing more only
// adds constraints), and every axiom instance (§3), for reads with a
// known writer and, guarded by its variable, for each choice:
//
//	read r of x from t1 in t, t2 ≠ t1 writes x, vis_L(t2, r) ⇒ t2 co t1
//
// where vis_L is written with order literals: SER: t2 co t; PC: t2 co* t3
// for some so or wr predecessor t3 of t (so's last one suffices: co
// contains so); SI: PC, or t2 co* t4 co t for a t4 writing a row t
// writes; RA, RC: fixed by the reads, or guarded by choices. Reads of rows
// not returned that are not conflicts stay undefined, as in Algorithm 3
// (Theorem 5); that theorem does not cover CC, whose histories the search
// decides (see causalWitness).
type encoding struct {
	p     *problem
	st    *state
	vars  int
	pairs map[[2]int]solver.Lit
	cond  []solver.CondEdge
	cls   [][]solver.Lit
	// choice[i] are the choice variables of conflict i, with writers.
	choice []conflictVars
	unsat  bool
}

type conflictVars struct {
	u       int // index into problem.unknown
	writers []int
	lits    []solver.Lit
}

// Literal values: a literal, or a constant.
const (
	litTrue  solver.Lit = 1 << 30
	litFalse solver.Lit = -(1 << 30)
)

// order returns the literal "a commits before b".
func (e *encoding) order(a, b int) solver.Lit {
	switch {
	case a == b:
		return litFalse
	case e.st.succ[a].has(b):
		return litTrue
	case e.st.succ[b].has(a):
		return litFalse
	}
	lo, hi := min(a, b), max(a, b)
	v, ok := e.pairs[[2]int{lo, hi}]
	if !ok {
		e.vars++
		v = solver.Lit(e.vars)
		e.pairs[[2]int{lo, hi}] = v
		e.cond = append(e.cond, solver.CondEdge{From: int32(lo), To: int32(hi), Lit: v}, solver.CondEdge{From: int32(hi), To: int32(lo), Lit: -v})
	}
	if a == lo {
		return v
	}
	return -v
}

// orderEq returns "a co* b": a = b or a before b.
func (e *encoding) orderEq(a, b int) solver.Lit {
	if a == b {
		return litTrue
	}
	return e.order(a, b)
}

// clause adds the disjunction of lits, simplified.
func (e *encoding) clause(lits ...solver.Lit) {
	out := make([]solver.Lit, 0, len(lits))
	for _, l := range lits {
		switch l {
		case litTrue:
			return
		case litFalse, 0:
			continue
		}
		out = append(out, l)
	}
	if len(out) == 0 {
		e.unsat = true
		return
	}
	e.cls = append(e.cls, out)
}

func not(l solver.Lit) solver.Lit {
	switch l {
	case litTrue:
		return litFalse
	case litFalse:
		return litTrue
	case 0:
		return 0
	}
	return -l
}

// encode builds the problem from the saturated state st, with conflicts
// the indices of the unknown reads that are conflicts and their choices.
func (p *problem) encode(st *state, conflicts []int, choices [][]int) *encoding {
	e := &encoding{p: p, st: st, pairs: map[[2]int]solver.Lit{}}
	// chosenInto[t]: the choice variables of t's conflicts, per writer,
	// with the event: t's possible wr predecessors.
	type chosenWr struct {
		from, ev int
		lit      solver.Lit
	}
	chosenInto := make([][]chosenWr, len(p.nodes))
	for i, ci := range conflicts {
		u := &p.unknown[ci]
		cv := conflictVars{u: ci, writers: choices[i]}
		var any []solver.Lit
		for _, w := range choices[i] {
			e.vars++
			l := solver.Lit(e.vars)
			cv.lits = append(cv.lits, l)
			any = append(any, l)
			chosenInto[u.t] = append(chosenInto[u.t], chosenWr{from: w, ev: u.ev, lit: l})
			if !st.succ[w].has(u.t) {
				e.cond = append(e.cond, solver.CondEdge{From: int32(w), To: int32(u.t), Lit: l})
			}
		}
		e.choice = append(e.choice, cv)
		e.clause(any...)
	}
	// lastSo[t]: t's last session-order predecessor (nodes of a session
	// are numbered in session order), init if none.
	lastSo := make([]int, len(p.nodes))
	for t := range lastSo {
		p.soPrev[t].each(func(u int) { lastSo[t] = max(lastSo[t], u) })
	}
	// axioms adds the axiom instances of read ri (guarded by g, 0 if its
	// writer is known).
	axioms := func(ri *readInst, g solver.Lit) {
		t, t1 := ri.t, ri.w
		for _, t2 := range p.writers[ri.key] {
			if t2 == t1 || t2 == t || st.succ[t2].has(t1) {
				continue
			}
			then := e.order(t2, t1)
			switch p.level[t] {
			case level.SER:
				e.clause(not(g), not(e.order(t2, t)), then)
			case level.PC, level.SI:
				e.clause(not(g), not(e.orderEq(t2, lastSo[t])), then)
				for _, w := range st.wr[t] {
					e.clause(not(g), not(e.orderEq(t2, w.from)), then)
				}
				for _, c := range chosenInto[t] {
					e.clause(not(g), not(c.lit), not(e.orderEq(t2, c.from)), then)
				}
				if share := p.shareWrite[t]; share != nil && p.level[t] == level.SI {
					share.each(func(t4 int) {
						if t4 != t {
							e.clause(not(g), not(e.orderEq(t2, t4)), not(e.order(t4, t)), then)
						}
					})
				}
			case level.RA:
				if st.soWr[t].has(t2) {
					e.clause(not(g), then)
				}
				for _, c := range chosenInto[t] {
					if c.from == t2 {
						e.clause(not(g), not(c.lit), then)
					}
				}
			case level.RC:
				for _, w := range st.wr[t] {
					if w.from == t2 && w.ev < ri.ev {
						e.clause(not(g), then)
					}
				}
				for _, c := range chosenInto[t] {
					if c.from == t2 && c.ev < ri.ev {
						e.clause(not(g), not(c.lit), then)
					}
				}
			}
		}
	}
	for i := range st.reads {
		axioms(&st.reads[i], 0)
	}
	for i, cv := range e.choice {
		u := &p.unknown[cv.u]
		for j, w := range cv.writers {
			ri := readInst{t: u.t, ev: u.ev, key: u.key, w: w, version: p.writes[w][u.key], chosen: true}
			axioms(&ri, e.choice[i].lits[j])
		}
	}
	return e
}

// problem returns the solver's problem: the saturated pco's edges fixed.
func (e *encoding) problem() *solver.Problem {
	var fixed []digraph.Edge
	for _, out := range e.st.edges {
		for _, d := range out {
			fixed = append(fixed, digraph.Edge{From: int32(d.from), To: int32(d.to)})
		}
	}
	hint := make([]bool, e.vars)
	// Transactions are numbered in the order the history lists them,
	// usually the order they ended in: a likely commit order. Order
	// variables put the lower number first.
	for _, v := range e.pairs {
		hint[v-1] = true
	}
	return &solver.Problem{Nodes: len(e.p.nodes), Fixed: fixed, Vars: e.vars, Cond: e.cond, Clauses: e.cls, Hint: hint}
}
