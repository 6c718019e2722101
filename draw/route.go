package draw

import (
	"math"
	"sort"
)

// How a route runs between its boxes.
type routeShape int

const (
	straight  routeShape = iota // same lane, forward, neighbours
	over                        // same lane, forward, over the boxes between
	under                       // same lane, backward, under the lane
	cross                       // between lanes, forward
	vertical                    // between lanes, in one column
	crossBack                   // between lanes, backward: a visible S
	loop                        // from a node to itself
)

// route is an edge laid out: its shape, its path and its label's place.
type route struct {
	e        Edge
	label    string
	why      string
	from, to *box
	shape    routeShape
	level    int // of an arc over or under its lane, from 1
	k, n     int // this edge's place among those of the same direction
	// curve is the cubic Béziers the arrow follows, end to end.
	curve []cubic
	// outAt and inAt are where a cross route leaves its source's right
	// side and enters its target's left side, as shares of the boxes'
	// heights.
	outAt, inAt float64
	labelRect   rect
	// labelW is the width of the label's text.
	labelW float64
	// fromLine and toLine are Edge.FromLine and ToLine where the boxes
	// have such lines (0 otherwise), and fromOff and toOff how far the
	// arrow's ends are moved off the middle of those rows, so that arrows
	// at one row lie apart.
	fromLine, toLine int
	fromOff, toOff   float64
}

// sided says r is drawn between rows of its boxes: it leaves its source
// on the right, beside the line it concerns, and enters its target on
// the side facing it, beside its line (the middle of a side where a box
// has no line to name).
func (r *route) sided() bool { return r.fromLine > 0 || r.toLine > 0 }

// entersRight says on which side r enters its target: false for the left,
// true for the right, when it comes back from a later column or runs
// from a box above or below in the same column.
func (r *route) entersRight() bool {
	switch r.shape {
	case under, vertical, crossBack:
		return true
	}
	return false
}

// fromY and toY are the heights at which a sided r leaves and enters its
// boxes.
func (r *route) fromY() float64 { return portY(r.from, r.fromLine) + r.fromOff }
func (r *route) toY() float64   { return portY(r.to, r.toLine) + r.toOff }

// portY is the height of line i (from 1) of b, or of b's middle when i
// is 0.
func portY(b *box, i int) float64 {
	if i == 0 {
		return b.r.Y + b.r.H/2
	}
	return b.r.Y + b.rowY(i)
}

// lineOf is Edge's line i for box b: 0 unless b has lines.
func lineOf(b *box, i int) int {
	if i <= 0 || len(b.lines) == 0 {
		return 0
	}
	return min(i, len(b.lines))
}

// classify decides each edge's shape, stacks the arcs of each lane, and
// numbers parallel edges. Edges naming an unknown node are left out.
func (l *graphLayout) classify(edges []Edge) {
	count := map[[2]string]int{}
	for _, e := range edges {
		a, b := l.byID[e.From], l.byID[e.To]
		if a == nil || b == nil {
			continue
		}
		r := &route{e: e, from: a, to: b, label: clean(e.Label, maxLabel), why: clean(e.Why, 4*maxLine),
			fromLine: lineOf(a, e.FromLine), toLine: lineOf(b, e.ToLine)}
		if r.label == "" {
			r.label = clean(e.Kind, maxLabel)
		}
		if a == b {
			// A loop (which no dependency is) is drawn over its box,
			// with room for its label, rather than between its rows.
			r.fromLine, r.toLine = 0, 0
		}
		key := [2]string{e.From, e.To}
		r.k = count[key]
		count[key]++
		switch {
		case a == b:
			r.shape = loop
		case a.lane == b.lane && a.col < b.col && l.adjacent(a, b):
			r.shape = straight
		case a.lane == b.lane && a.col < b.col:
			r.shape = over
		case a.lane == b.lane:
			r.shape = under
		case a.col < b.col:
			r.shape = cross
		case a.col == b.col:
			r.shape = vertical
		default:
			r.shape = crossBack
		}
		l.routes = append(l.routes, r)
	}
	for _, r := range l.routes {
		r.n = count[[2]string{r.e.From, r.e.To}]
	}
	l.spreadPorts()
	l.stackArcs(over, func(ln *lane, n int) { ln.above = max(ln.above, n) })
	l.stackArcs(under, func(ln *lane, n int) { ln.below = max(ln.below, n) })
}

// adjacent says no box of a's lane lies between a and b.
func (l *graphLayout) adjacent(a, b *box) bool {
	for _, c := range l.boxes {
		if c.lane == a.lane && c.col > a.col && c.col < b.col {
			return false
		}
	}
	return true
}

// stackArcs gives the arcs of one shape their levels: shorter arcs lower,
// each above every shorter one it overlaps.
func (l *graphLayout) stackArcs(shape routeShape, note func(*lane, int)) {
	var arcs []*route
	for _, r := range l.routes {
		if r.shape == shape {
			arcs = append(arcs, r)
		}
	}
	span := func(r *route) (int, int) {
		return min(r.from.col, r.to.col), max(r.from.col, r.to.col)
	}
	sort.SliceStable(arcs, func(i, j int) bool {
		ai, bi := span(arcs[i])
		aj, bj := span(arcs[j])
		return bi-ai < bj-aj
	})
	for i, r := range arcs {
		lo, hi := span(r)
		r.level = 1
		for _, o := range arcs[:i] {
			olo, ohi := span(o)
			if o.from.lane == r.from.lane && olo <= hi && lo <= ohi {
				r.level = max(r.level, o.level+1)
			}
		}
		r.level = min(r.level, maxArcs)
		note(l.lanes[r.from.lane], r.level)
	}
}

// path computes r's curve from its boxes' places.
func (l *graphLayout) path(r *route) {
	if r.sided() {
		l.sidedPath(r)
		return
	}
	a, b := r.from.r, r.to.r
	off := (float64(r.k) - float64(r.n-1)/2) * 12
	sideOff := func(h float64) float64 { return math.Max(-(h/2 - 6), math.Min(off, h/2-6)) }
	one := func(p0, c1, c2, p3 pt) { r.curve = []cubic{{p0, c1, c2, p3}} }
	switch r.shape {
	case straight:
		y := a.Y + math.Min(a.H, b.H)/2 + sideOff(math.Min(a.H, b.H))
		p0, p3 := pt{a.X + a.W, y}, pt{b.X, y}
		one(p0, lerp(p0, p3, 1.0/3), lerp(p0, p3, 2.0/3), p3)
	case over:
		ln := l.lanes[r.from.lane]
		cy := ln.zoneTop - (14+arcStep*float64(r.level-1))/0.75
		p0, p3 := pt{a.X + a.W/2 + 8 + off, a.Y}, pt{b.X + b.W/2 - 8 + off, b.Y}
		one(p0, pt{p0.X, cy}, pt{p3.X, cy}, p3)
	case under:
		ln := l.lanes[r.from.lane]
		cy := ln.zoneTop + ln.zoneH + (14+arcStep*float64(r.level-1))/0.75
		p0, p3 := pt{a.X + a.W/2 - 8 + off, a.Y + a.H}, pt{b.X + b.W/2 + 8 + off, b.Y + b.H}
		one(p0, pt{p0.X, cy}, pt{p3.X, cy}, p3)
	case cross:
		p0 := pt{a.X + a.W, a.Y + a.H*r.outAt}
		p3 := pt{b.X, b.Y + b.H*r.inAt}
		if c, ok := l.crossGap(r.from, r.to); ok {
			r.curve = elbow(p0, p3, l.gapSlot(c))
			break
		}
		// No gap leads straight there: turn in the gap after a, run
		// along the margin of b's lane, and turn again in the gap
		// before b.
		g1, g2 := l.gapSlot(r.from.col), l.gapSlot(r.to.col-1)
		cy := l.corridor(r.to.lane, r.from.lane)
		r.curve = rounded([]pt{p0, {g1, p0.Y}, {g1, cy}, {g2, cy}, {g2, p3.Y}, p3}, 10)
	case vertical:
		if l.blocked(r.from, r.to) {
			// Go round the boxes between, through the gap to the right.
			p0 := pt{a.X + a.W, a.Y + a.H/2 + sideOff(a.H)}
			p3 := pt{b.X + b.W, b.Y + b.H/2 + sideOff(b.H)}
			r.curve = elbow(p0, p3, l.gapSlot(r.from.col))
			break
		}
		down := a.Y < b.Y
		shift := off - 10
		if down {
			shift = off + 10
		}
		var p0, p3 pt
		if down {
			p0, p3 = pt{a.X + a.W/2 + shift, a.Y + a.H}, pt{b.X + b.W/2 + shift, b.Y}
		} else {
			p0, p3 = pt{a.X + a.W/2 + shift, a.Y}, pt{b.X + b.W/2 + shift, b.Y + b.H}
		}
		dy := (p3.Y - p0.Y) / 2
		one(p0, pt{p0.X, p0.Y + dy}, pt{p3.X, p3.Y - dy}, p3)
	case crossBack:
		// Leave a upward or downward, run back along the margin of a's
		// lane, cross the lanes between in the gap after b's column, and
		// come into b from its lane's margin: a visible detour that
		// passes no box.
		var p0, p3 pt
		if b.Y < a.Y {
			p0, p3 = pt{a.X + a.W*0.3 + off, a.Y}, pt{b.X + b.W*0.7 + off, b.Y + b.H}
		} else {
			p0, p3 = pt{a.X + a.W*0.3 + off, a.Y + a.H}, pt{b.X + b.W*0.7 + off, b.Y}
		}
		cy1 := l.corridor(r.from.lane, r.to.lane)
		cy2 := l.corridor(r.to.lane, r.from.lane)
		gx := l.gapSlot(r.to.col)
		r.curve = rounded([]pt{p0, {p0.X, cy1}, {gx, cy1}, {gx, cy2}, {p3.X, cy2}, p3}, 12)
	case loop:
		// Loops of one box nest, each larger than the one before, and
		// grow with the room made for labels.
		k := float64(r.k)
		s := 34 + 20*k + l.lanes[r.from.lane].room
		x := a.X + a.W - 14 - 8*k
		y := a.Y + 14 + 6*k
		one(pt{x, a.Y}, pt{x, a.Y - s}, pt{a.X + a.W + s, y}, pt{a.X + a.W, y})
	}
}

// sidedPath computes the curve of a sided route: out of its source's
// right side at its row, then, in straight legs with rounded corners
// that run only through the gaps between columns and the margins of
// lanes, into its target's side at its row.
func (l *graphLayout) sidedPath(r *route) {
	a, b := r.from.r, r.to.r
	p0 := pt{a.X + a.W, r.fromY()}
	p3 := pt{b.X, r.toY()}
	if r.entersRight() {
		p3.X = b.X + b.W
	}
	switch r.shape {
	case straight:
		if math.Abs(p0.Y-p3.Y) < 1 {
			r.curve = []cubic{{p0, lerp(p0, p3, 1.0/3), lerp(p0, p3, 2.0/3), p3}}
			break
		}
		mx := (p0.X + p3.X) / 2
		r.curve = []cubic{{p0, pt{mx, p0.Y}, pt{mx, p3.Y}, p3}}
	case over, under:
		ln := l.lanes[r.from.lane]
		away := 10 + arcStep*float64(r.level-1)
		g1 := l.sideSlot(r.from.col, false)
		var cy, g2 float64
		if r.shape == over {
			cy, g2 = ln.zoneTop-away, l.sideSlot(r.to.col-1, true)
		} else {
			cy, g2 = ln.zoneTop+ln.zoneH+away, l.sideSlot(r.to.col, false)
		}
		r.curve = rounded([]pt{p0, {g1, p0.Y}, {g1, cy}, {g2, cy}, {g2, p3.Y}, p3}, 10)
	case cross:
		if c, ok := l.crossGap(r.from, r.to); ok {
			r.curve = elbow(p0, p3, l.gapSlot(c))
			break
		}
		g1, g2 := l.sideSlot(r.from.col, false), l.sideSlot(r.to.col-1, true)
		cy := l.corridor(r.to.lane, r.from.lane)
		r.curve = rounded([]pt{p0, {g1, p0.Y}, {g1, cy}, {g2, cy}, {g2, p3.Y}, p3}, 10)
	case vertical:
		r.curve = elbow(p0, p3, l.sideSlot(r.from.col, false))
	case crossBack:
		g1, g2 := l.sideSlot(r.from.col, false), l.sideSlot(r.to.col, false)
		cy := l.corridor(r.from.lane, r.to.lane)
		r.curve = rounded([]pt{p0, {g1, p0.Y}, {g1, cy}, {g2, cy}, {g2, p3.Y}, p3}, 10)
	}
}

// blocked says a box of a lane between a's and b's, which share a
// column, stands in that column.
func (l *graphLayout) blocked(a, b *box) bool {
	lo, hi := min(a.lane, b.lane), max(a.lane, b.lane)
	for _, c := range l.boxes {
		if c.col == a.col && c.lane > lo && c.lane < hi {
			return true
		}
	}
	return false
}

// laneHas says a box of lane stands in a column from lo to hi.
func (l *graphLayout) laneHas(lane, lo, hi int) bool {
	for _, c := range l.boxes {
		if c.lane == lane && c.col >= lo && c.col <= hi {
			return true
		}
	}
	return false
}

// gapSlot is where the next elbow through the gap after column c runs:
// the middle first, then alternately right and left of it, so that
// elbows through one gap lie side by side.
func (l *graphLayout) gapSlot(c int) float64 {
	if l.gapUse == nil {
		l.gapUse = map[int]int{}
	}
	i := l.gapUse[c]
	l.gapUse[c]++
	step := float64((i+1)/2) * 9
	if i%2 == 1 {
		step = -step
	}
	g := l.gap(c)
	step = math.Mod(step, g/2-4)
	return l.colX[c] + l.colW[c] + g/2 + step
}

// sideSlot is where the next turn close to one side of the gap after
// column c runs: near its left side (the boxes of column c) or, when
// right, near its right side, each further out than the one before, up
// to the gap's middle. A route that leaves or enters a box by a side
// and turns at once keeps the rest of the gap free for those running
// straight through it, and for their labels.
func (l *graphLayout) sideSlot(c int, right bool) float64 {
	if l.sideUse == nil {
		l.sideUse = map[[2]int]int{}
	}
	key := [2]int{c, 0}
	if right {
		key[1] = 1
	}
	i := l.sideUse[key]
	l.sideUse[key]++
	g := l.gap(c)
	d := 12 + math.Mod(6*float64(i), g/2-14)
	if right {
		return l.colX[c] + l.colW[c] + g - d
	}
	return l.colX[c] + l.colW[c] + d
}

// crossGap is the column after which an edge from a to a later column
// on another lane turns: the first whose gap it reaches along a's lane,
// and from which it reaches b along b's lane, without passing a box.
// It says false when there is none.
func (l *graphLayout) crossGap(a, b *box) (int, bool) {
	for c := a.col; c < b.col; c++ {
		if !l.laneHas(a.lane, a.col+1, c) && !l.laneHas(b.lane, c+1, b.col-1) {
			return c, true
		}
	}
	return 0, false
}

// corridor is a height in the margin of lane on the side facing lane
// toward, where no box stands; each call gives the next of a few
// heights, so that detours along one margin lie side by side.
func (l *graphLayout) corridor(lane, toward int) float64 {
	if l.corridorUse == nil {
		l.corridorUse = map[[2]int]int{}
	}
	key := [2]int{lane, min(max(toward-lane, -1), 1)}
	away := 7 + float64(l.corridorUse[key]%4)*5
	l.corridorUse[key]++
	ln := l.lanes[lane]
	if toward < lane {
		return ln.zoneTop - away
	}
	return ln.zoneTop + ln.zoneH + away
}

// spreadPorts spreads the cross routes that leave one box's right side
// (or enter one box's left side) along that side, in the order of the
// boxes at their other ends, top to bottom, so that a fan of arrows
// runs in parallel lines rather than on top of one another. Where a
// straight arrow to a neighbour uses the side's middle, they keep off
// it: those going up above it, those going down below.
func (l *graphLayout) spreadPorts() {
	l.spreadRows()
	out, in := map[*box][]*route{}, map[*box][]*route{}
	straightOut, straightIn := map[*box]bool{}, map[*box]bool{}
	for _, r := range l.routes {
		if r.sided() {
			continue
		}
		switch r.shape {
		case cross:
			out[r.from] = append(out[r.from], r)
			in[r.to] = append(in[r.to], r)
		case straight:
			straightOut[r.from], straightIn[r.to] = true, true
		}
	}
	for b, rs := range out {
		spreadSide(b, rs, straightOut[b], func(r *route) *box { return r.to }, func(r *route, f float64) { r.outAt = f })
	}
	for b, rs := range in {
		spreadSide(b, rs, straightIn[b], func(r *route) *box { return r.from }, func(r *route, f float64) { r.inAt = f })
	}
}

// spreadSide gives the routes rs on one side of b their places along
// it, as shares of its height, in the order of the boxes at their other
// ends: by lane, then the farther column first.
func spreadSide(b *box, rs []*route, keepMiddle bool, other func(*route) *box, set func(*route, float64)) {
	sort.SliceStable(rs, func(i, j int) bool {
		x, y := other(rs[i]), other(rs[j])
		if x.lane != y.lane {
			return x.lane < y.lane
		}
		if x.col != y.col {
			return x.col > y.col
		}
		return rs[i].k < rs[j].k
	})
	along := func(group []*route, lo, hi float64) {
		for i, r := range group {
			f := (lo + hi) / 2
			if len(group) > 1 {
				f = lo + (hi-lo)*float64(i)/float64(len(group)-1)
			}
			set(r, f)
		}
	}
	if !keepMiddle {
		along(rs, 0.2, 0.8)
		return
	}
	up := 0
	for up < len(rs) && other(rs[up]).lane < b.lane {
		up++
	}
	along(rs[:up], 0.15, 0.35)
	along(rs[up:], 0.65, 0.85)
}

// spreadRows moves apart the ends of sided routes that meet one side of
// a box at one row: by up to 6 units each, around the row's middle, within
// the row (the ends at a box's middle by up to 12, over most of its
// height).
func (l *graphLayout) spreadRows() {
	type port struct {
		b     *box
		right bool
		line  int
	}
	type end struct {
		r    *route
		from bool
	}
	at := map[port][]end{}
	var ports []port
	add := func(p port, e end) {
		if _, ok := at[p]; !ok {
			ports = append(ports, p)
		}
		at[p] = append(at[p], e)
	}
	for _, r := range l.routes {
		if !r.sided() {
			continue
		}
		add(port{r.from, true, r.fromLine}, end{r, true})
		add(port{r.to, r.entersRight(), r.toLine}, end{r, false})
	}
	for _, p := range ports {
		ends := at[p]
		span, most := rowHalf-2, 6.0
		if p.line == 0 {
			span, most = p.b.h*0.3, 12
		}
		step := math.Min(most, 2*span/float64(max(1, len(ends)-1)))
		for i, e := range ends {
			off := (float64(i) - float64(len(ends)-1)/2) * step
			if e.from {
				e.r.fromOff = off
			} else {
				e.r.toOff = off
			}
		}
	}
}
