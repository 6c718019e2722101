// Package parallel runs a pass over a range on several goroutines, each a
// share of it: the one shape the checker's passes on every core take.
package parallel

import (
	"errors"
	"sync"
)

// Each cuts 0 up to n into workers shares of about equal length and
// calls f with each worker's index and share, side by side (on the
// caller's goroutine when there is one worker). It returns their errors,
// joined.
func Each(n, workers int, f func(w, lo, hi int) error) error {
	if workers <= 1 {
		return f(0, 0, n)
	}
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() { errs[w] = f(w, Share(n, w, workers), Share(n, w+1, workers)) })
	}
	wg.Wait()
	return errors.Join(errs...)
}

// Share is where share w of workers shares of 0 up to n begins (and
// share w-1 ends).
func Share(n, w, workers int) int { return int(int64(n) * int64(w) / int64(workers)) }
