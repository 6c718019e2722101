package report

import (
	"fmt"
	"strconv"

	"github.com/isocheck/isocheck/draw"
	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/internal/textsafe"
	"github.com/isocheck/isocheck/interpret"
	"github.com/isocheck/isocheck/verdict"
)

// KVPage returns the page of a check of a key-value history: title names
// what was checked; levels are the reports of the levels checked,
// strongest first (one for --level L, one per level for --level all);
// found are the reports of the anomalies to show, the main one first
// (interpret.FoundReports of the main level's report), each counted as
// the report of its level lists it (Report.Anomalies). Without found,
// the page shows the anomaly of each violated level of levels. The
// caller adds the Command, the history's Facts (KVFacts), Notes and Run.
func KVPage(title string, levels []*interpret.Report, found []*interpret.Report) *Page {
	p := &Page{Title: title}
	for _, r := range levels {
		p.Levels = append(p.Levels, LevelRow(r))
	}
	if len(levels) > 1 {
		for _, r := range levels {
			if r.Satisfied != nil && *r.Satisfied {
				p.Strongest = r.Level
				break
			}
		}
	}
	if len(found) == 0 {
		for _, r := range levels {
			if r.Anomaly != nil {
				found = append(found, r)
			}
		}
	}
	for i, r := range found {
		if r == nil || r.Anomaly == nil {
			continue
		}
		a := FromKV(r)
		if f, ok := listed(levels, r.Level, i); ok {
			a.Count, a.More = f.Count, f.More
			if f.Name.String() != a.Name {
				a.ListedAs = textsafe.Escape(f.Name.String())
			}
		}
		p.Anomalies = append(p.Anomalies, a)
	}
	return p
}

// FoundKinds returns the kinds of anomaly of found, the list of every
// anomaly a history shows (interpret.EveryLevel), as the levels section
// of a page lists them, the input's control characters escaped.
func FoundKinds(found []interpret.Found) []Kind {
	var out []Kind
	for _, f := range found {
		k := Kind{Name: textsafe.Escape(f.Name.String()), Class: textsafe.Escape(f.Class), Level: textsafe.Escape(f.Weakest), Count: f.Count, More: f.More}
		for _, t := range f.Example {
			k.Example = append(k.Example, textsafe.Escape(t.Name)+" ("+textsafe.Escape(interpret.Place(t.Where))+")")
		}
		out = append(out, k)
	}
	return out
}

// listed returns the i-th anomaly that the report of level, among
// levels, lists.
func listed(levels []*interpret.Report, level string, i int) (interpret.Found, bool) {
	for _, r := range levels {
		if r.Level == level && i < len(r.Anomalies) {
			return r.Anomalies[i], true
		}
	}
	return interpret.Found{}, false
}

// LevelRow returns the row of the level table of rep: its verdict, the
// anomaly that broke it, or why there is no verdict.
func LevelRow(rep *interpret.Report) Level {
	l := LevelOf(&rep.Report, func(a *interpret.Anomaly) string { return a.Name.String() })
	if l.Verdict == verdict.Violated && rep.ImpliedBy != "" {
		l.Reason = fmt.Sprintf("as %s, the weakest level the history breaks", textsafe.Escape(rep.ImpliedBy))
	}
	return l
}

// FromKV returns the anomaly of rep, a check's report on a key-value
// history, as a page shows it: its names and what happened, its picture
// (rep.Graph), its transactions with their operations marked as in the
// picture, and every dependency the picture draws with its reason. The
// input's control characters are escaped (see internal/textsafe). Count
// and More are left to the caller; a report without an anomaly gives
// the zero Anomaly with its level.
func FromKV(rep *interpret.Report) Anomaly {
	out := Anomaly{Level: textsafe.Escape(rep.Level)}
	a := rep.Anomaly
	if a == nil {
		return out
	}
	out = fromFinding(rep.Level, a.Finding)
	out.ImpliedBy = textsafe.Escape(rep.ImpliedBy)
	if a.NotMinimal != "" {
		out.Shown = "Shrunk from the history, but not minimal: " + textsafe.Escape(a.NotMinimal) + "."
	}
	out.Graph = rep.Graph()
	lines := map[string][]draw.Line{}
	for _, l := range out.Graph.Lanes {
		for _, n := range l.Nodes {
			lines[n.ID] = n.Lines
		}
	}
	for _, t := range a.Txns {
		name := textsafe.Escape(t.Name)
		ops, ok := lines[name]
		if !ok {
			for _, op := range t.Ops {
				ops = append(ops, draw.Plain(textsafe.Escape(op.String())))
			}
		}
		out.Txns = append(out.Txns, Txn{
			Name:       name,
			Session:    textsafe.Escape(string(t.Session)),
			Position:   t.Position,
			Status:     textsafe.Escape(t.Status),
			Where:      textsafe.Escape(t.Where),
			Times:      times(t),
			Ops:        ops,
			OmittedOps: t.OmittedOps,
		})
	}
	for _, g := range a.StepGroups() {
		for _, s := range g.Steps {
			out.Edges = append(out.Edges, Edge{
				From:    textsafe.Escape(s.From),
				To:      textsafe.Escape(s.To),
				Kind:    s.Kind,
				Key:     textsafe.Escape(string(s.Key)),
				Reason:  textsafe.Escape(s.Reason),
				Because: textsafe.Escape(s.Because),
				Assumed: s.Assumed,
				Group:   textsafe.Escape(g.Title),
			})
		}
	}
	return out
}

// times says when t ran, as the text report does, or "" when the history
// does not say.
func times(t interpret.TxnInfo) string {
	if t.Start == nil || t.End == nil {
		return ""
	}
	return fmt.Sprintf("[%d, %d]", *t.Start, *t.End)
}

// KVFacts returns the statistics of a key-value history that a page
// shows: its transactions (and how many have each status), sessions,
// keys and operations.
func KVFacts(h *history.History) []Fact {
	statuses := h.StatusCounts()
	facts := []Fact{{"transactions", strconv.Itoa(len(h.Txns))}}
	for _, s := range []history.Status{history.Committed, history.Aborted, history.Unknown, history.RolledBack} {
		if n := statuses[s]; n > 0 {
			facts = append(facts, Fact{s.String(), strconv.Itoa(n)})
		}
	}
	facts = append(facts,
		Fact{"sessions", strconv.Itoa(len(h.Sessions))},
		Fact{"keys", strconv.Itoa(h.NumKeys())},
		Fact{"operations", strconv.Itoa(len(h.Ops))},
	)
	return facts
}

// fromFinding fills in what every vertical's explanation says of its
// violation (verdict.Finding): the anomaly, what it means, what
// happened, and whether the counterexample is minimal, and if not why.
func fromFinding(level string, f verdict.Finding) Anomaly {
	a := Anomaly{
		Level:       textsafe.Escape(level),
		Name:        f.Name.String(),
		Class:       textsafe.Escape(f.Class),
		Description: textsafe.Escape(f.Description),
		Summary:     textsafe.Escape(f.Summary),
		Minimal:     f.Minimal,
	}
	if f.NotMinimal != "" {
		a.Shown = "Not minimal: " + textsafe.Escape(f.NotMinimal) + "."
	}
	return a
}
