package sqlcheck

import (
	"context"
	"errors"
	"slices"

	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/progress"
	"github.com/isocheck/isocheck/solver"
)

// searcher decides one problem: Bouajjani et al. (CAV 2025) Algorithm 3,
// with its enumeration of conflict-free extensions replaced by a
// backtracking search that saturates after every choice, and Algorithm 4
// under it.
type searcher struct {
	ctx context.Context
	// m counts the steps, when set.
	m     *progress.Meter
	p     *problem
	naive bool
	// paper searches as Algorithms 3 and 4 of Bouajjani et al. (CAV 2025)
	// do (with the improvements of extend) instead of solving the SAT
	// encoding.
	paper bool
	steps int
	// limit is the step budget withStepLimit put in ctx: 0 until read,
	// -1 for none.
	limit int
	// vars and clauses count the SAT encoding's size.
	vars, clauses int
	err           error
}

// errStepBudget stops a search that spent the step budget of its context.
var errStepBudget = errors.New("search step budget spent")

// stepBudgetKey is the context key of a search's step budget.
type stepBudgetKey struct{}

// withStepBudget returns ctx with a budget of n search steps for every
// check under it: a bound that, unlike a deadline, stops the search at
// the same point on every machine.
func withStepBudget(ctx context.Context, n int) context.Context {
	return context.WithValue(ctx, stepBudgetKey{}, n)
}

// stopped reports whether the search must stop: it has spent the step
// budget of its context, or ctx ended (polled, with the steps reported
// to s.m, every so many steps).
func (s *searcher) stopped() bool {
	if s.err != nil {
		return true
	}
	s.steps++
	if s.limit == 0 {
		s.limit = -1
		if n, ok := s.ctx.Value(stepBudgetKey{}).(int); ok && n > 0 {
			s.limit = n
		}
	}
	if s.limit > 0 && s.steps > s.limit {
		s.err = errStepBudget
		return true
	}
	if s.steps&1023 == 0 {
		if s.m != nil {
			s.m.Set(int64(s.steps))
		}
		if err := s.ctx.Err(); err != nil {
			s.err = err
			return true
		}
	}
	return false
}

// failure is why a problem has no consistent execution.
type failure struct {
	cycle  []Edge
	missed *Missed
	// noOrder: the witnesses were fixed, pco was acyclic, and still no
	// commit order satisfies the axioms (Algorithm 4 found none).
	noOrder bool
	// core: for noOrder found by the SAT encoding, the transactions
	// (nodes) of the cycles its unsatisfiable core is made of.
	core []int
}

// solve decides whether the problem has a consistent execution. It
// returns nil when it has, and the reason when not.
func (s *searcher) solve() *failure {
	st, cycle := s.p.initialState()
	if cycle != nil {
		return &failure{cycle: cycle}
	}
	if s.naive {
		if s.naiveWitnesses(st, nil) {
			return nil
		}
		return &failure{noOrder: true}
	}
	if s.paper || s.p.anyCC {
		return s.extend(st, true)
	}
	return s.sat(st)
}

// extend is Algorithm 3 on the history of st: saturate (Algorithm 1's
// fixpoint, line 2); pick a conflict, a read that did not return a row
// although a version of it its predicate selects may be the one it saw
// (line 3); try each writer of a version the predicate rejects (0-set,
// line 4) as the one it read, saturating again after each choice. Where
// the paper enumerates the product of all conflicts' choices up front,
// this picks the conflict with the fewest choices left after the
// previous ones and drops every choice that closes a cycle at once; each
// branch is again a client history, so Theorem 5 applies to the leaves
// unchanged. With no conflict left, Algorithm 4 searches the commit order.
func (s *searcher) extend(st *state, root bool) *failure {
	if cycle := s.p.saturate(st, &s.steps); cycle != nil {
		return &failure{cycle: cycle}
	}
	if err := s.ctx.Err(); err != nil {
		s.err = err
	}
	if s.stopped() {
		return &failure{}
	}
	best, bestChoices := -1, []int(nil)
	for i := range s.p.unknown {
		if st.assigned[i] {
			continue
		}
		u := &s.p.unknown[i]
		conflict := false
		for _, w := range u.sat {
			if !st.succ[u.t].has(w) {
				conflict = true
				break
			}
		}
		var choices []int
		causal := false
		for _, w := range u.unsat {
			if !st.succ[u.t].has(w) {
				choices = append(choices, w)
				causal = causal || (s.p.causalWitness(u.t) && !st.hb[u.t].has(w))
			}
		}
		if !conflict && !causal {
			// Every choice is rejected by the predicate and adds nothing
			// to the reader's causal past: the read may stay undefined.
			continue
		}
		s.p.orderChoices(st, u.t, choices)
		if best < 0 || len(choices) < len(bestChoices) {
			best, bestChoices = i, choices
			if len(choices) == 0 {
				break
			}
		}
	}
	if best < 0 {
		if s.prefixes(st, false) {
			return nil
		}
		return &failure{noOrder: true}
	}
	u := &s.p.unknown[best]
	var missed *Missed
	if root {
		missed = &Missed{Txn: s.p.nodes[u.t], Event: u.ev, Key: u.key, Selected: s.p.txnsOf(u.sat)}
	}
	for _, w := range bestChoices {
		next := st.clone()
		next.assigned[best] = true
		ri := readInst{t: u.t, ev: u.ev, key: u.key, w: w, version: s.p.writes[w][u.key], chosen: true}
		var f *failure
		if cycle := s.p.addRead(next, ri); cycle != nil {
			f = &failure{cycle: cycle}
		} else {
			f = s.extend(next, false)
		}
		if f == nil {
			return nil
		}
		if s.err != nil {
			return f
		}
		if missed != nil {
			missed.Choices = append(missed.Choices, Choice{Writer: s.p.nodes[w], Version: ri.version, Cycle: s.p.export(f.cycle), NoOrder: f.cycle == nil})
		}
	}
	if missed != nil {
		return &failure{missed: missed}
	}
	return &failure{noOrder: true}
}

// sat decides the problem by its SAT encoding (see encoding), after
// saturating.
func (s *searcher) sat(st *state) *failure {
	if cycle := s.p.saturate(st, &s.steps); cycle != nil {
		return &failure{cycle: cycle}
	}
	if err := s.ctx.Err(); err != nil {
		s.err = err
	}
	if s.stopped() {
		return &failure{}
	}
	var conflicts []int
	var choices [][]int
	for i := range s.p.unknown {
		u := &s.p.unknown[i]
		conflict := false
		for _, w := range u.sat {
			conflict = conflict || !st.succ[u.t].has(w)
		}
		if !conflict {
			continue
		}
		var ch []int
		for _, w := range u.unsat {
			if !st.succ[u.t].has(w) {
				ch = append(ch, w)
			}
		}
		conflicts = append(conflicts, i)
		choices = append(choices, ch)
	}
	e := s.p.encode(st, conflicts, choices)
	s.vars, s.clauses = e.vars, len(e.cls)
	if e.unsat {
		return &failure{noOrder: true}
	}
	res, err := solver.Solve(s.ctx, e.problem())
	if err != nil {
		if s.err = s.ctx.Err(); s.err == nil {
			s.err = err
		}
		return &failure{}
	}
	s.steps += res.Rounds
	if res.Sat {
		return nil
	}
	p := e.problem()
	seen := map[int]bool{}
	var core []int
	add := func(n int32) {
		if !seen[int(n)] {
			seen[int(n)] = true
			core = append(core, int(n))
		}
	}
	for _, c := range res.Core {
		for _, id := range c {
			if int(id) < len(p.Fixed) {
				add(p.Fixed[id].From)
				add(p.Fixed[id].To)
			} else {
				add(p.Cond[int(id)-len(p.Fixed)].From)
				add(p.Cond[int(id)-len(p.Fixed)].To)
			}
		}
	}
	return &failure{noOrder: true, core: core}
}

// prefixes is Algorithm 4: a depth-first search for a commit order of a
// conflict-free history, extending a prefix of committed transactions one
// transaction at a time while Definition 10 holds, and remembering the
// prefixes that led nowhere (Bouajjani et al. (CAV 2025) §5: the same set
// of transactions, and with SI also the same last writer of every key, is
// the same prefix). Without memo (the naive baseline) it enumerates every
// order.
func (s *searcher) prefixes(st *state, naive bool) bool {
	p := s.p
	n := len(p.nodes)
	// byKey[x]: the reads of x with a known writer; byTxn[t]: t's reads.
	byKey := make(map[int][]int)
	byTxn := make([][]int, n)
	for i := range st.reads {
		ri := &st.reads[i]
		byKey[int(ri.key)] = append(byKey[int(ri.key)], i)
		byTxn[ri.t] = append(byTxn[ri.t], i)
	}
	in := newBitset(n)
	in.set(0)
	last := make([]int, len(p.h.Keys)) // node 0 (init) writes every key first
	seen := map[string]bool{}
	memoKey := func() string {
		b := make([]byte, 0, len(in)*8+len(last)*4)
		for _, w := range in {
			for i := 0; i < 8; i++ {
				b = append(b, byte(w>>(8*i)))
			}
		}
		if p.anySI {
			for _, w := range last {
				b = append(b, byte(w), byte(w>>8), byte(w>>16), byte(w>>24))
			}
		}
		return string(b)
	}
	// allowed is Definition 10's second condition for appending t: t
	// overwrites no version that a read still to come, to which t is
	// visible, read from a transaction already in the prefix.
	allowed := func(t int) bool {
		for x := range p.writes[t] {
			for _, i := range byKey[int(x)] {
				ri := &st.reads[i]
				u := ri.t
				if u == t || in.has(u) || ri.w == t || !in.has(ri.w) {
					continue
				}
				if p.visibleAfter(st, t, ri, in) {
					return false
				}
			}
		}
		return true
	}
	// conflictFree is SI's Conflict for the transactions still to come
	// after t is appended: an SI transaction u that writes a key t writes
	// commits after t, so every key u read from a transaction w in the
	// prefix must not have been written again since w.
	conflictFree := func(t int) bool {
		share := p.shareWrite
		for u := 1; u < n; u++ {
			if in.has(u) || p.level[u] != level.SI || !share[u].has(t) {
				continue
			}
			for _, i := range byTxn[u] {
				ri := &st.reads[i]
				if in.has(ri.w) && last[ri.key] != ri.w {
					return false
				}
			}
		}
		return true
	}
	count := 1
	var rec func() bool
	rec = func() bool {
		if count == n {
			return true
		}
		if s.stopped() {
			return false
		}
		for t := 1; t < n; t++ {
			if in.has(t) || !st.pred[t].subsetOf(in) || !allowed(t) {
				continue
			}
			in.set(t)
			count++
			var saved []int
			for x := range p.writes[t] {
				saved = append(saved, int(x), last[x])
				last[x] = t
			}
			ok := !p.anySI || conflictFree(t)
			var k string
			if ok && !naive {
				k = memoKey()
				ok = !seen[k]
			}
			if ok {
				if rec() {
					return true
				}
				if !naive {
					seen[k] = true
				}
			}
			for i := 0; i < len(saved); i += 2 {
				last[saved[i]] = saved[i+1]
			}
			in.clear(t)
			count--
			if s.err != nil {
				return false
			}
		}
		return false
	}
	return rec()
}

// visibleAfter is the visibility of t to read ri when t is appended to the
// prefix in: everything in the prefix commits before t, everything outside
// after it (Bouajjani et al. (CAV 2025) Table 1's pco_t^P).
func (p *problem) visibleAfter(st *state, t int, ri *readInst, in bitset) bool {
	u := ri.t
	switch p.level[u] {
	case level.SER:
		return true
	case level.PC, level.SI:
		// t co* t3 and t3 (so ∪ wr) u: some direct predecessor of u is
		// outside the prefix (t itself or one committed after it).
		for i, w := range st.soWr[u] {
			if w&^in[i] != 0 {
				return true
			}
		}
		return false
	case level.CC:
		return st.hb[u].has(t)
	case level.RA:
		return st.soWr[u].has(t)
	case level.RC:
		return p.rcVisible(st, t, ri)
	}
	return false
}

// naiveWitnesses is the baseline of Bouajjani et al. (CAV 2025) §6:
// enumerate every witness (a writer for every read of a row it did not
// return, whose version its predicate rejects: a full history) and, for
// each, every commit order, each checked as it grows. base is the state of
// so and the reads with known writers; the choices so far are in assign.
func (s *searcher) naiveWitnesses(base *state, assign []int) bool {
	if err := s.ctx.Err(); err != nil {
		s.err = err
	}
	if s.stopped() {
		return false
	}
	i := len(assign)
	if i == len(s.p.unknown) {
		st := base.clone()
		for j, w := range assign {
			u := &s.p.unknown[j]
			st.assigned[j] = true
			if s.p.addRead(st, readInst{t: u.t, ev: u.ev, key: u.key, w: w, version: s.p.writes[w][u.key], chosen: true}) != nil {
				return false
			}
		}
		return s.prefixes(st, true)
	}
	for _, w := range s.p.unknown[i].unsat {
		if s.naiveWitnesses(base, append(assign, w)) {
			return true
		}
		if s.err != nil {
			return false
		}
	}
	return false
}

// orderChoices orders the writers a read of node t may have seen so that
// the likeliest to lead to a witness come first. The order only changes
// how soon the search finds one. Under SER, SI and PC the read must see
// the latest version among those visible, which commit order makes many:
// writers that no other choice must follow come first. Under RC, RA and
// CC it may see any version from its visible writers on: the earliest,
// which orders the least, comes first.
func (p *problem) orderChoices(st *state, t int, choices []int) {
	later := func(w int) int {
		n := 0
		for _, v := range choices {
			if st.succ[w].has(v) {
				n++
			}
		}
		return n
	}
	switch p.level[t] {
	case level.SER, level.SI, level.PC:
		slices.SortStableFunc(choices, func(a, b int) int { return later(a) - later(b) })
	default:
		slices.SortStableFunc(choices, func(a, b int) int { return later(b) - later(a) })
	}
}
