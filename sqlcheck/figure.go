package sqlcheck

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/isocheck/isocheck/draw"
	"github.com/isocheck/isocheck/sqlhistory"
)

// maxNodeLines is how many statements a transaction's box lists before
// it keeps only those the violation rests on.
const maxNodeLines = 6

// Graph draws the counterexample as WriteDOT does, for package draw: a
// lane per session, a box per transaction of the counterexample (with its
// level, its place, and its statements with the rows that matter marked),
// and the Dependencies as arrows. Dashed arrows hold only under a choice
// the explanation makes, and the notes say which choice closes which
// cycle. Graph returns nil when r is not a violation.
func (r *Result) Graph() *draw.Graph {
	f := r.figure()
	if f == nil {
		return nil
	}
	h := r.History
	g := &draw.Graph{Title: "SQL history"}
	if a := Explain(r).Anomaly; a != nil {
		g.Title = fmt.Sprintf("%s violated: %s", a.Level, a.Name)
		if a.Class != "" && a.Class != a.Name.String() {
			g.Title += " (" + a.Class + ")"
		}
		g.Caption = []string{a.Summary}
		if a.NotMinimal != "" {
			g.Caption = append(g.Caption, a.NotMinimal)
		}
	}
	drawn := r.drawn(f)
	if drawn[sqlhistory.Init] {
		init := f.initialLines()
		if len(init) == 0 {
			init = []draw.Line{draw.Plain("(no row yet)")}
		}
		g.Lanes = append(g.Lanes, draw.Lane{Name: "initial state", Nodes: []draw.Node{{
			ID: nodeID(sqlhistory.Init), Title: "init", Sub: "the initial rows", Lines: init, Order: -1}}})
	}
	for s, txns := range h.Sessions {
		lane := draw.Lane{Name: "session " + h.SessionName(s)}
		for pos, t := range txns {
			if drawn[t] {
				lane.Nodes = append(lane.Nodes, f.node(t, pos+1))
			}
		}
		if len(lane.Nodes) > 0 {
			g.Lanes = append(g.Lanes, lane)
		}
	}
	lines := map[string][]draw.Line{}
	for _, l := range g.Lanes {
		for _, n := range l.Nodes {
			lines[n.ID] = n.Lines
		}
	}
	for _, d := range f.deps {
		why := d.Why
		if len(d.Because) > 0 {
			why += "; because " + strings.Join(d.Because, "; ")
		}
		from, to := nodeID(d.From), nodeID(d.To)
		g.Edges = append(g.Edges, draw.Edge{From: from, To: to, Kind: d.Kind,
			Label: d.Label(), Dashed: d.Assumed, Why: why,
			FromLine: rowLine(lines[from], d.Key, false), ToLine: rowLine(lines[to], d.Key, true)})
	}
	g.Notes = f.notes
	return g
}

// nodeID names transaction t's node.
func nodeID(t int) string {
	if t == sqlhistory.Init {
		return "init"
	}
	return fmt.Sprintf("t%d", t)
}

// Shown returns the transactions of r.History that Graph draws, in
// order: every one of a shrunk counterexample; of a whole history, those
// the dependencies touch and the readers the violation is about (all of
// them if none). It returns nil when r is not a violation.
func (r *Result) Shown() []int {
	f := r.figure()
	if f == nil {
		return nil
	}
	var ts []int
	for t := range r.drawn(f) {
		if t >= 0 {
			ts = append(ts, t)
		}
	}
	slices.Sort(ts)
	return ts
}

// drawn returns the transactions Shown returns, as a set (with
// sqlhistory.Init when a dependency leaves the initial state).
func (r *Result) drawn(f *figure) map[int]bool {
	drawn := map[int]bool{}
	for _, d := range f.deps {
		drawn[d.From], drawn[d.To] = true, true
	}
	for t := range f.focus {
		drawn[t] = true
	}
	if r.Shrunk || len(drawn) == 0 {
		for t := range r.History.Txns {
			drawn[t] = true
		}
	}
	return drawn
}

// node draws transaction t, the pos-th of its session.
func (f *figure) node(t, pos int) draw.Node {
	txn := &f.h.Txns[t]
	sub := []string{txn.Level.String(), fmt.Sprintf("#%d", pos)}
	switch {
	case txn.Line > 0 && f.h.File != "":
		sub = append(sub, fmt.Sprintf("%s:%d", filepath.Base(f.h.File), txn.Line))
	case txn.Line > 0:
		sub = append(sub, fmt.Sprintf("line %d", txn.Line))
	}
	n := draw.Node{ID: nodeID(t), Title: f.x.name(t), Sub: strings.Join(sub, " · "), Order: int64(t)}
	if txn.Status != sqlhistory.Committed {
		n.Status = txn.Status.String()
	}
	var lines []draw.Line
	marked := 0
	for ev := range txn.Events {
		l := f.statement(t, ev, false)
		if slices.ContainsFunc(l, func(s draw.Span) bool { return s.Mark }) {
			marked++
		}
		lines = append(lines, l)
	}
	left := 0
	for i, l := range lines {
		// A long transaction keeps the statements the violation rests
		// on, or its first ones if none.
		keep := len(lines) <= maxNodeLines || slices.ContainsFunc(l, func(s draw.Span) bool { return s.Mark }) ||
			(marked == 0 && i < maxNodeLines/2)
		if !keep {
			left++
			continue
		}
		n.Lines = append(n.Lines, l)
	}
	if left > 0 {
		n.Lines = append(n.Lines, draw.Plain(fmt.Sprintf("(%d more statements)", left)))
	}
	return n
}

// initialLines lists the initial versions read along the dependencies,
// for the box of the initial state, marking those the violation rests
// on.
func (f *figure) initialLines() []draw.Line {
	var vs []sqlhistory.VersionID
	for v := range f.initial {
		vs = append(vs, v)
	}
	slices.Sort(vs)
	var lines []draw.Line
	for _, v := range vs {
		lines = append(lines, draw.Line{{Text: f.versionText(v, false), Mark: f.marked[version{sqlhistory.Init, -1, v}]}})
	}
	return lines
}

// rowLine is the line (from 1) of a box's lines that a dependency on key
// ("doctors/alice") concerns: one with a version of the row marked, a
// SELECT when read (the dependency's reading end), a write otherwise,
// where the box has both; 0 when none marks the row.
func rowLine(lines []draw.Line, key string, read bool) int {
	_, row, ok := strings.Cut(key, "/")
	if !ok {
		return 0
	}
	found := 0
	for i, l := range lines {
		if !slices.ContainsFunc(l, func(s draw.Span) bool { return s.Mark && strings.HasPrefix(s.Text, row+"@") }) {
			continue
		}
		isRead := len(l) > 0 && strings.HasPrefix(l[0].Text, "SELECT")
		if isRead == read {
			return i + 1
		}
		if found == 0 {
			found = i + 1
		}
	}
	return found
}
