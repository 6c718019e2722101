package interpret

import (
	"context"
	"fmt"
	"slices"

	"github.com/isocheck/isocheck/check"
	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/polygraph"
	"github.com/isocheck/isocheck/progress"
	"github.com/isocheck/isocheck/shrink"
	"github.com/isocheck/isocheck/verdict"
)

// FoundReports returns a report of each anomaly that rep lists
// (rep.Anomalies, from Every), in its order, so that each can be shown
// with its own counterexample: rep itself for the main one, and for each
// other the minimal report (Minimal) of its example, cut from h and
// checked alone at res's level. h is the history checked, as for Every
// (nil: res.Polygraph's). A rep that lists no anomalies gives rep alone
// when it has an anomaly, and nothing otherwise.
//
// The reports of the examples name their transactions, and place them,
// as the history does (TxnInfo's Index, ID, Position and Where are h's).
// An example checked alone may show first another anomaly than the one
// it was listed for (a smaller violation its transactions hold): its
// report names the anomaly it shows, always one the level forbids, and a
// note says which anomaly the list gave it for. Where the report shows a
// smaller example of the same anomaly than the list's, the list
// (rep.Anomalies) takes the report's transactions. When ctx ends first, it
// returns an error wrapping the context's cause.
func FoundReports(ctx context.Context, h *history.History, res *check.Result, rep *Report) ([]*Report, error) {
	if rep == nil || rep.Anomaly == nil {
		return nil, nil
	}
	out := []*Report{rep}
	if len(rep.Anomalies) < 2 {
		return out, nil
	}
	if h == nil {
		h = res.Polygraph.History
	}
	subject := shrink.NewSubject(h)
	for i, f := range rep.Anomalies[1:] {
		if ctx.Err() != nil {
			break
		}
		r, err := foundReport(ctx, subject, res.Level, f)
		if err != nil {
			return nil, fmt.Errorf("interpret: the example of %s: %w", f.Name, err)
		}
		if an := r.Anomaly; an.Name == f.Name && len(an.Txns) < len(f.Example) {
			// Shrinking the example found a smaller one of the same
			// anomaly: the list names the transactions the report
			// shows.
			ex := make([]ExampleTxn, len(an.Txns))
			for j, x := range an.Txns {
				ex[j] = ExampleTxn{Name: x.Name, Where: x.Where, Index: x.Index}
			}
			rep.Anomalies[i+1].Example = ex
		}
		out = append(out, r)
	}
	if ctx.Err() != nil {
		return nil, fmt.Errorf("interpret: the examples of the anomalies found: %w", context.Cause(ctx))
	}
	return out, nil
}

// ExampleReport returns the report of the example of f, an anomaly of
// h's list of every anomaly of every level (EveryLevel), at l, the
// weakest level that forbids it: the minimal report of its transactions,
// drawn by a cycle of f's name where one shows it.
func ExampleReport(ctx context.Context, h *history.History, l level.Level, f Found) (*Report, error) {
	r, err := foundReport(ctx, shrink.NewSubject(h), l, f)
	if err != nil {
		return nil, fmt.Errorf("interpret: the example of %s: %w", f.Name, err)
	}
	return r, nil
}

// foundReport returns the minimal report of f's example, a sub-history of
// subject's history, at l.
func foundReport(ctx context.Context, subject *shrink.Subject, l level.Level, f Found) (*Report, error) {
	h := subject.H
	var txns []int32
	for _, x := range f.Example {
		if x.Index < 0 || x.Index >= len(h.Txns) {
			return nil, fmt.Errorf("transaction %s (index %d) is not in the history of %d transactions", x.Name, x.Index, len(h.Txns))
		}
		txns = append(txns, int32(x.Index))
	}
	slices.Sort(txns)
	txns = slices.Compact(txns)
	sel := shrink.Selection{Txns: txns}
	sub := subject.Sub(sel)
	quiet := progress.WithTracker(ctx, nil)
	res, err := check.Check(quiet, sub, l)
	if err != nil {
		return nil, err
	}
	if res.Verdict != verdict.Violated {
		return nil, fmt.Errorf("its %d transactions do not violate %v on their own (%v)", len(txns), l, res.Verdict)
	}
	rep, err := Minimal(quiet, res)
	if err != nil {
		return nil, err
	}
	// Minimal's note counts the transactions of the example left out,
	// not those of the history, and its minimality is the example's:
	// say both of the history.
	if hasShrunkNote(rep.Anomaly, len(sub.Txns)) {
		rep.Anomaly.Notes = rep.Anomaly.Notes[:len(rep.Anomaly.Notes)-1]
	}
	if rep.Anomaly.Name != f.Name && f.cycle != nil {
		// Minimal names the first cycle it meets; the example was cut
		// to hold one of f's shape: show that one, when its report
		// shows every transaction of the example, which the list names
		// and the note below speaks of, or when the transactions it
		// shows violate l on their own (FoundReports then lists them).
		if c := namedCycle(quiet, res, f.Name); c != nil {
			if r := cycleReport(res, c); len(r.Anomaly.Txns) == len(sub.Txns) || violatesAlone(quiet, sub, r.Anomaly, l) {
				rep = r
			}
		}
	}
	an := rep.Anomaly
	for i := range an.Txns {
		inHistory(&an.Txns[i], h, sel)
	}
	an.HistoryTxns = len(h.Txns)
	if !verdict.Forbids(l, an.Name) {
		an.Name = verdict.Generic(l)
		an.Class = an.Name.Class()
		an.Description = an.Name.Describe()
	}
	if an.Name != f.Name {
		an.Notes = append(an.Notes, fmt.Sprintf("the history's list of anomalies gives this example for %s; checked on its own, it shows %s", f.Name, an.Name))
	}
	m, err := subject.Minimality(quiet, an.indices(), l)
	if err != nil {
		return nil, err
	}
	setMinimality(an, h, m, l.String())
	return rep, nil
}

// violatesAlone reports whether the transactions of a, a report on h,
// violate l on their own.
func violatesAlone(ctx context.Context, h *history.History, a *Anomaly, l level.Level) bool {
	return shrink.Violates(ctx, l)(shrink.NewSubject(h).Sub(shrink.Selection{Txns: a.indices()}))
}

// inHistory places t, a transaction of the sub-history of h cut by sel,
// in h: its index, id, session position and the count of its operations
// not shown.
func inHistory(t *TxnInfo, h *history.History, sel shrink.Selection) {
	if t.Index < 0 || t.Index >= len(sel.Txns) {
		return
	}
	i := int(sel.Txns[t.Index])
	tx := &h.Txns[i]
	t.Index = i
	t.ID = verdict.ID(tx.ID)
	t.Position = slices.Index(h.Sessions[tx.Session], int32(i)) + 1
	t.OmittedOps = len(h.OpsOf(i)) - len(t.Ops)
}

// namedCycle returns a shortest cycle of the dependencies res's history
// shows (check.Dependencies) that violates res's level on its own and
// that Name calls name at that level, or nil. The edges are between the
// nodes of the polygraph Dependencies returns, which is res.Polygraph's.
func namedCycle(ctx context.Context, res *check.Result, name verdict.Anomaly) []polygraph.Edge {
	p, known, err := check.Dependencies(ctx, res)
	if err != nil || p == nil || p != res.Polygraph {
		return nil
	}
	d := newDescriber(p, nil, false, nil)
	var best []polygraph.Edge
	for _, c := range check.Cycles(p.NumNodes, known, MaxCount) {
		if best != nil && len(c) >= len(best) {
			continue
		}
		if f := d.fold(c, true); forbidden(f, res.Level) && ShapeName(f, res.Level) == name {
			best = c
		}
	}
	return best
}

// forbidden says whether l forbids some name of the cycle's shape (see
// Name). A cycle whose every name l allows, such as a write skew at SI,
// is no violation of l, though Name calls it by l's generic name: a
// report that drew it alone would show what l allows.
func forbidden(cycle []polygraph.Edge, l level.Level) bool {
	return slices.ContainsFunc(shapeNames(cycle), func(n verdict.Anomaly) bool { return verdict.Forbids(l, n) })
}

// cycleReport is the report of res explained by cycle, a cycle of
// res.Polygraph's dependencies (whether its transactions are a minimal
// counterexample is for the caller to say, see setMinimality).
func cycleReport(res *check.Result, cycle []polygraph.Edge) *Report {
	r := *res
	r.Cycle, r.Conflict, r.Core, r.Anomalies = cycle, nil, nil, nil
	return Explain(&r)
}
