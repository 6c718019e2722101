package sqlcheck

import (
	"fmt"
	"strings"

	"github.com/isocheck/isocheck/draw"
	"github.com/isocheck/isocheck/sqlhistory"
	"github.com/isocheck/isocheck/verdict"
)

// The kinds of a Dependency besides draw.SO and draw.WR.
const (
	// KindVisible (VIS K): the writer of K is visible to a read of K
	// under the reader's level, so it commits before the version read.
	KindVisible = "VIS"
	// KindMissed (MISSED K): a read of K returned the initial version,
	// or none, but its level made the writer's write visible to it.
	KindMissed = "MISSED"
	// KindSupposed (IF): the order of two transactions one choice of the
	// explanation supposes.
	KindSupposed = "IF"
)

// kindLegend says what the kinds draw does not know mean, for a
// picture's notes.
var kindLegend = []struct{ kind, text string }{
	{KindVisible, "VIS K: the writer of K is visible to a read of K under the reader's level, so it commits before the version read"},
	{KindMissed, "MISSED K: a read of K did not see the writer's version, though its level made the write visible to it"},
	{KindSupposed, "IF: the order one choice supposes (dashed)"},
}

// Dependency is one arrow of a counterexample's picture: a commit-order
// constraint, or a read one rests on, with why it holds.
type Dependency struct {
	// From and To are transactions of Result.History; From may be
	// sqlhistory.Init, the initial state.
	From, To int
	// Kind is draw.SO, draw.WR, KindVisible, KindMissed or KindSupposed.
	Kind string
	// Key is the row the dependency is about ("doctors/alice"); "" for
	// draw.SO and KindSupposed.
	Key string
	// Why says in a sentence why it holds; Because lists what it rests
	// on (the constraints that make a writer visible to a read).
	Why     string
	Because []string
	// Assumed says it holds only under a choice the explanation makes:
	// an order of two transactions, or the version a read that did not
	// return a row saw.
	Assumed bool
}

// Label is what the picture writes on the dependency's arrow ("WR
// doctors/alice").
func (d Dependency) Label() string {
	if d.Key == "" {
		return d.Kind
	}
	return d.Kind + " " + d.Key
}

// Dependencies returns the arrows of the counterexample's picture, each
// once, in the order the explanation gives them: the edges of its cycles
// with the reads they rest on, or, for a violation no commit order can
// mend, where the offending reads read from. It returns nil when r is not
// a violation.
func (r *Result) Dependencies() []Dependency {
	f := r.figure()
	if f == nil {
		return nil
	}
	return f.deps
}

// version is a version as one event of one transaction wrote or read it.
type version struct {
	txn, event int
	v          sqlhistory.VersionID
}

// missedRow is a row one event of one transaction did not return.
type missedRow struct {
	txn, event int
	key        sqlhistory.KeyID
}

// figure collects what a picture of a counterexample shows: the
// dependencies, the rows to mark in the statements, and notes.
type figure struct {
	x      explainer
	h      *sqlhistory.History
	deps   []Dependency
	seen   map[string]bool
	kinds  map[string]bool
	marked map[version]bool
	missed map[missedRow]bool
	// initial are the initial versions read along the dependencies.
	initial map[sqlhistory.VersionID]bool
	// focus are transactions the violation is about besides the
	// dependencies' ends (the reader of an anomaly).
	focus map[int]bool
	notes []string
}

// figure walks the evidence of r as WriteDOT does; nil when r is not a
// violation.
func (r *Result) figure() *figure {
	if r == nil || r.History == nil || r.Verdict != verdict.Violated {
		return nil
	}
	h := r.History
	f := &figure{x: explainer{h: h}, h: h, seen: map[string]bool{}, kinds: map[string]bool{},
		marked: map[version]bool{}, missed: map[missedRow]bool{}, focus: map[int]bool{},
		initial: map[sqlhistory.VersionID]bool{}}
	switch {
	case r.Either != nil:
		f.either(r.Either, "")
	case r.Missed != nil:
		m := r.Missed
		f.missed[missedRow{m.Txn, m.Event, m.Key}] = true
		f.focus[m.Txn] = true
		unexplained := false
		for _, c := range m.Choices {
			saw := fmt.Sprintf("if %s statement %d saw %s's %s", f.x.name(m.Txn), m.Event+1, f.x.name(c.Writer), f.x.version(m.Key, c.Version))
			if len(c.Cycle) > 0 {
				f.note(saw+": ", f.chain(c.Cycle))
			}
			if c.Either != nil {
				f.either(c.Either, saw+", ")
			}
			if len(c.Cycle) == 0 && c.Either == nil {
				// No cycle to show: the version it would have read, and
				// what every commit order must follow.
				unexplained = true
				f.markWrite(c.Version)
				f.add(Dependency{From: c.Writer, To: m.Txn, Kind: draw.WR, Key: f.h.Keys[m.Key].String(), Assumed: true,
					Why: saw + ", no commit order would satisfy the levels"})
				f.notes = append(f.notes, saw+", no commit order would satisfy the levels of these transactions")
			}
		}
		f.reads(m.Txn)
		if unexplained && r.Shrunk {
			f.dependencies(nil)
		}
	case r.Cycle != nil:
		f.note("", f.chain(r.Cycle))
	case len(r.Anomalies) > 0:
		for _, a := range r.Anomalies {
			f.anomaly(a)
			f.reads(a.Txn)
		}
	default:
		// No single cycle: what every commit order must follow.
		f.dependencies(r.core)
	}
	var legend []string
	for _, l := range kindLegend {
		if f.kinds[l.kind] {
			legend = append(legend, l.text)
		}
	}
	f.notes = append(legend, f.notes...)
	return f
}

// add records d once (by its ends, kind and key) and returns it; it
// skips a dependency on a version nobody wrote.
func (f *figure) add(d Dependency) Dependency {
	if d.From < sqlhistory.Init || d.To < sqlhistory.Init {
		return d
	}
	f.kinds[d.Kind] = true
	id := fmt.Sprint(d.From, d.To, d.Label())
	if !f.seen[id] {
		f.seen[id] = true
		f.deps = append(f.deps, d)
	}
	return d
}

// either draws the two orders of e, and notes which cycle each closes.
func (f *figure) either(e *Either, prefix string) {
	for _, c := range [][]Edge{e.AB, e.BA} {
		if len(c) == 0 {
			continue
		}
		f.note(fmt.Sprintf("%sif %s commits before %s: ", prefix, f.x.name(c[0].From), f.x.name(c[0].To)), f.chain(c))
	}
}

// note adds a line saying that deps close a cycle, each named as its
// arrow is drawn. A KindMissed dependency, drawn from the writer to the
// reader, orders the writer before the initial version the reader saw,
// which precedes every transaction.
func (f *figure) note(prefix string, deps []Dependency) {
	if len(deps) == 0 {
		return
	}
	var parts []string
	initial := false
	for _, d := range deps {
		from, to := f.x.name(d.From), f.x.name(d.To)
		if d.Kind == KindMissed {
			initial = true
			parts = append(parts, fmt.Sprintf("%s → %s (%s: %s saw the initial version, which %s would then precede)", from, to, d.Label(), to, from))
			continue
		}
		parts = append(parts, fmt.Sprintf("%s → %s (%s)", from, to, d.Label()))
	}
	end := " close a cycle"
	if initial {
		end = " close a cycle, as init precedes every transaction"
	}
	f.notes = append(f.notes, prefix+strings.Join(parts, ", ")+end)
}

// chain adds the edges of a cycle with what they rest on (the reads
// behind visibility constraints and the chains that make writers
// visible), and returns the dependency drawn for each edge of the cycle
// itself.
func (f *figure) chain(edges []Edge) []Dependency {
	var top []Dependency
	for _, e := range edges {
		key := ""
		if e.Kind != verdict.SO && e.Kind != verdict.Supposed {
			key = f.h.Keys[e.Key].String()
		}
		f.mark(e)
		switch {
		case e.Kind == verdict.SO && (e.From == sqlhistory.Init || e.To == sqlhistory.Init):
			// The initial state precedes every transaction: not drawn.
		case e.Kind == verdict.Visible:
			kind, to := KindVisible, e.To
			if e.To == sqlhistory.Init {
				kind, to = KindMissed, e.Reader
			}
			top = append(top, f.add(Dependency{From: e.From, To: to, Kind: kind, Key: key, Why: f.x.edge(e), Because: f.because(e), Assumed: e.Chosen || supposes(e.Via)}))
			if !e.Chosen {
				// The read the constraint comes from.
				f.readFrom(e.To, e.Reader, e.Event, e.Key, e.Version, true)
			}
		default:
			kind := map[verdict.EdgeKind]string{verdict.SO: draw.SO, verdict.WR: draw.WR, verdict.Supposed: KindSupposed}[e.Kind]
			top = append(top, f.add(Dependency{From: e.From, To: e.To, Kind: kind, Key: key, Why: f.x.edge(e),
				Assumed: e.Chosen || e.Kind == verdict.Supposed || supposes(e.Via)}))
		}
		if e.Kind == verdict.Visible && e.From >= 0 && e.Reader >= 0 {
			// Why the writer is visible: what the reader read from it.
			f.readsFrom(e.Reader, e.From)
		}
		f.chain(e.Via)
	}
	return top
}

// supposes reports whether a chain rests on a supposed order.
func supposes(chain []Edge) bool {
	for _, e := range chain {
		if e.Kind == verdict.Supposed || supposes(e.Via) {
			return true
		}
	}
	return false
}

// because lists what a visibility edge rests on, as Explain words it.
func (f *figure) because(e Edge) []string {
	var out []string
	for _, l := range f.x.edges([]Edge{e}, "")[1:] {
		out = append(out, strings.TrimPrefix(strings.TrimSpace(l), "because "))
	}
	return out
}

// readFrom adds that event ev of transaction reader read version v of
// key from writer, and marks the version when mark is set.
func (f *figure) readFrom(writer, reader, ev int, key sqlhistory.KeyID, v sqlhistory.VersionID, mark bool) {
	e := Edge{From: writer, To: reader, Kind: verdict.WR, Key: key, Reader: reader, Event: ev, Version: v}
	if mark {
		f.mark(e)
	}
	if writer == sqlhistory.Init && v >= 0 {
		f.initial[v] = true
	}
	f.add(Dependency{From: writer, To: reader, Kind: draw.WR, Key: f.h.Keys[key].String(), Why: f.x.edge(e)})
}

// readsFrom adds every read of transaction reader from writer.
func (f *figure) readsFrom(reader, writer int) {
	for ev, e := range f.h.Txns[reader].Events {
		for _, v := range e.Reads {
			if ver := &f.h.Versions[v]; ver.Writer == writer {
				f.readFrom(writer, reader, ev, ver.Key, v, true)
			}
		}
	}
}

// reads adds where transaction t's reads came from, marking none.
func (f *figure) reads(t int) {
	for ev, e := range f.h.Txns[t].Events {
		for _, v := range e.Reads {
			if ver := &f.h.Versions[v]; ver.Writer != t {
				f.readFrom(ver.Writer, t, ev, ver.Key, v, false)
			}
		}
	}
}

// dependencies adds the session order and read-from edges between the
// transactions of core (all of them when core is empty): what any commit
// order must follow.
func (f *figure) dependencies(core []int) {
	in := map[int]bool{}
	for _, t := range core {
		in[t] = true
	}
	all := len(core) == 0
	for _, s := range f.h.Sessions {
		prev := -1
		for _, t := range s {
			if !all && !in[t] {
				continue
			}
			if prev >= 0 {
				e := Edge{From: prev, To: t, Kind: verdict.SO}
				f.add(Dependency{From: prev, To: t, Kind: draw.SO, Why: f.x.edge(e)})
			}
			prev = t
		}
	}
	for t := range f.h.Txns {
		if !all && !in[t] {
			continue
		}
		f.focus[t] = true
		for ev, e := range f.h.Txns[t].Events {
			for _, v := range e.Reads {
				ver := &f.h.Versions[v]
				if w := ver.Writer; w != t && (w == sqlhistory.Init || all || in[w]) {
					f.readFrom(w, t, ev, ver.Key, v, true)
				}
			}
		}
	}
}

// anomaly marks the read of a and what it should have read.
func (f *figure) anomaly(a Anomaly) {
	f.focus[a.Txn] = true
	switch {
	case a.NotReturned:
		f.missed[missedRow{a.Txn, a.Event, a.Key}] = true
		f.markWrite(a.Version)
	default:
		f.marked[version{a.Txn, a.Event, a.Version}] = true
		f.markWrite(a.Version)
		if a.Kind == verdict.NotMyOwnWrite || a.Kind == verdict.NotMyLastWrite || a.Kind == verdict.IntermediateRead {
			f.markWrite(a.Expected)
		}
	}
}

// mark marks the rows edge e rests on: the version its read returned, or
// the row it did not return, and the writes of that row by its writers.
func (f *figure) mark(e Edge) {
	if e.Reader < 0 || e.Event < 0 || (e.Kind != verdict.WR && e.Kind != verdict.Visible) {
		return
	}
	if e.Chosen || e.Version < 0 {
		f.missed[missedRow{e.Reader, e.Event, e.Key}] = true
	} else {
		f.marked[version{e.Reader, e.Event, e.Version}] = true
	}
	f.markWrite(e.Version)
	if e.Kind == verdict.Visible && e.From >= 0 {
		for ev, w := range f.h.Txns[e.From].Events {
			for _, v := range w.Writes {
				if f.h.Versions[v].Key == e.Key {
					f.marked[version{e.From, ev, v}] = true
				}
			}
		}
	}
}

// markWrite marks version v where its writer wrote it.
func (f *figure) markWrite(v sqlhistory.VersionID) {
	if v < 0 || int(v) >= len(f.h.Versions) {
		return
	}
	ver := &f.h.Versions[v]
	f.marked[version{ver.Writer, ver.Event, v}] = true
}
