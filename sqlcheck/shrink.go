package sqlcheck

import (
	"context"
	"slices"
	"time"

	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/progress"
	"github.com/isocheck/isocheck/sqlhistory"
	"github.com/isocheck/isocheck/verdict"
)

// shrinkBudget bounds the time spent shrinking a counterexample, beyond
// the caller's context.
const shrinkBudget = 10 * time.Second

// explainBudget bounds the search that explains a counterexample.
const explainBudget = 3 * time.Second

// shrink replaces res's evidence with that of a minimal counterexample: a
// set of transactions that still violates on its own, from which no
// transaction can be dropped together with those that read from it (they
// would read from thin air) while its violation stays one of the whole
// history (see Droppable).
//
// It starts from the transactions the evidence names, with those they
// read from and their sessions' earlier transactions, when those alone
// violate, and narrows them to the evidence of what is left while that
// shrinks (for a violation the SAT encoding found, the transactions of its
// unsatisfiable core). Then it drops transactions by deletion in halving
// chunks (Zeller and Hildebrandt, "Simplifying and Isolating
// Failure-Inducing Input", IEEE TSE 28(2), 2002, §3): first the later half
// of those left, then quarters, down to one at a time until none can go,
// so that a counterexample of k transactions among n costs about k·log n
// checks, each of a smaller history than the last. Every step is decided
// by the order of the transactions alone: the same history gives the same
// counterexample.
//
// It runs as the stage "shrink", counting the transactions left, within
// shrinkBudget and ctx. When the budget ends first, the counterexample is
// what is left, and res.ShrinkStopped says how long shrinking ran: it may
// not be minimal (a minimal one is no larger). The explanation of what is
// left gets explainBudget of its own, still within ctx. Once ctx ends, res
// keeps the evidence it has, on the whole history: the violation stands.
func shrink(ctx context.Context, h *sqlhistory.History, opts Options, res *Result) {
	shrinkWithin(ctx, h, opts, res, shrinkBudget)
}

// shrinkWithin is shrink with the given budget.
func shrinkWithin(ctx context.Context, h *sqlhistory.History, opts Options, res *Result, budget time.Duration) {
	start := time.Now()
	m := progress.Start(ctx, "shrink", int64(len(h.Txns)), "transactions left")
	m.Set(int64(len(h.Txns)))
	// The checks of subsets report no stages of their own: the run is in
	// this one.
	quiet := progress.WithTracker(ctx, nil)
	sctx, cancel := context.WithTimeout(quiet, budget)
	defer cancel()
	s := &shrinker{ctx: sctx, h: h, opts: opts, m: m, keep: make([]bool, len(h.Txns))}
	for i := range s.keep {
		s.keep[i] = true
	}
	s.seed(res)
	s.narrow()
	s.minimise()
	cut := sctx.Err() != nil
	if ctx.Err() != nil {
		res.History, res.Txns = h, allTxns(h, res)
		return
	}
	sub, orig := h.Subset(s.keep)
	// The paper's search on the small counterexample says which choice
	// of a missed row fails how; it gets a few seconds of its own, and
	// the SAT encoding's verdict stands if it needs more.
	explainOpts := opts
	explainOpts.Paper = true
	ectx, ecancel := context.WithTimeout(quiet, explainBudget)
	final := decide(ectx, sub, explainOpts)
	ecancel()
	if final.Verdict == verdict.Unknown {
		final = decide(quiet, sub, opts)
	}
	if final.Verdict != verdict.Violated {
		// The run stopped, or the checker disagrees with itself: keep the
		// unshrunk evidence rather than none or a wrong one.
		res.History, res.Txns = h, allTxns(h, res)
		return
	}
	if final.NoOrder && final.Missed == nil {
		final.Either = either(ctx, sub, final)
	}
	if final.Missed != nil {
		eitherChoices(ctx, sub, final.Missed)
	}
	stats := res.Stats
	*res = *final
	res.Stats = stats
	res.History, res.Txns = sub, orig
	if cut {
		res.ShrinkStopped = max(time.Since(start), time.Nanosecond)
	}
}

// shrinker holds the transactions of h a counterexample keeps so far.
type shrinker struct {
	ctx  context.Context
	h    *sqlhistory.History
	opts Options
	m    *progress.Meter
	keep []bool
}

// left counts the transactions kept.
func (s *shrinker) left() int {
	n := 0
	for _, k := range s.keep {
		if k {
			n++
		}
	}
	return n
}

// seed keeps only the transactions res's evidence names (see
// evidenceTxns), if they are droppable from the others and violate alone.
func (s *shrinker) seed(res *Result) {
	seed := evidenceTxns(s.h, res)
	if seed == nil {
		return
	}
	s.adopt(seed)
}

// adopt replaces the kept transactions by those marked in next, a subset
// of them, if the rest may be dropped and next violates; it returns the
// result of next when it does.
func (s *shrinker) adopt(next []bool) *Result {
	var drop []int
	for i, k := range s.keep {
		if k && !next[i] {
			drop = append(drop, i)
		}
	}
	if len(drop) == 0 || !Droppable(s.h, next, drop) {
		return nil
	}
	r := violates(s.ctx, s.h, next, s.opts)
	if r == nil {
		return nil
	}
	copy(s.keep, next)
	s.m.Set(int64(s.left()))
	return r
}

// narrow replaces the kept transactions by those the evidence of their
// own violation names, for as long as that drops some.
func (s *shrinker) narrow() {
	r := violates(s.ctx, s.h, s.keep, s.opts)
	for r != nil && s.ctx.Err() == nil {
		sub, orig := s.h.Subset(s.keep)
		ev := evidenceTxns(sub, r)
		if ev == nil {
			return
		}
		next := make([]bool, len(s.h.Txns))
		for i, k := range ev {
			if k {
				next[orig[i]] = true
			}
		}
		r = s.adopt(next)
	}
}

// minimise drops kept transactions, with those that read from them, in
// chunks of halving size, latest first, until no single one can go.
func (s *shrinker) minimise() {
	chunk := max(1, s.left()/2)
	for s.ctx.Err() == nil {
		var cands []int
		for i := len(s.keep) - 1; i >= 0; i-- {
			if s.keep[i] {
				cands = append(cands, i)
			}
		}
		chunk = min(chunk, max(1, len(cands)/2))
		changed := false
		for i := 0; i < len(cands) && s.ctx.Err() == nil; i += chunk {
			if s.drop(cands[i:min(i+chunk, len(cands))]) {
				changed = true
			}
		}
		if chunk > 1 {
			chunk /= 2
			continue
		}
		if !changed {
			return
		}
	}
}

// drop drops the transactions group that are still kept, with those that
// read from them, if what is left still violates; it reports whether it
// did.
func (s *shrinker) drop(group []int) bool {
	next := slices.Clone(s.keep)
	any := false
	for _, i := range group {
		if !next[i] {
			continue
		}
		for _, j := range readersOf(s.h, next, i) {
			next[j] = false
			any = true
		}
	}
	return any && s.adopt(next) != nil
}

// violates returns the result of the subset keep if it is violated.
func violates(ctx context.Context, h *sqlhistory.History, keep []bool, opts Options) *Result {
	sub, _ := h.Subset(keep)
	r := decide(ctx, sub, opts)
	if r.Verdict == verdict.Violated {
		return r
	}
	return nil
}

// Droppable reports whether dropping the transactions drop from a history,
// leaving those marked in keep, keeps every consistent history consistent,
// so that a violation of what is left is one of the whole. drop must hold
// the transactions that read from the others. Dropping a transaction only
// removes constraints (the levels' visibility shrinks), unless a read left
// may have seen its version of a row the read did not return, and that
// version was the only possible one. So for each row a dropped transaction
// writes and a read left inspects without returning it, the dropped version
// must be one the read's predicate selects (never a version the read saw),
// or every version left of that row must be one it rejects: then the latest
// visible one may take its place (the argument of Theorem 5 of Bouajjani
// et al. (CAV 2025), which does not cover CC, whose histories get the first
// rule only).
func Droppable(h *sqlhistory.History, keep []bool, drop []int) bool {
	finals := func(t int) map[sqlhistory.KeyID]sqlhistory.VersionID {
		f := map[sqlhistory.KeyID]sqlhistory.VersionID{}
		for _, e := range h.Txns[t].Events {
			for _, v := range e.Writes {
				f[h.Versions[v].Key] = v
			}
		}
		return f
	}
	// left[x]: the final versions of x of the transactions left.
	left := map[sqlhistory.KeyID][]sqlhistory.VersionID{}
	cc := false
	for j := range h.Txns {
		if keep[j] && h.Txns[j].Status != sqlhistory.Aborted {
			cc = cc || h.Txns[j].Level == level.CC
			for x, v := range finals(j) {
				left[x] = append(left[x], v)
			}
		}
	}
	rejectsAll := func(e *sqlhistory.Event, x sqlhistory.KeyID) bool {
		if v, ok := h.Initial[x]; ok && e.Where.Eval(h.Versions[v].Row) {
			return false
		}
		for _, v := range left[x] {
			if row := h.Versions[v].Row; row != nil && e.Where.Eval(row) {
				return false
			}
		}
		return true
	}
	for _, d := range drop {
		if h.Txns[d].Status == sqlhistory.Aborted {
			continue // its versions are no witness of anything
		}
		final := finals(d)
		for j := range h.Txns {
			if !keep[j] || h.Txns[j].Status == sqlhistory.Aborted {
				continue
			}
			for ei := range h.Txns[j].Events {
				e := &h.Txns[j].Events[ei]
				if !e.Kind.Reads() {
					continue
				}
				for _, v := range e.Reads {
					if h.Versions[v].Writer == d {
						return false
					}
				}
				for x, v := range final {
					if h.Keys[x].Table != e.Table {
						continue
					}
					if row := h.Versions[v].Row; row != nil && e.Where.Eval(row) {
						continue // never a version this read may have seen
					}
					listed := false
					for _, r := range e.Reads {
						listed = listed || h.Versions[r].Key == x
					}
					if !listed && (cc || !rejectsAll(e, x)) {
						return false
					}
				}
			}
		}
	}
	return true
}

// readersOf returns i and the kept transactions that read from it,
// directly or through others.
func readersOf(h *sqlhistory.History, keep []bool, i int) []int {
	in := map[int]bool{i: true}
	out := []int{i}
	for changed := true; changed; {
		changed = false
		for j := range h.Txns {
			if !keep[j] || in[j] {
				continue
			}
		reads:
			for _, e := range h.Txns[j].Events {
				for _, v := range e.Reads {
					if w := h.Versions[v].Writer; w >= 0 && in[w] {
						in[j] = true
						out = append(out, j)
						changed = true
						break reads
					}
				}
			}
		}
	}
	return out
}

// evidenceTxns returns the transactions res's evidence names, with the
// transactions they read from and their sessions' earlier transactions,
// closed under reading from; nil if the evidence names none.
func evidenceTxns(h *sqlhistory.History, res *Result) []bool {
	keep := make([]bool, len(h.Txns))
	any := false
	mark := func(t int) {
		if t >= 0 {
			keep[t], any = true, true
		}
	}
	for _, t := range res.core {
		mark(t)
	}
	for _, a := range res.Anomalies {
		mark(a.Txn)
		for _, w := range a.Writers {
			mark(w)
		}
	}
	for _, e := range res.Cycle {
		mark(e.From)
		mark(e.To)
		mark(e.Reader)
	}
	if m := res.Missed; m != nil {
		mark(m.Txn)
		for _, w := range m.Selected {
			mark(w)
		}
		for _, c := range m.Choices {
			mark(c.Writer)
			for _, e := range c.Cycle {
				mark(e.From)
				mark(e.To)
				mark(e.Reader)
			}
		}
	}
	if !any {
		return nil
	}
	for changed := true; changed; {
		changed = false
		for i := range h.Txns {
			if !keep[i] {
				continue
			}
			for _, e := range h.Txns[i].Events {
				for _, v := range e.Reads {
					if w := h.Versions[v].Writer; w >= 0 && !keep[w] {
						keep[w], changed = true, true
					}
				}
			}
			for _, j := range h.Sessions[h.Txns[i].Session] {
				if j == i {
					break
				}
				if !keep[j] {
					keep[j], changed = true, true
				}
			}
		}
	}
	return keep
}

// either looks for two transactions of a small violated history without
// conflicts that close a cycle in either order, for the explanation; it
// gives up, with nil, when ctx ends.
func either(ctx context.Context, h *sqlhistory.History, res *Result) *Either {
	committed, optional := outcomes(h)
	if len(optional) > 0 || len(h.Txns) > 64 {
		return nil
	}
	p, err := newProblem(ctx, h, committed, false)
	if err != nil || len(p.unknown) > 0 || len(p.anomalies) > 0 {
		return nil
	}
	st, cycle := p.initialState()
	if cycle != nil || ctx.Err() != nil {
		return nil
	}
	return p.either(st)
}

// eitherChoices fills in Either for the choices of a Missed read that
// failed without a single cycle, on the small history h, until ctx ends.
func eitherChoices(ctx context.Context, h *sqlhistory.History, m *Missed) {
	committed, optional := outcomes(h)
	if len(optional) > 0 || len(h.Txns) > 64 {
		return
	}
	p, err := newProblem(ctx, h, committed, false)
	if err != nil {
		return
	}
	base, cycle := p.initialState()
	if cycle != nil || len(p.anomalies) > 0 || ctx.Err() != nil {
		return
	}
	t := p.nodeOf[m.Txn]
	for i := range m.Choices {
		c := &m.Choices[i]
		w := 0
		if c.Writer >= 0 {
			w = p.nodeOf[c.Writer]
		}
		if !c.NoOrder || t < 0 || w < 0 {
			continue
		}
		st := base.clone()
		if p.addRead(st, readInst{t: t, ev: m.Event, key: m.Key, w: w, version: c.Version, chosen: true}) != nil {
			continue
		}
		c.Either = p.either(st)
	}
}

// either looks, in the saturated st, for two transactions that close a
// cycle in either order.
func (p *problem) either(st *state) *Either {
	steps := 0
	if p.saturate(st, &steps) != nil {
		return nil
	}
	try := func(a, b int) []Edge {
		next := st.clone()
		why := Edge{from: a, to: b, Kind: Supposed}
		next.addOrder(a, b, why)
		c := p.saturate(next, &steps)
		if c == nil {
			return nil
		}
		// Start with the supposed edge: as the cycle's first edge if it
		// is one, else as the premise that made the cycle's edges hold.
		for i, e := range c {
			if e.Kind == Supposed {
				return p.export(append(c[i:], c[:i]...))
			}
		}
		return p.export(append([]Edge{why}, c...))
	}
	n := len(p.nodes)
	for a := 1; a < n; a++ {
		if p.ctx != nil && p.ctx.Err() != nil {
			// saturate stops early too, so what it found is not to be
			// trusted.
			return nil
		}
		for b := a + 1; b < n; b++ {
			if st.succ[a].has(b) || st.succ[b].has(a) {
				continue
			}
			ab := try(a, b)
			if ab == nil {
				continue
			}
			if ba := try(b, a); ba != nil {
				return &Either{A: p.nodes[a], B: p.nodes[b], AB: ab, BA: ba}
			}
		}
	}
	return nil
}
