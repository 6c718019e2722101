package sqlcheck

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/isocheck/isocheck/sqlhistory"
	"github.com/isocheck/isocheck/verdict"
)

// legend says what each kind of edge of a picture means, in the order
// the legend lists them.
var legend = []struct{ kind, text string }{
	{"so", "so: same session, the first commits first"},
	{"wr", "wr K: read K from the writer"},
	{"vis", "vis K: the writer is visible to a read of K under the reader's level, so it commits before the version read"},
	{"missed", "missed K: a read of K returned the initial version, but its level made the writer's write visible"},
	{"if", "if: the order one choice supposes (dashed)"},
	{"either", "blue, red: the two orders of a pair, each closing a cycle"},
}

// WriteDOT draws the counterexample as a Graphviz graph: a title with the
// violation, a node per transaction with its level, the edges of its
// cycles (each choice of an Either in its own colour), and a legend.
// Nothing points into the initial state: a read that missed a write it
// had to see is an edge from the writer to the reader.
func (r *Result) WriteDOT(w io.Writer) error {
	d := dotWriter{h: r.History, seen: map[string]bool{}, used: map[string]bool{}, nodes: map[int]bool{}}
	rep := Explain(r)
	title := "SQL history"
	if a := rep.Anomaly; a != nil {
		title = fmt.Sprintf("%s: VIOLATED: %s", a.Level, a.Name)
		if a.Class != "" && a.Class != a.Name.String() {
			title += " (" + a.Class + ")"
		}
		title = dotEscape(title) + `\n` + wrap(dotEscape(a.Summary), 90)
	}
	switch {
	case r.Either != nil:
		d.either(r.Either)
	case r.Missed != nil:
		for _, c := range r.Missed.Choices {
			d.chain(c.Cycle, "")
			if c.Either != nil {
				d.either(c.Either)
			}
		}
		d.reads(r.Missed.Txn)
	case r.Cycle != nil:
		d.chain(r.Cycle, "")
	case len(r.Anomalies) > 0:
		for _, a := range r.Anomalies {
			d.reads(a.Txn)
		}
	default:
		// No single cycle: draw what every order must follow.
		d.dependencies(r.core)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "digraph counterexample {\n  label=\"%s\";\n  labelloc=t;\n  fontname=\"Helvetica\";\n  rankdir=LR;\n", title)
	b.WriteString("  node [shape=box, fontname=\"Helvetica\"];\n  edge [fontname=\"Helvetica\", fontsize=10];\n")
	for i := range r.History.Txns {
		if len(d.nodes) > 0 && !d.nodes[i] {
			continue // not part of what the picture shows
		}
		fmt.Fprintf(&b, "  t%d [label=\"%s [%s]\"];\n", i, dotEscape(r.History.TxnName(i)), r.History.Txns[i].Level)
	}
	if d.init {
		b.WriteString("  init [shape=ellipse, label=\"init\"];\n")
	}
	b.WriteString(d.edges.String())
	var lines strings.Builder
	for _, l := range legend {
		if d.used[l.kind] {
			lines.WriteString(dotEscape(l.text) + `\l`)
		}
	}
	if lines.Len() > 0 {
		fmt.Fprintf(&b, "  subgraph cluster_legend {\n    label=\"legend\";\n    fontsize=10;\n    legend [shape=plaintext, fontsize=9, label=\"%s\"];\n  }\n", lines.String())
	}
	b.WriteString("}\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// dotWriter collects the edges of a picture, each once.
type dotWriter struct {
	h     *sqlhistory.History
	edges strings.Builder
	seen  map[string]bool
	used  map[string]bool // kinds of edges drawn, for the legend
	nodes map[int]bool    // transactions an edge touches
	init  bool            // an edge leaves the initial state
}

func (d *dotWriter) node(t int) string {
	if t == sqlhistory.Init {
		d.init = true
		return "init"
	}
	return fmt.Sprintf("t%d", t)
}

// add draws from → to with a label and attributes, once.
func (d *dotWriter) add(from, to int, label, attrs string) {
	if from < sqlhistory.Init || to < sqlhistory.Init {
		return // a version nobody wrote
	}
	line := fmt.Sprintf("  %s -> %s [label=\"%s\"%s];\n", d.node(from), d.node(to), dotEscape(label), attrs)
	d.used[strings.Fields(label)[0]] = true
	d.nodes[from], d.nodes[to] = true, true
	if id := fmt.Sprint(from, to, label); !d.seen[id] {
		d.seen[id] = true
		d.edges.WriteString(line)
	}
}

// either draws the two choices of e, A before B in blue and B before A
// in red.
func (d *dotWriter) either(e *Either) {
	d.used["either"] = true
	d.chain(e.AB, ", color=blue, fontcolor=blue")
	d.chain(e.BA, ", color=red, fontcolor=red")
}

// chain draws the edges of a cycle with what they rest on: the reads
// behind visibility constraints and the chains that make writers visible.
func (d *dotWriter) chain(edges []Edge, attrs string) {
	for _, e := range edges {
		key := ""
		if e.Kind != verdict.SO && e.Kind != verdict.Supposed {
			key = " " + d.h.Keys[e.Key].String()
		}
		dashed := ""
		if e.Chosen || e.Kind == verdict.Supposed {
			dashed = ", style=dashed"
		}
		switch {
		case e.Kind == verdict.SO && (e.From == sqlhistory.Init || e.To == sqlhistory.Init):
			// The initial state precedes every transaction: not drawn.
		case e.Kind == verdict.Visible && e.To == sqlhistory.Init:
			d.add(e.From, e.Reader, "missed"+key, attrs+dashed)
			if !e.Chosen {
				d.add(e.To, e.Reader, "wr"+key, ", style=dotted")
			}
		case e.Kind == verdict.Visible:
			d.add(e.From, e.To, "vis"+key, attrs+dashed)
			if !e.Chosen {
				d.add(e.To, e.Reader, "wr"+key, ", style=dotted")
			}
		default:
			d.add(e.From, e.To, strings.ToLower(e.Kind.String())+key, attrs+dashed)
		}
		if e.Kind == verdict.Visible && e.From >= 0 && e.Reader >= 0 {
			// Why the writer is visible: what the reader read from it.
			for _, k := range readsFrom(d.h, e.Reader, e.From) {
				d.add(e.From, e.Reader, "wr "+d.h.Keys[k].String(), ", style=dotted")
			}
		}
		d.chain(e.Via, attrs)
	}
}

// reads draws where transaction t's reads came from.
func (d *dotWriter) reads(t int) {
	for _, e := range d.h.Txns[t].Events {
		for _, v := range e.Reads {
			ver := &d.h.Versions[v]
			if ver.Writer != t {
				d.add(ver.Writer, t, "wr "+d.h.Keys[ver.Key].String(), "")
			}
		}
	}
}

// dependencies draws the session order and read-from edges between the
// transactions of core (all of them when core is empty): what any commit
// order must follow.
func (d *dotWriter) dependencies(core []int) {
	in := func(t int) bool { return len(core) == 0 || slices.Contains(core, t) }
	for _, s := range d.h.Sessions {
		prev := -1
		for _, t := range s {
			if !in(t) {
				continue
			}
			if prev >= 0 {
				d.add(prev, t, "so", "")
			}
			prev = t
		}
	}
	for t := range d.h.Txns {
		if !in(t) {
			continue
		}
		for _, e := range d.h.Txns[t].Events {
			for _, v := range e.Reads {
				if w := d.h.Versions[v].Writer; w != t && (w == sqlhistory.Init || in(w)) {
					d.add(w, t, "wr "+d.h.Keys[d.h.Versions[v].Key].String(), "")
				}
			}
		}
		if len(core) > 0 {
			d.nodes[t] = true
		}
	}
}

// wrap breaks s into lines of at most width characters, for a title.
func wrap(s string, width int) string {
	var b strings.Builder
	n := 0
	for i, w := range strings.Fields(s) {
		if i > 0 && n+1+len(w) > width {
			b.WriteString(`\n`)
			n = 0
		} else if i > 0 {
			b.WriteByte(' ')
			n++
		}
		b.WriteString(w)
		n += len(w)
	}
	return b.String()
}

// dotEscape makes s safe inside a double-quoted DOT string.
func dotEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(s)
}
