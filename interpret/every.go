package interpret

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/isocheck/isocheck/anomaly"
	"github.com/isocheck/isocheck/check"
	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/internal/textsafe"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/polygraph"
	"github.com/isocheck/isocheck/shrink"
	"github.com/isocheck/isocheck/verdict"
)

// MaxCount caps the anomalies of one name that Every counts, and the
// cycles of each shape it looks for.
const MaxCount = 100

// MaxShrink is the size of the largest history, in transactions, from
// which Every shrinks an example of the main anomaly when the check's
// evidence is not one alone.
const MaxShrink = 1000

// Found is one kind of anomaly a violation shows, as Report.Anomalies
// lists them: its name, how many were found, and one minimal example.
type Found struct {
	// Name is the anomaly's name (see package anomaly), one the level
	// checked forbids.
	Name string `json:"name"`
	// Class is Adya's phenomenon, when there is one.
	Class string `json:"class,omitempty"`
	// Count is how many anomalies of this name were found: non-cycle
	// anomalies, or distinct cycles, at most MaxCount (More says the
	// search stopped there).
	Count int  `json:"count"`
	More  bool `json:"more,omitempty"`
	// Example lists the transactions of one counterexample of this
	// anomaly alone: a sub-history of these transactions violates the
	// level, and no transaction can be left out of it. Only the main
	// anomaly of a history of more than MaxShrink transactions may have
	// none, when the check's evidence does not violate the level
	// without the rest of the history (see Minimal).
	Example []ExampleTxn `json:"example,omitempty"`

	// The evidence of the example, for Elle's result map: a non-cycle
	// anomaly or a cycle of p's nodes.
	p       *polygraph.Polygraph
	anomaly *polygraph.Anomaly
	cycle   []polygraph.Edge
}

// ExampleTxn is a transaction of an example: its name in the report, its
// place in the input ("file:line") and its index in the history (input
// order, from 0), as TxnInfo gives them.
type ExampleTxn struct {
	Name  string `json:"name"`
	Where string `json:"source"`
	Index int    `json:"index"`
}

// Every lists every kind of anomaly that the violation res shows and its
// level forbids (anomaly.Forbids), each with how many were found and a
// minimal example, the report's main anomaly (rep.Anomaly) first. It
// reuses the check's evidence: the anomalies found without cycles, and
// for SER, SI and SSER the cycles of the dependencies known (see
// check.Dependencies and check.Cycles), searched by shape as Elle does.
// Each example is cut from the history and checked alone, then shrunk to
// a minimal one (a few checks of a handful of transactions). Where the
// check kept no such evidence (a solver's core, the levels checked by
// saturation) it lists the non-cycle anomalies and the main one.
//
// h is the history checked (nil: res.Polygraph's). It differs from
// res.Polygraph's for prefix consistency, whose evidence is over h split
// into halves: the examples are h's transactions.
//
// When ctx ends first, Every stops promptly and returns an error wrapping
// the context's cause (progress.Stopped recognises it), and no list.
func Every(ctx context.Context, h *history.History, res *check.Result, rep *Report) ([]Found, error) {
	if res.Verdict != verdict.Violated || res.Polygraph == nil {
		return nil, nil
	}
	p, known, err := check.Dependencies(ctx, res)
	if err != nil {
		return nil, err
	}
	if h == nil {
		h = res.Polygraph.History
	}
	e := &everySearch{ctx: ctx, l: res.Level, h: h, evidence: res.Polygraph.History}

	anomalies := slices.Clone(res.Anomalies)
	if p != nil && p != res.Polygraph {
		anomalies = append(anomalies, p.Anomalies...)
	}
	e.nonCycle(res.Polygraph, anomalies)
	if p != nil && res.Level != level.PC && ctx.Err() == nil {
		// Cut short, the search leaves its cycles to the error below.
		cycles, _ := check.CyclesContext(ctx, p.NumNodes, known, MaxCount)
		e.cycles(p, cycles)
	}
	var found []Found
	if ctx.Err() == nil {
		found = e.withMain(rep)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("interpret: listing every anomaly: %w", context.Cause(ctx))
	}
	return found, nil
}

// everySearch gathers the anomalies of Every.
type everySearch struct {
	ctx context.Context
	l   level.Level
	// h is the history checked, evidence the history of the check's
	// evidence: h, or h split in halves.
	h, evidence *history.History
	// subject cuts examples from h, built when first needed (see sub).
	subject *shrink.Subject
	found   []Found
}

// sub returns the Subject examples are cut from.
func (e *everySearch) sub() *shrink.Subject {
	if e.subject == nil {
		e.subject = shrink.NewSubject(e.h)
	}
	return e.subject
}

// add counts one anomaly of name, and makes it the example (whose seed
// transactions are seed) when the name has none yet.
func (e *everySearch) add(name string, seed map[int32]bool, cycle bool, set func(*Found)) {
	if !anomaly.Forbids(e.l, name) {
		return
	}
	i := slices.IndexFunc(e.found, func(f Found) bool { return f.Name == name })
	if i < 0 {
		e.found = append(e.found, Found{Name: name, Class: anomaly.Class(name)})
		i = len(e.found) - 1
	}
	f := &e.found[i]
	if f.Count >= MaxCount {
		f.More = true
		return
	}
	f.Count++
	if f.Example != nil || f.Count > 3 {
		return // three tries at an example are enough
	}
	ex := e.example(seed, name, cycle, true)
	if ex == nil && cycle {
		// No cut of these transactions keeps a cycle of this shape
		// among the dependencies it shows: take one with any cycle.
		ex = e.example(seed, name, cycle, false)
	}
	if ex != nil {
		f.Example = ex
		set(f)
	}
}

// nonCycle adds the anomalies found without cycles.
func (e *everySearch) nonCycle(p *polygraph.Polygraph, anomalies []polygraph.Anomaly) {
	seen := map[polygraph.Anomaly]bool{}
	for _, a := range anomalies {
		if e.ctx.Err() != nil {
			return
		}
		if seen[a] {
			continue // found again when the polygraph was built again
		}
		seen[a] = true
		seed := map[int32]bool{}
		anomalyTxns(p, a, seed)
		e.add(a.Kind.String(), seed, false, func(f *Found) { f.p, f.anomaly = p, &a })
	}
}

// cycles adds the cycles of p's known dependencies, the shortest first.
func (e *everySearch) cycles(p *polygraph.Polygraph, cycles [][]polygraph.Edge) {
	slices.SortStableFunc(cycles, func(a, b []polygraph.Edge) int { return cmp.Compare(len(a), len(b)) })
	d := newDescriber(p, nil, false, nil)
	for _, c := range cycles {
		if e.ctx.Err() != nil {
			return
		}
		seed := map[int32]bool{}
		for _, edge := range c {
			for _, t := range []int32{edge.From, edge.To} {
				if p.IsTxn(t) {
					seed[t] = true
				}
			}
		}
		e.add(ShapeName(d.fold(c, true), e.l), seed, true, func(f *Found) { f.p, f.cycle = p, c })
	}
}

// example cuts the sub-history of seed (with, if it is not enough, the
// writers of what seed's transactions read), checks that it violates the
// level with an anomaly of the kind (a cycle, or a non-cycle anomaly
// named name; any violation when name is ""), shrinks it to a minimal
// one, and returns its transactions; nil when it does not violate the
// level.
func (e *everySearch) example(seed map[int32]bool, name string, cycle, shaped bool) []ExampleTxn {
	if e.ctx.Err() != nil {
		return nil
	}
	ok := func(sub *history.History) bool {
		res, err := check.Check(e.ctx, sub, e.l)
		if err != nil || res.Verdict != verdict.Violated {
			return false
		}
		switch {
		case name == "":
			return true
		case cycle:
			// With shaped, the example must show a cycle of this
			// shape, not only some cycle: its report draws one (see
			// FoundReports).
			return len(res.Anomalies) == 0 && (!shaped || namedCycle(e.ctx, res, name) != nil)
		}
		return slices.ContainsFunc(res.Anomalies, func(a polygraph.Anomaly) bool { return a.Kind.String() == name })
	}
	txns := sortedTxns(seed)
	sel := shrink.Selection{Txns: txns}
	if !ok(e.sub().Sub(sel)) {
		grown := maps.Clone(seed)
		for _, t := range txns {
			for i := e.h.Txns[t].OpStart; i < e.h.Txns[t].OpEnd; i++ {
				if e.h.Ops[i].Kind == history.Read {
					for _, w := range e.sub().WritersOf(i) {
						grown[w] = true
					}
				}
			}
		}
		sel = shrink.Selection{Txns: sortedTxns(grown)}
		if len(sel.Txns) == len(txns) || !ok(e.sub().Sub(sel)) {
			return nil
		}
	}
	return e.exampleTxns(e.sub().Transactions(sel, ok, nil).Txns)
}

// exampleTxns names the transactions of an example.
func (e *everySearch) exampleTxns(txns []int32) []ExampleTxn {
	names := nameTxns(e.h, txns, nil)
	out := make([]ExampleTxn, len(txns))
	for i, t := range txns {
		out[i] = ExampleTxn{Name: names[t], Where: e.h.Where(int(t)), Index: int(t)}
	}
	return out
}

// withMain returns the anomalies found with an example, the main
// anomaly of rep first (with an example cut from the report's
// transactions when the search found none of its name). A main anomaly
// whose name the level allows is listed by the level's generic name
// (anomaly.Generic).
func (e *everySearch) withMain(rep *Report) []Found {
	main := ""
	if rep != nil && rep.Anomaly != nil {
		main = rep.Anomaly.Name
	}
	if main != "" && !anomaly.Forbids(e.l, main) {
		// A name the level allows would say the level was broken by
		// what it allows: the level's generic name says what broke it.
		main = anomaly.Generic(e.l)
	}
	counted := 0 // how many of the main anomaly's name the search found
	if i := slices.IndexFunc(e.found, func(f Found) bool { return f.Name == main }); i >= 0 {
		counted = e.found[i].Count
	}
	out := slices.DeleteFunc(e.found, func(f Found) bool { return f.Example == nil })
	if main == "" {
		return out
	}
	if i := slices.IndexFunc(out, func(f Found) bool { return f.Name == main }); i >= 0 {
		f := out[i]
		return append([]Found{f}, slices.Delete(out, i, i+1)...)
	}
	// The search found no anomaly of the main one's name (the evidence
	// is a solver's core, a cycle only pruning's or saturation's
	// inferences close): its example is cut from the report's
	// transactions when they violate the level alone, else shrunk from
	// the history as Minimal does, in histories of at most MaxShrink
	// transactions. A larger one's has none: shrinking it is explain's
	// work, too slow for every check.
	f := Found{Name: main, Class: anomaly.Class(main), Count: max(1, counted), More: counted >= MaxCount}
	seed := map[int32]bool{}
	for _, t := range rep.Anomaly.Txns {
		if t.Index >= 0 && t.Index < len(e.evidence.Txns) {
			seed[int32(t.Index)] = true
		}
	}
	f.Example = e.example(seed, "", true, false)
	if f.Example == nil && len(e.h.Txns) <= MaxShrink {
		if sel, _, ok := shrink.Minimize(e.ctx, e.h, e.l, sortedTxns(seed), nil); ok {
			f.Example = e.exampleTxns(sel.Txns)
		}
	}
	return append([]Found{f}, out...)
}

// WriteAnomalies writes the report's list of anomalies as text, one line
// each, when it lists more than the main anomaly:
//
//	every anomaly SER forbids that the history shows (one example each):
//	  AbortedRead (G1a): 1 found, e.g. T2 (h.jsonl:2), T3 (h.jsonl:3)
func (r *Report) WriteAnomalies(w io.Writer) error {
	if len(r.Anomalies) < 2 {
		return nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "every anomaly %s forbids that the history shows (one example each):\n", textsafe.Escape(r.Level))
	for _, f := range escapeFound(r.Anomalies) {
		b.WriteString("  " + f.Name)
		if f.Class != "" && f.Class != f.Name {
			b.WriteString(" (" + f.Class + ")")
		}
		more := ""
		if f.More {
			more = " or more"
		}
		fmt.Fprintf(&b, ": %d%s found", f.Count, more)
		if f.Example == nil {
			b.WriteString(" (isocheck explain shrinks it to a minimal counterexample)")
		} else {
			b.WriteString(", e.g.")
		}
		for i, t := range f.Example {
			if i > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, " %s (%s)", t.Name, t.Where)
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// escapeFound is Report.escaped for a list of anomalies.
func escapeFound(found []Found) []Found {
	if found == nil {
		return nil
	}
	out := make([]Found, len(found))
	for i, f := range found {
		f.Name = textsafe.Escape(f.Name)
		f.Class = textsafe.Escape(f.Class)
		f.Example = make([]ExampleTxn, len(found[i].Example))
		for j, t := range found[i].Example {
			f.Example[j] = ExampleTxn{Name: textsafe.Escape(t.Name), Where: textsafe.Escape(t.Where), Index: t.Index}
		}
		out[i] = f
	}
	return out
}
