package draw

import (
	"math"
	"testing"
)

// luma is a colour's brightness in grey-scale print (Rec. 601), 0 to 255.
func luma(c string) float64 {
	n := parseColor(c)
	return 0.299*float64(n.R) + 0.587*float64(n.G) + 0.114*float64(n.B)
}

func TestKindsDifferInGreyScale(t *testing.T) {
	// SO and RT differ from the rest in width and pattern too; the
	// solid kinds of one width must differ in brightness alone.
	solid := []string{WR, WW, RW, SO}
	for i, a := range solid {
		for _, b := range solid[i+1:] {
			la, lb := luma(styleOf(a).color), luma(styleOf(b).color)
			if math.Abs(la-lb) < 20 {
				t.Errorf("%s (%.0f) and %s (%.0f) look alike in grey scale", a, la, b, lb)
			}
		}
	}
	for _, k := range []string{SO, WR, WW, RW, RT} {
		if l := luma(styleOf(k).color); l > 180 {
			t.Errorf("%s is too light (%.0f) to read on white", k, l)
		}
	}
	if styleOf(RT).dash == nil || styleOf(SO).width <= styleOf(WR).width {
		t.Errorf("RT must be dotted and SO thicker than the others")
	}
}

func TestTimelineRowsKeepLabelsApart(t *testing.T) {
	f := newFonts()
	x := func(v int64) float64 { return float64(v) * 3 }
	for seed := range 200 {
		var ivs []Interval
		for i := range 3 + seed%20 {
			start := int64((seed*7 + i*13) % 97)
			ivs = append(ivs, Interval{Start: start, End: start + int64((seed+i)%30), Label: "op " + string(rune('a'+i%26)), Open: (seed+i)%9 == 0})
		}
		ops, rows := placeOps(f, ivs, x, 400)
		for i, a := range ops {
			if a.row < 0 || a.row >= rows {
				t.Fatalf("seed %d: op %d on row %d of %d", seed, i, a.row, rows)
			}
			for j, b := range ops[i+1:] {
				if a.row == b.row && a.x1 < b.extent && b.x1 < a.extent {
					t.Fatalf("seed %d: ops %d and %d overlap on row %d", seed, i, i+1+j, a.row)
				}
			}
		}
	}
}
