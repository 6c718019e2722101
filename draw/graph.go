package draw

import (
	"fmt"
	"io"
)

// WriteSVG writes g as one <svg> element, to stand alone or to sit inline
// in an HTML page beside others.
func (g *Graph) WriteSVG(w io.Writer) error {
	return writeSVG(w, layoutGraph(newFonts(), g).scene)
}

// WritePNG writes g as a PNG image at twice the SVG's size.
func (g *Graph) WritePNG(w io.Writer) error {
	f := newFonts()
	return writePNG(w, layoutGraph(f, g).scene, f)
}

// drawnGraph is a Graph laid out and painted, with the boxes and labels
// it placed (in the scene's coordinates).
type drawnGraph struct {
	scene  *scene
	nodes  []rect
	labels []rect
	// paths are the arrows' paths as polylines, one per label.
	paths [][]pt
	// layout is the layout, in its own coordinates (nil for a graph too
	// large to draw).
	layout *graphLayout
}

// MaxNodes and MaxEdges bound the graphs drawn: a counterexample is a
// handful of transactions, and a larger graph would be unreadable and
// slow to lay out (the layout grows faster than the graph). A graph over
// either bound is drawn as its heading and a note saying so.
const (
	MaxNodes = 60
	MaxEdges = 150
)

// layoutGraph lays g out: the lanes and their boxes, the arrows and their
// labels, then the heading above them and the legend and notes below.
func layoutGraph(f *fonts, g *Graph) *drawnGraph {
	nodes := 0
	for _, l := range g.Lanes {
		nodes += len(l.Nodes)
	}
	if nodes > MaxNodes || len(g.Edges) > MaxEdges {
		doc := newDocument(f, 620)
		doc.heading(g.Title, g.Caption)
		doc.notes(append([]string{fmt.Sprintf("%d transactions and %d dependencies: too many to draw (at most %d and %d); the report lists them", nodes, len(g.Edges), MaxNodes, MaxEdges)}, g.Notes...))
		return &drawnGraph{scene: doc.scene(clean(g.Title, maxText))}
	}
	l := &graphLayout{f: f}
	l.placeNodes(g)
	l.classify(g.Edges)
	l.lay()
	tries := maxRoomTries
	if len(l.routes) > manyRoutes {
		tries = 2
	}
	for try := 1; ; try++ {
		stuck := l.placeLabels(try == tries)
		if len(stuck) == 0 || try == tries {
			break
		}
		l.makeRoom(stuck)
		l.lay()
	}

	var body bounds
	body.addPoint(pt{0, 0})
	body.addPoint(pt{l.width, l.lowest()})
	for _, b := range l.boxes {
		body.addRect(b.r)
	}
	for _, r := range l.routes {
		body.addRect(r.labelRect)
		for i := 0; i <= 16; i++ {
			body.addPoint(r.at(float64(i) / 16))
		}
	}
	items := l.drawLanes()
	for _, r := range l.routes {
		items = append(items, drawRoute(r))
	}
	for _, b := range l.boxes {
		items = append(items, drawNode(f, b))
	}

	bodyW := body.MaxX - body.MinX
	doc := newDocument(f, max(bodyW, 620))
	doc.heading(g.Title, g.Caption)
	top := doc.y
	shift(items, margin-body.MinX, top-body.MinY)
	doc.items = append(doc.items, items...)
	doc.grow(bodyW)
	doc.y = top + body.MaxY - body.MinY + 14
	for _, band := range l.bands {
		band.W = max(band.W, margin+doc.width-band.X)
	}
	doc.legend(kindsUsed(g.Edges, l.routes))
	doc.notes(g.Notes)

	d := &drawnGraph{scene: doc.scene(clean(g.Title, maxText)), layout: l}
	dx, dy := margin-body.MinX, top-body.MinY
	for _, b := range l.boxes {
		d.nodes = append(d.nodes, rect{b.r.X + dx, b.r.Y + dy, b.r.W, b.r.H})
	}
	for _, r := range l.routes {
		lr := r.labelRect
		d.labels = append(d.labels, rect{lr.X + dx, lr.Y + dy, lr.W, lr.H})
		var path []pt
		for _, p := range r.polyline() {
			path = append(path, pt{p.X + dx, p.Y + dy})
		}
		d.paths = append(d.paths, path)
	}
	return d
}

// legendEntry is one line of a legend: a sample of a stroke and what it
// means.
type legendEntry struct {
	color   string
	width   float64
	dash    []float64
	meaning string
}

// kindsUsed is the legend of the routes drawn: one entry per kind, in
// the order SO, WR, WW, RW, RT, others, then dashed if any edge is.
func kindsUsed(edges []Edge, routes []*route) []legendEntry {
	seen := map[string]bool{}
	var others []string
	dashed, context := false, false
	for _, r := range routes {
		k := r.e.Kind
		dashed = dashed || r.e.Dashed
		context = context || r.e.Context
		if !seen[k] {
			seen[k] = true
			switch k {
			case SO, WR, WW, RW, RT:
			default:
				others = append(others, k)
			}
		}
	}
	var out []legendEntry
	for _, k := range append([]string{SO, WR, WW, RW, RT}, others...) {
		if seen[k] {
			st := styleOf(k)
			out = append(out, legendEntry{st.color, st.width, st.dash, clean(st.meaning, maxLine)})
		}
	}
	if dashed {
		out = append(out, legendEntry{"#555555", 1.7, []float64{7, 4}, "dashed: holds only under the order of writes, or the writer read, assumed"})
	}
	if context {
		out = append(out, legendEntry{lighter("#555555"), 1.7, nil, "faded: shown beside the cycle, for context (where the values read came from)"})
	}
	return out
}
