// The straight and curved pieces of a route's path, and the geometry
// that tells whether a label lies on a path.

package draw

import "math"

// piece is one cubic of a route's path, with its length and whether it
// is a straight line.
type piece struct {
	c        cubic
	length   float64
	straight bool
}

// pieces are r's cubics measured.
func (r *route) pieces() []piece {
	out := make([]piece, 0, len(r.curve))
	for _, c := range r.curve {
		out = append(out, piece{c: c, length: polyLength(c.points(16)), straight: c.straight()})
	}
	return out
}

// straight says c's controls lie on the line from P0 to P3, between
// them.
func (c cubic) straight() bool {
	return nearSegment(c.C1, c.P0, c.P3, 0.5) && nearSegment(c.C2, c.P0, c.P3, 0.5)
}

// points are n+1 points of c, evenly spaced in t; two for a straight c.
func (c cubic) points(n int) []pt {
	if c.straight() {
		return []pt{c.P0, c.P3}
	}
	out := make([]pt, 0, n+1)
	for i := 0; i <= n; i++ {
		out = append(out, c.at(float64(i)/float64(n)))
	}
	return out
}

// polyline is r's path as a polyline, close enough to draw it.
func (r *route) polyline() []pt {
	var out []pt
	for i, c := range r.curve {
		ps := c.points(16)
		if i > 0 {
			ps = ps[1:]
		}
		out = append(out, ps...)
	}
	return out
}

func polyLength(ps []pt) float64 {
	n := 0.0
	for i := 1; i < len(ps); i++ {
		n += dist(ps[i-1], ps[i])
	}
	return n
}

// nearSegment says p lies within d of the segment from a to b.
func nearSegment(p, a, b pt, d float64) bool {
	ab := pt{b.X - a.X, b.Y - a.Y}
	n := ab.X*ab.X + ab.Y*ab.Y
	t := 0.0
	if n > 0 {
		t = math.Max(0, math.Min(1, ((p.X-a.X)*ab.X+(p.Y-a.Y)*ab.Y)/n))
	}
	return dist(p, pt{a.X + t*ab.X, a.Y + t*ab.Y}) <= d
}

// crosses says the segment from a to b meets r (its edges included).
func (r rect) crosses(a, b pt) bool {
	if max(a.X, b.X) < r.X || min(a.X, b.X) > r.X+r.W || max(a.Y, b.Y) < r.Y || min(a.Y, b.Y) > r.Y+r.H {
		return false
	}
	// Clip the segment to r, one side at a time (Liang and Barsky).
	t0, t1 := 0.0, 1.0
	dx, dy := b.X-a.X, b.Y-a.Y
	for _, side := range [4][2]float64{
		{-dx, a.X - r.X}, {dx, r.X + r.W - a.X},
		{-dy, a.Y - r.Y}, {dy, r.Y + r.H - a.Y},
	} {
		p, q := side[0], side[1]
		if p == 0 {
			if q < 0 {
				return false
			}
			continue
		}
		t := q / p
		if p < 0 {
			t0 = max(t0, t)
		} else {
			t1 = min(t1, t)
		}
		if t0 > t1 {
			return false
		}
	}
	return true
}

// meets says the polyline ps passes through r.
func (r rect) meets(ps []pt) bool {
	for i := 1; i < len(ps); i++ {
		if r.crosses(ps[i-1], ps[i]) {
			return true
		}
	}
	return len(ps) == 1 && r.crosses(ps[0], ps[0])
}
