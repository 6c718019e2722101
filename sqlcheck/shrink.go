package sqlcheck

import (
	"context"
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
// history (see Droppable). It starts
// from the transactions the evidence names, and their sessions' earlier
// transactions, when those alone violate.
//
// It runs as the stage "shrink", counting the transactions left, within
// shrinkBudget and ctx; the explanation of what is left gets
// explainBudget of its own, still within ctx. Once ctx ends, res keeps
// the evidence it has, on the whole history: the violation stands.
func shrink(ctx context.Context, h *sqlhistory.History, opts Options, res *Result) {
	m := progress.Start(ctx, "shrink", int64(len(h.Txns)), "transactions left")
	m.Set(int64(len(h.Txns)))
	// The checks of subsets report no stages of their own: the run is in
	// this one.
	quiet := progress.WithTracker(ctx, nil)
	sctx, cancel := context.WithTimeout(quiet, shrinkBudget)
	defer cancel()
	keep := make([]bool, len(h.Txns))
	for i := range keep {
		keep[i] = true
	}
	if seed := evidenceTxns(h, res); seed != nil {
		var rest []int
		for i, k := range seed {
			if !k {
				rest = append(rest, i)
			}
		}
		if Droppable(h, seed, rest) && violates(sctx, h, seed, opts) != nil {
			keep = seed
		}
	}
	left := func() int64 {
		n := int64(0)
		for _, k := range keep {
			if k {
				n++
			}
		}
		return n
	}
	m.Set(left())
	// Drop transactions one at a time until none can go: dropping one
	// may make another droppable, so repeat the passes to a fixpoint.
	for changed := true; changed && sctx.Err() == nil; {
		changed = false
		for i := len(h.Txns) - 1; i >= 0 && sctx.Err() == nil; i-- {
			if !keep[i] {
				continue
			}
			// Drop i with the transactions that read from it, directly
			// or not: what is left is still a history of its own.
			drop := readersOf(h, keep, i)
			for _, j := range drop {
				keep[j] = false
			}
			if !Droppable(h, keep, drop) {
				for _, j := range drop {
					keep[j] = true
				}
				continue
			}
			if violates(sctx, h, keep, opts) == nil {
				for _, j := range drop {
					keep[j] = true
				}
			} else {
				changed = true
				m.Set(left())
			}
		}
	}
	if ctx.Err() != nil {
		res.History, res.Txns = h, allTxns(h, res)
		return
	}
	sub, orig := h.Subset(keep)
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
