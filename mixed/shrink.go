package mixed

import (
	"context"
	"time"

	"github.com/isocheck/isocheck/check"
	"github.com/isocheck/isocheck/sqlhistory"
)

// shrinkBudget bounds the time spent shrinking a counterexample, beyond
// the caller's context.
const shrinkBudget = 10 * time.Second

// shrink replaces res's evidence with that of a minimal counterexample: a
// set of transactions that still violates on its own, from which no
// transaction can be dropped. A transaction another one of the set read
// from is never dropped (its readers would read from thin air). It starts
// from the transactions the evidence names, and their sessions' earlier
// transactions, when those alone violate.
func shrink(ctx context.Context, h *sqlhistory.History, opts Options, res *Result) {
	ctx, cancel := context.WithTimeout(ctx, shrinkBudget)
	defer cancel()
	keep := make([]bool, len(h.Txns))
	for i := range keep {
		keep[i] = true
	}
	if seed := evidenceTxns(h, res); seed != nil {
		if r := violates(ctx, h, seed, opts); r != nil {
			keep = seed
		}
	}
	// Drop transactions one at a time until none can go: dropping one
	// may make another droppable, so repeat the passes to a fixpoint.
	for changed := true; changed && ctx.Err() == nil; {
		changed = false
		for i := len(h.Txns) - 1; i >= 0 && ctx.Err() == nil; i-- {
			if !keep[i] || readFrom(h, keep, i) {
				continue
			}
			keep[i] = false
			if violates(ctx, h, keep, opts) == nil {
				keep[i] = true
			} else {
				changed = true
			}
		}
	}
	sub, orig := h.Subset(keep)
	final := decide(context.WithoutCancel(ctx), sub, opts)
	if final.Verdict != check.Violated {
		// Cannot happen unless the checker disagrees with itself; keep the
		// unshrunk evidence rather than a wrong one.
		res.History, res.Txns = h, allTxns(h, res)
		return
	}
	if final.NoOrder && final.Missed == nil {
		final.Either = either(sub, final)
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
	if r.Verdict == check.Violated {
		return r
	}
	return nil
}

// readFrom reports whether a kept transaction other than i read a
// version i wrote.
func readFrom(h *sqlhistory.History, keep []bool, i int) bool {
	for j := range h.Txns {
		if !keep[j] || j == i {
			continue
		}
		for _, e := range h.Txns[j].Events {
			for _, v := range e.Reads {
				if h.Versions[v].Writer == i {
					return true
				}
			}
		}
	}
	return false
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
// conflicts that close a cycle in either order, for the explanation.
func either(h *sqlhistory.History, res *Result) *Either {
	committed, optional := outcomes(h)
	if len(optional) > 0 || len(h.Txns) > 64 {
		return nil
	}
	p := newProblem(h, committed)
	if len(p.unknown) > 0 || len(p.anomalies) > 0 {
		return nil
	}
	st, cycle := p.initialState()
	steps := 0
	if cycle != nil || p.saturate(st, &steps) != nil {
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
