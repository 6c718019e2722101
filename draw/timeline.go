package draw

import (
	"io"
	"math"
	"sort"
)

// Sizes of a Timeline.
const (
	tlMinWidth = 480  // of the time axis
	tlMaxWidth = 1400 // however many operations there are
	tlPerOp    = 60   // axis width per operation, within those bounds
	tlRow      = 24   // height of a row of bars
	tlBar      = 18   // height of a bar
	tlLabelMax = 40   // runes of an operation's label
)

var (
	opStyle     = style{Size: 11, Color: "#1e3a8a"}
	opMarkStyle = style{Size: 11, Bold: true, Color: "#b91c1c"}
	axisStyle   = style{Size: 11, Color: "#4b5563"}
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
// on as many rows as keep their bars and labels apart, over a time axis.
func layoutTimeline(f *fonts, t *Timeline) *scene {
	lo, hi, n := timeRange(t)
	axisW := math.Min(tlMaxWidth, math.Max(tlMinWidth, float64(n*tlPerOp)))
	nameW := 0.0
	for _, ln := range t.Lanes {
		nameW = max(nameW, f.width(laneNameStyle, clean(ln.Name, maxLabel))*slack)
	}
	left := nameW + 24
	right := left + axisW
	x := func(v int64) float64 {
		return left + math.Max(0, math.Min(1, (float64(v)-lo)/(hi-lo)))*axisW
	}

	var body []item
	y := 0.0
	for i, ln := range t.Lanes {
		ops, rows := placeOps(f, ln.Ops, x, right)
		h := float64(max(rows, 1))*tlRow + 12
		fill := "#f3f4f6"
		if i%2 == 1 {
			fill = "#f9fafb"
		}
		body = append(body, item{Rect: &rectShape{X: 0, Y: y, W: right + 28, H: h, Radius: 4, paint: paint{Fill: fill}}})
		body = append(body, text(8, y+6+tlRow/2+4, laneNameStyle, "start", clean(ln.Name, maxLabel)))
		for _, op := range ops {
			body = append(body, drawOp(op, y+6+float64(op.row)*tlRow, x))
		}
		y += h + 4
	}
	body = append(body, timeAxis(lo, hi, left, axisW, y+4)...)
	bodyH := y + 30

	doc := newDocument(f, math.Max(right+24, 620))
	doc.heading(t.Title, t.Caption)
	shift(body, margin, doc.y)
	doc.items = append(doc.items, body...)
	doc.grow(right + 28)
	doc.y += bodyH
	doc.notes(t.Notes)
	return doc.scene(clean(t.Title, maxText))
}

// timeRange is the span of time the axis shows, and the number of
// operations.
func timeRange(t *Timeline) (flo, fhi float64, n int) {
	lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
	for _, ln := range t.Lanes {
		for _, op := range ln.Ops {
			n++
			lo = min(lo, op.Start)
			hi = max(hi, op.Start)
			if !op.Open {
				lo, hi = min(lo, op.End), max(hi, op.End)
			}
			if op.Point != nil {
				lo, hi = min(lo, *op.Point), max(hi, *op.Point)
			}
		}
	}
	if n == 0 {
		return 0, 1, 0
	}
	flo, fhi = float64(lo), float64(hi)
	if fhi <= flo {
		fhi = flo + math.Max(1, math.Abs(flo)*1e-9)
	}
	return flo, fhi, n
}

// placeOps gives each operation its bar and the first row where neither
// its bar nor its label meets another's, as Porcupine stacks them.
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
		st := opStyle
		if iv.Mark {
			st = opMarkStyle
		}
		op.labelW = f.width(st, op.label)
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
	bar := paint{Fill: "#dbeafe", Stroke: "#3b82f6", StrokeWidth: 1}
	st := opStyle
	if op.iv.Mark {
		bar = paint{Fill: "#fee2e2", Stroke: "#dc2626", StrokeWidth: 2}
		st = opMarkStyle
	}
	var opacity float64
	if op.iv.Open {
		bar.FillOpacity = 0.45
		bar.Dash = []float64{4, 3}
		opacity = 0.7
	}
	items := []item{{Rect: &rectShape{X: op.x1, Y: y, W: op.x2 - op.x1, H: tlBar, Radius: 3, paint: bar}}}
	if op.iv.Point != nil {
		px := x(*op.iv.Point)
		items = append(items, item{Path: &pathShape{
			Segs:  []seg{{Op: 'M', P: pt{px, y - 3}}, {Op: 'L', P: pt{px, y + tlBar + 3}}},
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

// timeAxis paints the axis under the lanes, with a few round ticks.
func timeAxis(lo, hi float64, left, w, y float64) []item {
	items := []item{{Path: &pathShape{
		Segs:  []seg{{Op: 'M', P: pt{left, y}}, {Op: 'L', P: pt{left + w, y}}},
		paint: paint{Stroke: "#6b7280", StrokeWidth: 1},
	}}}
	for _, v := range ticks(lo, hi, 6) {
		tx := left + (v-lo)/(hi-lo)*w
		items = append(items,
			item{Path: &pathShape{Segs: []seg{{Op: 'M', P: pt{tx, y}}, {Op: 'L', P: pt{tx, y + 5}}}, paint: paint{Stroke: "#6b7280", StrokeWidth: 1}}},
			text(tx, y+17, axisStyle, "middle", tickLabel(v)))
	}
	return items
}
