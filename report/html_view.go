package report

import (
	"cmp"
	"fmt"
	"html/template"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/isocheck/isocheck/draw"
	"github.com/isocheck/isocheck/verdict"
)

// The most of each kind of thing one page shows; the rest are counted
// ("and 9800 more").
const (
	maxLevels       = 50
	maxAnomalies    = 50
	maxTxns         = 200
	maxEdges        = 200
	maxOps          = 20
	maxFacts        = 200
	maxNotes        = 100
	maxFaults       = 200
	maxAbortReasons = 50
)

// pageView is a Page as the template shows it: every string cleaned, every
// list cut to its limit, every figure drawn.
type pageView struct {
	Style                template.CSS
	Title, Command, Made string
	Banner               banner
	Levels               []levelRow
	LevelsMore           int
	// Found lists every kind of anomaly found, in the levels section.
	Found     []kindRow
	FoundMore int
	// Strongest is the line under the level table; "" for one level.
	Strongest     string
	Contents      []contentsEntry
	Anomalies     []anomalyView
	AnomaliesMore int
	Facts         []Fact
	FactsMore     int
	Run           *runView
	Notes         []string
	NotesMore     int
}

type levelRow struct {
	Name, Verdict, Class string
	// Anomaly is the anomaly found and Href the #id of its section, if
	// shown; Reason why there is no verdict.
	Anomaly, Href, Reason string
}

// kindRow is a kind of anomaly found (Kind): its count and example as
// text, and Href the #id of the first section showing it, if any.
type kindRow struct {
	Name, Class, Level, Count, Example, Href string
}

type contentsEntry struct{ ID, Text string }

type anomalyView struct {
	ID, Level, Name, Class string
	Count                  string
	ListedAs               string
	ImpliedBy              string
	Description, Summary   string
	Minimal                bool
	Shown                  string
	Figures                []figure
	Txns                   []txnRow
	TxnsMore               int
	Edges                  []edgeRow
	EdgesMore              int
	Grouped                bool // some rows start groups
	Timed                  bool // some transactions say when they ran
	Detail                 string
}

type txnRow struct {
	Name, Session, Position, Status, Where, Times string
	Committed                                     bool
	Ops                                           [][]spanView
	MoreOps                                       int
}

type spanView struct {
	Text string
	Mark bool
}

type edgeRow struct {
	From, To, Kind, Key, Reason, Because string
	Assumed                              bool
	// Group, when set, starts a group of rows with this title.
	Group string
}

type runView struct {
	Summary      []Fact
	AbortReasons []Fact
	AbortMore    int
	Faults       []string
	FaultsMore   int
	Chart        *figure
}

// view builds what the template shows of p. The parts that say the most
// in the fewest words (verdicts, statistics, notes) are built first, so
// that when a page reaches its size limit, the anomalies' long tables are
// what is cut.
func (p *Page) view(style string) pageView {
	c, f := newCleaner(), newFigures()
	v := pageView{
		Style:   template.CSS(style),
		Title:   c.short(p.Title),
		Command: c.prose(p.Command),
		Made:    c.prose(p.Made),
		Banner:  bannerOf(p, c),
	}
	v.Levels, v.LevelsMore = levelRows(p.Levels, c)
	v.Strongest = strongestLine(p, c)
	v.Facts, v.FactsMore = factRows(p.Facts, c)
	if p.Run != nil {
		v.Run = p.Run.view(c, f)
	}
	for i, n := range p.Notes {
		if i == maxNotes || c.full() {
			v.NotesMore = len(p.Notes) - i
			break
		}
		c.row()
		v.Notes = append(v.Notes, c.prose(n))
	}
	for i := range p.Anomalies {
		if i == maxAnomalies || c.full() {
			v.AnomaliesMore = len(p.Anomalies) - i
			break
		}
		v.Anomalies = append(v.Anomalies, p.Anomalies[i].view(i, c, f))
	}
	v.Found, v.FoundMore = kindRows(p.Found, c)
	linkLevels(v.Levels, v.Anomalies)
	linkKinds(v.Found, v.Anomalies)
	if len(v.Anomalies) > 1 {
		for _, a := range v.Anomalies {
			v.Contents = append(v.Contents, contentsEntry{ID: a.ID, Text: heading(a.Level, a.Name, a.Class)})
		}
	}
	return v
}

func levelRows(levels []Level, c *cleaner) ([]levelRow, int) {
	var rows []levelRow
	for i, l := range levels {
		if i == maxLevels {
			return rows, len(levels) - i
		}
		c.row()
		rows = append(rows, levelRow{
			Name:    c.short(l.Name),
			Verdict: l.Verdict.String(),
			Class:   verdictClass(l.Verdict),
			Anomaly: c.short(l.Anomaly),
			Reason:  c.prose(l.Reason),
		})
	}
	return rows, 0
}

// linkLevels points each level's anomaly at the first section showing it.
func linkLevels(rows []levelRow, anomalies []anomalyView) {
	for i, r := range rows {
		for _, a := range anomalies {
			if r.Anomaly != "" && a.Level == r.Name && a.Name == r.Anomaly {
				rows[i].Href = a.ID
				break
			}
		}
	}
}

// kindRows are the rows of the list of every kind of anomaly found.
func kindRows(kinds []Kind, c *cleaner) ([]kindRow, int) {
	var rows []kindRow
	for i, k := range kinds {
		if i == maxLevels || c.full() {
			return rows, len(kinds) - i
		}
		c.row()
		count := strconv.Itoa(k.Count) + " found"
		if k.More {
			count = strconv.Itoa(k.Count) + " or more found"
		}
		rows = append(rows, kindRow{
			Name:    c.short(k.Name),
			Class:   c.short(k.Class),
			Level:   c.short(k.Level),
			Count:   count,
			Example: c.prose(strings.Join(k.Example, ", ")),
		})
	}
	return rows, 0
}

// linkKinds points each kind of anomaly found at the first section
// showing an anomaly of its name.
func linkKinds(rows []kindRow, anomalies []anomalyView) {
	for i, r := range rows {
		for _, a := range anomalies {
			if a.Name == r.Name {
				rows[i].Href = a.ID
				break
			}
		}
	}
}

// strongestLine says which of several levels checked the history keeps.
func strongestLine(p *Page, c *cleaner) string {
	if len(p.Levels) < 2 {
		return ""
	}
	if p.Strongest != "" {
		return "strongest level kept: " + c.short(p.Strongest)
	}
	for _, l := range p.Levels {
		if l.Verdict == verdict.Unknown {
			return "strongest level kept: not known, as some levels have no verdict"
		}
	}
	return "strongest level kept: none of the levels checked"
}

func factRows(facts []Fact, c *cleaner) ([]Fact, int) {
	var rows []Fact
	for i, f := range facts {
		if i == maxFacts || c.full() {
			return rows, len(facts) - i
		}
		c.row()
		rows = append(rows, Fact{Name: c.short(f.Name), Value: c.prose(f.Value)})
	}
	return rows, 0
}

func (a *Anomaly) view(i int, c *cleaner, f *figures) anomalyView {
	v := anomalyView{
		ID:          "anomaly-" + strconv.Itoa(i+1),
		Level:       c.short(a.Level),
		Name:        c.short(a.Name),
		Class:       c.short(a.Class),
		Count:       countText(a.Count, a.More),
		ListedAs:    c.short(a.ListedAs),
		ImpliedBy:   c.short(a.ImpliedBy),
		Description: c.prose(a.Description),
		Summary:     c.prose(a.Summary),
		Minimal:     a.Minimal,
		Shown:       c.prose(a.Shown),
		Detail:      c.block(a.Detail),
	}
	if a.Graph != nil {
		v.Figures = append(v.Figures, f.draw(c, a.Graph.WriteSVG))
	}
	if a.Timeline != nil {
		v.Figures = append(v.Figures, f.draw(c, a.Timeline.WriteSVG))
	}
	for i, t := range a.Txns {
		if i == maxTxns || c.full() {
			v.TxnsMore = len(a.Txns) - i
			break
		}
		v.Txns = append(v.Txns, t.view(c))
		v.Timed = v.Timed || t.Times != ""
	}
	group := ""
	for i, e := range a.Edges {
		if i == maxEdges || c.full() {
			v.EdgesMore = len(a.Edges) - i
			break
		}
		c.row()
		if e.Group != group {
			group = e.Group
			v.Grouped = true
		} else {
			e.Group = ""
		}
		v.Edges = append(v.Edges, edgeRow{
			Group:   c.prose(e.Group),
			From:    c.short(e.From),
			To:      c.short(e.To),
			Kind:    c.short(e.Kind),
			Key:     c.short(e.Key),
			Reason:  c.prose(e.Reason),
			Because: c.prose(e.Because),
			Assumed: e.Assumed,
		})
	}
	return v
}

// countText says how many were found: "3 found", "100+ found", or ""
// when they were not counted.
func countText(n int, more bool) string {
	switch {
	case n <= 0:
		return ""
	case more:
		return fmt.Sprintf("%d+ found", n)
	}
	return fmt.Sprintf("%d found", n)
}

func (t *Txn) view(c *cleaner) txnRow {
	c.row()
	v := txnRow{
		Name:      c.short(t.Name),
		Session:   c.short(t.Session),
		Status:    c.short(t.Status),
		Where:     c.short(t.Where),
		Times:     c.short(t.Times),
		Committed: t.Status == "" || t.Status == "committed" || t.Status == "ok",
		MoreOps:   max(t.OmittedOps, 0),
	}
	if t.Position > 0 {
		v.Position = "#" + strconv.Itoa(t.Position)
	}
	for i, line := range t.Ops {
		if i == maxOps {
			v.MoreOps += len(t.Ops) - i
			break
		}
		v.Ops = append(v.Ops, lineView(line, c))
	}
	return v
}

// lineView cleans one operation's spans, showing at most maxShort
// characters of them in all.
func lineView(line draw.Line, c *cleaner) []spanView {
	var spans []spanView
	left := maxShort
	for _, s := range line {
		if left <= 0 {
			spans = append(spans, spanView{Text: "…"})
			break
		}
		text := c.clean(s.Text, left, false)
		left -= utf8.RuneCountInString(text) + 1
		spans = append(spans, spanView{Text: text, Mark: s.Mark})
	}
	return spans
}

func (r *Run) view(c *cleaner, f *figures) *runView {
	v := &runView{}
	add := func(name, value string) { v.Summary = append(v.Summary, Fact{Name: name, Value: value}) }
	if r.Database != "" {
		add("database", c.short(r.Database))
	}
	if r.Workload != "" {
		add("workload", c.short(r.Workload))
	}
	if r.Planned > 0 || r.Database != "" {
		// A run's; a history's faults alone (FaultsOf) have no plan.
		add("transactions", fmt.Sprintf("%d planned · %d committed · %d aborted · %d unknown",
			r.Planned, r.Committed, r.Aborted, r.Unknown))
	}
	if r.Duration > 0 {
		add("duration", roundDuration(r.Duration).String())
		add("throughput", fmt.Sprintf("%.1f committed per second", float64(r.Committed)/r.Duration.Seconds()))
	}
	if r.P50|r.P95|r.P99|r.Max != 0 {
		add("latency", fmt.Sprintf("p50 %v · p95 %v · p99 %v · max %v",
			roundDuration(r.P50), roundDuration(r.P95), roundDuration(r.P99), roundDuration(r.Max)))
	}
	reasons := make([]string, 0, len(r.AbortReasons))
	for reason := range r.AbortReasons {
		reasons = append(reasons, reason)
	}
	slices.SortFunc(reasons, func(a, b string) int {
		return cmp.Or(cmp.Compare(r.AbortReasons[b], r.AbortReasons[a]), strings.Compare(a, b))
	})
	for i, reason := range reasons {
		if i == maxAbortReasons || c.full() {
			v.AbortMore = len(reasons) - i
			break
		}
		c.row()
		v.AbortReasons = append(v.AbortReasons, Fact{Name: c.prose(reason), Value: strconv.Itoa(r.AbortReasons[reason])})
	}
	for i, fault := range r.Faults {
		if i == maxFaults || c.full() {
			v.FaultsMore = len(r.Faults) - i
			break
		}
		c.row()
		v.Faults = append(v.Faults, c.prose(fault))
	}
	if r.OverTime != nil {
		chart := f.draw(c, r.OverTime.WriteSVG)
		v.Chart = &chart
	}
	return v
}

// roundDuration keeps three significant digits of d: 1.23ms, 45.6µs.
func roundDuration(d time.Duration) time.Duration {
	unit := time.Duration(1)
	for d/unit >= 1000 || d/unit <= -1000 {
		unit *= 10
	}
	return d.Round(unit)
}
