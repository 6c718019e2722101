package draw

import (
	"fmt"
	"strconv"
	"unicode/utf8"
)

// How a node's box is set.
const (
	nodePad     = 8
	nodeRadius  = 6
	maxNodeRows = 12 // lines of operations drawn; the rest are counted
	minNodeW    = 48
	// slack widens boxes and labels beyond the measured text so that a
	// browser that falls back to a wider font still keeps text inside.
	slack = 1.08
)

var (
	nodeTitleStyle  = style{Size: 13, Bold: true, Color: "#111111"}
	nodeSubStyle    = style{Size: 11, Color: "#6b7280"}
	nodeLineStyle   = style{Size: 11, Mono: true, Color: "#1f2937"}
	nodeStatusStyle = style{Size: 11, Bold: true, Color: "#c2410c"}
)

const (
	statusColor    = "#ea580c"
	highlightColor = "#fef08a"
)

// box is a node measured: its cleaned text and its size, placed later.
type box struct {
	id, title, sub, status string
	context                bool
	lines                  [][]Span
	lane, col              int
	order                  int64
	w, h                   float64
	r                      rect
}

// measureNode cleans n's text and sizes its box.
func measureNode(f *fonts, n Node, lane int) *box {
	b := &box{
		id:      n.ID,
		title:   clean(n.Title, maxLabel),
		sub:     clean(n.Sub, maxLine),
		status:  clean(n.Status, maxLabel),
		lane:    lane,
		order:   n.Order,
		context: n.Context,
	}
	for i, l := range n.Lines {
		if i == maxNodeRows {
			b.lines = append(b.lines, []Span{{Text: fmt.Sprintf("… %d more", len(n.Lines)-maxNodeRows)}})
			break
		}
		b.lines = append(b.lines, cleanLine(l))
	}
	w := f.width(nodeTitleStyle, b.title)
	h := float64(nodePad) + 15
	if b.sub != "" {
		w = max(w, f.width(nodeSubStyle, b.sub))
		h += 13
	}
	for _, l := range b.lines {
		w = max(w, lineWidth(f, l))
		h += 15
	}
	if b.status != "" {
		w = max(w, f.width(nodeStatusStyle, b.status))
		h += 15
	}
	b.w = max(minNodeW, w*slack+2*nodePad)
	b.h = h + nodePad
	return b
}

// rowY is the height, below the top of b, of the middle of its line i
// (from 1) as drawNode draws it; a line past those drawn is the last row
// (the one counting them).
func (b *box) rowY(i int) float64 {
	i = max(1, min(i, len(b.lines)))
	y := float64(nodePad) + 12
	if b.sub != "" {
		y += 13
	}
	return y + 15*float64(i) - 4
}

// rowHalf is half the height of a row of lines in a box.
const rowHalf = 7.5

// cleanLine cleans a line's spans and cuts the line at maxLine runes.
func cleanLine(l Line) []Span {
	var out []Span
	left := maxLine
	for _, sp := range l {
		if left <= 0 {
			break
		}
		t := clean(sp.Text, left)
		left -= utf8.RuneCountInString(t)
		out = append(out, Span{Text: t, Mark: sp.Mark})
	}
	return out
}

func lineWidth(f *fonts, l []Span) float64 {
	w := 0.0
	for _, sp := range l {
		st := nodeLineStyle
		st.Bold = sp.Mark
		w += f.width(st, sp.Text)
	}
	return w
}

// drawNode paints b at its place as a group of class "node".
func drawNode(f *fonts, b *box) item {
	r := b.r
	border := paint{Fill: "#ffffff", Stroke: "#4b5563", StrokeWidth: 1.2}
	if b.status != "" {
		border = paint{Fill: "#fff7ed", Stroke: statusColor, StrokeWidth: 2}
	}
	titleStyle, lineStyle := nodeTitleStyle, nodeLineStyle
	if b.context {
		border.Stroke, border.Dash = "#9ca3af", []float64{5, 3}
		titleStyle.Color, lineStyle.Color = "#6b7280", "#6b7280"
	}
	items := []item{{Rect: &rectShape{X: r.X, Y: r.Y, W: r.W, H: r.H, Radius: nodeRadius, paint: border}}}
	cx := r.X + r.W/2
	y := r.Y + nodePad + 12
	items = append(items, fitted(f, cx, y, titleStyle, "middle", b.title))
	if b.sub != "" {
		y += 13
		items = append(items, fitted(f, cx, y, nodeSubStyle, "middle", b.sub))
	}
	for i, l := range b.lines {
		y += 15
		items = append(items, item{Group: &group{Class: "line", Attrs: []string{"data-line", strconv.Itoa(i + 1)}, Items: drawLine(f, r.X+nodePad, y, lineStyle, l)}})
	}
	if b.status != "" {
		y += 15
		items = append(items, fitted(f, cx, y, nodeStatusStyle, "middle", b.status))
	}
	return item{Group: &group{Class: "node", Attrs: []string{"data-id", clean(b.id, maxLabel)}, Items: items}}
}

// drawLine paints one line of operations, its marked spans bold on a
// highlight.
func drawLine(f *fonts, x, y float64, lineStyle style, l []Span) []item {
	var items []item
	t := &textShape{X: x, Y: y, Anchor: "start", style: lineStyle}
	dx := 0.0
	for _, sp := range l {
		st := lineStyle
		st.Bold = sp.Mark
		w := f.width(st, sp.Text)
		if sp.Mark && sp.Text != "" {
			items = append(items, item{Rect: &rectShape{X: x + dx - 1, Y: y - 10, W: w + 2, H: 13, Radius: 2, paint: paint{Fill: highlightColor}}})
		}
		t.Spans = append(t.Spans, textSpan{Text: sp.Text, Bold: sp.Mark, DX: dx, Fit: w})
		dx += w
	}
	if len(t.Spans) == 0 {
		return items
	}
	return append(items, item{Text: t})
}
