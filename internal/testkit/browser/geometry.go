package browser

import "fmt"

// overlapSlack is how far, in CSS pixels, two boxes may run into each
// other before they count as overlapping: antialiased edges and a stroke
// that meets its neighbour's are not overlaps a reader notices.
const overlapSlack = 1

// Overlaps returns the pairs of boxes whose rectangles intersect by more
// than about a pixel both across and down, each pair in the order of the
// boxes.
func Overlaps(boxes []Box) [][2]Box {
	var out [][2]Box
	for i, a := range boxes {
		for _, b := range boxes[i+1:] {
			if overlap(a.X, a.Width, b.X, b.Width) > overlapSlack &&
				overlap(a.Y, a.Height, b.Y, b.Height) > overlapSlack {
				out = append(out, [2]Box{a, b})
			}
		}
	}
	return out
}

// overlap returns the length of the intersection of the intervals
// [a, a+alen] and [b, b+blen], 0 when they are apart.
func overlap(a, alen, b, blen float64) float64 {
	return max(0, min(a+alen, b+blen)-max(a, b))
}

// Within reports whether inner's rectangle lies inside outer's, allowing
// about a pixel on each side.
func Within(inner, outer Box) bool {
	return inner.X >= outer.X-overlapSlack &&
		inner.Y >= outer.Y-overlapSlack &&
		inner.X+inner.Width <= outer.X+outer.Width+overlapSlack &&
		inner.Y+inner.Height <= outer.Y+outer.Height+overlapSlack
}

// rect writes a box's rectangle as "x,y wxh".
func rect(b Box) string {
	return fmt.Sprintf("%.0f,%.0f %.0fx%.0f", b.X, b.Y, b.Width, b.Height)
}
