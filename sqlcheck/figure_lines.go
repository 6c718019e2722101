package sqlcheck

import (
	"fmt"
	"slices"
	"strings"

	"github.com/isocheck/isocheck/draw"
	"github.com/isocheck/isocheck/sqlhistory"
)

// shortRows is how many rows a statement of a picture lists besides the
// marked ones.
const shortRows = 3

// Statements returns the statements of transaction t of r.History, one
// line each, with every row version they read or wrote in full; the rows
// the violation rests on are marked: the versions read and written that
// its dependencies name, and the rows a read did not return.
func (r *Result) Statements(t int) []draw.Line {
	f := r.figure()
	if f == nil {
		f = &figure{x: explainer{h: r.History}, h: r.History}
	}
	var lines []draw.Line
	for ev := range r.History.Txns[t].Events {
		lines = append(lines, f.statement(t, ev, true))
	}
	return lines
}

// line builds a draw.Line.
type line struct{ spans draw.Line }

func (l *line) text(s string) {
	if n := len(l.spans); n > 0 && !l.spans[n-1].Mark {
		l.spans[n-1].Text += s
		return
	}
	l.spans = append(l.spans, draw.Span{Text: s})
}

func (l *line) span(s string, mark bool) {
	if !mark {
		l.text(s)
		return
	}
	l.spans = append(l.spans, draw.Span{Text: s, Mark: true})
}

// statement writes event ev of transaction t: the statement, the rows it
// read or wrote (in full, or by key and version with at most shortRows
// unmarked ones), and the rows it did not return that the violation
// rests on.
func (f *figure) statement(t, ev int, full bool) draw.Line {
	e := &f.h.Txns[t].Events[ev]
	var l line
	kind := e.Kind
	if e.Was != nil {
		kind = e.Was.Kind
	}
	l.text(strings.ToUpper(kind.String()) + " " + e.Table)
	if e.Was != nil {
		l.text(" WHERE " + e.Was.Where.String() + " (what it read is left out): ")
		f.rows(&l, t, ev, e.Writes, nil, full)
	} else {
		if e.Kind.Reads() {
			l.text(" WHERE " + e.Where.String())
		}
		switch e.Kind {
		case sqlhistory.Select:
			l.text(" → ")
			f.rows(&l, t, ev, e.Reads, nil, full)
		case sqlhistory.Insert:
			l.text(": ")
			f.rows(&l, t, ev, e.Writes, nil, full)
		default:
			l.text(": ")
			f.rows(&l, t, ev, e.Reads, e.Writes, full)
		}
	}
	var keys []sqlhistory.KeyID
	for m := range f.missed {
		if m.txn == t && m.event == ev {
			keys = append(keys, m.key)
		}
	}
	slices.Sort(keys)
	for i, k := range keys {
		if i == 0 {
			l.text("; not returned: ")
		} else {
			l.text(", ")
		}
		l.span(f.rowName(k, full), true)
	}
	return l.spans
}

// rows writes versions vs of event ev of transaction t, each followed by
// the version that replaced it when then is not nil.
func (f *figure) rows(l *line, t, ev int, vs, then []sqlhistory.VersionID, full bool) {
	if len(vs) == 0 {
		l.text("no rows")
		return
	}
	left := 0
	shown := 0
	for i, v := range vs {
		mark := f.marked[version{t, ev, v}]
		var next sqlhistory.VersionID = -1
		if then != nil && i < len(then) {
			next = then[i]
		}
		markNext := next >= 0 && f.marked[version{t, ev, next}]
		if !full && !mark && !markNext && shown >= shortRows {
			left++
			continue
		}
		if shown > 0 {
			l.text(", ")
		}
		shown++
		l.span(f.versionText(v, full), mark)
		if next >= 0 {
			l.text(" → ")
			l.span(f.nextText(next, full), markNext)
		}
	}
	if left > 0 {
		l.text(fmt.Sprintf(", +%d more", left))
	}
}

// rowName names a row of key k: its primary key, or in full its table
// too.
func (f *figure) rowName(k sqlhistory.KeyID, full bool) string {
	if full {
		return f.h.Keys[k].String()
	}
	return f.h.Keys[k].Key
}

// versionText describes version v: "alice@alice-0", in full
// "doctors/alice@alice-0 {name: 'alice', on_call: TRUE}".
func (f *figure) versionText(v sqlhistory.VersionID, full bool) string {
	if full {
		return f.h.VersionString(v)
	}
	ver := &f.h.Versions[v]
	s := f.h.Keys[ver.Key].Key + "@" + ver.Name
	if ver.Row == nil && ver.Writer != sqlhistory.Unwritten {
		s += " (deleted)"
	}
	return s
}

// nextText describes version v as the new version of a row an update or
// delete changed: "alice-1", in full "alice-1 {on_call: FALSE}", or
// "deleted".
func (f *figure) nextText(v sqlhistory.VersionID, full bool) string {
	ver := &f.h.Versions[v]
	switch {
	case ver.Row == nil:
		return "deleted"
	case full:
		return ver.Name + " " + sqlhistory.RowString(ver.Row)
	}
	return ver.Name
}
