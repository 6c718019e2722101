package interpret

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// dotKinds are the edge kinds in the legend's order, with their colours,
// line styles and meanings.
var dotKinds = []struct {
	kind, color, style, meaning string
}{
	{"SO", "gray40", "bold", "session order: A ran before B in their session"},
	{"WR", "darkgreen", "solid", "B read A's write"},
	{"WW", "blue", "solid", "B overwrote A's write"},
	{"RW", "red", "solid", "B overwrote the version A read"},
	{"RT", "purple", "dotted", "real time: A ended before B started"},
}

// listMeanings are the meanings of the data dependencies between the
// transactions of a history of lists.
var listMeanings = map[string]string{
	"WR": "B read a list ending in A's append",
	"WW": "B appended after A's append",
	"RW": "B appended after the list A read",
}

// lists reports whether the anomaly's transactions are of a history of
// lists.
func (a *Anomaly) lists() bool {
	for _, t := range a.Txns {
		for _, op := range t.Ops {
			if op.Kind == "append" || op.Value.Kind() == KindList {
				return true
			}
		}
	}
	return false
}

// WriteDOT draws the violation as a Graphviz graph: the anomaly and what
// happened in the title, one box per transaction (with its session and
// operations), one arrow per dependency coloured by kind (SO bold grey,
// WR green, WW blue, RW red, RT dotted purple) and labelled with its kind
// and key, and a legend below. Forced dependencies are solid; those that
// hold only under one order of the writes (Step.Assumed) are dashed and
// say which order (the legend spells the orders out). The input's
// control characters are escaped, as in WriteText.
func (r *Report) WriteDOT(w io.Writer) error {
	r = r.escaped() // the source is text too, and its labels are shown
	var b strings.Builder
	b.WriteString("digraph counterexample {\n")
	b.WriteString("  graph [fontname=\"Helvetica\", fontsize=11, rankdir=TB, nodesep=0.8, ranksep=0.8];\n")
	b.WriteString("  node [shape=box, style=\"rounded\", fontname=\"Helvetica\", fontsize=11];\n")
	b.WriteString("  edge [fontname=\"Helvetica\", fontsize=10];\n")
	a := r.Anomaly
	if a == nil {
		status := "no verdict"
		if r.Satisfied != nil && *r.Satisfied {
			status = "satisfied"
		}
		fmt.Fprintf(&b, "  label=%s; labelloc=t; fontsize=16;\n}\n", dotQuote(r.Level+": "+status))
		_, err := io.WriteString(w, b.String())
		return err
	}

	// The orders of the writes that assumed edges hold under: order i+1
	// is Cycles[i]'s.
	orders := map[string][]int{}
	for i, c := range a.Cycles {
		for _, s := range c {
			if k := stepKey(s); s.Assumed && !slices.Contains(orders[k], i+1) {
				orders[k] = append(orders[k], i+1)
			}
		}
	}
	// The legend, below the picture.
	if len(a.Edges) > 0 {
		fmt.Fprintf(&b, "  label=<%s>; labelloc=b; labeljust=l;\n", a.legend(orders))
	}
	// The title, above it: the graph's label is the legend, so the
	// title is the label of a borderless cluster around everything.
	title := r.pictureTitle()
	var t strings.Builder
	fmt.Fprintf(&t, "<b>%s</b>", html(title))
	for _, l := range wrapPlain(a.Summary, 90) {
		fmt.Fprintf(&t, `<br/><font point-size="12">%s</font>`, html(l))
	}
	fmt.Fprintf(&b, "  subgraph cluster_report {\n  label=<%s>; labelloc=t; fontsize=16; peripheries=0; margin=16;\n", t.String())

	// Transactions. They are not grouped by session in clusters: Graphviz
	// draws two opposite edges between two clusters on top of each other,
	// their labels at one point.
	named := map[string]bool{}
	for _, t := range a.Txns {
		named[t.Name] = true
		var l strings.Builder
		fmt.Fprintf(&l, "<b>%s</b>", html(t.Name))
		fmt.Fprintf(&l, `<br/><font point-size="9" color="gray35">session %s #%d, %s</font>`, html(string(t.Session)), t.Position, html(filepath.Base(t.Where)))
		for _, line := range wrapPlain(t.opsText(), 40) {
			fmt.Fprintf(&l, "<br/>%s", html(line))
		}
		if t.OmittedOps > 0 {
			fmt.Fprintf(&l, `<br/><font point-size="9" color="gray35">(+%d more ops)</font>`, t.OmittedOps)
		}
		attrs := ""
		if t.Status != "committed" {
			fmt.Fprintf(&l, `<br/><font color="darkorange3">%s</font>`, html(t.Status))
			attrs = `, color="darkorange"`
		}
		fmt.Fprintf(&b, "  %s [label=<%s>%s];\n", dotQuote(t.Name), l.String(), attrs)
	}
	for _, s := range a.Edges {
		for _, n := range []string{s.From, s.To} {
			if named[n] {
				continue
			}
			named[n] = true
			label := html(n)
			if n == "init" {
				label = `<b>init</b><br/><font point-size="9" color="gray35">the initial state</font>`
			}
			fmt.Fprintf(&b, "  %s [label=<%s>, style=\"rounded,dashed\"];\n", dotQuote(n), label)
		}
	}

	// Dependencies.
	for _, s := range a.Edges {
		label := s.Kind
		if s.Key != "" {
			label += " " + string(s.Key)
		}
		label = html(label)
		attrs := dotEdgeStyle(s.Kind)
		if o := orders[stepKey(s)]; len(o) > 0 {
			attrs += ", style=dashed"
			label += "<br/>" + orderNames(o)
		} else if s.Inferred {
			label += "<br/><i>inferred</i>"
		}
		tip := s.Reason
		if s.Because != "" {
			tip += "; " + s.Because
		}
		fmt.Fprintf(&b, "  %s -> %s [label=<%s>, tooltip=%s, %s];\n", dotQuote(s.From), dotQuote(s.To), label, dotQuote(tip), attrs)
	}
	b.WriteString("  }\n}\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// dotEdgeStyle returns the Graphviz attributes of an edge of the kind.
func dotEdgeStyle(kind string) string {
	for _, k := range dotKinds {
		if k.kind == kind {
			attrs := fmt.Sprintf("color=%q, fontcolor=%q", k.color, k.color)
			switch k.style {
			case "bold":
				attrs += ", penwidth=2"
			case "dotted":
				attrs += ", style=dotted"
			}
			return attrs
		}
	}
	return `color="black"`
}

// orderNames names the orders of the writes an edge holds under.
func orderNames(orders []int) string {
	s := make([]string, len(orders))
	for i, o := range orders {
		s[i] = strconv.Itoa(o)
	}
	if len(s) == 1 {
		return "if order " + s[0]
	}
	return "if order " + strings.Join(s, " or ")
}

// legend returns an HTML-like table that says what the picture's edge
// colours and line styles mean, for the kinds the picture has.
func (a *Anomaly) legend(orders map[string][]int) string {
	used := map[string]bool{}
	inferred := false
	for _, s := range a.Edges {
		used[s.Kind] = true
		inferred = inferred || s.Inferred && len(orders[stepKey(s)]) == 0
	}
	var b strings.Builder
	b.WriteString(`<table border="0" cellborder="0" cellspacing="0" cellpadding="2">`)
	b.WriteString(`<tr><td align="left" colspan="3"><b>legend</b> (an arrow A → B: A comes before B)</td></tr>`)
	lists := a.lists()
	for _, k := range dotKinds {
		if !used[k.kind] {
			continue
		}
		if m, ok := listMeanings[k.kind]; ok && lists {
			k.meaning = m
		}
		line := "───▶"
		switch k.style {
		case "bold":
			line = "<b>━━━▶</b>"
		case "dotted":
			line = "┈┈┈▶"
		}
		fmt.Fprintf(&b, `<tr><td align="left"><font color="%s">%s</font></td><td align="left"><font color="%s"><b>%s</b></font></td><td align="left">%s</td></tr>`,
			k.color, line, k.color, k.kind, html(k.meaning))
	}
	b.WriteString(`<tr><td align="left">───▶</td><td align="left">solid</td><td align="left">forced: holds whatever the order of the writes</td></tr>`)
	if inferred {
		b.WriteString(`<tr><td></td><td></td><td align="left"><i>inferred</i>: forced by an order of writes the history implies (the text says why)</td></tr>`)
	}
	if len(orders) > 0 {
		var what []string
		for i := range a.Cycles {
			switch {
			case a.Constraint != nil && len(a.Cycles) == 2:
				what = append(what, fmt.Sprintf("order %d: %s", i+1, a.order(i)))
			default:
				what = append(what, fmt.Sprintf("order %d: the order of the writes that cycle %d assumes", i+1, i+1))
			}
		}
		b.WriteString(`<tr><td align="left">╌╌╌▶</td><td align="left">dashed</td><td align="left">holds only under one order of the writes, and every order closes a cycle:</td></tr>`)
		for _, w := range what {
			fmt.Fprintf(&b, `<tr><td></td><td></td><td align="left">%s</td></tr>`, html(w))
		}
	}
	b.WriteString(`</table>`)
	return b.String()
}

// html escapes s for an HTML-like Graphviz label.
func html(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;").Replace(s)
}

// dotQuote quotes s as a DOT string.
func dotQuote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
	return `"` + r.Replace(s) + `"`
}

func wrapPlain(text string, width int) []string {
	if text == "" {
		return nil
	}
	return strings.Split(wrap(text, width, ""), "\n")
}
