package saturate

import (
	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/progress"
)

// This file orders the graph so ∪ wr ∪ forced topologically without
// building it: session order and write-read order are read from the
// resolution's own arrays (the session predecessor of each transaction
// and its external reads), and only the forced edges are stored, grouped
// by head. A history of a million transactions has some ten million such
// edges; not copying them into a general graph halves the check.

// forcedEdge is a commit-order edge an axiom forces: from must precede to,
// because of a read of key from to.
type forcedEdge struct {
	from, to int32
	key      history.Key
}

// orderer finds a topological order of so ∪ wr ∪ forced by Kahn's
// algorithm with waiting lists: a node checks its predecessors in turn,
// and when one is not yet ordered it waits on that one alone, in an
// intrusive list, until it is. Every edge is looked at once when the node
// blocks on it and once more when it resumes, so the order takes O(V+E)
// with no adjacency lists.
type orderer struct {
	s *saturator
	// prev[t]: t's predecessor in session order among included
	// transactions, or the initial transaction.
	prev []int32
	// forcedFrom[forcedStart[t]:forcedStart[t+1]] are the tails of the
	// forced edges into t.
	forcedStart, forcedFrom []int32
	// roots, unless nil, is the order in which orderMeter tries the
	// transactions: each comes as soon after its place there as its
	// predecessors allow.
	roots []int32

	done     []bool
	waiting  []bool
	cursor   []int32 // next predecessor of a node to look at
	waitHead []int32 // first node waiting on a node, or -1
	waitNext []int32
	stack    []int32
}

func newOrderer(s *saturator) *orderer {
	o := &orderer{s: s, prev: make([]int32, s.n+1)}
	for _, sess := range s.h.Sessions {
		prev := s.t0
		for _, t := range sess {
			if s.r.Included[t] {
				o.prev[t] = prev
				prev = t
			}
		}
	}
	return o
}

// setForced groups the forced edges by head (a counting sort). It reports
// false if an edge leads into the initial transaction, which precedes
// everything: that alone is a cycle.
//
// Runs, unless nil, holds more forced edges, read by read (see
// edgeRuns).
//
// It returns m's error (unless m is nil) once there is one: a million
// transactions force some ten million edges.
func (o *orderer) setForced(m *progress.Meter, lists [][]forcedEdge, runs *edgeRuns) (bool, error) {
	stopped := func() error {
		if m == nil {
			return nil
		}
		return m.Err()
	}
	n := o.s.n
	o.forcedStart = zeroed(o.forcedStart, n+2)
	total := 0
	for _, l := range lists {
		if err := stopped(); err != nil {
			return false, err
		}
		total += len(l)
		for _, e := range l {
			if e.to == o.s.t0 {
				return false, nil
			}
			o.forcedStart[e.to+2]++
		}
	}
	if runs != nil {
		if err := stopped(); err != nil {
			return false, err
		}
		total += runs.edges
		into := false
		runs.each(func(head int32, _ history.Key, tails []int32) {
			if head == o.s.t0 {
				into = true
				return
			}
			o.forcedStart[head+2] += int32(len(tails))
		})
		if into {
			return false, nil
		}
	}
	for i := 2; i < n+2; i++ {
		o.forcedStart[i] += o.forcedStart[i-1]
	}
	if cap(o.forcedFrom) < total {
		o.forcedFrom = make([]int32, total)
	}
	o.forcedFrom = o.forcedFrom[:total]
	// forcedStart[t+1] serves as the fill pointer of t and ends at the
	// start of t+1, leaving forcedStart[t] as t's start.
	for _, l := range lists {
		if err := stopped(); err != nil {
			return false, err
		}
		for _, e := range l {
			o.forcedFrom[o.forcedStart[e.to+1]] = e.from
			o.forcedStart[e.to+1]++
		}
	}
	if runs != nil {
		if err := stopped(); err != nil {
			return false, err
		}
		runs.each(func(head int32, _ history.Key, tails []int32) {
			at := o.forcedStart[head+1]
			copy(o.forcedFrom[at:], tails)
			o.forcedStart[head+1] = at + int32(len(tails))
		})
	}
	return true, nil
}

// pred returns the i-th predecessor of t, and false past the last.
func (o *orderer) pred(t int32, i int32) (int32, bool) {
	if i == 0 {
		return o.prev[t], true
	}
	i--
	s := o.s
	if rs, re := s.readStart[t], s.readStart[t+1]; i < re-rs {
		return s.r.Reads[rs+i].Writer, true
	}
	i -= s.readStart[t+1] - s.readStart[t]
	if o.forcedStart != nil {
		if fs, fe := o.forcedStart[t], o.forcedStart[t+1]; i < fe-fs {
			return o.forcedFrom[fs+i], true
		}
	}
	return 0, false
}

// order calls visit on every included transaction in a topological order
// of so ∪ wr ∪ forced (without forced edges before setForced), each after
// all its predecessors. It reports false if the graph has a cycle, in
// which case some transactions were never visited.
func (o *orderer) order(visit func(t int32)) bool {
	ok, _ := o.orderMeter(nil, visit)
	return ok
}

// orderMeter is order counting the transactions ordered on m (unless m is
// nil); once m reports an error, it stops and returns it.
func (o *orderer) orderMeter(m *progress.Meter, visit func(t int32)) (bool, error) {
	s := o.s
	n := s.n
	o.done = zeroed(o.done, n+1)
	o.waiting = zeroed(o.waiting, n+1)
	o.cursor = zeroed(o.cursor, n+1)
	o.waitHead = resize(o.waitHead, n+1)
	o.waitNext = resize(o.waitNext, n+1)
	for i := range o.waitHead {
		o.waitHead[i] = -1
	}
	o.done[s.t0] = true
	ordered, included := 0, 0
	for i := range int32(n) {
		t := i
		if o.roots != nil {
			t = o.roots[i]
		}
		if !s.r.Included[t] {
			continue
		}
		included++
		if o.done[t] || o.waiting[t] {
			continue
		}
		o.stack = append(o.stack[:0], t)
		for len(o.stack) > 0 {
			u := o.stack[len(o.stack)-1]
			o.stack = o.stack[:len(o.stack)-1]
			if o.block(u) {
				continue
			}
			o.done[u] = true
			ordered++
			if m != nil && ordered&(progress.Every-1) == 0 {
				if err := m.Add(progress.Every); err != nil {
					return false, err
				}
			}
			if visit != nil {
				visit(u)
			}
			for w := o.waitHead[u]; w >= 0; w = o.waitNext[w] {
				o.waiting[w] = false
				o.stack = append(o.stack, w)
			}
			o.waitHead[u] = -1
		}
	}
	return ordered == included, nil
}

// block advances u's cursor past its ordered predecessors; at the first
// unordered one it puts u on that one's waiting list and reports true.
func (o *orderer) block(u int32) bool {
	for {
		p, ok := o.pred(u, o.cursor[u])
		if !ok {
			return false
		}
		if !o.done[p] {
			o.waiting[u] = true
			o.waitNext[u] = o.waitHead[p]
			o.waitHead[p] = u
			return true
		}
		o.cursor[u]++
	}
}

// zeroed returns s with length n and every element zero, reusing its
// memory when it is large enough.
func zeroed[T any](s []T, n int) []T {
	s = resize(s, n)
	clear(s)
	return s
}

// resize returns s with length n, reusing its memory when it is large
// enough; the contents are unspecified.
func resize[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}
