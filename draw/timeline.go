package draw

import (
	"io"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Sizes of a Timeline.
const (
	tlMinWidth = 480  // of the time axis
	tlMaxWidth = 8000 // however many operations there are
	tlMinGap   = 14   // between neighbouring times on the axis
	tlRow      = 24   // height of a row of bars
	tlBar      = 18   // height of a bar
	tlLabelMax = 40   // runes of an operation's label
	tlLabelPad = 10   // around a label inside its bar
)

var (
	opStyle       = style{Size: 11, Color: "#1e3a8a"}
	opMarkStyle   = style{Size: 11, Bold: true, Color: "#b91c1c"}
	opRelStyle    = style{Size: 11, Bold: true, Color: "#92400e"}
	axisStyle     = style{Size: 11, Color: "#4b5563"}
	axisNameStyle = style{Size: 11, Color: "#374151"}
)

// The colours of an operation's bar: fill and stroke.
var (
	opPaint     = paint{Fill: "#dbeafe", Stroke: "#3b82f6", StrokeWidth: 1}
	opMarkPaint = paint{Fill: "#fee2e2", Stroke: "#dc2626", StrokeWidth: 2}
	opRelPaint  = paint{Fill: "#fef3c7", Stroke: "#d97706", StrokeWidth: 2}
)

// WriteSVG writes t as one <svg> element.
func (t *Timeline) WriteSVG(w io.Writer) error {
	return writeSVG(w, layoutTimeline(newFonts(), t))
}

// WritePNG writes t as a PNG image at twice the SVG's size.
func (t *Timeline) WritePNG(w io.Writer) error {
	f := newFonts()
	return writePNG(w, layoutTimeline(f, t), f)
}

// placedOp is an operation given its bar and its row.
type placedOp struct {
	iv     Interval
	label  string
	x1, x2 float64
	extent float64 // right end of bar or label, whichever is further
	labelW float64 // width of the label's text
	row    int
}

// layoutTimeline lays t out: a lane per process, its operations stacked
// on as many rows as keep their bars and labels apart, over a time axis
// warped, as Porcupine's visualizer warps it, so that every label fits
// inside its bar.
func layoutTimeline(f *fonts, t *Timeline) *scene {
	nameW := 0.0
	for _, ln := range t.Lanes {
		nameW = max(nameW, f.width(laneNameStyle, clean(ln.Name, maxLabel))*slack)
	}
	left := nameW + 24
	sc := newTimeScale(f, t)
	axisW := sc.width
	right := left + axisW
	x := func(v int64) float64 { return left + sc.x(v) }

	// The marks within the operations' times, their labels in rows
	// above the lanes.
	var xs []float64
	var labels []string
	if n := len(sc.times); n > 0 {
		for _, m := range t.Marks {
			if m.At >= sc.times[0] && m.At <= sc.times[n-1] {
				xs, labels = append(xs, x(m.At)), append(labels, m.Label)
			}
		}
	}
	marks, rows := placeMarks(f, xs, labels)
	var body []item
	y := 0.0
	if rows > 0 {
		y = float64(rows)*markRow + 8
	}
	top := y
	for i, ln := range t.Lanes {
		ops, rows := placeOps(f, ln.Ops, x, right)
		h := float64(max(rows, 1))*tlRow + 12
		fill := "#f3f4f6"
		if i%2 == 1 {
			fill = "#f9fafb"
		}
		body = append(body, item{Rect: &rectShape{X: 0, Y: y, W: right + 28, H: h, Radius: 4, paint: paint{Fill: fill}}})
		body = append(body, fitted(f, 8, y+6+tlRow/2+4, laneNameStyle, "start", clean(ln.Name, maxLabel)))
		for _, op := range ops {
			body = append(body, drawOp(op, y+6+float64(op.row)*tlRow, x))
		}
		y += h + 4
	}
	for _, m := range marks {
		body = append(body, m.draw(top, y))
	}
	axis, axisH := sc.axis(f, left, y+4, t.Unit)
	body = append(body, axis...)
	bodyH := y + 4 + axisH

	doc := newDocument(f, math.Max(right+24, 620))
	doc.heading(t.Title, t.Caption)
	shift(body, margin, doc.y)
	doc.items = append(doc.items, body...)
	doc.grow(right + 28)
	doc.y += bodyH
	doc.timelineLegend(t)
	doc.notes(t.Notes)
	return doc.scene(clean(t.Title, maxText))
}

// timeScale places the times of a Timeline along its axis: its distinct
// times in order, each at least tlMinGap after the one before, the gaps
// widened until every operation's label fits inside its bar. The axis is
// not to scale: it keeps the order of the times, which is what real time
// decides, and spends its width where the labels need it.
type timeScale struct {
	times []int64   // distinct, increasing
	xs    []float64 // where each is, from 0
	width float64   // of the whole axis, open bars' tails included
}

// newTimeScale places the times of t.
func newTimeScale(f *fonts, t *Timeline) *timeScale {
	var times []int64
	for _, ln := range t.Lanes {
		for _, op := range ln.Ops {
			times = append(times, op.Start)
			if !op.Open {
				times = append(times, op.End)
			}
			if op.Point != nil {
				times = append(times, *op.Point)
			}
		}
	}
	slices.Sort(times)
	times = slices.Compact(times)
	sc := &timeScale{times: times}
	if len(times) == 0 {
		sc.width = tlMinWidth
		return sc
	}
	gaps := make([]float64, len(times)-1)
	for i := range gaps {
		gaps[i] = tlMinGap
	}
	// Each closed operation spanning times i..j needs gaps i..j-1 to add
	// up to its label: taken in order of j, the missing width goes to the
	// last gap it spans, which every later need spanning it keeps.
	type need struct {
		i, j int
		w    float64
	}
	var needs []need
	tail := 16.0 // after the last time, for bars that never returned
	for _, ln := range t.Lanes {
		for _, op := range ln.Ops {
			w := labelWidth(f, op) + tlLabelPad
			i := sc.index(op.Start)
			if op.Open {
				needs = append(needs, need{i, len(times), w})
				continue
			}
			if j := sc.index(op.End); j > i {
				needs = append(needs, need{i, j, w})
			}
		}
	}
	slices.SortStableFunc(needs, func(a, b need) int { return a.j - b.j })
	// pre[k] is the x of time k once the gaps before it are final: those
	// before gap j-1 are, when the needs ending at j are met.
	pre := make([]float64, len(times))
	filled := 0
	for _, n := range needs {
		for filled < min(n.j, len(times)-1) {
			pre[filled+1] = pre[filled] + gaps[filled]
			filled++
		}
		if n.j == len(times) { // open: up to the axis's end
			tail = math.Max(tail, n.w-(pre[len(times)-1]-pre[n.i]))
			continue
		}
		if short := n.w - (pre[n.j-1] + gaps[n.j-1] - pre[n.i]); short > 0 {
			gaps[n.j-1] += short
			pre[n.j] = pre[n.j-1] + gaps[n.j-1]
		}
	}
	for filled < len(times)-1 {
		pre[filled+1] = pre[filled] + gaps[filled]
		filled++
	}
	total := pre[len(times)-1] + tail
	scale := 1.0
	if total > tlMaxWidth {
		// Hostile or huge: keep the axis bounded, labels beside their
		// bars where they no longer fit inside.
		scale = tlMaxWidth / total
	}
	sc.xs = make([]float64, len(times))
	x := 0.0
	for k := range times {
		if k > 0 {
			x += gaps[k-1] * scale
		}
		sc.xs[k] = x
	}
	sc.width = math.Max(tlMinWidth, x+tail*scale)
	if x+tail*scale < tlMinWidth && x > 0 {
		// Spread a short axis over the least width.
		stretch := (tlMinWidth - tail*scale) / x
		for k := range sc.xs {
			sc.xs[k] *= stretch
		}
	}
	return sc
}

// labelWidth is the width of op's label as drawOp sets it.
func labelWidth(f *fonts, op Interval) float64 {
	label := clean(op.Label, tlLabelMax)
	if op.Open {
		label += " …"
	}
	return f.width(opStyleOf(op), label) * slack
}

// index is the place of v among the scale's times (the nearest below
// when v is not one of them).
func (sc *timeScale) index(v int64) int {
	i, found := slices.BinarySearch(sc.times, v)
	if !found && i > 0 {
		i--
	}
	return min(i, max(len(sc.times)-1, 0))
}

// x is where time v is on the axis: between its neighbours, in
// proportion, when it is not one of the scale's times.
func (sc *timeScale) x(v int64) float64 {
	n := len(sc.times)
	if n == 0 {
		return 0
	}
	i, found := slices.BinarySearch(sc.times, v)
	switch {
	case found:
		return sc.xs[i]
	case i == 0:
		return sc.xs[0]
	case i == n:
		return sc.width
	}
	a, b := float64(sc.times[i-1]), float64(sc.times[i])
	return sc.xs[i-1] + (float64(v)-a)/(b-a)*(sc.xs[i]-sc.xs[i-1])
}

// axis paints the axis under the lanes at y: a tick at each time, labelled
// where its label keeps clear of the one before (the first and the last
// always), and the axis's title under them. It returns the items and
// their height.
func (sc *timeScale) axis(f *fonts, left, y float64, unit string) ([]item, float64) {
	stroke := paint{Stroke: "#6b7280", StrokeWidth: 1}
	items := []item{{Path: &pathShape{Segs: []seg{{Op: 'M', P: pt{left, y}}, {Op: 'L', P: pt{left + sc.width, y}}}, paint: stroke}}}
	lastEnd := math.Inf(-1)
	n := len(sc.times)
	// The last time's label first, so that the others keep clear of it.
	lastLabel := ""
	lastStart := math.Inf(1)
	if n > 0 {
		lastLabel = timeLabel(sc.times[n-1])
		lastStart = left + sc.xs[n-1] - f.width(axisStyle, lastLabel)*slack/2
	}
	for k, v := range sc.times {
		tx := left + sc.xs[k]
		items = append(items, item{Path: &pathShape{Segs: []seg{{Op: 'M', P: pt{tx, y}}, {Op: 'L', P: pt{tx, y + 5}}}, paint: stroke}})
		label := timeLabel(v)
		w := f.width(axisStyle, label) * slack
		if k == n-1 || tx-w/2 >= lastEnd+8 && tx+w/2 <= lastStart-8 {
			items = append(items, fitted(f, tx, y+17, axisStyle, "middle", label))
			lastEnd = tx + w/2
		}
	}
	title := "time"
	if unit != "" {
		title += " (" + clean(unit, maxLabel) + ")"
	}
	title += ": in order, not to scale; spaced so that every label fits its bar"
	items = append(items, fitted(f, left, y+34, axisNameStyle, "start", title))
	return items, 42
}

// timeLabel writes a time as an integer with its thousands apart:
// 1,250,000.
func timeLabel(v int64) string {
	s := strconv.FormatInt(v, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// timelineLegend says what the colours of the bars used mean, and what
// a tick on a bar is.
func (d *document) timelineLegend(t *Timeline) {
	var mark, related, open, point, plain bool
	for _, ln := range t.Lanes {
		for _, op := range ln.Ops {
			mark, related = mark || op.Mark, related || op.Related
			plain = plain || !op.Mark && !op.Related
			open, point = open || op.Open, point || op.Point != nil
		}
	}
	entry := func(p paint, dashed bool, meaning string) {
		d.y += 16
		if dashed {
			p.Dash = []float64{4, 3}
			p.FillOpacity = 0.45
		}
		d.items = append(d.items, item{Rect: &rectShape{X: margin, Y: d.y - 10, W: 30, H: 12, Radius: 3, paint: p}})
		it := fitted(d.f, margin+38, d.y, legendStyle, "start", meaning)
		it.Text.Class = "legend"
		d.items = append(d.items, it)
		d.grow(38 + d.f.width(legendStyle, meaning)*slack)
	}
	if mark {
		entry(opMarkPaint, false, "red: the operation that cannot take effect")
	}
	if related {
		entry(opRelPaint, false, "amber: the operations its reason names")
	}
	if plain {
		entry(opPaint, false, "blue: the register's other operations")
	}
	if open {
		entry(opPaint, true, "dashed: never returned (it may take effect any time after its call)")
	}
	if point {
		d.y += 16
		mid := d.y - 4
		d.items = append(d.items, item{Path: &pathShape{Segs: []seg{{Op: 'M', P: pt{margin + 15, mid - 7}}, {Op: 'L', P: pt{margin + 15, mid + 7}}}, paint: paint{Stroke: "#111827", StrokeWidth: 2}}})
		meaning := "tick: where the operation takes effect in the linearization found"
		it := fitted(d.f, margin+38, d.y, legendStyle, "start", meaning)
		it.Text.Class = "legend"
		d.items = append(d.items, it)
		d.grow(38 + d.f.width(legendStyle, meaning)*slack)
	}
}

// opStyleOf is the style of op's label.
func opStyleOf(op Interval) style {
	switch {
	case op.Mark:
		return opMarkStyle
	case op.Related:
		return opRelStyle
	}
	return opStyle
}

// placeOps gives each operation its bar and the first row where neither
// its bar nor its label meets another's, as Porcupine stacks them. A
// label that does not fit inside its bar runs on to its right.
func placeOps(f *fonts, ivs []Interval, x func(int64) float64, right float64) ([]placedOp, int) {
	ops := make([]placedOp, len(ivs))
	for i, iv := range ivs {
		op := placedOp{iv: iv, label: clean(iv.Label, tlLabelMax)}
		op.x1 = x(iv.Start)
		op.x2 = right + 16
		if !iv.Open {
			op.x2 = max(x(iv.End), op.x1+3)
		} else {
			op.label += " …"
		}
		op.labelW = f.width(opStyleOf(iv), op.label)
		op.extent = math.Max(op.x2, op.x1+op.labelW*slack+8)
		ops[i] = op
	}
	order := make([]int, len(ops))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return ops[order[a]].x1 < ops[order[b]].x1 })
	var ends []float64
	for _, i := range order {
		row := -1
		for r, end := range ends {
			if end+4 <= ops[i].x1 {
				row = r
				break
			}
		}
		if row < 0 {
			row = len(ends)
			ends = append(ends, 0)
		}
		ends[row] = ops[i].extent
		ops[i].row = row
	}
	return ops, len(ends)
}

// drawOp paints an operation's bar at top y as a group of class "op".
func drawOp(op placedOp, y float64, x func(int64) float64) item {
	bar, st := opPaint, opStyleOf(op.iv)
	switch {
	case op.iv.Mark:
		bar = opMarkPaint
	case op.iv.Related:
		bar = opRelPaint
	}
	var opacity float64
	if op.iv.Open {
		bar.FillOpacity = 0.45
		bar.Dash = []float64{4, 3}
		opacity = 0.7
	}
	items := []item{{Rect: &rectShape{X: op.x1, Y: y, W: op.x2 - op.x1, H: tlBar, Radius: 3, paint: bar}}}
	if op.iv.Point != nil {
		// Stubs above and below the bar, clear of its label.
		px := x(*op.iv.Point)
		items = append(items, item{Path: &pathShape{
			Segs: []seg{{Op: 'M', P: pt{px, y - 4}}, {Op: 'L', P: pt{px, y + 4}},
				{Op: 'M', P: pt{px, y + tlBar - 4}}, {Op: 'L', P: pt{px, y + tlBar + 4}}},
			paint: paint{Stroke: "#111827", StrokeWidth: 2},
		}})
	}
	label := text(op.x1+4, y+tlBar/2+4, st, "start", op.label)
	label.Text.Opacity = opacity
	label.Text.Spans[0].Fit = op.labelW
	items = append(items, label)
	why := op.iv.Why
	if why == "" {
		why = op.iv.Label
	}
	return item{Group: &group{Class: "op", Tooltip: clean(why, 4*maxLine), Items: items}}
}
