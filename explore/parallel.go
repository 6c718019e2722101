package explore

import (
	"context"
	"errors"
	"hash/fnv"
	"slices"
	"sync"
	"time"

	"github.com/isocheck/isocheck/progress"
)

// Workers split explore-ce's exploration tree without talking to each
// other. The tree is a function of the program: every worker walks the
// same tree from the root, numbering each node's children in the order
// the sequential exploration takes them. The nodes at depth split are the
// roots of subtrees dealt out by a hash of their path; a worker walks the
// nodes above that depth (few: split is the first depth with enough
// nodes) and only its own subtrees below, and counts an end state above
// the split only if the hash of its path is its own. Every end state is
// thus counted by exactly one worker, and each worker meets its end
// states in the sequential order, so the first broken history of the
// whole run is the one of smallest path among the workers' firsts: the
// same as the sequential exploration's.

// mine reports whether the current node belongs to this worker.
func (e *engine) mine() bool {
	h := fnv.New64a()
	var b [4]byte
	for _, x := range e.path {
		b[0], b[1], b[2], b[3] = byte(x), byte(x>>8), byte(x>>16), byte(x>>24)
		h.Write(b[:])
	}
	return int(h.Sum64()%uint64(e.workers)) == e.worker
}

// counts reports whether this worker counts what happens at the current
// node: always, but above the split in a parallel run, where every worker
// passes.
func (e *engine) counts() bool {
	if e.counting {
		return false
	}
	return e.split == 0 || len(e.path) >= e.split || e.mine()
}

// exploreParallel runs explore-ce on workers goroutines, counting end
// states on m.
func exploreParallel(ctx context.Context, p *Program, opts Options, workers int, m *progress.Meter) (*Result, error) {
	start := time.Now()
	newRoot := func() *state { return &state{recs: make([]*txnRec, p.NumTxns())} }
	// The split: the first depth with 32 nodes a worker, found by
	// walking the tree down to it.
	probe, err := newEngine(ctx, p, opts)
	if err != nil {
		return nil, err
	}
	probe.counting, probe.workers = true, workers
	split := 0
	for d := 2; ; d += 2 {
		probe.split, probe.atSplit = d, 0
		if err := probe.explore(newRoot()); err != nil {
			if probe.bodyErr != nil {
				return nil, probe.bodyErr
			}
			return &Result{Algorithm: opts.Algorithm, Level: probe.res.Level, Base: probe.res.Base, Elapsed: time.Since(start)}, nil
		}
		if probe.atSplit >= 32*workers || probe.atSplit == 0 {
			split = d
			break
		}
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var mu sync.Mutex // serializes OnHistory
	engines := make([]*engine, workers)
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		c := opts
		if opts.OnHistory != nil {
			c.OnHistory = func(h *History) error {
				mu.Lock()
				defer mu.Unlock()
				return opts.OnHistory(h)
			}
		}
		e, err := newEngine(ctx, p, c)
		if err != nil {
			return nil, err
		}
		e.split, e.worker, e.workers, e.meter = split, w, workers, m
		engines[w] = e
		wg.Go(func() {
			errs[w] = e.explore(newRoot())
			if errs[w] != nil {
				cancel() // an error, or StopAtFailure: the others stop too
			}
		})
	}
	wg.Wait()
	res := &Result{Algorithm: opts.Algorithm, Level: engines[0].res.Level, Base: engines[0].res.Base, Complete: true}
	var firstPath []int32
	for w, e := range engines {
		res.EndStates += e.res.EndStates
		res.Histories += e.res.Histories
		res.Failed += e.res.Failed
		res.Blocked += e.res.Blocked
		if e.res.First != nil && (res.First == nil || slices.Compare(e.firstPath, firstPath) < 0) {
			res.First, firstPath = e.res.First, e.firstPath
		}
		switch err := errs[w]; {
		case err == nil:
		case errors.Is(err, errStop):
			res.Complete = false
			if e.bodyErr != nil {
				return res, e.bodyErr
			}
		default:
			return res, err
		}
	}
	res.Elapsed = time.Since(start)
	return res, nil
}
