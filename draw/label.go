package draw

import "math"

var edgeLabelStyle = style{Size: 11, Bold: true}

// labelGap is the least space between a label and a box or another label.
const labelGap = 3

// placeLabels puts every route's label where it overlaps no box, lane
// name or other label: on its curve if it can, near it if not, and below
// everything else as a last resort, so that no two ever overlap. Among
// the places near its curve it prefers those no other arrow crosses.
func (l *graphLayout) placeLabels() {
	var taken []rect
	for _, b := range l.boxes {
		taken = append(taken, b.r)
	}
	for _, ln := range l.lanes {
		taken = append(taken, ln.nameRect)
	}
	free := func(r rect) bool {
		if r.X < 0 {
			return false
		}
		for _, o := range taken {
			if r.overlaps(o.inflate(labelGap)) {
				return false
			}
		}
		return true
	}
	samples := make([][]pt, len(l.routes))
	hulls := make([]rect, len(l.routes))
	for i, r := range l.routes {
		var b bounds
		for j := 0; j <= 32; j++ {
			p := r.at(float64(j) / 32)
			samples[i] = append(samples[i], p)
			b.addPoint(p)
		}
		hulls[i] = rect{b.MinX, b.MinY, b.MaxX - b.MinX, b.MaxY - b.MinY}.inflate(1)
	}
	for i, r := range l.routes {
		clear := func(c rect) bool {
			if !free(c) {
				return false
			}
			for j, ps := range samples {
				if j == i || !c.overlaps(hulls[j]) {
					continue
				}
				for _, p := range ps {
					if p.X >= c.X && p.X <= c.X+c.W && p.Y >= c.Y && p.Y <= c.Y+c.H {
						return false
					}
				}
			}
			return true
		}
		r.labelW = l.f.width(edgeLabelStyle, r.label)
		w := r.labelW*slack + 8
		h := edgeLabelStyle.Size + 5
		at := func(c pt) rect { return rect{c.X - w/2, c.Y - h/2, w, h} }
		on, near := l.nearPlaces(r, h)
		c, ok := first(on, at, clear)
		for _, try := range []struct {
			centres func() []pt
			accept  func(rect) bool
		}{
			{func() []pt { return on }, free},
			{func() []pt { return near }, clear},
			{func() []pt { return near }, free},
			{func() []pt { return spiral(r.at(0.5)) }, free},
		} {
			if ok {
				break
			}
			c, ok = first(try.centres(), at, try.accept)
		}
		if !ok {
			c = l.below(at(r.at(0.5)), free)
		}
		r.labelRect = c
		taken = append(taken, c)
	}
}

// nearPlaces are the centres to try for a label of height h on r: on
// its curve, middle first, and just beside it.
func (l *graphLayout) nearPlaces(r *route, h float64) (on, near []pt) {
	ts := []float64{0.5, 0.4, 0.6, 0.3, 0.7, 0.2, 0.8}
	if r.shape == loop {
		ts = []float64{0.45, 0.3, 0.6}
	}
	for _, t := range ts {
		on = append(on, r.at(t))
	}
	for _, d := range []float64{1, 2, 3} {
		for _, t := range ts {
			p := r.at(t)
			near = append(near, pt{p.X, p.Y - d*(h+2)}, pt{p.X, p.Y + d*(h+2)})
		}
	}
	return on, near
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

// first is the first of the centres whose rectangle ok accepts.
func first(centres []pt, at func(pt) rect, ok func(rect) bool) (rect, bool) {
	for _, c := range centres {
		if r := at(c); ok(r) {
			return r, true
		}
	}
	return rect{}, false
}

// below moves c under the lowest lane, and further down until free
// accepts it: there is always room there.
func (l *graphLayout) below(c rect, free func(rect) bool) rect {
	c.X = math.Max(c.X, 0)
	c.Y = l.lowest() + labelGap + 1
	for !free(c) {
		c.Y += c.H + labelGap + 1
	}
	return c
}

// lowest is the bottom of the lowest lane.
func (l *graphLayout) lowest() float64 {
	if len(l.lanes) == 0 {
		return 0
	}
	return l.lanes[len(l.lanes)-1].bottom
}
