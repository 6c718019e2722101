package sqlcheck

import (
	"fmt"
	"io"
	"strings"

	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/sqlhistory"
	"github.com/isocheck/isocheck/verdict"
)

// Report is a Result in words, for people (WriteText) and programs (its
// JSON encoding).
type Report struct {
	// Summary is the verdict, and why there is none; Satisfied is nil
	// (JSON null) then.
	verdict.Summary
	// Anomaly names the violation; Description says what it means.
	Anomaly     string `json:"anomaly,omitempty"`
	Description string `json:"description,omitempty"`
	// Transactions are the counterexample's, each with its level and
	// statements.
	Transactions []TxnReport `json:"transactions,omitempty"`
	// NotMinimal, when set, says that shrinking stopped before the
	// counterexample was minimal.
	NotMinimal string `json:"not_minimal,omitempty"`
	// Because lists the facts that make the counterexample a violation,
	// each a dependency or a read with its reason.
	Because []string `json:"because,omitempty"`
}

// TxnReport is one transaction of a counterexample.
type TxnReport struct {
	Name       string   `json:"name"`
	Session    string   `json:"session"`
	Level      string   `json:"level"`
	Status     string   `json:"status"`
	Line       int      `json:"line,omitempty"`
	Statements []string `json:"statements"`
}

// Explain puts res in words.
func Explain(res *Result) *Report {
	rep := &Report{Summary: res.Outcome.Summary()}
	if res.Verdict != verdict.Violated {
		return rep
	}
	h := res.History
	x := explainer{h: h}
	for i := range h.Txns {
		rep.Transactions = append(rep.Transactions, x.txn(i))
	}
	if res.ShrinkStopped > 0 {
		rep.NotMinimal = fmt.Sprintf("shrinking stopped after %.1f s: this counterexample of %d transactions may not be minimal; a minimal one has at most %d",
			res.ShrinkStopped.Seconds(), len(h.Txns), len(h.Txns))
	}
	switch {
	case len(res.Anomalies) > 0:
		a := res.Anomalies[0]
		rep.Anomaly = a.Kind.String()
		rep.Description = anomalyDescriptions[a.Kind]
		for _, a := range res.Anomalies {
			rep.Because = append(rep.Because, x.anomaly(a))
		}
	case res.Cycle != nil:
		rep.Anomaly, rep.Description = cycleName(res.Cycle)
		rep.Because = append(rep.Because, "every commit order must order these transactions in a cycle:")
		rep.Because = append(rep.Because, x.edges(res.Cycle, "  ")...)
	case res.Missed != nil:
		m := res.Missed
		rep.Anomaly = "phantom"
		rep.Description = "a read did not return a row, and every version of it that the read may have seen instead leads to a violation"
		rep.Because = append(rep.Because, x.missed(m)...)
	case res.Either != nil:
		ei := res.Either
		rep.Anomaly, rep.Description = cycleName(append(ei.AB[1:], ei.BA[1:]...))
		rep.Because = append(rep.Because, x.either(ei, "")...)
	default:
		rep.Anomaly = "no commit order"
		rep.Description = "every way of ordering these transactions breaks some transaction's level, though no single cycle shows it"
		rep.Because = append(rep.Because, "no commit order of these transactions satisfies the axioms of their levels (the search of Bouajjani, Enea and Román-Calvo, \"On the Complexity of Checking Mixed Isolation Levels for SQL Transactions\", tried every one)")
	}
	return rep
}

// WriteText prints the report.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	if r.Satisfied != nil && *r.Satisfied {
		b.WriteString("satisfied: every transaction kept its isolation level\n")
		_, err := io.WriteString(w, b.String())
		return err
	}
	if r.Verdict != verdict.Violated.String() {
		fmt.Fprintf(&b, "no verdict: %s\n", r.Reason)
		_, err := io.WriteString(w, b.String())
		return err
	}
	fmt.Fprintf(&b, "violated: %s\n  %s\n\n", r.Anomaly, r.Description)
	fmt.Fprintf(&b, "counterexample: %d transactions\n", len(r.Transactions))
	if r.NotMinimal != "" {
		fmt.Fprintf(&b, "  (%s)\n", r.NotMinimal)
	}
	for _, t := range r.Transactions {
		fmt.Fprintf(&b, "  %s [%s] session %s, %s", t.Name, t.Level, t.Session, t.Status)
		if t.Line > 0 {
			fmt.Fprintf(&b, ", line %d", t.Line)
		}
		b.WriteByte('\n')
		for i, s := range t.Statements {
			fmt.Fprintf(&b, "    %d. %s\n", i+1, s)
		}
	}
	b.WriteString("\nbecause:\n")
	for _, s := range r.Because {
		fmt.Fprintf(&b, "  %s\n", s)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

var anomalyDescriptions = map[AnomalyKind]string{
	ThinAirRead:       "a read returned a row version no transaction wrote",
	AbortedRead:       "a read returned a row version written by a transaction that did not commit",
	IntermediateRead:  "a read returned a row version its writer replaced before committing",
	FutureRead:        "a read returned a row version its own transaction wrote only later",
	InternalRead:      "a read did not return the version its own transaction had just written",
	MissingOwnWrite:   "a read did not return a row its own transaction had written, although its predicate selects it",
	PredicateMismatch: "a read returned a row version its WHERE clause rejects",
	MissedRow:         "a read did not return a row although its WHERE clause selects every version of it the read could have seen",
}

// cycleName names a cycle: G1c when it is made of session order and reads
// alone, G-single with one visibility constraint, G2 with more; "predicate"
// when a read that did not return a row is part of it.
func cycleName(cycle []Edge) (string, string) {
	vis, chosen := 0, false
	for _, e := range cycle {
		if e.Kind == Visible {
			vis++
		}
		chosen = chosen || e.Chosen
	}
	var name, desc string
	switch vis {
	case 0:
		name, desc = "G1c", "circular information flow: transactions read from each other in a cycle"
	case 1:
		name, desc = "G-single", "a read missed a write it had to see under its level: one constraint from a level closes a cycle of dependencies"
	default:
		name, desc = "G2", "reads missed writes they had to see under their levels: constraints from levels close a cycle"
	}
	if chosen {
		name = name + " (predicate)"
		desc += "; a row some read did not return is part of it (a phantom)"
	}
	return name, desc
}

type explainer struct{ h *sqlhistory.History }

func (x explainer) name(t int) string { return x.h.TxnName(t) }

func (x explainer) txn(i int) TxnReport {
	t := &x.h.Txns[i]
	r := TxnReport{Name: x.name(i), Session: x.h.SessionName(t.Session), Level: t.Level.String(), Status: t.Status.String(), Line: t.Line}
	for ei := range t.Events {
		r.Statements = append(r.Statements, x.statement(i, ei))
	}
	return r
}

// statement prints event ei of transaction t with what it read and wrote.
func (x explainer) statement(t, ei int) string {
	e := &x.h.Txns[t].Events[ei]
	var b strings.Builder
	b.WriteString(strings.ToUpper(e.Kind.String()))
	b.WriteByte(' ')
	b.WriteString(e.Table)
	if e.Kind.Reads() {
		b.WriteString(" WHERE ")
		b.WriteString(e.Where.String())
	}
	switch e.Kind {
	case sqlhistory.Select:
		b.WriteString(" → ")
		if len(e.Reads) == 0 {
			b.WriteString("no rows")
		}
		for i, v := range e.Reads {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(x.h.VersionString(v))
		}
	case sqlhistory.Insert:
		b.WriteString(": ")
		for i, v := range e.Writes {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(x.h.VersionString(v))
		}
	default:
		b.WriteString(": ")
		if len(e.Reads) == 0 {
			b.WriteString("no rows")
		}
		for i := range e.Reads {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "%s → %s", x.h.VersionString(e.Reads[i]), x.versionName(e.Writes[i]))
		}
	}
	return b.String()
}

func (x explainer) versionName(v sqlhistory.VersionID) string {
	ver := &x.h.Versions[v]
	if ver.Row == nil {
		return "deleted"
	}
	return ver.Name + " " + sqlhistory.RowString(ver.Row)
}

// version describes version v (-1: an absent row) of key.
func (x explainer) version(key sqlhistory.KeyID, v sqlhistory.VersionID) string {
	if v < 0 {
		return x.h.Keys[key].String() + " absent (no row)"
	}
	return x.h.VersionString(v)
}

// read names read event ev of transaction t: "T3's statement 2 (SELECT
// doctors WHERE on_call = TRUE) [SER]".
func (x explainer) read(t, ev int) string {
	e := &x.h.Txns[t].Events[ev]
	return fmt.Sprintf("%s [%s] statement %d (%s %s WHERE %s)", x.name(t), x.h.Txns[t].Level, ev+1,
		strings.ToUpper(e.Kind.String()), e.Table, e.Where.String())
}

// either prints two transactions that close a cycle in either order.
func (x explainer) either(ei *Either, indent string) []string {
	out := []string{fmt.Sprintf("%s%s and %s close a cycle in whichever order they commit:", indent, x.name(ei.A), x.name(ei.B))}
	for _, c := range [][]Edge{ei.AB, ei.BA} {
		out = append(out, fmt.Sprintf("%sif %s commits before %s:", indent, x.name(c[0].From), x.name(c[0].To)))
		out = append(out, x.edges(c[1:], indent+"  ")...)
	}
	return out
}

// edges prints each edge of a chain, and under a visibility edge the
// chain that makes the writer visible.
func (x explainer) edges(chain []Edge, indent string) []string {
	var out []string
	for _, e := range chain {
		out = append(out, indent+x.edge(e))
		for _, v := range e.Via {
			out = append(out, indent+"    because "+x.edge(v))
		}
	}
	return out
}

func (x explainer) edge(e Edge) string {
	switch e.Kind {
	case Supposed:
		return fmt.Sprintf("%s → %s (supposed)", x.name(e.From), x.name(e.To))
	case SessionOrder:
		if e.From == sqlhistory.Init {
			return fmt.Sprintf("init → %s: the initial state precedes every transaction", x.name(e.To))
		}
		return fmt.Sprintf("%s → %s: same session, %s first", x.name(e.From), x.name(e.To), x.name(e.From))
	case ReadFrom:
		if e.Chosen {
			return fmt.Sprintf("%s → %s: %s did not return %s, so it saw a version its predicate rejects; the one left is %s's %s",
				x.name(e.From), x.name(e.To), x.read(e.Reader, e.Event), x.h.Keys[e.Key], x.name(e.From), x.version(e.Key, e.Version))
		}
		return fmt.Sprintf("%s → %s: %s read %s", x.name(e.From), x.name(e.To), x.read(e.Reader, e.Event), x.version(e.Key, e.Version))
	case Visible:
		then := "so it commits before " + x.name(e.To)
		if e.To == sqlhistory.Init {
			then = "so it would have to commit before the initial state"
		}
		saw := fmt.Sprintf("read %s from %s", x.version(e.Key, e.Version), x.name(e.To))
		if e.Chosen {
			saw = fmt.Sprintf("did not return %s, so it saw %s's version, which its predicate rejects: %s", x.h.Keys[e.Key], x.name(e.To), x.version(e.Key, e.Version))
		}
		lvl := x.h.Txns[e.Reader].Level
		return fmt.Sprintf("%s → %s: %s %s; %s also writes %s and is visible to that statement under %s (%s), %s",
			x.name(e.From), x.name(e.To), x.read(e.Reader, e.Event), saw, x.name(e.From), x.h.Keys[e.Key], lvl, visibility[lvl], then)
	}
	return ""
}

// visibility says, per level, which writers a read must see.
var visibility = map[level.Level]string{
	level.SER: "it commits before the reader",
	level.SI:  "it commits before a transaction the reader follows or read from, or before one that commits before the reader and writes a row the reader writes",
	level.PC:  "it commits before, or is, a transaction the reader follows in its session or read from",
	level.CC:  "it is in the reader's causal past",
	level.RA:  "the reader follows it in its session or read from it",
	level.RC:  "an earlier statement of the reader read from it",
}

func (x explainer) anomaly(a Anomaly) string {
	switch a.Kind {
	case MissedRow:
		var ws []string
		for _, w := range a.Writers {
			ws = append(ws, x.name(w))
		}
		return fmt.Sprintf("%s did not return %s, but every version of it the read could have seen (written by %s) satisfies its predicate",
			x.read(a.Txn, a.Event), x.h.Keys[a.Key], strings.Join(ws, ", "))
	case MissingOwnWrite:
		return fmt.Sprintf("%s did not return %s, its own transaction's %s, which its predicate selects", x.read(a.Txn, a.Event), x.h.Keys[a.Key], x.version(a.Key, a.Version))
	case InternalRead, IntermediateRead:
		return fmt.Sprintf("%s returned %s, not %s", x.read(a.Txn, a.Event), x.version(a.Key, a.Version), x.version(a.Key, a.Expected))
	}
	return fmt.Sprintf("%s returned %s: %s", x.read(a.Txn, a.Event), x.version(a.Key, a.Version), anomalyDescriptions[a.Kind])
}

func (x explainer) missed(m *Missed) []string {
	var sel []string
	for _, w := range m.Selected {
		sel = append(sel, x.name(w))
	}
	out := []string{fmt.Sprintf("%s did not return %s, so it saw a version its predicate rejects, not one of %s's", x.read(m.Txn, m.Event), x.h.Keys[m.Key], strings.Join(sel, ", "))}
	for _, c := range m.Choices {
		out = append(out, fmt.Sprintf("if it saw %s's %s:", x.name(c.Writer), x.version(m.Key, c.Version)))
		switch {
		case c.Either != nil:
			out = append(out, x.either(c.Either, "  ")...)
		case c.NoOrder:
			out = append(out, "  no commit order satisfies the levels")
		}
		out = append(out, x.edges(c.Cycle, "  ")...)
	}
	return out
}

// WriteDOT draws the counterexample as a Graphviz graph: a node per
// transaction with its level, an edge per dependency of the cycle.
func (r *Result) WriteDOT(w io.Writer) error {
	var b strings.Builder
	b.WriteString("digraph counterexample {\n  rankdir=LR;\n  node [shape=box, fontname=\"Helvetica\"];\n")
	h := r.History
	for i := range h.Txns {
		fmt.Fprintf(&b, "  t%d [label=%q];\n", i, fmt.Sprintf("%s [%s]", h.TxnName(i), h.Txns[i].Level))
	}
	edges := r.Cycle
	if r.Either != nil {
		edges = append(append(edges, r.Either.AB...), r.Either.BA...)
	}
	if r.Missed != nil {
		for _, c := range r.Missed.Choices {
			edges = append(edges, c.Cycle...)
		}
	}
	node := func(t int) string {
		if t == sqlhistory.Init {
			return "init"
		}
		return fmt.Sprintf("t%d", t)
	}
	for _, e := range edges {
		label := e.Kind.String()
		if e.Kind != SessionOrder {
			label += " " + h.Keys[e.Key].String()
		}
		style := ""
		if e.Chosen {
			style = ", style=dashed"
		}
		fmt.Fprintf(&b, "  %s -> %s [label=%q%s];\n", node(e.From), node(e.To), label, style)
	}
	b.WriteString("}\n")
	_, err := io.WriteString(w, b.String())
	return err
}
