package sqlcheck

import (
	"context"
	"maps"
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

// explainSteps bounds, in search steps, the search that explains a
// counterexample: a bound in steps rather than time words the explanation
// the same way on every machine.
const explainSteps = 200_000

// shrink replaces res's evidence with that of a minimal counterexample: a
// set of transactions, each with some of its read events, that still
// violates on its own, from which no transaction and no read event can be
// dropped while its violation stays one of the whole history.
//
// A transaction goes with the reads of the others that returned a version
// it wrote: a Select that returned one is left out as a whole, and an
// Update or a Delete that matched one becomes a blind write of the
// versions it wrote (see sqlhistory.History.WithoutReads). Then Droppable
// must hold of what is left.
//
// Why a violation of what is left is one of the whole history: the axioms
// of every level are implications whose premises are made of the reads'
// write-read dependencies, session order and program order, and whose
// conclusions constrain the commit order; a read also constrains the
// versions it may see. Leaving a read out removes its constraints and the
// premises built from it, and leaving out a transaction whose versions no
// read left returned removes its premises too, under the condition of
// Droppable. So every consistent execution of the whole history gives, by
// restriction, one of what is left: if what is left has none, neither does
// the whole. Dropping one row from a Select's result would not do: the
// row's visible version would then have to fail the predicate, a new
// constraint; the whole event goes instead.
//
// It starts from the transactions the evidence names, with those they
// read from and their sessions' earlier transactions, when those alone
// violate, and narrows them to the evidence of what is left while that
// shrinks (for a violation the SAT encoding found, the transactions of its
// unsatisfiable core). Then it drops transactions by deletion in halving
// chunks (Zeller and Hildebrandt, "Simplifying and Isolating
// Failure-Inducing Input", IEEE TSE 28(2), 2002, §3): first the later half
// of those left, then quarters, down to one at a time, and then read
// events one at a time, until nothing can go. Every step is decided by the
// order of the transactions and events alone: the same history gives the
// same counterexample.
//
// It runs as the stage "shrink", counting the transactions left, within
// shrinkBudget and ctx. When the budget ends first, the counterexample is
// what is left, and res.ShrinkStopped says how long shrinking ran: it may
// not be minimal (a minimal one is no larger). The explanation of what is
// left gets a budget of explainSteps search steps, still within ctx. Once
// ctx ends, res keeps the evidence it has, on the whole history: the
// violation stands.
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
	s := newShrinker(sctx, h, opts, m)
	s.seed(res)
	s.narrow()
	s.minimise()
	cut := sctx.Err() != nil
	if ctx.Err() != nil {
		res.History, res.Txns = h, allTxns(h, res)
		return
	}
	sub, orig := s.sub(s.keep, s.cut)
	// The paper's search on the small counterexample says which choice
	// of a missed row fails how; it gets a budget of steps of its own,
	// and the SAT encoding's verdict stands if it needs more.
	explainOpts := opts
	explainOpts.Paper = true
	final := decideSub(withStepBudget(quiet, explainSteps), sub, explainOpts)
	if final.Verdict == verdict.Unknown {
		final = decideSub(quiet, sub, opts)
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
	violates, removable := s.minimality()
	cut = cut || sctx.Err() != nil
	stats := res.Stats
	*res = *final
	res.Stats = stats
	res.History, res.Txns = sub, orig
	res.ReadsLeftOut = s.readsLeftOut()
	if cut {
		res.ShrinkStopped = max(time.Since(start), time.Nanosecond)
		return
	}
	res.Minimal = violates && len(removable) == 0
	for _, t := range removable {
		res.Removable = append(res.Removable, slices.Index(orig, t))
	}
}

// minimality checks the transactions kept, whole: with every read event
// but those that returned a version of a transaction not kept. It reports
// whether they violate, and the transactions (indices into s.h.Txns)
// without any one of which the rest, whole, still violate.
func (s *shrinker) minimality() (violates bool, removable []int) {
	whole := func(keep []bool) bool {
		sub, _ := s.sub(keep, s.forced(keep))
		return decideSub(s.ctx, sub, s.opts).Verdict == verdict.Violated
	}
	if !whole(s.keep) {
		return false, nil
	}
	for t, k := range s.keep {
		if !k || s.ctx.Err() != nil {
			continue
		}
		rest := slices.Clone(s.keep)
		rest[t] = false
		if whole(rest) {
			removable = append(removable, t)
		}
	}
	return true, removable
}

// forced returns the read events of the transactions marked in keep that
// returned a version of a transaction not kept: a sub-history of those
// transactions leaves them out.
func (s *shrinker) forced(keep []bool) map[sqlhistory.EventRef]bool {
	cut := map[sqlhistory.EventRef]bool{}
	for t, k := range keep {
		if !k {
			continue
		}
		for ei, e := range s.h.Txns[t].Events {
			for _, v := range e.Reads {
				if w := s.h.Versions[v].Writer; w >= 0 && !keep[w] {
					cut[sqlhistory.EventRef{Txn: t, Event: ei}] = true
				}
			}
		}
	}
	return cut
}

// shrinker holds what a counterexample keeps so far: the transactions of
// h marked in keep, without the read events in cut.
type shrinker struct {
	ctx  context.Context
	h    *sqlhistory.History
	opts Options
	m    *progress.Meter
	keep []bool
	cut  map[sqlhistory.EventRef]bool
	// checked, when set, is told of every sub-history checked and whether
	// it violates, for tests.
	checked func(sub *sqlhistory.History, violated bool)
}

// newShrinker returns a shrinker that keeps all of h.
func newShrinker(ctx context.Context, h *sqlhistory.History, opts Options, m *progress.Meter) *shrinker {
	s := &shrinker{ctx: ctx, h: h, opts: opts, m: m, keep: make([]bool, len(h.Txns)), cut: map[sqlhistory.EventRef]bool{}}
	for i := range s.keep {
		s.keep[i] = true
	}
	return s
}

// sub returns the sub-history of the transactions marked in keep without
// the read events in cut, and the index in h of each of its transactions.
func (s *shrinker) sub(keep []bool, cut map[sqlhistory.EventRef]bool) (*sqlhistory.History, []int) {
	return s.h.WithoutReads(cut).Subset(keep)
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

// readsLeftOut counts the read events of the kept transactions that the
// counterexample leaves out.
func (s *shrinker) readsLeftOut() int {
	n := 0
	for ref := range s.cut {
		if s.keep[ref.Txn] {
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
	s.adopt(seed, s.cut)
}

// adopt replaces what is kept by the transactions marked in next, a
// subset of them, without the read events in cut, a superset of s.cut,
// and without the reads of next's transactions that returned a version
// of a transaction dropped. It does so if that drops something, the
// transactions dropped may go (see Droppable) and what is left violates;
// it returns the result of what is left when it does.
func (s *shrinker) adopt(next []bool, cut map[sqlhistory.EventRef]bool) *Result {
	cut = maps.Clone(cut)
	for t, k := range next {
		if !k {
			continue
		}
		for ei, e := range s.h.Txns[t].Events {
			for _, v := range e.Reads {
				if w := s.h.Versions[v].Writer; w >= 0 && !next[w] {
					cut[sqlhistory.EventRef{Txn: t, Event: ei}] = true
				}
			}
		}
	}
	var drop []int
	for i, k := range s.keep {
		if k && !next[i] {
			drop = append(drop, i)
		}
	}
	if len(drop) == 0 && len(cut) == len(s.cut) {
		return nil
	}
	if !Droppable(s.h.WithoutReads(cut), next, drop) {
		return nil
	}
	sub, _ := s.sub(next, cut)
	r := decideSub(s.ctx, sub, s.opts)
	violated := r.Verdict == verdict.Violated
	if s.checked != nil && s.ctx.Err() == nil {
		s.checked(sub, violated)
	}
	if !violated {
		return nil
	}
	copy(s.keep, next)
	s.cut = cut
	s.m.Set(int64(s.left()))
	return r
}

// narrow replaces the kept transactions by those the evidence of their
// own violation names, for as long as that drops some.
func (s *shrinker) narrow() {
	sub, orig := s.sub(s.keep, s.cut)
	r := decideSub(s.ctx, sub, s.opts)
	if r.Verdict != verdict.Violated {
		return
	}
	for r != nil && s.ctx.Err() == nil {
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
		if r = s.adopt(next, s.cut); r != nil {
			sub, orig = s.sub(s.keep, s.cut)
		}
	}
}

// minimise drops kept transactions in chunks of halving size, latest
// first, then single read events, latest first, until none can go.
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
		for _, ref := range s.reads() {
			if s.ctx.Err() != nil {
				return
			}
			next := maps.Clone(s.cut)
			next[ref] = true
			if s.adopt(s.keep, next) != nil {
				changed = true
			}
		}
		if !changed {
			return
		}
	}
}

// reads returns the read events kept, latest first.
func (s *shrinker) reads() []sqlhistory.EventRef {
	var out []sqlhistory.EventRef
	for t := len(s.keep) - 1; t >= 0; t-- {
		if !s.keep[t] {
			continue
		}
		events := s.h.Txns[t].Events
		for e := len(events) - 1; e >= 0; e-- {
			ref := sqlhistory.EventRef{Txn: t, Event: e}
			if events[e].Kind.Reads() && !s.cut[ref] {
				out = append(out, ref)
			}
		}
	}
	return out
}

// drop drops the transactions of group that are still kept, with the
// reads of the others that returned their versions, if what is left still
// violates; it reports whether it did.
func (s *shrinker) drop(group []int) bool {
	next := slices.Clone(s.keep)
	for _, i := range group {
		next[i] = false
	}
	return s.adopt(next, s.cut) != nil
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
		why := Edge{from: a, to: b, Kind: verdict.Supposed}
		next.addOrder(a, b, why)
		c := p.saturate(next, &steps)
		if c == nil {
			return nil
		}
		// Start with the supposed edge: as the cycle's first edge if it
		// is one, else as the premise that made the cycle's edges hold.
		for i, e := range c {
			if e.Kind == verdict.Supposed {
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

// decideSub is decide for shrinking, which only asks whether a history
// cut from a violation violates too: a failure of the checker, like a
// stop, is no verdict there, and the evidence found so far stands.
func decideSub(ctx context.Context, h *sqlhistory.History, opts Options) *Result {
	res, err := decide(ctx, h, opts)
	if err != nil {
		return &Result{Outcome: verdict.Outcome{Reason: err.Error()}}
	}
	return res
}
