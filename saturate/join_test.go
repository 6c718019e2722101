package saturate

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestJoinClock: the join of every length, vector kernel or not, is the
// entrywise maximum, and leaves src and what follows dst as they were.
func TestJoinClock(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for n := range 100 {
		for range 20 {
			dst := make([]int32, n+3)
			src := make([]int32, n+5)
			for i := range dst {
				dst[i] = rng.Int32N(50)
			}
			for i := range src {
				src[i] = rng.Int32N(50)
			}
			want := slices.Clone(dst)
			for i := range n {
				want[i] = max(dst[i], src[i])
			}
			srcBefore := slices.Clone(src)
			joinClock(dst[:n], src)
			if !slices.Equal(dst, want) || !slices.Equal(src, srcBefore) {
				t.Fatalf("n=%d: got %v, want %v", n, dst, want)
			}
		}
	}
}

// BenchmarkJoinClock joins clocks of 2,000 sessions.
func BenchmarkJoinClock(b *testing.B) {
	dst, src := make([]int32, 2000), make([]int32, 2000)
	for i := range src {
		src[i] = int32(i * 7 % 1000)
		dst[i] = int32(i * 13 % 1000)
	}
	b.Run("kernel", func(b *testing.B) {
		for b.Loop() {
			joinClock(dst, src)
		}
	})
	b.Run("go", func(b *testing.B) {
		for b.Loop() {
			joinClockGo(dst, src)
		}
	})
}
