package draw

import "math"

var edgeLabelStyle = style{Size: 11, Bold: true}

// labelGap is the least space between a label and a box or another label.
const labelGap = 3

// maxPlacesPerPiece bounds the places tried along one piece of an
// arrow: every 4 units, or fewer on a long piece.
const maxPlacesPerPiece = 32

// besideClearance is the space a label beside its arrow, rather than
// on it, keeps from other arrows if it can, so that it is not read as
// theirs.
const besideClearance = 12

// placeLabels puts every route's label on its own arrow, where it
// overlaps no box, arrowhead, lane name or other label: centred on the
// arrow's line if it can, else just beside it, touching it. Among those
// places it prefers, in order, those no other arrow comes near (within
// labelGap of a label on its arrow, besideClearance of one beside it),
// the longest straight piece of the arrow, and the middle of a piece.
// It gives back the routes it found no such place for, with their labels
// put where lastResort says: none, or (when true) anywhere free.
func (l *graphLayout) placeLabels(lastResort bool) (stuck []*route) {
	var taken []rect
	for _, b := range l.boxes {
		taken = append(taken, b.r)
	}
	for _, ln := range l.lanes {
		taken = append(taken, ln.nameRect)
	}
	for _, r := range l.routes {
		taken = append(taken, r.headRect())
	}
	free := func(c rect) bool {
		if c.X < 0 {
			return false
		}
		for _, o := range taken {
			if c.overlaps(o.inflate(labelGap)) {
				return false
			}
		}
		return true
	}
	lines := make([][]pt, len(l.routes))
	hulls := make([]rect, len(l.routes))
	for i, r := range l.routes {
		lines[i] = r.polyline()
		var b bounds
		for _, p := range lines[i] {
			b.addPoint(p)
		}
		hulls[i] = rect{b.MinX, b.MinY, b.MaxX - b.MinX, b.MaxY - b.MinY}
	}
	for i, r := range l.routes {
		// clearBy accepts a free place that no other arrow comes
		// within d of.
		clearBy := func(d float64) func(rect) bool {
			return func(c rect) bool {
				if !free(c) {
					return false
				}
				near := c.inflate(d)
				for j, ps := range lines {
					if j != i && near.overlaps(hulls[j]) && near.meets(ps) {
						return false
					}
				}
				return true
			}
		}
		clear, wellClear := clearBy(labelGap), clearBy(besideClearance)
		r.labelW = l.f.width(edgeLabelStyle, r.label)
		w := r.labelW*slack + 8
		h := edgeLabelStyle.Size + 5
		centred, beside := labelPlaces(r, w, h)
		var c rect
		ok := false
		for _, try := range []struct {
			places []rect
			accept func(rect) bool
		}{{centred, clear}, {beside, wellClear}, {beside, clear}, {centred, free}, {beside, free}} {
			if c, ok = firstRect(try.places, try.accept); ok {
				break
			}
		}
		if !ok {
			stuck = append(stuck, r)
			if !lastResort {
				continue
			}
			c = l.anywhere(r, w, h, free)
		}
		r.labelRect = c
		taken = append(taken, c)
	}
	return stuck
}

// labelPlaces are the boxes of width w and height h to try for r's
// label, best first: centred on its path, and beside it with one side
// touching it. Straight pieces come first, longest first, then curved
// ones; along each piece the middle comes first, then places further
// out on either side.
func labelPlaces(r *route, w, h float64) (centred, beside []rect) {
	ps := r.pieces()
	order := make([]int, len(ps))
	for i := range order {
		order[i] = i
	}
	better := func(a, b piece) bool {
		if a.straight != b.straight {
			return a.straight
		}
		return a.length > b.length+0.5
	}
	for i := 1; i < len(order); i++ {
		for j := i; j > 0 && better(ps[order[j]], ps[order[j-1]]); j-- {
			order[j], order[j-1] = order[j-1], order[j]
		}
	}
	at := func(c pt) rect { return rect{c.X - w/2, c.Y - h/2, w, h} }
	for _, i := range order {
		p := ps[i]
		n := min(max(2, int(p.length/4)), maxPlacesPerPiece)
		for k := 0; k <= n; k++ {
			f := 0.5 + float64((k+1)/2)/float64(n)
			if k%2 == 1 {
				f = 1 - f
			}
			if f < 0 || f > 1 {
				continue
			}
			c := p.c.at(f)
			centred = append(centred, at(c))
			for _, d := range []pt{{0, -h/2 - 1}, {0, h/2 + 1}, {-w/2 - 1, 0}, {w/2 + 1, 0}} {
				beside = append(beside, at(pt{c.X + d.X, c.Y + d.Y}))
			}
		}
	}
	return centred, beside
}

// firstRect is the first of places that ok accepts.
func firstRect(places []rect, ok func(rect) bool) (rect, bool) {
	for _, c := range places {
		if ok(c) {
			return c, true
		}
	}
	return rect{}, false
}

// anywhere is a free place for r's label of width w and height h, as
// near its middle as there is one, or below everything else: there is
// always room there.
func (l *graphLayout) anywhere(r *route, w, h float64, free func(rect) bool) rect {
	mid := r.at(0.5)
	for _, c := range spiral(mid) {
		if b := (rect{c.X - w/2, c.Y - h/2, w, h}); free(b) {
			return b
		}
	}
	b := rect{math.Max(mid.X-w/2, 0), l.lowest() + labelGap + 1, w, h}
	for !free(b) {
		b.Y += h + labelGap + 1
	}
	return b
}

// spiral is centres around p, nearest first, out to a few hundred units.
func spiral(p pt) []pt {
	var out []pt
	for radius := 8.0; radius <= 480; radius += 8 {
		steps := int(math.Max(12, radius/4))
		for i := 0; i < steps; i++ {
			a := 2 * math.Pi * float64(i) / float64(steps)
			out = append(out, pt{p.X + radius*math.Cos(a), p.Y + radius*math.Sin(a)})
		}
	}
	return out
}

// lowest is the bottom of the lowest lane.
func (l *graphLayout) lowest() float64 {
	if len(l.lanes) == 0 {
		return 0
	}
	return l.lanes[len(l.lanes)-1].bottom
}
