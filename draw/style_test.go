package draw

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
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

// TestTimelineLabelsFitTheirBars checks the warped axis: on random
// timelines, every operation that lasts has its label inside its bar,
// and the axis keeps the order of the times.
func TestTimelineLabelsFitTheirBars(t *testing.T) {
	f := newFonts()
	for seed := range 300 {
		rng := rand.New(rand.NewPCG(uint64(seed), 37))
		tl := &Timeline{}
		for p := range 1 + rng.IntN(4) {
			lane := TimelineLane{Name: fmt.Sprint("process ", p)}
			for range rng.IntN(12) {
				start := rng.Int64N(1_000_000)
				iv := Interval{Start: start, End: start + 1 + rng.Int64N(200_000), Label: strings.Repeat("w", 1+rng.IntN(30)), Open: rng.IntN(8) == 0}
				lane.Ops = append(lane.Ops, iv)
			}
			tl.Lanes = append(tl.Lanes, lane)
		}
		sc := newTimeScale(f, tl)
		for k := 1; k < len(sc.xs); k++ {
			if sc.xs[k] <= sc.xs[k-1] {
				t.Fatalf("seed %d: time %d at %v, not after time %d at %v", seed, sc.times[k], sc.xs[k], sc.times[k-1], sc.xs[k-1])
			}
		}
		for _, ln := range tl.Lanes {
			ops, _ := placeOps(f, ln.Ops, sc.x, sc.width)
			for _, op := range ops {
				if op.x1+op.labelW*slack+tlLabelPad > op.x2+0.5 {
					t.Errorf("seed %d: %q (%d to %d, open %v) in a bar from %.1f to %.1f, %.1f short", seed, op.label, op.iv.Start, op.iv.End, op.iv.Open, op.x1, op.x2, op.x1+op.labelW*slack+tlLabelPad-op.x2)
				}
			}
		}
	}
}
