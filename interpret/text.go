package interpret

import (
	"fmt"
	"io"
	"strings"

	"github.com/isocheck/isocheck/internal/textsafe"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/verdict"
)

// ANSI styles for terminals.
const (
	reset  = "\x1b[0m"
	bold   = "\x1b[1m"
	dim    = "\x1b[2m"
	red    = "\x1b[31m"
	green  = "\x1b[32m"
	yellow = "\x1b[33m"
	blue   = "\x1b[34m"
	purple = "\x1b[35m"
	cyan   = "\x1b[36m"
)

// kindColor is the colour of each edge kind, the same as in WriteDOT.
var kindColor = map[string]string{"SO": dim, "WR": green, "WW": blue, "RW": red, "RT": purple}

type styler bool

func (s styler) with(style, text string) string {
	if !s || style == "" {
		return text
	}
	return style + text + reset
}

// WriteText prints the report's short form: the verdict, a one-paragraph
// summary, the cycles and the transactions.
//
// The text writers escape the control characters of the input's ids,
// sessions and keys (see internal/textsafe): what they print is safe to
// show on a terminal, whatever the history holds.
func (r *Report) WriteText(w io.Writer) error { return r.writeText(w, false, false) }

// WriteTextColor is WriteText with terminal colours when color is set.
func (r *Report) WriteTextColor(w io.Writer, color bool) error { return r.writeText(w, color, false) }

// WriteExplanation prints the full report: what the anomaly is, what
// happened, the counterexample's transactions as the user wrote them,
// every cycle with the reason of each edge and of each inferred order,
// and notes. color adds terminal colours.
func (r *Report) WriteExplanation(w io.Writer, color bool) error { return r.writeText(w, color, true) }

func (r *Report) writeText(w io.Writer, color, full bool) error {
	r = r.escaped()
	st := styler(color)
	var b strings.Builder
	switch {
	case r.Satisfied == nil:
		fmt.Fprintf(&b, "%s: %s: %s\n", r.Level, st.with(yellow, "no verdict"), r.Reason)
	case *r.Satisfied:
		fmt.Fprintf(&b, "%s: %s\n", r.Level, st.with(green, "satisfied"))
	case full:
		r.Anomaly.writeFull(&b, r.Level, r.ImpliedBy, st)
	default:
		r.Anomaly.writeShort(&b, r.Level, r.ImpliedBy, st)
	}
	if r.Undecided != "" && r.Anomaly != nil {
		fmt.Fprintf(&b, "note: %s got no verdict in this run: the history may break it too", r.Undecided)
		if l, err := level.Parse(r.Undecided); err == nil && verdict.Forbids(l, r.Anomaly.Name) {
			fmt.Fprintf(&b, ", and the anomaly named may be one it forbids")
		}
		b.WriteString("\n")
	}
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// title is the first line of a report of a at level, and, for a
// violation implied by the weaker level impliedBy's, a second that says so.
func (a *Anomaly) title(level, impliedBy string, st styler) string {
	t := fmt.Sprintf("%s: %s: %s", level, st.with(bold+red, "VIOLATED"), st.with(bold, a.Name.String()))
	if a.Class != "" && a.Class != a.Name.String() {
		t += " (" + a.Class + ")"
	}
	if impliedBy != "" {
		t += fmt.Sprintf("\n  as %s: the history breaks %s, a weaker level, already; what follows is that violation, which breaks %s too", impliedBy, impliedBy, level)
	}
	return t
}

func (a *Anomaly) writeShort(b *strings.Builder, level, impliedBy string, st styler) {
	fmt.Fprintf(b, "%s\n  %s\n", a.title(level, impliedBy, st), a.Summary)
	cycles := a.Cycles
	if len(a.Cases) > 0 {
		cycles = nil // each case shows its own
	}
	for i, c := range cycles {
		switch {
		case a.Constraint != nil:
			fmt.Fprintf(b, "if %s:\n", a.order(i))
		case len(a.Cycles) > 1:
			fmt.Fprintf(b, "cycle %d:\n", i+1)
		default:
			fmt.Fprintf(b, "cycle:\n")
		}
		for _, s := range c {
			fmt.Fprintf(b, "  %s: %s\n", s.arrow(st), s.Reason)
		}
	}
	for _, c := range a.Choices {
		fmt.Fprintf(b, "choice: %s\n", c)
	}
	for _, c := range a.Cases {
		picks := make([]string, len(c.Picks))
		for i, p := range c.Picks {
			picks[i] = p.String()
		}
		fmt.Fprintf(b, "with %s: %s:\n", strings.Join(picks, " and "), c.Name)
		for _, cy := range c.Cycles {
			for _, s := range cy {
				fmt.Fprintf(b, "  %s: %s\n", s.arrow(st), s.Reason)
			}
		}
	}
	if len(a.Txns) > 0 {
		fmt.Fprintf(b, "transactions:\n")
		for _, t := range a.Txns {
			fmt.Fprintf(b, "  %s (session %s, %s) %s  [%s]\n", t.Name, t.Session, t.Status, t.opsText(), t.Where)
		}
	}
	for _, n := range a.Notes {
		fmt.Fprintf(b, "note: %s\n", n)
	}
}

// order describes the order of writes that Cycles[i] assumes.
func (a *Anomaly) order(i int) string {
	c := a.Constraint
	first, second := c.A, c.B
	if i == 1 {
		first, second = second, first
	}
	return fmt.Sprintf("%s's write of %s came before %s's", first, keyWord(c.Key), second)
}

func (s Step) arrow(st styler) string {
	label := s.Kind
	if s.Key != "" {
		label += " " + string(s.Key)
	}
	arrow := "-" + label + "->"
	if s.Inferred {
		arrow = "=" + label + "=>"
	}
	return fmt.Sprintf("%s %s %s", s.From, st.with(kindColor[s.Kind], arrow), s.To)
}

func (a *Anomaly) writeFull(b *strings.Builder, level, impliedBy string, st styler) {
	fmt.Fprintf(b, "%s\n", a.title(level, impliedBy, st))
	if impliedBy != "" {
		level = impliedBy // the level the counterexample is minimal for
	}
	if a.Description != "" {
		fmt.Fprintf(b, "  %s\n", st.with(dim, wrap(a.Description, 76, "  ")))
	}
	fmt.Fprintf(b, "\n%s\n  %s\n", st.with(bold, "What happened"), wrap(a.Summary, 76, "  "))

	fmt.Fprintf(b, "\n%s", st.with(bold, "Counterexample"))
	switch {
	case a.Minimal:
		fmt.Fprintf(b, ": %d of the history's %d transactions; without any one of them the rest satisfies %s", len(a.Txns), a.HistoryTxns, level)
	case a.NotMinimal != "":
		head := wrap(fmt.Sprintf("Counterexample: %d of the history's %d transactions; not minimal: %s", len(a.Txns), a.HistoryTxns, a.NotMinimal), 76, "  ")
		b.WriteString(strings.TrimPrefix(head, "Counterexample"))
	}
	b.WriteString("\n")
	nameW, sessW := 0, 0
	for _, t := range a.Txns {
		nameW = max(nameW, len(t.Name))
		sessW = max(sessW, len(fmt.Sprintf("session %s #%d", t.Session, t.Position)))
	}
	for _, t := range a.Txns {
		where := fmt.Sprintf("session %s #%d", t.Session, t.Position)
		status := t.Status
		if status != "committed" {
			status = st.with(yellow, status)
		}
		ops := t.opsText()
		if t.OmittedOps > 0 {
			ops += st.with(dim, fmt.Sprintf(" (+%d more)", t.OmittedOps))
		}
		times := ""
		if t.Start != nil && t.End != nil {
			times = fmt.Sprintf(" [%d,%d]", *t.Start, *t.End)
		}
		name := st.with(bold, t.Name) + strings.Repeat(" ", nameW-len(t.Name))
		fmt.Fprintf(b, "  %s  %-*s  %s%s  %s  %s\n", name, sessW, where, status, times, ops, st.with(dim, t.Where))
	}

	if len(a.Cases) > 0 {
		// The cases below hold the cycles.
	} else if a.Constraint != nil && len(a.Cycles) == 2 {
		c := a.Constraint
		fmt.Fprintf(b, "\n%s\n", st.with(bold, fmt.Sprintf("Neither order of the writes of %s by %s and %s works", keyWord(c.Key), c.A, c.B)))
	} else if len(a.Cycles) > 1 {
		fmt.Fprintf(b, "\n%s\n", st.with(bold, "Every order of the writes closes one of these cycles"))
	}
	cycles := a.Cycles
	if len(a.Cases) > 0 {
		cycles = nil // each case shows its own
	}
	for i, c := range cycles {
		switch {
		case a.Constraint != nil && len(a.Cycles) == 2:
			fmt.Fprintf(b, "  if %s:\n", a.order(i))
		case len(a.Cycles) > 1:
			fmt.Fprintf(b, "  cycle %d:\n", i+1)
		default:
			fmt.Fprintf(b, "\n%s\n", st.with(bold, "The cycle"))
		}
		writeSteps(b, c, st, "    ")
	}
	a.writeCases(b, st, "  ")
	var extra []Step
	inCycle := map[string]bool{}
	for _, c := range a.Cycles {
		for _, s := range c {
			inCycle[stepKey(s)] = true
		}
	}
	for _, s := range a.Edges {
		if !inCycle[stepKey(s)] {
			extra = append(extra, s)
		}
	}
	if len(extra) > 0 {
		fmt.Fprintf(b, "\n%s\n", st.with(bold, "Where the values read came from"))
		writeSteps(b, extra, st, "    ")
	}
	if len(a.Notes) > 0 {
		b.WriteString("\n")
		for _, n := range a.Notes {
			fmt.Fprintf(b, "%s %s\n", st.with(yellow, "note:"), wrap(n, 76, "  "))
		}
	}
}

func writeSteps(b *strings.Builder, steps []Step, st styler, indent string) {
	w := 0
	for _, s := range steps {
		w = max(w, len(s.arrow(false)))
	}
	for _, s := range steps {
		pad := strings.Repeat(" ", w-len(s.arrow(false)))
		fmt.Fprintf(b, "%s%s%s  %s\n", indent, s.arrow(st), pad, s.Reason)
		if s.Because != "" {
			fmt.Fprintf(b, "%s%s  %s\n", indent, strings.Repeat(" ", w), st.with(yellow, "why: ")+wrap(s.Because, 72, indent+strings.Repeat(" ", w+7)))
		}
	}
}

// escaped returns a copy of r with every string that the input could have
// set passed through textsafe.Escape, for the text and DOT writers: an id,
// session or key (and the sentences that name them) may hold control
// characters, which a terminal would act on. Values need no escaping:
// Value.String quotes strings with strconv.Quote. r itself, whose JSON
// must keep the input's strings as they are, is left alone.
func (r *Report) escaped() *Report {
	e := *r
	e.Level = textsafe.Escape(r.Level)
	e.Reason = textsafe.Escape(r.Reason)
	e.Verdict = textsafe.Escape(r.Verdict)
	e.ImpliedBy = textsafe.Escape(r.ImpliedBy)
	e.Undecided = textsafe.Escape(r.Undecided)
	if r.Notes != nil {
		e.Notes = make([]string, len(r.Notes))
		for i, n := range r.Notes {
			e.Notes[i] = textsafe.Escape(n)
		}
	}
	if a := r.Anomaly; a != nil {
		c := *a
		c.Class = textsafe.Escape(a.Class)
		c.ElleType = textsafe.Escape(a.ElleType)
		c.Description = textsafe.Escape(a.Description)
		c.Summary = textsafe.Escape(a.Summary)
		c.NotMinimal = textsafe.Escape(a.NotMinimal)
		c.Txns = make([]TxnInfo, len(a.Txns))
		for i, t := range a.Txns {
			t.Name = textsafe.Escape(t.Name)
			t.ID = escapeID(t.ID)
			t.Session = escapeID(t.Session)
			t.Status = textsafe.Escape(t.Status)
			t.Where = textsafe.Escape(t.Where)
			t.Ops = make([]Op, len(a.Txns[i].Ops))
			for j, op := range a.Txns[i].Ops {
				op.Kind = textsafe.Escape(op.Kind)
				op.Key = escapeID(op.Key)
				t.Ops[j] = op
			}
			c.Txns[i] = t
		}
		if a.Cycles != nil {
			c.Cycles = make([][]Step, len(a.Cycles))
			for i, cycle := range a.Cycles {
				c.Cycles[i] = escapeSteps(cycle)
			}
		}
		if a.Constraint != nil {
			c.Constraint = &ConstraintInfo{
				Key: escapeID(a.Constraint.Key),
				A:   textsafe.Escape(a.Constraint.A),
				B:   textsafe.Escape(a.Constraint.B),
			}
		}
		c.Edges = escapeSteps(a.Edges)
		c.Choices, c.Cases = escapeCases(a.Choices, a.Cases)
		if a.Notes != nil {
			c.Notes = make([]string, len(a.Notes))
			for i, n := range a.Notes {
				c.Notes[i] = textsafe.Escape(n)
			}
		}
		e.Anomaly = &c
	}
	e.Anomalies = escapeFound(r.Anomalies)
	return &e
}

// escapeSteps is escaped for steps.
func escapeSteps(steps []Step) []Step {
	if steps == nil {
		return nil
	}
	out := make([]Step, len(steps))
	for i, s := range steps {
		s.From = textsafe.Escape(s.From)
		s.To = textsafe.Escape(s.To)
		s.Kind = textsafe.Escape(s.Kind)
		s.Key = escapeID(s.Key)
		s.Reason = textsafe.Escape(s.Reason)
		s.Because = textsafe.Escape(s.Because)
		s.BecauseCycle = escapeSteps(s.BecauseCycle)
		out[i] = s
	}
	return out
}

func escapeID(id verdict.ID) verdict.ID { return verdict.ID(textsafe.Escape(string(id))) }

// keyWord is a key's name in prose: "key 7" for numeric keys.
func keyWord(k verdict.ID) string {
	if isDigits(string(k)) {
		return "key " + string(k)
	}
	return string(k)
}

// wrap breaks text into lines of at most width runes, indenting the
// continuation lines.
func wrap(text string, width int, indent string) string {
	words := strings.Fields(text)
	var b strings.Builder
	n := 0
	for i, w := range words {
		if i > 0 {
			if n+1+len(w) > width {
				b.WriteString("\n" + indent)
				n = 0
			} else {
				b.WriteString(" ")
				n++
			}
		}
		b.WriteString(w)
		n += len(w)
	}
	return b.String()
}
