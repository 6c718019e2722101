package draw

// A scene is a picture laid out and ready to write: the shapes in the
// order they are painted, in a coordinate system with y down. The SVG and
// PNG writers both write scenes, so the two formats show the same layout.
type scene struct {
	Width, Height float64
	// Label is the picture's accessible name (aria-label).
	Label string
	Items []item
}

// item is one thing painted: exactly one of its fields is set.
type item struct {
	Rect  *rectShape
	Path  *pathShape
	Text  *textShape
	Group *group
}

// group is items painted together, with what a browser may query.
type group struct {
	Class string
	// Attrs are data-* attributes, in order: name, value, name, value.
	Attrs []string
	// Tooltip is the group's <title>.
	Tooltip string
	Items   []item
}

// paint is how a shape is filled and stroked; empty colours mean none.
type paint struct {
	Fill        string
	FillOpacity float64 // 0 means opaque
	Stroke      string
	StrokeWidth float64
	Dash        []float64
}

// rectShape is a rectangle, its corners rounded by Radius.
type rectShape struct {
	X, Y, W, H, Radius float64
	paint
}

// pathShape is a polyline, polygon or Bézier path.
type pathShape struct {
	Segs []seg
	// Closed closes the path (for polygons).
	Closed bool
	paint
}

// seg is one segment of a path: a move, a line, or a cubic Bézier to P
// with controls C1 and C2.
type seg struct {
	Op     byte // 'M', 'L' or 'C'
	C1, C2 pt
	P      pt
}

// pt is a point of a scene.
type pt struct{ X, Y float64 }

// textShape is a line of text set at its baseline, made of spans that
// may differ in weight. Anchor is "start", "middle" or "end".
type textShape struct {
	X, Y   float64
	Anchor string
	Class  string
	style
	Spans []textSpan
	// Opacity fades the text; 0 means opaque.
	Opacity float64
}

// textSpan is a run of text; DX is where it starts, relative to the
// line's X (for Anchor "start" only).
type textSpan struct {
	Text string
	Bold bool
	DX   float64
	// Fit, when positive, is the width the span was measured at: the SVG
	// asks the browser to set it at exactly that width, so that a
	// fallback font cannot make it overlap what the layout kept apart.
	Fit float64
}

// rect is an axis-aligned box used by the layout: a node, a label.
type rect struct{ X, Y, W, H float64 }

func (r rect) overlaps(o rect) bool {
	return r.X < o.X+o.W && o.X < r.X+r.W && r.Y < o.Y+o.H && o.Y < r.Y+r.H
}

func (r rect) inflate(d float64) rect { return rect{r.X - d, r.Y - d, r.W + 2*d, r.H + 2*d} }

func (r rect) within(o rect) bool {
	return r.X >= o.X && r.Y >= o.Y && r.X+r.W <= o.X+o.W && r.Y+r.H <= o.Y+o.H
}

// bounds grows to hold boxes and points.
type bounds struct {
	set                    bool
	MinX, MinY, MaxX, MaxY float64
}

func (b *bounds) addPoint(p pt) {
	if !b.set {
		*b = bounds{true, p.X, p.Y, p.X, p.Y}
		return
	}
	b.MinX, b.MinY = min(b.MinX, p.X), min(b.MinY, p.Y)
	b.MaxX, b.MaxY = max(b.MaxX, p.X), max(b.MaxY, p.Y)
}

func (b *bounds) addRect(r rect) {
	b.addPoint(pt{r.X, r.Y})
	b.addPoint(pt{r.X + r.W, r.Y + r.H})
}

// fitted is a one-span line of text held to the width f measures.
func fitted(f *fonts, x, y float64, st style, anchor, s string) item {
	it := text(x, y, st, anchor, s)
	it.Text.Spans[0].Fit = f.width(st, s)
	return it
}

// text is a one-span line of text.
func text(x, y float64, st style, anchor, s string) item {
	return item{Text: &textShape{X: x, Y: y, Anchor: anchor, style: st, Spans: []textSpan{{Text: s, Bold: st.Bold}}}}
}
