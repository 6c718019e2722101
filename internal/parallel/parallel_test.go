package parallel

import (
	"errors"
	"sync/atomic"
	"testing"
)

// TestEach: the shares cover the range once, in order, whatever the
// numbers of items and workers, and every error comes back.
func TestEach(t *testing.T) {
	for _, n := range []int{0, 1, 5, 64, 1000} {
		for _, workers := range []int{1, 2, 3, 7, 16} {
			seen := make([]int32, n)
			ends := make([][2]int, workers)
			err := Each(n, workers, func(w, lo, hi int) error {
				ends[w] = [2]int{lo, hi}
				for i := lo; i < hi; i++ {
					atomic.AddInt32(&seen[i], 1)
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			for i, c := range seen {
				if c != 1 {
					t.Fatalf("n %d, %d workers: item %d visited %d times", n, workers, i, c)
				}
			}
			for w := 1; w < workers; w++ {
				if ends[w][0] != ends[w-1][1] {
					t.Fatalf("n %d, %d workers: share %d begins at %d, the one before ends at %d", n, workers, w, ends[w][0], ends[w-1][1])
				}
			}
		}
	}
	bad := errors.New("bad")
	if err := Each(10, 3, func(w, _, _ int) error {
		if w == 2 {
			return bad
		}
		return nil
	}); !errors.Is(err, bad) {
		t.Fatalf("error %v, want the worker's", err)
	}
}
