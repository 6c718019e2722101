package draw

import (
	"slices"
	"testing"
)

func TestTicks(t *testing.T) {
	cases := []struct {
		lo, hi float64
		n      int
		want   []string
	}{
		{0, 0.063, 6, []string{"0", "0.02", "0.04", "0.06"}},
		{0, 0.063, 7, []string{"0", "0.01", "0.02", "0.03", "0.04", "0.05", "0.06"}},
		{0, 40000, 4, []string{"0", "10000", "20000", "30000", "40000"}},
		{0.3, 2.1, 4, []string{"0.5", "1", "1.5", "2"}},
		{0, 3e7, 3, []string{"0", "1e+07", "2e+07", "3e+07"}},
		{5, 5, 4, []string{"5"}},
	}
	for _, c := range cases {
		var got []string
		for _, v := range ticks(c.lo, c.hi, c.n) {
			got = append(got, tickLabel(v))
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("ticks(%v, %v, %d) = %v, want %v", c.lo, c.hi, c.n, got, c.want)
		}
	}
}
