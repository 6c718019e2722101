package sqlcheck

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/sqlhistory"
	"github.com/isocheck/isocheck/verdict"
)

// PerTransaction is the Level of a Report of a history checked with each
// transaction at its own level.
const PerTransaction = "per transaction"

// rcNote says which RC a SQL check means, in every report where a
// transaction runs at RC.
const rcNote = "RC here is that of Biswas and Enea, \"On the Complexity of Checking Transactional Consistency\" (OOPSLA 2019), without the session guarantee: an RC transaction need not see what earlier transactions of its session wrote"

// Report is a Result in words, for people (WriteText) and programs (its
// JSON encoding, the head every vertical's report shares: see
// docs/json.md). Its Level is what was checked: PerTransaction, or the
// level every transaction was set to (SER); its Notes say which RC is
// meant.
type Report struct {
	verdict.Report[AnomalyReport]
}

// AnomalyReport describes a violation, in the vocabulary of package
// anomaly: its name is one that
// Level forbids.
type AnomalyReport struct {
	// Finding names the violation (WriteSkew, AbortedRead, Phantom, ...),
	// says what happened, and whether Transactions is minimal: no
	// transaction can be left out with the violation kept; when
	// shrinking stopped first, NotMinimal says so and how large a minimal
	// counterexample may be.
	verdict.Finding
	// Level is the level whose axiom broke: that of the transaction whose
	// read missed a write it had to see.
	Level string `json:"level"`
	// Transactions are the counterexample's, each with its level and
	// statements.
	Transactions []TxnReport `json:"transactions"`
	// ReadsLeftOut counts the reads of the counterexample's transactions
	// it leaves out: they read from transactions left out, or the
	// violation does not need them.
	ReadsLeftOut int `json:"reads_left_out,omitempty"`
	// Because lists the facts that make the counterexample a violation,
	// each a dependency or a read with its reason.
	Because []string `json:"because,omitempty"`
}

// TxnReport is one transaction of a counterexample.
type TxnReport struct {
	Name string `json:"name"`
	// Session is the input's name of the session: a JSON number when it
	// is an integer.
	Session verdict.ID `json:"session"`
	Level   string     `json:"level"`
	Status  string     `json:"status"`
	// Line is the transaction's line in the input, if known.
	Line       int      `json:"line,omitempty"`
	Statements []string `json:"statements"`
}

// Explain puts res in words, with Level PerTransaction.
func Explain(res *Result) *Report {
	rep := &Report{Report: verdict.NewReport[AnomalyReport](PerTransaction, res.Outcome)}
	if h := res.History; h != nil {
		for i := range h.Txns {
			if h.Txns[i].Level == level.RC {
				rep.Notes = append(rep.Notes, rcNote)
				break
			}
		}
	}
	if res.Verdict != verdict.Violated {
		return rep
	}
	h := res.History
	x := explainer{h: h}
	a := &AnomalyReport{}
	for i := range h.Txns {
		a.Transactions = append(a.Transactions, x.txn(i))
	}
	a.HistoryTxns = res.InputTxns
	a.ReadsLeftOut = res.ReadsLeftOut
	a.Minimal = res.Shrunk && res.ShrinkStopped == 0 && res.Minimal
	switch {
	case res.ShrinkStopped > 0:
		a.NotMinimal = fmt.Sprintf("shrinking stopped after %.1f s: this counterexample of %d transactions may not be minimal; a minimal one has at most %d",
			res.ShrinkStopped.Seconds(), len(h.Txns), len(h.Txns))
	case res.Shrunk && len(res.Removable) > 0:
		names := make([]string, len(res.Removable))
		for i, t := range res.Removable {
			names[i] = x.txn(t).Name
		}
		or := names[0]
		if n := len(names); n > 1 {
			or = strings.Join(names[:n-1], ", ") + " or " + names[n-1]
		}
		a.NotMinimal = fmt.Sprintf("minimal only with some of their reads left out: with all their reads, the rest still violates without %s", or)
	case res.Shrunk && !a.Minimal:
		a.NotMinimal = "shrinking did not finish: this counterexample may not be minimal"
	}
	var edges []Edge // the edges the violation is named by
	weakest := brokenLevel(h, nil, level.SER)
	l := weakest
	switch {
	case len(res.Anomalies) > 0:
		first := res.Anomalies[0]
		a.Name = first.Kind
		l = h.Txns[first.Txn].Level
		a.Summary = x.anomaly(first)
		for _, an := range res.Anomalies {
			a.Because = append(a.Because, x.anomaly(an))
		}
	case res.Cycle != nil:
		edges = res.Cycle
		a.Summary = fmt.Sprintf("a cycle of %d commit-order constraints that every commit order would have to follow", len(res.Cycle))
		header := "every commit order must order these transactions in a cycle:"
		if slices.ContainsFunc(res.Cycle, func(e Edge) bool { return e.From == sqlhistory.Init || e.To == sqlhistory.Init }) {
			header = "whatever the commit order:"
		}
		a.Because = append(a.Because, header)
		a.Because = append(a.Because, x.edges(res.Cycle, "  ")...)
	case res.Missed != nil:
		m := res.Missed
		for _, c := range m.Choices {
			edges = append(edges, c.Cycle...)
			if c.Either != nil {
				edges = append(append(edges, c.Either.AB[1:]...), c.Either.BA[1:]...)
			}
		}
		a.Summary = fmt.Sprintf("%s did not return %s, and every version of it the statement may have seen instead leads to a violation (a phantom)", x.read(m.Txn, m.Event), h.Keys[m.Key])
		a.Because = append(a.Because, x.missed(m)...)
	case res.Either != nil:
		ei := res.Either
		edges = append(append(edges, ei.AB[1:]...), ei.BA[1:]...)
		a.Summary = fmt.Sprintf("%s and %s close a cycle in whichever order they commit", x.name(ei.A), x.name(ei.B))
		a.Because = append(a.Because, x.either(ei, "")...)
	default:
		a.Summary = "every way of ordering these transactions breaks some transaction's level, though no single cycle shows it"
		a.Because = append(a.Because, "no commit order of these transactions satisfies the axioms of their levels (the search of Bouajjani, Enea and Román-Calvo, \"On the Complexity of Checking Mixed Isolation Levels for SQL Transactions\", CAV 2025, §5, tried every one)")
	}
	if a.Name == 0 {
		l = brokenLevel(h, edges, weakest)
		a.Name = verdict.Generic(l)
		if edges != nil {
			a.Name = cycleName(h, edges, l)
		}
	}
	if !verdict.Forbids(l, a.Name) {
		a.Name = verdict.Generic(l)
	}
	a.Level = l.String()
	a.Class = a.Name.Class()
	a.Description = a.Name.Describe()
	rep.Anomaly = a
	return rep
}

// WriteText prints the report: "SER: VIOLATED: WriteSkew (G2-item)", what
// happened, the counterexample's transactions statement by statement,
// and why they violate their levels.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	prefix := r.Level + ": "
	switch {
	case r.Satisfied != nil && *r.Satisfied:
		if r.Level == PerTransaction {
			b.WriteString("satisfied: every transaction kept its isolation level\n")
		} else {
			fmt.Fprintf(&b, "%s: satisfied\n", r.Level)
		}
	case r.Anomaly == nil:
		if r.Level == PerTransaction {
			prefix = ""
		}
		fmt.Fprintf(&b, "%sno verdict: %s\n", prefix, r.Reason)
	default:
		r.Anomaly.write(&b, r.Level)
	}
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// write prints the anomaly of a report of what was checked.
func (a *AnomalyReport) write(b *strings.Builder, checked string) {
	lvl := checked
	if checked == PerTransaction {
		lvl = a.Level
	}
	fmt.Fprintf(b, "%s: VIOLATED: %s", lvl, a.Name)
	if a.Class != "" && a.Class != a.Name.String() {
		fmt.Fprintf(b, " (%s)", a.Class)
	}
	fmt.Fprintf(b, "\n  %s\n  %s\n\n", a.Summary, a.Description)
	fmt.Fprintf(b, "counterexample: %d transactions\n", len(a.Transactions))
	if a.NotMinimal != "" {
		fmt.Fprintf(b, "  (%s)\n", a.NotMinimal)
	}
	if a.ReadsLeftOut > 0 {
		fmt.Fprintf(b, "  (%d of their reads are left out: they read from transactions left out, or the violation does not need them)\n", a.ReadsLeftOut)
	}
	for _, t := range a.Transactions {
		fmt.Fprintf(b, "  %s [%s] session %s, %s", t.Name, t.Level, t.Session, t.Status)
		if t.Line > 0 {
			fmt.Fprintf(b, ", line %d", t.Line)
		}
		b.WriteByte('\n')
		for i, s := range t.Statements {
			fmt.Fprintf(b, "    %d. %s\n", i+1, s)
		}
	}
	b.WriteString("\nbecause:\n")
	for _, s := range a.Because {
		fmt.Fprintf(b, "  %s\n", s)
	}
}

// anomalyDescriptions say what happened, per violation that holds under
// every level, in the words of one read.
var anomalyDescriptions = map[verdict.Anomaly]string{
	verdict.ThinAirRead:       "a read returned a row version no transaction wrote",
	verdict.AbortedRead:       "a read returned a row version written by a transaction that did not commit",
	verdict.IntermediateRead:  "a read returned a row version its writer replaced before committing",
	verdict.FutureRead:        "a read returned a row version its own transaction wrote only later",
	verdict.PredicateMismatch: "a read returned a row version its WHERE clause rejects",
}

type explainer struct{ h *sqlhistory.History }

func (x explainer) name(t int) string { return x.h.TxnName(t) }

func (x explainer) txn(i int) TxnReport {
	t := &x.h.Txns[i]
	r := TxnReport{Name: x.name(i), Session: verdict.ID(x.h.SessionName(t.Session)), Level: t.Level.String(), Status: t.Status.String(), Line: t.Line}
	for ei := range t.Events {
		r.Statements = append(r.Statements, x.statement(i, ei))
	}
	return r
}

// statement prints event ei of transaction t with what it read and wrote.
func (x explainer) statement(t, ei int) string {
	e := &x.h.Txns[t].Events[ei]
	var b strings.Builder
	if was := e.Was; was != nil {
		// A blind write: say what the statement was.
		fmt.Fprintf(&b, "%s %s WHERE %s (what it read is left out): ", strings.ToUpper(was.Kind.String()), e.Table, was.Where.String())
		for i, v := range e.Writes {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(x.h.VersionString(v))
		}
		return b.String()
	}
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
		if e.Kind == verdict.SO && e.From == sqlhistory.Init {
			continue // the initial state precedes every transaction
		}
		out = append(out, indent+x.edge(e))
		for _, v := range e.Via {
			out = append(out, indent+"    because "+x.edge(v))
		}
		if e.Kind == verdict.Visible && len(e.Via) == 0 && e.From >= 0 && e.Reader >= 0 {
			if keys := readsFrom(x.h, e.Reader, e.From); len(keys) > 0 {
				var ks []string
				for _, k := range keys {
					ks = append(ks, x.h.Keys[k].String())
				}
				out = append(out, fmt.Sprintf("%s    because %s read %s from %s", indent, x.name(e.Reader), strings.Join(slices.Compact(ks), ", "), x.name(e.From)))
			}
		}
	}
	return out
}

func (x explainer) edge(e Edge) string {
	switch e.Kind {
	case verdict.Supposed:
		return fmt.Sprintf("%s → %s (supposed)", x.name(e.From), x.name(e.To))
	case verdict.SO:
		if e.From == sqlhistory.Init {
			return fmt.Sprintf("init → %s: the initial state precedes every transaction", x.name(e.To))
		}
		return fmt.Sprintf("%s → %s: same session, %s first", x.name(e.From), x.name(e.To), x.name(e.From))
	case verdict.WR:
		if e.Chosen {
			return fmt.Sprintf("%s → %s: %s did not return %s, so it saw a version its predicate rejects; the one left is %s's %s",
				x.name(e.From), x.name(e.To), x.read(e.Reader, e.Event), x.h.Keys[e.Key], x.name(e.From), x.version(e.Key, e.Version))
		}
		return fmt.Sprintf("%s → %s: %s read %s", x.name(e.From), x.name(e.To), x.read(e.Reader, e.Event), x.version(e.Key, e.Version))
	case verdict.Visible:
		lvl := x.h.Txns[e.Reader].Level
		visible := fmt.Sprintf("%s, which also writes %s, is visible to that statement under %s (%s)", x.name(e.From), x.h.Keys[e.Key], lvl, visibility[lvl])
		if e.To == sqlhistory.Init {
			saw := fmt.Sprintf("read %s, the initial version", x.version(e.Key, e.Version))
			if e.Chosen {
				saw = fmt.Sprintf("did not return %s, so it saw the initial version, which its predicate rejects: %s", x.h.Keys[e.Key], x.version(e.Key, e.Version))
			}
			return fmt.Sprintf("%s missed %s's write of %s: it %s, but %s", x.read(e.Reader, e.Event), x.name(e.From), x.h.Keys[e.Key], saw, visible)
		}
		saw := fmt.Sprintf("read %s from %s", x.version(e.Key, e.Version), x.name(e.To))
		if e.Chosen {
			saw = fmt.Sprintf("did not return %s, so it saw %s's version, which its predicate rejects: %s", x.h.Keys[e.Key], x.name(e.To), x.version(e.Key, e.Version))
		}
		return fmt.Sprintf("%s → %s: %s %s; %s, so %s commits before %s",
			x.name(e.From), x.name(e.To), x.read(e.Reader, e.Event), saw, visible, x.name(e.From), x.name(e.To))
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
	switch {
	case a.Kind == verdict.Phantom:
		var ws []string
		for _, w := range a.Writers {
			ws = append(ws, x.name(w))
		}
		return fmt.Sprintf("%s did not return %s, but every version of it the read could have seen (written by %s) satisfies its predicate",
			x.read(a.Txn, a.Event), x.h.Keys[a.Key], strings.Join(ws, ", "))
	case a.NotReturned:
		return fmt.Sprintf("%s did not return %s, its own transaction's %s, which its predicate selects", x.read(a.Txn, a.Event), x.h.Keys[a.Key], x.version(a.Key, a.Version))
	case a.Kind == verdict.NotMyOwnWrite, a.Kind == verdict.NotMyLastWrite, a.Kind == verdict.IntermediateRead:
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
