// Bézier curves: the paths routes follow, and the geometry that builds them.

package draw

import "math"

// cubic is a cubic Bézier from P0 to P3 with controls C1 and C2.
type cubic struct{ P0, C1, C2, P3 pt }

// at is the point of r's curve at t in [0, 1].
func (r *route) at(t float64) pt {
	n := len(r.curve)
	i := min(int(t*float64(n)), n-1)
	return r.curve[i].at(t*float64(n) - float64(i))
}

// at is the point of c at t in [0, 1].
func (c cubic) at(t float64) pt {
	u := 1 - t
	a, b, cc, d := u*u*u, 3*u*u*t, 3*u*t*t, t*t*t
	return pt{
		a*c.P0.X + b*c.C1.X + cc*c.C2.X + d*c.P3.X,
		a*c.P0.Y + b*c.C1.Y + cc*c.C2.Y + d*c.P3.Y,
	}
}

func lerp(a, b pt, t float64) pt { return pt{a.X + (b.X-a.X)*t, a.Y + (b.Y-a.Y)*t} }

func dist(a, b pt) float64 { return math.Hypot(b.X-a.X, b.Y-a.Y) }

// elbow runs from p0 across to x, along x, and across to p3, in
// straight legs with rounded corners.
func elbow(p0, p3 pt, x float64) []cubic {
	return rounded([]pt{p0, {x, p0.Y}, {x, p3.Y}, p3}, 14)
}

// rounded is the polyline through ps with its corners rounded by
// radius r (less where a leg is short), as Béziers.
func rounded(ps []pt, r float64) []cubic {
	var out []cubic
	line := func(a, b pt) {
		if a != b {
			out = append(out, cubic{a, lerp(a, b, 1.0/3), lerp(a, b, 2.0/3), b})
		}
	}
	from := ps[0]
	for i := 1; i+1 < len(ps); i++ {
		corner := ps[i]
		in, next := dist(from, corner), dist(corner, ps[i+1])
		k := math.Min(r, math.Min(in, next/2))
		enter := towards(corner, from, k)
		leave := towards(corner, ps[i+1], k)
		line(from, enter)
		if enter != leave {
			out = append(out, cubic{enter, lerp(enter, corner, 0.55), lerp(leave, corner, 0.55), leave})
		}
		from = leave
	}
	line(from, ps[len(ps)-1])
	if len(out) == 0 {
		line(ps[0], pt{ps[0].X + 0.1, ps[0].Y})
	}
	return out
}

// towards is the point at distance d from a on the way to b.
func towards(a, b pt, d float64) pt {
	n := dist(a, b)
	if n == 0 {
		return a
	}
	return lerp(a, b, d/n)
}

func unit(p pt) pt {
	n := math.Hypot(p.X, p.Y)
	if n == 0 {
		return pt{}
	}
	return pt{p.X / n, p.Y / n}
}
