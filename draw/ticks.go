package draw

import (
	"math"
	"strconv"
)

// ticks are about n round values from lo to hi, for an axis.
func ticks(lo, hi float64, n int) []float64 {
	if !(hi > lo) || math.IsInf(hi-lo, 0) {
		return []float64{lo}
	}
	raw := (hi - lo) / float64(max(n, 1))
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := mag
	for _, m := range []float64{1, 2, 5, 10} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	var out []float64
	first := math.Ceil(lo / step)
	for i := 0.0; len(out) < 4*n+2; i++ {
		v := (first + i) * step // not a sum of steps, whose errors add up
		if v > hi+step*1e-9 {
			break
		}
		out = append(out, v)
	}
	return out
}

// tickLabel formats an axis value briefly.
func tickLabel(v float64) string {
	if math.Abs(v) < 1e-12 {
		return "0"
	}
	if math.Abs(v) >= 1e6 || math.Abs(v) < 1e-3 {
		return strconv.FormatFloat(v, 'g', 3, 64)
	}
	// Nine digits: 0.06, not the 0.06000000000000005 of 6 × 0.01.
	return strconv.FormatFloat(v, 'g', 9, 64)
}
