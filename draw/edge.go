// The edges of a Graph painted: curve, arrowhead and label.

package draw

import "strconv"

// drawRoute paints r as a group of class "edge": its curve, its
// arrowhead and its label.
func drawRoute(r *route) item {
	st := styleOf(r.e.Kind)
	labelColor := st.color
	if r.e.Kind == WW || r.e.Kind == RW {
		labelColor = darker(st.color)
	}
	if r.e.Context {
		st.color, labelColor = lighter(st.color), lighter(labelColor)
	}
	tip, d, head := r.arrowHead()
	segs := []seg{{Op: 'M', P: r.curve[0].P0}}
	for i, c := range r.curve {
		if i == len(r.curve)-1 {
			// Stop under the arrowhead; a straight piece stays straight.
			end := pt{tip.X - d.X*(head-2), tip.Y - d.Y*(head-2)}
			if c.straight() {
				c.C1, c.C2 = lerp(c.P0, end, 1.0/3), lerp(c.P0, end, 2.0/3)
			}
			c.P3 = end
		}
		segs = append(segs, seg{Op: 'C', C1: c.C1, C2: c.C2, P: c.P3})
	}
	curve := &pathShape{
		Segs:  segs,
		paint: paint{Stroke: st.color, StrokeWidth: st.width, Dash: dashOf(r.e.Kind, r.e.Dashed)},
	}
	perp := pt{-d.Y, d.X}
	base := pt{tip.X - d.X*head, tip.Y - d.Y*head}
	w := headHalfWidth(st)
	arrow := &pathShape{
		Segs: []seg{
			{Op: 'M', P: tip},
			{Op: 'L', P: pt{base.X + perp.X*w, base.Y + perp.Y*w}},
			{Op: 'L', P: pt{base.X - perp.X*w, base.Y - perp.Y*w}},
		},
		Closed: true,
		paint:  paint{Fill: st.color},
	}
	lr := r.labelRect
	bg := &rectShape{X: lr.X, Y: lr.Y, W: lr.W, H: lr.H, Radius: 3, paint: paint{Fill: "#ffffff", FillOpacity: 0.9}}
	ls := edgeLabelStyle
	ls.Color = labelColor
	label := text(lr.X+lr.W/2, lr.Y+lr.H/2+ls.Size*0.36, ls, "middle", r.label)
	label.Text.Spans[0].Fit = r.labelW
	label.Text.Class = "edge-label"
	attrs := []string{"data-from", clean(r.e.From, maxLabel), "data-to", clean(r.e.To, maxLabel), "data-kind", clean(r.e.Kind, maxLabel)}
	if r.fromLine > 0 {
		attrs = append(attrs, "data-from-line", strconv.Itoa(r.fromLine))
	}
	if r.toLine > 0 {
		attrs = append(attrs, "data-to-line", strconv.Itoa(r.toLine))
	}
	return item{Group: &group{
		Class:   "edge",
		Attrs:   attrs,
		Tooltip: r.why,
		Items:   []item{{Path: curve}, {Group: &group{Class: "head", Items: []item{{Path: arrow}}}}, {Rect: bg}, label},
	}}
}

// arrowHead is where r's arrowhead points, the direction it points in,
// and its length.
func (r *route) arrowHead() (tip, d pt, length float64) {
	last := r.curve[len(r.curve)-1]
	tip = last.P3
	d = unit(pt{tip.X - last.C2.X, tip.Y - last.C2.Y})
	if d == (pt{}) {
		d = unit(pt{tip.X - last.P0.X, tip.Y - last.P0.Y})
	}
	return tip, d, 9.0 + styleOf(r.e.Kind).width
}

// headHalfWidth is half the width of the base of an arrowhead in st.
func headHalfWidth(st edgeStyle) float64 { return 4 + st.width/2 }

// headRect is the box around r's arrowhead, which no label may cover.
func (r *route) headRect() rect {
	tip, d, length := r.arrowHead()
	w := headHalfWidth(styleOf(r.e.Kind))
	base := pt{tip.X - d.X*length, tip.Y - d.Y*length}
	var b bounds
	b.addPoint(tip)
	b.addPoint(pt{base.X - d.Y*w, base.Y + d.X*w})
	b.addPoint(pt{base.X + d.Y*w, base.Y - d.X*w})
	return rect{b.MinX, b.MinY, b.MaxX - b.MinX, b.MaxY - b.MinY}
}
