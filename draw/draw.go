// Package draw lays out the pictures of isocheck's reports and writes
// them as SVG or PNG with nothing to install: a counterexample's
// transactions and dependencies (Graph), the operations of processes over
// time (Timeline), and a quantity over time (Chart).
//
// A Graph is drawn the way a database engineer draws an anomaly on a
// whiteboard: one horizontal lane per session, the session's transactions
// as boxes along it in real-time or session order, and the dependencies as
// labelled arrows coloured by kind. The SVG's text is real text
// (selectable, searchable), its colours differ in grey scale too (and
// each label names its kind; SO is thicker, RT dotted, assumed edges
// dashed), and every arrow carries its justification as a tooltip. PNG
// uses the same layout, rasterised in Go. Text is measured with the
// Liberation fonts, which the SVG names first and the PNG is set in.
//
// Labels never overlap boxes or each other, and every string drawn is
// escaped, cleaned of control characters and invalid UTF-8, and cut to a
// bounded length, so that no input makes an unreadable or huge picture.
package draw

// The kinds of dependency a Graph colours; any other kind is drawn grey.
const (
	SO = "SO" // session order
	WR = "WR" // the target read the source's write
	WW = "WW" // the target overwrote the source's write
	RW = "RW" // the target overwrote the version the source read
	RT = "RT" // real time: the source ended before the target started
)

// Graph is a counterexample to draw: its transactions on lanes and the
// dependencies between them.
type Graph struct {
	// Title is the picture's heading ("SI violated: WriteSkew (G2-item)")
	// and Caption the lines under it (what happened).
	Title   string
	Caption []string
	// Lanes are the sessions, top to bottom.
	Lanes []Lane
	// Edges are the dependencies, drawn as arrows between nodes.
	Edges []Edge
	// Notes are lines drawn below the legend (such as the orders of the
	// writes that dashed edges assume).
	Notes []string
}

// Lane is one session: a name and its transactions, left to right.
type Lane struct {
	Name  string
	Nodes []Node
}

// Node is one transaction.
type Node struct {
	// ID names the node for Edge.From and Edge.To; unique in the Graph.
	ID string
	// Title is drawn in bold at the top ("T1"), Sub under it in small
	// grey ("#2 · write-skew.jsonl:3").
	Title, Sub string
	// Lines are the operations, one per line, with the values that
	// matter marked.
	Lines []Line
	// Status is "" for a committed transaction; any other (aborted,
	// unknown, rolled-back) is written in the box, which is drawn in
	// orange.
	Status string
	// Order places the node along the time axis: nodes of every lane are
	// put in columns by increasing Order (ties share a column when they
	// are on different lanes). Use a start time, or the input's order.
	Order int64
	// Context marks a node shown for context, such as the source of a
	// value read, beside those the picture is about (a cycle's): it is
	// drawn faded.
	Context bool
}

// Line is one line of text in a node: spans, some marked (drawn bold on
// a highlight).
type Line []Span

// Span is a piece of a Line.
type Span struct {
	Text string
	Mark bool
}

// Plain is a Line of one unmarked span.
func Plain(s string) Line { return Line{{Text: s}} }

// Edge is a dependency: From must come before To.
type Edge struct {
	From, To string
	// Kind decides colour and pattern (SO, WR, WW, RW, RT; others grey).
	Kind string
	// Label is written on the arrow ("RW x").
	Label string
	// Dashed marks an edge that holds only under an assumed order of the
	// writes; forced edges are solid.
	Dashed bool
	// Why justifies the edge in a sentence: the arrow's tooltip.
	Why string
	// Context marks an edge shown for context, such as where a value read
	// came from, beside those the picture is about: it is drawn faded.
	Context bool
	// FromLine and ToLine, when not 0, are the lines (from 1) of the From
	// and To nodes that the dependency concerns, such as the write and
	// the read of a WR edge: the arrow leaves and enters its boxes beside
	// those lines. A line past those drawn is the row counting them.
	FromLine, ToLine int
}

// Timeline is the operations of processes over time, as Porcupine and
// Jepsen draw them: one lane per process, one bar per operation from its
// call to its return.
type Timeline struct {
	Title   string
	Caption []string
	Lanes   []TimelineLane
	// Unit names the unit of the times ("ns"), for the axis's title;
	// empty when unknown.
	Unit string
	// Notes are lines drawn below the timeline.
	Notes []string
	// Marks are moments of note (faults injected), drawn as dashed
	// lines across the lanes; those outside the operations' times are
	// left out.
	Marks []TimelineMark
}

// TimelineMark is a moment of a Timeline, in its unit, and its label.
type TimelineMark struct {
	At    int64
	Label string
}

// TimelineLane is one process and its operations.
type TimelineLane struct {
	Name string
	Ops  []Interval
}

// Interval is one operation: called at Start, returned at End (in any
// unit, the same for the whole Timeline). Open marks one that never
// returned (drawn to the right edge, faded); Mark the one the
// explanation is about (drawn red and bold), Related those it names
// (drawn amber); Point, when not nil, the time at which the operation
// takes effect in a linearization (a tick on the bar).
type Interval struct {
	Start, End          int64
	Label               string
	Why                 string
	Open, Mark, Related bool
	Point               *int64
}

// Chart is one or more quantities over time, as a small line plot.
type Chart struct {
	Title          string
	XLabel, YLabel string
	Series         []Series
	// Marks are vertical lines at moments of note (faults injected).
	Marks []Mark
}

// Series is one line of a Chart.
type Series struct {
	Name   string
	Points []Point
}

// Point is one value of a Series.
type Point struct{ X, Y float64 }

// Mark is a moment of note on a Chart.
type Mark struct {
	X     float64
	Label string
}
