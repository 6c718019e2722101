// Package report writes what a check found as one self-contained HTML
// page: the levels checked, every anomaly with its counterexample drawn
// and every dependency justified, the history's statistics and, for a
// history recorded by `isocheck run`, the run's summary. The page loads
// nothing (no script, font or stylesheet from anywhere), so it opens from
// disk on a machine with nothing installed.
package report

import (
	"time"

	"github.com/isocheck/isocheck/draw"
	"github.com/isocheck/isocheck/internal/textsafe"
	"github.com/isocheck/isocheck/verdict"
)

// Page is everything one page shows.
type Page struct {
	// Title names what was checked (the input file, or the run).
	Title string
	// Command is the command line that made the page, shown in small.
	Command string
	// Levels are the levels checked, strongest first.
	Levels []Level
	// Strongest is the strongest level the history satisfies, when more
	// than one was checked; "" when it satisfies none of them.
	Strongest string
	// Anomalies are the anomalies found, the main one first.
	Anomalies []Anomaly
	// Found lists every kind of anomaly the history shows, across the
	// levels checked (--level all), which the levels section lists.
	Found []Kind
	// Facts are the history's statistics: transactions, sessions, keys,
	// operations, ...
	Facts []Fact
	// Run is the run's summary, for a history `isocheck run` recorded.
	Run *Run
	// Notes are what else the reader should know (dropped events, ...).
	Notes []string
	// Made, when set, says what made the page and when ("isocheck v1.2
	// (abc123), 2026-12-05 05:46 UTC, after 1.2s"), for its footer.
	Made string
}

// Level is one row of the level table.
type Level struct {
	Name    string // SER
	Verdict verdict.Verdict
	// Anomaly names the anomaly found, for a violated level.
	Anomaly string
	// Reason says why there is no verdict.
	Reason string
}

// LevelOf returns the row of the level table of r, the head every
// vertical's report has: its verdict, the anomaly that broke it (named by
// name, when r has one), or why there is no verdict. The input's control
// characters are escaped (see internal/textsafe).
func LevelOf[E any](r *verdict.Report[E], name func(*E) string) Level {
	l := Level{Name: textsafe.Escape(r.Level)}
	switch {
	case r.Satisfied == nil:
		l.Verdict = verdict.Unknown
		l.Reason = textsafe.Escape(r.Reason)
	case *r.Satisfied:
		l.Verdict = verdict.Satisfied
	default:
		l.Verdict = verdict.Violated
		if r.Anomaly != nil {
			l.Anomaly = textsafe.Escape(name(r.Anomaly))
		}
	}
	return l
}

// Kind is one kind of anomaly found, as the levels section lists it.
type Kind struct {
	// Name and Class name it (WriteSkew, G2-item).
	Name, Class string
	// Level is the weakest level that forbids it, which its example
	// violates, as it does every stronger level.
	Level string
	// Count is how many were found (More: at least that many).
	Count int
	More  bool
	// Example lists the transactions of one example, each with its
	// place in the input, short: "T3 (line 4)".
	Example []string
}

// Fact is one statistic: a name and its value, as text.
type Fact struct{ Name, Value string }

// Anomaly is one anomaly found, with its counterexample.
type Anomaly struct {
	// Level is the level it breaks (SI).
	Level string
	// Name and Class name it (WriteSkew, G2-item); Description says what
	// it means in general and Summary what happened here.
	Name, Class, Description, Summary string
	// ImpliedBy, when set, is the weaker level, the weakest the history
	// breaks, whose violation this is: it breaks Level too.
	ImpliedBy string
	// ListedAs, when set, is the name under which the check's list of
	// anomalies gave this counterexample, when, cut from the history, it
	// shows another anomaly (Name) first.
	ListedAs string
	// Count is how many were found (More: at least that many); 0 when
	// not counted.
	Count int
	More  bool
	// Minimal says the counterexample is minimal.
	Minimal bool
	// Shown, when set, says what the transactions shown are, instead of
	// whether they are a minimal counterexample (for a timeline of
	// operations, or a whole history found by exploration).
	Shown string
	// Graph draws the counterexample; Timeline draws a linearizability
	// counterexample. Either may be nil.
	Graph    *draw.Graph
	Timeline *draw.Timeline
	// Txns are the counterexample's transactions, Edges its dependencies.
	Txns  []Txn
	Edges []Edge
	// Detail is preformatted text shown as it is (an assertion, a
	// program's output).
	Detail string
}

// Txn is one transaction of a counterexample.
type Txn struct {
	Name, Session string
	Position      int    // in its session, from 1
	Status        string // committed, aborted, ..., or ok (a register operation that returned); any but committed and ok is shown as a warning
	Where         string // file:line, or the Jepsen :index
	Times         string // when it ran ("[20, 30]"), where the history says
	Ops           []draw.Line
	OmittedOps    int
}

// Edge is one dependency, justified.
type Edge struct {
	From, To, Kind, Key string
	Reason              string
	Because             string // why the order of writes it rests on holds
	Assumed             bool
	// Group, when set, titles the group of dependencies it is listed in
	// ("the cycle", "where the values read came from", "case 1: ...");
	// the page starts a group where it changes.
	Group string
}

// Run is what `isocheck run` did.
type Run struct {
	Database, Workload                   string
	Planned, Committed, Aborted, Unknown int
	Duration                             time.Duration
	P50, P95, P99, Max                   time.Duration
	AbortReasons                         map[string]int
	// Faults are the faults injected, in order, as text.
	Faults []string
	// OverTime plots commits and aborts per interval.
	OverTime *draw.Chart
}
