package draw

import (
	"io"
	"math"
)

// Sizes of a Chart's plot.
const (
	chartW         = 640
	chartH         = 200
	chartMaxPoints = 4000 // per series; longer ones are thinned
)

// seriesColors colour a Chart's series in turn.
var seriesColors = []string{"#2563eb", "#dc2626", "#16a34a", "#9333ea", "#ea580c", "#0891b2", "#4b5563"}

var markStyle = style{Size: 11, Color: "#374151"}

// WriteSVG writes c as one <svg> element.
func (c *Chart) WriteSVG(w io.Writer) error {
	return writeSVG(w, layoutChart(newFonts(), c))
}

// layoutChart lays c out: axes with round ticks, a line per series, a
// dashed line per mark with its label, and a legend of the series.
func layoutChart(f *fonts, c *Chart) *scene {
	xlo, xhi, ylo, yhi := chartRange(c)
	const left = 56.0
	x := func(v float64) float64 { return left + (v-xlo)/(xhi-xlo)*chartW }
	var body []item

	// Mark labels first, to know how many rows they need above the plot.
	var xs []float64
	var labels []string
	for _, m := range c.Marks {
		if finite(m.X) {
			xs, labels = append(xs, x(m.X)), append(labels, m.Label)
		}
	}
	marks, rows := placeMarks(f, xs, labels)
	top := float64(rows)*markRow + 16
	y := func(v float64) float64 { return top + chartH - (v-ylo)/(yhi-ylo)*chartH }
	if c.YLabel != "" {
		body = append(body, text(0, 10, axisStyle, "start", clean(c.YLabel, maxLabel)))
	}

	grid := paint{Stroke: "#e5e7eb", StrokeWidth: 1}
	axis := paint{Stroke: "#6b7280", StrokeWidth: 1}
	for _, v := range ticks(ylo, yhi, 4) {
		yy := y(v)
		body = append(body,
			item{Path: &pathShape{Segs: []seg{{Op: 'M', P: pt{left, yy}}, {Op: 'L', P: pt{left + chartW, yy}}}, paint: grid}},
			text(left-6, yy+3.5, axisStyle, "end", tickLabel(v)))
	}
	for _, v := range ticks(xlo, xhi, 8) {
		xx := x(v)
		body = append(body,
			item{Path: &pathShape{Segs: []seg{{Op: 'M', P: pt{xx, top + chartH}}, {Op: 'L', P: pt{xx, top + chartH + 5}}}, paint: axis}},
			text(xx, top+chartH+17, axisStyle, "middle", tickLabel(v)))
	}
	body = append(body, item{Path: &pathShape{
		Segs:  []seg{{Op: 'M', P: pt{left, top}}, {Op: 'L', P: pt{left, top + chartH}}, {Op: 'L', P: pt{left + chartW, top + chartH}}},
		paint: axis,
	}})
	for _, m := range marks {
		body = append(body, m.draw(top, top+chartH))
	}
	for i, s := range c.Series {
		color := seriesColors[i%len(seriesColors)]
		body = append(body, item{Group: &group{Class: "series", Tooltip: clean(s.Name, maxLabel), Items: []item{
			{Path: &pathShape{Segs: seriesPath(s.Points, x, y), paint: paint{Stroke: color, StrokeWidth: 1.8}}},
		}}})
	}
	by := top + chartH + 34
	if c.XLabel != "" {
		body = append(body, text(left+chartW/2, by, axisStyle, "middle", clean(c.XLabel, maxLabel)))
		by += 16
	}
	lx := left
	for i, s := range c.Series {
		name := clean(s.Name, maxLabel)
		w := f.width(legendStyle, name)*slack + 40
		if lx+w > left+chartW && lx > left {
			lx = left
			by += 16
		}
		color := seriesColors[i%len(seriesColors)]
		body = append(body,
			item{Path: &pathShape{Segs: []seg{{Op: 'M', P: pt{lx, by - 4}}, {Op: 'L', P: pt{lx + 22, by - 4}}}, paint: paint{Stroke: color, StrokeWidth: 2.5}}},
			text(lx+28, by, legendStyle, "start", name))
		lx += w
	}

	doc := newDocument(f, left+chartW+16)
	doc.heading(c.Title, nil)
	shift(body, margin, doc.y)
	doc.items = append(doc.items, body...)
	doc.grow(left + chartW + 16)
	for _, m := range marks {
		doc.grow(m.x + f.width(markStyle, m.label)*slack + 8)
	}
	doc.y += by + 4
	return doc.scene(clean(c.Title, maxText))
}

// chartRange is the span of the axes: every finite point and mark, with
// a little room above and below the values.
func chartRange(c *Chart) (xlo, xhi, ylo, yhi float64) {
	xlo, xhi, ylo, yhi = math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for _, s := range c.Series {
		for _, p := range s.Points {
			if finite(p.X) && finite(p.Y) {
				xlo, xhi = math.Min(xlo, p.X), math.Max(xhi, p.X)
				ylo, yhi = math.Min(ylo, p.Y), math.Max(yhi, p.Y)
			}
		}
	}
	for _, m := range c.Marks {
		if finite(m.X) {
			xlo, xhi = math.Min(xlo, m.X), math.Max(xhi, m.X)
		}
	}
	if xlo > xhi {
		xlo, xhi = 0, 1
	}
	if ylo > yhi {
		ylo, yhi = 0, 1
	}
	if ylo > 0 && ylo < (yhi-ylo) {
		ylo = 0 // start at zero when the values are not far from it
	}
	if !(xhi-xlo > 0) || math.IsInf(xhi-xlo, 0) {
		xlo, xhi = xlo-1, xlo+1
	}
	if !(yhi-ylo > 0) || math.IsInf(yhi-ylo, 0) {
		ylo, yhi = ylo-1, ylo+1
	}
	pad := (yhi - ylo) * 0.05
	return xlo, xhi, ylo - pad*boolf(ylo != 0), yhi + pad
}

func boolf(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// seriesPath is a series' line, broken where a value is not finite and
// thinned to at most chartMaxPoints points.
func seriesPath(ps []Point, x, y func(float64) float64) []seg {
	stride := max(1, (len(ps)+chartMaxPoints-1)/chartMaxPoints)
	var segs []seg
	pen := false
	for i := 0; i < len(ps); i += stride {
		p := ps[i]
		if !finite(p.X) || !finite(p.Y) {
			pen = false
			continue
		}
		op := byte('L')
		if !pen {
			op = 'M'
		}
		segs = append(segs, seg{Op: op, P: pt{x(p.X), y(p.Y)}})
		pen = true
	}
	if len(segs) == 0 {
		segs = []seg{{Op: 'M', P: pt{x(0), y(0)}}}
	}
	return segs
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// markRow is the height of a row of marks' labels.
const markRow = 13

// placedMark is a mark placed: where, its label, and its row of labels
// above the plot.
type placedMark struct {
	x     float64
	label string
	row   int
}

// placeMarks gives each mark, at xs[i] with labels[i], the first row of
// labels where its label starts after the one before it ends, and
// returns them with the number of rows.
func placeMarks(f *fonts, xs []float64, labels []string) ([]placedMark, int) {
	var marks []placedMark
	var rowEnds []float64
	for i, x := range xs {
		p := placedMark{x: x, label: clean(labels[i], maxLabel), row: -1}
		w := f.width(markStyle, p.label)*slack + 6
		for r, end := range rowEnds {
			if end <= p.x {
				p.row = r
				break
			}
		}
		if p.row < 0 {
			p.row = len(rowEnds)
			rowEnds = append(rowEnds, 0)
		}
		rowEnds[p.row] = p.x + w
		marks = append(marks, p)
	}
	return marks, len(rowEnds)
}

// draw draws m: its label in its row above top, and a dashed line from
// there down to bottom.
func (m placedMark) draw(top, bottom float64) item {
	ly := top - 6 - float64(m.row)*markRow
	return item{Group: &group{Class: "mark", Tooltip: m.label, Items: []item{
		{Path: &pathShape{Segs: []seg{{Op: 'M', P: pt{m.x, ly + 3}}, {Op: 'L', P: pt{m.x, bottom}}}, paint: paint{Stroke: "#6b7280", StrokeWidth: 1.2, Dash: []float64{5, 4}}}},
		text(m.x+3, ly, markStyle, "start", m.label),
	}}}
}
