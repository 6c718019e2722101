package interpret

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/isocheck/isocheck/check"
	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/internal/textsafe"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/polygraph"
	"github.com/isocheck/isocheck/resolve"
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
	// Name is the anomaly, one the level checked forbids.
	Name verdict.Anomaly `json:"name"`
	// Class is Adya's phenomenon, when there is one.
	Class string `json:"class,omitempty"`
	// Count is how many anomalies of this name were found: non-cycle
	// anomalies, or distinct cycles, at most MaxCount (More says the
	// search stopped there).
	Count int  `json:"count"`
	More  bool `json:"more,omitempty"`
	// Example lists the transactions of one counterexample of this
	// anomaly alone: a sub-history of these transactions violates the
	// weakest level that forbids the anomaly (verdict.Weakest), and so
	// the level checked, and no transaction can be left out of it. Only the main
	// anomaly of a history of more than MaxShrink transactions may have
	// none, when the check's evidence does not violate the level
	// without the rest of the history (see Minimal).
	Example []ExampleTxn `json:"example,omitempty"`
	// Weakest is the weakest level that forbids the anomaly
	// (verdict.Weakest), which its example violates, as are all the
	// stronger ones: set in the list of every level (EveryLevel).
	Weakest string `json:"weakest_level,omitempty"`

	// The evidence of the example, for Elle's result map: a non-cycle
	// anomaly or a cycle of p's nodes.
	p       *polygraph.Polygraph
	anomaly *resolve.Anomaly
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
// level forbids (verdict.Forbids), each with how many were found and a
// minimal example, the report's main anomaly (rep.Anomaly) first. It
// reuses the check's evidence: the anomalies found without cycles, and
// the cycles of the dependencies known, searched by shape as Elle does:
// for SER, SI and SSER those of the check (see check.Dependencies and
// check.Cycles); for PC, CC, RA and RC, whose checks keep none, those the
// history shows (see directDependencies), of a shape the level forbids
// by name, each counted only when its transactions violate that name's
// weakest level on their own. Each example is cut from the history and
// checked alone at the weakest level that forbids its anomaly
// (verdict.Weakest), which the level checked implies, then shrunk to a
// minimal one (a few checks of a handful of transactions). Where the
// check kept no such evidence (a solver's core) it lists the non-cycle
// anomalies and the main one.
//
// h is the history checked (nil: res.Polygraph's). It differs from
// res.Polygraph's for prefix consistency, whose evidence is over h split
// into halves: the examples are h's transactions.
//
// When ctx ends first, Every stops promptly and returns an error wrapping
// the context's cause (progress.Stopped recognises it), and no list.
func Every(ctx context.Context, h *history.History, res *check.Result, rep *Report) ([]Found, error) {
	return EveryWith(ctx, h, res, rep, EveryOptions{})
}

// EveryOptions are the options of EveryWith.
type EveryOptions struct {
	// Instance, when set, is called with each anomaly Every counts, as
	// it counts it: at most MaxCount of each name.
	Instance func(Instance)
}

// Instance is one anomaly that Every counted, as the check found it (not
// shrunk): a non-cycle anomaly, or a cycle of the dependencies known.
type Instance struct {
	// Level is the level checked, Name and Class the anomaly's names.
	Level string          `json:"level"`
	Name  verdict.Anomaly `json:"name"`
	Class string          `json:"class,omitempty"`
	// Txns are the transactions it involves, in input order.
	Txns []ExampleTxn `json:"transactions"`
	// Cycle, for a cycle, lists its dependencies in order, the last
	// leading back to the first.
	Cycle []InstanceStep `json:"cycle,omitempty"`
}

// InstanceStep is a dependency of an Instance's cycle: its kind (WR, WW,
// RW, SO or RT) and, for a data dependency, its key.
type InstanceStep struct {
	From string `json:"from"`
	To   string `json:"to"`
	Kind string `json:"kind"`
	Key  string `json:"key,omitempty"`
}

// EveryWith is Every with opts.
func EveryWith(ctx context.Context, h *history.History, res *check.Result, rep *Report, opts EveryOptions) ([]Found, error) {
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
	e := &everySearch{ctx: ctx, l: res.Level, h: h, evidence: res.Polygraph.History, instance: opts.Instance}

	anomalies := slices.Clone(res.Anomalies)
	if p != nil && p != res.Polygraph {
		anomalies = append(anomalies, p.Anomalies...)
	}
	e.nonCycle(res.Polygraph, anomalies)
	direct := false
	if p == nil && !strongLevel(res.Level) && ctx.Err() == nil {
		// A weak level's check keeps no dependencies: search those the
		// history shows. Without them (a history too large to order
		// its writes in the memory allowed), the list holds the
		// non-cycle anomalies and the main one.
		p, known, _ = directDependencies(ctx, h)
		direct = p != nil
	}
	if p != nil && ctx.Err() == nil {
		// Cut short, the search leaves its cycles to the error below.
		cycles, _ := check.CyclesContext(ctx, p.NumNodes, known, MaxCount)
		e.cycles(p, cycles, direct)
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

// strongLevel reports whether l is checked over a polygraph whose
// dependencies check.Dependencies returns: SER, SI or SSER.
func strongLevel(l level.Level) bool {
	return l == level.SER || l == level.SI || l == level.SSER
}

// maxDirectClockBytes bounds the memory of the reachability clocks that
// directDependencies may build: past it, a weak level's list has no
// cycles.
const maxDirectClockBytes = 256 << 20

// directDependencies returns the polygraph of h and the dependencies it
// knows before any order of the writes is chosen: reads, session order,
// the orders of writes the reads show (a list's elements) and the
// anti-dependencies those imply, with the orders reachability rules out
// at SER. Its cycles are candidates at the weak levels, whose checks keep
// no graph: Every counts one only when its transactions violate a level
// on their own.
func directDependencies(ctx context.Context, h *history.History) (*polygraph.Polygraph, []polygraph.Edge, error) {
	r, err := resolve.Resolve(ctx, h)
	if err != nil {
		return nil, nil, err
	}
	r.Anomalies = nil // leave them out: their reads are not in r.Reads
	p, err := polygraph.BuildResolved(ctx, r, polygraph.Options{Level: level.SER, MaxClockBytes: maxDirectClockBytes})
	if err != nil || p.TooLarge {
		return nil, nil, err
	}
	return p, p.Known, nil
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
	// instance, when set, receives each anomaly counted.
	instance func(Instance)
}

// sub returns the Subject examples are cut from.
func (e *everySearch) sub() *shrink.Subject {
	if e.subject == nil {
		e.subject = shrink.NewSubject(e.h)
	}
	return e.subject
}

// add counts one anomaly of name, whose transactions are seed, and makes
// it the example when the name has none yet. With verify, it counts the
// anomaly only when seed's transactions (and the writers of what they
// read) violate the weakest level forbidding name on their own. inst
// describes it for the Instance callback.
func (e *everySearch) add(name verdict.Anomaly, seed map[int32]bool, cycle, verify bool, inst func(*Instance), set func(*Found)) {
	if !verdict.Forbids(e.l, name) {
		return
	}
	i := slices.IndexFunc(e.found, func(f Found) bool { return f.Name == name })
	if i >= 0 && e.found[i].Count >= MaxCount {
		e.found[i].More = true
		return
	}
	if verify && e.violating(seed, name) == nil {
		return
	}
	if i < 0 {
		e.found = append(e.found, Found{Name: name, Class: name.Class()})
		i = len(e.found) - 1
	}
	f := &e.found[i]
	f.Count++
	if e.instance != nil {
		in := Instance{Level: e.l.String(), Name: name, Class: f.Class, Txns: e.exampleTxns(sortedTxns(seed))}
		if inst != nil {
			inst(&in)
		}
		e.instance(in)
	}
	if f.Example != nil || f.Count > 3 {
		return // three tries at an example are enough
	}
	ex := e.example(seed, name, name.Weakest(), cycle, true)
	if ex == nil && cycle {
		// No cut of these transactions keeps a cycle of this shape
		// among the dependencies it shows: take one with any cycle.
		ex = e.example(seed, name, name.Weakest(), cycle, false)
	}
	if ex != nil {
		f.Example = ex
		set(f)
	}
}

// nonCycle adds the anomalies found without cycles.
func (e *everySearch) nonCycle(p *polygraph.Polygraph, anomalies []resolve.Anomaly) {
	seen := map[resolve.Anomaly]bool{}
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
		e.add(a.Kind, seed, false, false, nil, func(f *Found) { f.p, f.anomaly = p, &a })
	}
}

// cycles adds the cycles of p's known dependencies, the shortest first,
// of a shape the level forbids by name, not by its generic name alone
// (at SI, a cycle of two adjacent anti-dependencies is no violation).
// With direct (the dependencies the history shows, for a weak level),
// each is verified on its own transactions.
func (e *everySearch) cycles(p *polygraph.Polygraph, cycles [][]polygraph.Edge, direct bool) {
	slices.SortStableFunc(cycles, func(a, b []polygraph.Edge) int { return cmp.Compare(len(a), len(b)) })
	d := newDescriber(p, nil, false, nil)
	for _, c := range cycles {
		if e.ctx.Err() != nil {
			return
		}
		folded := d.fold(c, true)
		name := ShapeName(folded, e.l)
		if !slices.Contains(shapeNames(folded), name) {
			continue
		}
		seed := map[int32]bool{}
		for _, edge := range c {
			for _, t := range []int32{edge.From, edge.To} {
				if p.IsTxn(t) {
					seed[t] = true
				}
			}
		}
		inst := func(in *Instance) {
			names := map[int32]string{}
			for _, t := range in.Txns {
				names[int32(t.Index)] = t.Name
			}
			for _, edge := range folded {
				step := InstanceStep{From: names[edge.From], To: names[edge.To], Kind: edge.Kind.String()}
				if edge.Kind == verdict.WR || edge.Kind == verdict.WW || edge.Kind == verdict.RW {
					step.Key = e.h.FormatKey(edge.Key)
				}
				in.Cycle = append(in.Cycle, step)
			}
		}
		e.add(name, seed, true, direct, inst, func(f *Found) { f.p, f.cycle = p, c })
	}
}

// violating returns the selection of seed's transactions or, if those
// are not enough, of them and the writers of what they read, whose
// sub-history violates the weakest level that forbids name; nil when
// neither does.
func (e *everySearch) violating(seed map[int32]bool, name verdict.Anomaly) *shrink.Selection {
	at := name.Weakest()
	ok := func(sub *history.History) bool {
		res, err := check.Check(e.ctx, sub, at)
		return err == nil && res.Verdict == verdict.Violated
	}
	sel, grown := e.selections(seed)
	switch {
	case ok(e.sub().Sub(sel)):
		return &sel
	case grown != nil && ok(e.sub().Sub(*grown)):
		return grown
	}
	return nil
}

// selections returns the selection of seed's transactions and that of
// them with the writers of what they read, nil when there are none more.
func (e *everySearch) selections(seed map[int32]bool) (shrink.Selection, *shrink.Selection) {
	txns := sortedTxns(seed)
	grown := maps.Clone(seed)
	for _, t := range txns {
		if t < 0 || int(t) >= len(e.h.Txns) {
			continue
		}
		for i := e.h.Txns[t].OpStart; i < e.h.Txns[t].OpEnd; i++ {
			if e.h.Ops[i].Kind == history.Read {
				for _, w := range e.sub().WritersOf(i) {
					grown[w] = true
				}
			}
		}
	}
	if len(grown) == len(txns) {
		return shrink.Selection{Txns: txns}, nil
	}
	return shrink.Selection{Txns: txns}, &shrink.Selection{Txns: sortedTxns(grown)}
}

// example cuts the sub-history of seed (with, if it is not enough, the
// writers of what seed's transactions read), checks that it violates
// level at (the weakest that forbids name, or the level checked) with an
// anomaly of the kind (a cycle, or a non-cycle anomaly named name; any
// violation when name is ""), shrinks it to a minimal one, and returns
// its transactions; nil when it does not violate the level.
func (e *everySearch) example(seed map[int32]bool, name verdict.Anomaly, at level.Level, cycle, shaped bool) []ExampleTxn {
	if e.ctx.Err() != nil {
		return nil
	}
	ok := func(sub *history.History) bool {
		res, err := check.Check(e.ctx, sub, at)
		if err != nil || res.Verdict != verdict.Violated {
			return false
		}
		switch {
		case name == 0:
			return true
		case cycle:
			// With shaped, the example must show a cycle of this
			// shape, not only some cycle: its report draws one (see
			// FoundReports).
			return len(res.Anomalies) == 0 && (!shaped || e.shows(res, sub, name))
		}
		return slices.ContainsFunc(res.Anomalies, func(a resolve.Anomaly) bool { return a.Kind == name })
	}
	sel, grown := e.selections(seed)
	if !ok(e.sub().Sub(sel)) {
		if grown == nil || !ok(e.sub().Sub(*grown)) {
			return nil
		}
		sel = *grown
	}
	return e.exampleTxns(e.sub().Transactions(sel, ok, nil).Txns)
}

// shows reports whether res, a violation of sub, shows a cycle named
// name: among its own dependencies at SER, SI and SSER, among those sub
// shows (directDependencies) at the weak levels.
func (e *everySearch) shows(res *check.Result, sub *history.History, name verdict.Anomaly) bool {
	if strongLevel(res.Level) {
		return namedCycle(e.ctx, res, name) != nil
	}
	p, known, err := directDependencies(e.ctx, sub)
	if err != nil || p == nil {
		return false
	}
	d := newDescriber(p, nil, false, nil)
	for _, c := range check.Cycles(p.NumNodes, known, MaxCount) {
		if ShapeName(d.fold(c, true), res.Level) == name {
			return true
		}
	}
	return false
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
// (verdict.Generic).
func (e *everySearch) withMain(rep *Report) []Found {
	var main verdict.Anomaly
	if rep != nil && rep.Anomaly != nil {
		main = rep.Anomaly.Name
	}
	if main != 0 && !verdict.Forbids(e.l, main) {
		// A name the level allows would say the level was broken by
		// what it allows: the level's generic name says what broke it.
		main = verdict.Generic(e.l)
	}
	counted := 0 // how many of the main anomaly's name the search found
	if i := slices.IndexFunc(e.found, func(f Found) bool { return f.Name == main }); i >= 0 {
		counted = e.found[i].Count
	}
	out := slices.DeleteFunc(e.found, func(f Found) bool { return f.Example == nil })
	if main == 0 {
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
	f := Found{Name: main, Class: main.Class(), Count: max(1, counted), More: counted >= MaxCount}
	seed := map[int32]bool{}
	for _, t := range rep.Anomaly.Txns {
		if t.Index >= 0 && t.Index < len(e.evidence.Txns) {
			seed[int32(t.Index)] = true
		}
	}
	at := main.Weakest()
	f.Example = e.mainExample(seed, at)
	if f.Example == nil && at != e.l {
		// The report names an anomaly a weaker level forbids, but no
		// cut of the history violates that level: the violation is one
		// of the level's own inferences close. It is listed under the
		// name of the weakest level its example violates, which no
		// weaker level forbids, so that the list says nothing untrue.
		if ex := e.mainExample(seed, e.l); ex != nil {
			name := exactName(e.weakestViolated(ex, at))
			if i := slices.IndexFunc(out, func(f Found) bool { return f.Name == name }); i >= 0 {
				f := out[i]
				return append([]Found{f}, slices.Delete(out, i, i+1)...)
			}
			f = Found{Name: name, Class: name.Class(), Count: 1, Example: ex}
		}
	}
	return append([]Found{f}, out...)
}

// mainExample returns a minimal example of the main anomaly that
// violates at: cut from seed, the report's transactions, or shrunk from
// the history as Minimal does, in histories of at most MaxShrink
// transactions; nil if none.
func (e *everySearch) mainExample(seed map[int32]bool, at level.Level) []ExampleTxn {
	if ex := e.example(seed, 0, at, true, false); ex != nil {
		return ex
	}
	if len(e.h.Txns) <= MaxShrink {
		if sel, _, ok := shrink.Minimize(e.ctx, e.h, at, sortedTxns(seed), nil); ok {
			return e.exampleTxns(sel.Txns)
		}
	}
	return nil
}

// weakestViolated returns the weakest level stronger than from, up to
// the level checked, that the sub-history of ex violates.
func (e *everySearch) weakestViolated(ex []ExampleTxn, from level.Level) level.Level {
	var txns []int32
	for _, t := range ex {
		txns = append(txns, int32(t.Index))
	}
	sub := e.sub().Sub(shrink.Selection{Txns: txns})
	levels := level.All()
	for i := len(levels) - 1; i >= 0; i-- {
		l := levels[i]
		if l == from || !l.Implies(from) || !e.l.Implies(l) {
			continue
		}
		if res, err := check.Check(e.ctx, sub, l); err == nil && res.Verdict == verdict.Violated {
			return l
		}
	}
	return e.l
}

// exactName is the name of a violation of l that no weaker level
// forbids: l's generic name, or for SSER a real-time violation.
func exactName(l level.Level) verdict.Anomaly {
	if l == level.SSER {
		return verdict.RealTimeViolation
	}
	return verdict.Generic(l)
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
		b.WriteString("  " + f.Name.String())
		if f.Class != "" && f.Class != f.Name.String() {
			b.WriteString(" (" + f.Class + ")")
		}
		writeCount(&b, f)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// EveryLevel merges the lists of anomalies of several levels' violations
// (Every's, the weakest level's first) into the list of every anomaly the
// history shows: each name once, with Weakest set, the example of the
// first list that has one (each violates the weakest level forbidding
// its anomaly, whichever level's list it comes from) and the largest
// count, ordered by the weakest level that forbids the anomaly, weakest
// first, then as the lists give them.
func EveryLevel(lists ...[]Found) []Found {
	var out []Found
	for _, list := range lists {
		for _, f := range list {
			i := slices.IndexFunc(out, func(g Found) bool { return g.Name == f.Name })
			if i < 0 {
				f.Weakest = f.Name.Weakest().String()
				out = append(out, f)
				continue
			}
			g := &out[i]
			if f.Count > g.Count || f.Count == g.Count && f.More {
				g.Count, g.More = f.Count, f.More
			}
			if g.Example == nil && f.Example != nil {
				g.Example, g.p, g.anomaly, g.cycle = f.Example, f.p, f.anomaly, f.cycle
			}
		}
	}
	out = slices.DeleteFunc(out, func(f Found) bool { return f.Example == nil })
	slices.SortStableFunc(out, func(a, b Found) int {
		wa, wb := a.Name.Weakest(), b.Name.Weakest()
		switch {
		case wa == wb:
			return 0
		case wb.Implies(wa):
			return -1
		}
		return 1
	})
	return out
}

// WriteEveryLevel writes the list of every anomaly the history shows
// (EveryLevel's) as text, one line each, when it lists more than one:
//
//	every anomaly the history shows (one example each, which breaks the
//	weakest level that forbids it and every stronger one):
//	  AbortedRead (G1a), from RC up: 1 found, e.g. T2 (h.jsonl:2), T3 (h.jsonl:3)
func WriteEveryLevel(w io.Writer, found []Found) error {
	if len(found) < 2 {
		return nil
	}
	var b strings.Builder
	b.WriteString("every anomaly the history shows (one example each, which breaks the\nweakest level that forbids it and every stronger one):\n")
	for _, f := range escapeFound(found) {
		b.WriteString("  " + f.Name.String())
		if f.Class != "" && f.Class != f.Name.String() {
			b.WriteString(" (" + f.Class + ")")
		}
		fmt.Fprintf(&b, ", from %s up", f.Weakest)
		writeCount(&b, f)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeCount writes the rest of the line of f: its count and its
// example.
func writeCount(b *strings.Builder, f Found) {
	more := ""
	if f.More {
		more = " or more"
	}
	fmt.Fprintf(b, ": %d%s found", f.Count, more)
	if f.Example == nil {
		b.WriteString(" (isocheck explain shrinks it to a minimal counterexample)")
	} else {
		b.WriteString(", e.g.")
	}
	for i, t := range f.Example {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(b, " %s (%s)", t.Name, t.Where)
	}
	b.WriteString("\n")
}

// escapeFound is Report.escaped for a list of anomalies.
func escapeFound(found []Found) []Found {
	if found == nil {
		return nil
	}
	out := make([]Found, len(found))
	for i, f := range found {
		f.Class = textsafe.Escape(f.Class)
		f.Weakest = textsafe.Escape(f.Weakest)
		f.Example = make([]ExampleTxn, len(found[i].Example))
		for j, t := range found[i].Example {
			f.Example[j] = ExampleTxn{Name: textsafe.Escape(t.Name), Where: textsafe.Escape(t.Where), Index: t.Index}
		}
		out[i] = f
	}
	return out
}
