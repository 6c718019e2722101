// Package saturate checks read committed (RC), read atomic (RA) and causal
// consistency (CC) in polynomial time, without a solver, as in Biswas and
// Enea, "On the Complexity of Checking Transactional Consistency"
// (OOPSLA 2019), Section 3, Algorithm 1.
//
// The axioms of these levels never have the commit order on their left
// side, so one pass finds every commit-order edge they force: start from
// session order and write-read order, and for each read α of x from t1 in
// t3, put before t1 every other writer t2 of x that α's transaction had
// already observed — through an earlier read (RC), a read or its session
// (RA), or its causal past (CC). The history satisfies the level iff the
// result is acyclic.
//
// The causal past is kept as per-session vector clocks, only while a
// transaction still to come needs them (stream.go), and only the last
// writer of x per session in it gets an edge (session order implies the
// rest), so the pass is near-linear: O(reads × sessions) for CC; before
// it, CC tries a commit order, which needs a few clock lookups per read
// (guess.go). The pass runs on one goroutine per share of the sessions
// (RC, RA) or of each batch of transactions (CC); the graph is then
// ordered without
// being built (order.go), and built in full only to report a cycle,
// restated as the reads that forced it (evidence.go).
package saturate

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"

	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/internal/parallel"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/polygraph"
	"github.com/isocheck/isocheck/progress"
	"github.com/isocheck/isocheck/resolve"
	"github.com/isocheck/isocheck/verdict"
)

// Result is the outcome of a check.
type Result struct {
	// Verdict is verdict.Satisfied or verdict.Violated: a stage that
	// stops returns an error instead (see CheckWith).
	Verdict verdict.Verdict
	// Anomalies are the reads no commit order explains.
	Anomalies []resolve.Anomaly
	// Cycle is a cycle of commit-order edges the level forces. Forced
	// edges have kind WW: the writer the reader had observed must precede
	// the writer it read, on the key read.
	Cycle []polygraph.Edge
	// Conflict, instead of Cycle, is a pair of transactions the level
	// forces each before the other (two forced edges in a cycle): it
	// holds the cycle each order closes.
	Conflict *Conflict
	// Core, instead of Cycle, holds cycles at least one of which every
	// commit order closes: one per forced edge of a cycle with several.
	Core [][]polygraph.Edge
	// Edges counts the edges of the saturated graph.
	Edges int
}

// Conflict says that neither of Constraint's orders can hold: Either's
// closes EitherCycle and Or's closes OrCycle.
type Conflict struct {
	Constraint           polygraph.Constraint
	EitherCycle, OrCycle []polygraph.Edge
}

// MaxClockEntries is the default bound on the entries (4 bytes each) of
// CC's vector clocks live at once: 1 GiB.
const MaxClockEntries = 1 << 28

// Options bound the memory of a check. The zero value is what Check
// does.
type Options struct {
	// MaxClockEntries bounds the entries (4 bytes each) of CC's vector
	// clocks live at once: 0 means the constant MaxClockEntries, a
	// negative value no bound. A clock has one entry per session, and a
	// transaction's clock lives while a later transaction needs it: in
	// the worst case, with every session running throughout, there are
	// about as many clocks live as sessions, so the bound is on the
	// square of the sessions.
	MaxClockEntries int64
	// MaxForcedEdges bounds the commit-order edges CC's axiom forces (8
	// bytes each, with their order): 0 means the constant MaxForcedEdges,
	// a negative value no bound.
	MaxForcedEdges int64
}

// Check decides whether the resolved history r satisfies l, one of RC, RA
// and CC, with the zero Options. It runs as the stages "saturate RC" (or
// RA, CC) and "order RC" (or RA, CC), each counting transactions, and
// returns the reason (context.Cause) if ctx ends first.
//
// A check that would pass its limits returns a *LimitError, which wraps
// progress.ErrResourceLimit.
//
// This package is a stage of package check, and answers as its other stages
// (resolve, polygraph, prune, solver) do: a stop is an error that
// satisfies progress.Stopped, which the vertical (check.CheckWith) turns
// into a Result without a verdict, its Reason and its Stage, with
// progress.Outcome. Any other error (a level other than RC, RA and CC) is
// a failure of the caller.
func Check(ctx context.Context, r *resolve.Resolution, l level.Level) (*Result, error) {
	return check(ctx, r, l, 0)
}

// CheckWith is Check with opts.
func CheckWith(ctx context.Context, r *resolve.Resolution, l level.Level, opts Options) (*Result, error) {
	opt := options{maxClock: opts.MaxClockEntries}
	switch {
	case opts.MaxForcedEdges < 0:
		opt.maxEdges = math.MaxInt
	case opts.MaxForcedEdges > 0:
		opt.maxEdges = int(min(opts.MaxForcedEdges, math.MaxInt32))
	}
	return checkWith(ctx, r, l, opt)
}

// check is Check on the given number of goroutines (0: as many as
// GOMAXPROCS, where the history is large enough to gain from them).
func check(ctx context.Context, r *resolve.Resolution, l level.Level, workers int) (*Result, error) {
	return checkWith(ctx, r, l, options{workers: workers})
}

// options are the knobs of a check that tests turn to run every path on
// small histories.
type options struct {
	// workers is the number of goroutines forcing edges (0: automatic).
	workers int
	// batch is the number of transactions CC computes the clocks of
	// before it applies the axiom to them (0: streamBatch).
	batch int
	// denseShare replaces the constant of the same name; -1: no key is
	// dense.
	denseShare int
	// maxEdges, unless 0, replaces MaxForcedEdges.
	maxEdges int
	// maxClock is Options.MaxClockEntries.
	maxClock int64
	// noGuess has CC force every edge without trying a commit order
	// first (guess.go).
	noGuess bool
	// noRecheck has every order tried checked by the clocks of every
	// session (see recheck.go).
	noRecheck bool
	// shuffle, unless 0, seeds a random order tried first, and noRA
	// leaves out the passes of RA's axiom that repair it: bad guesses,
	// for tests of the repairs.
	shuffle uint64
	noRA    bool
	// guessStats, unless nil, counts what the guesses did, for tests.
	guessStats *guessStats
}

// checkWith is Check with the given options.
func checkWith(ctx context.Context, r *resolve.Resolution, l level.Level, opt options) (*Result, error) {
	switch l {
	case level.RC, level.RA, level.CC:
	default:
		return nil, fmt.Errorf("saturate: level %v is not RC, RA or CC", l)
	}
	if r.Released() {
		return nil, resolve.ErrReleased
	}
	res := &Result{Verdict: verdict.Violated}
	for _, a := range r.Anomalies {
		// Reading a key twice and getting a newer value is allowed at RC;
		// whether the values went backwards is for the axiom to decide.
		if a.Kind == verdict.NonRepeatableRead && l == level.RC {
			continue
		}
		res.Anomalies = append(res.Anomalies, a)
	}
	if len(res.Anomalies) > 0 {
		return res, nil
	}
	n := int64(len(r.History.Txns))
	s := newSaturator(r)
	s.options = opt
	o := newOrderer(s)
	var forced [][]forcedEdge
	var runs *edgeRuns // CC's forced edges
	var err error
	switch l {
	case level.RC:
		forced, err = s.parallel(progress.Start(ctx, "saturate RC", n, "transactions"), s.readCommitted)
	case level.RA:
		forced, err = s.parallel(progress.Start(ctx, "saturate RA", n, "transactions"), s.readAtomic)
	case level.CC:
		limit := cmp.Or(opt.maxClock, MaxClockEntries)
		if limit < 0 {
			limit = math.MaxInt64
		}
		if !opt.noGuess {
			satisfied, ok, found, err := s.causalGuess(ctx, o, limit)
			if err != nil {
				return nil, err
			}
			if ok {
				res.Edges = s.baseEdges() + len(found)
				if satisfied {
					res.Verdict = verdict.Satisfied
					return res, nil
				}
				res.Edges, res.Cycle, res.Conflict, res.Core = s.cycle(l, [][]forcedEdge{found[len(s.versions):]})
				return res, nil
			}
		}
		s.indexGroups()
		var acyclic bool
		acyclic, runs, err = s.causalStream(progress.Start(ctx, "saturate CC", n, "transactions"), o, limit)
		if err != nil {
			return nil, err
		}
		if !acyclic {
			// so ∪ wr is cyclic already.
			res.Edges, res.Cycle, res.Conflict, res.Core = s.cycle(l, nil)
			return res, nil
		}
	}
	if err != nil {
		return nil, err
	}
	res.Edges = s.baseEdges() + len(s.versions)
	for _, f := range forced {
		res.Edges += len(f)
	}
	if runs != nil {
		res.Edges += runs.edges
	}
	m := progress.Start(ctx, "order "+l.String(), n, "transactions")
	if err := m.Err(); err != nil {
		return nil, err
	}
	acyclic, err := o.setForced(m, append(forced, s.versions), runs)
	if err != nil {
		return nil, err
	}
	if acyclic {
		if acyclic, err = o.orderMeter(m, nil); err != nil {
			return nil, err
		}
	}
	if acyclic {
		res.Verdict = verdict.Satisfied
		return res, nil
	}
	if runs != nil {
		forced = append(forced, runs.forcedEdges())
	}
	res.Edges, res.Cycle, res.Conflict, res.Core = s.cycle(l, forced)
	return res, nil
}

// baseEdges counts the edges of so ∪ wr.
func (s *saturator) baseEdges() int {
	n := len(s.r.Reads)
	for _, in := range s.r.Included {
		if in {
			n++
		}
	}
	return n
}

// saturator holds the indexes the axioms need.
type saturator struct {
	r   *resolve.Resolution
	h   *history.History
	n   int   // transactions; node n is the initial transaction
	t0  int32 // = n
	pos []int32
	// Only for CC (see indexGroups): the groups of writers of key k, one
	// per session writing it, are groupStart[k] up to groupStart[k+1];
	// group g is of session groupSession[g]; the write of keys[i] is in
	// group keyGroup[i].
	groupStart, groupSession, keyGroup []int32
	// options are the knobs the check runs with.
	options
	sessions int // len(h.Sessions)
	// readStart[t]: r.Reads[readStart[t]:readStart[t+1]] are the external
	// reads of t, in program order (Resolve lists them by transaction).
	readStart []int32
	// keys[keyStart[t]:keyStart[t+1]] are the keys t writes, sorted.
	keys     []history.Key
	keyStart []int32
	// versions are the known WW edges of the version orders lists reveal
	// (resolve.KeyOrder): the commit order must contain them.
	versions []forcedEdge
}

func newSaturator(r *resolve.Resolution) *saturator {
	h := r.History
	n := len(h.Txns)
	s := &saturator{r: r, h: h, n: n, t0: int32(n), pos: make([]int32, n),
		sessions:  len(h.Sessions),
		readStart: make([]int32, n+1),
		keyStart:  make([]int32, n+1)}
	for _, sess := range h.Sessions {
		for i, t := range sess {
			s.pos[t] = int32(i)
		}
	}
	// Transactions' keys written and reads, as ranges of flat arrays.
	// The keys are counted, then filled and sorted, a range of
	// transactions a core.
	workers := min(runtime.GOMAXPROCS(0), max(1, n/minParallel))
	parallel.Each(n, workers, func(_, lo, hi int) error {
		for t := lo; t < hi; t++ {
			if !r.Included[t] {
				continue
			}
			tx := &h.Txns[t]
			for i := tx.OpStart; i < tx.OpEnd; i++ {
				if r.IsFinalWrite(i) {
					s.keyStart[t+1]++
				}
			}
		}
		return nil
	})
	for t := range n {
		s.keyStart[t+1] += s.keyStart[t]
	}
	s.keys = make([]history.Key, s.keyStart[n])
	parallel.Each(n, workers, func(_, lo, hi int) error {
		for t := lo; t < hi; t++ {
			keys := s.keys[s.keyStart[t]:s.keyStart[t]:s.keyStart[t+1]]
			if cap(keys) == 0 {
				continue
			}
			tx := &h.Txns[t]
			for i := tx.OpStart; i < tx.OpEnd; i++ {
				if r.IsFinalWrite(i) {
					keys = append(keys, h.Ops[i].Key)
				}
			}
			slices.Sort(keys)
		}
		return nil
	})
	for _, rd := range r.Reads {
		s.readStart[rd.Reader+1]++
	}
	for t := 0; t < n; t++ {
		s.readStart[t+1] += s.readStart[t]
	}
	s.versions = s.versionEdges()
	return s
}

// versionEdges returns the WW edges of the known version orders: between
// consecutive writers of each order, and from its last writer to every
// other writer of its key (Biswas and Enea's commit order is the version
// order of every key, and a list's content follows it).
func (s *saturator) versionEdges() []forcedEdge {
	orders := s.r.Orders
	if len(orders) == 0 {
		return nil
	}
	h := s.h
	tail := make([]int32, h.NumKeys())
	for i := range tail {
		tail[i] = -1
	}
	var edges []forcedEdge
	for _, o := range orders {
		for i := 1; i < len(o.Writers); i++ {
			edges = append(edges, forcedEdge{from: o.Writers[i-1], to: o.Writers[i], key: o.Key})
		}
		tail[o.Key] = o.Writers[len(o.Writers)-1]
	}
	// The other writers of each ordered key, those not in its order, key
	// by key: a counting sort of the writes of ordered keys, and a stamp
	// per transaction for the order's writers.
	start := make([]int32, h.NumKeys()+1)
	for t := range h.Txns {
		for _, k := range s.keys[s.keyStart[t]:s.keyStart[t+1]] {
			if tail[k] >= 0 {
				start[k+1]++
			}
		}
	}
	for k := range tail {
		start[k+1] += start[k]
	}
	writers := make([]int32, start[len(tail)])
	fill := slices.Clone(start[:len(tail)])
	for t := range h.Txns {
		for _, k := range s.keys[s.keyStart[t]:s.keyStart[t+1]] {
			if tail[k] >= 0 {
				writers[fill[k]] = int32(t)
				fill[k]++
			}
		}
	}
	stamp := make([]int32, s.n) // key+1 of the order a transaction is in
	for _, o := range orders {
		for _, w := range o.Writers {
			stamp[w] = int32(o.Key) + 1
		}
		for _, t := range writers[start[o.Key]:start[o.Key+1]] {
			if stamp[t] != int32(o.Key)+1 {
				edges = append(edges, forcedEdge{from: tail[o.Key], to: t, key: o.Key})
			}
		}
	}
	return edges
}

// indexGroups fills the groups of writers that causal needs: one per key
// and session that writes it, numbered by key and then by session.
// Everything lives in a few flat arrays, so that a history of a million
// transactions costs no allocation per key.
func (s *saturator) indexGroups() {
	h, r := s.h, s.r
	numKeys := h.NumKeys()
	s.groupStart = make([]int32, numKeys+1)
	current := make([]int32, numKeys) // the last session, plus one, seen writing a key
	for sid, ts := range h.Sessions {
		for _, t := range ts {
			if !r.Included[t] {
				continue
			}
			for _, k := range s.keys[s.keyStart[t]:s.keyStart[t+1]] {
				if current[k] != int32(sid)+1 {
					current[k] = int32(sid) + 1
					s.groupStart[k+1]++
				}
			}
		}
	}
	for k := 0; k < numKeys; k++ {
		s.groupStart[k+1] += s.groupStart[k]
	}
	fill := slices.Clone(s.groupStart[:numKeys])
	s.groupSession = make([]int32, s.groupStart[numKeys])
	s.keyGroup = make([]int32, len(s.keys))
	clear(current)
	for sid, ts := range h.Sessions {
		for _, t := range ts {
			if !r.Included[t] {
				continue
			}
			for i := s.keyStart[t]; i < s.keyStart[t+1]; i++ {
				k := s.keys[i]
				if current[k] != int32(sid)+1 {
					current[k] = int32(sid) + 1
					s.groupSession[fill[k]] = int32(sid)
					fill[k]++
				}
				s.keyGroup[i] = fill[k] - 1
			}
		}
	}
}

// base returns session order (from the initial transaction to each
// session's first) and write-read order, in full; only a violation needs
// them so.
func (s *saturator) base() []polygraph.Edge {
	edges := make([]polygraph.Edge, 0, s.n+len(s.r.Reads))
	for _, sess := range s.h.Sessions {
		prev := s.t0
		for _, t := range sess {
			if s.r.Included[t] {
				edges = append(edges, polygraph.Edge{From: prev, To: t, Kind: verdict.SO, Key: polygraph.NoKey})
				prev = t
			}
		}
	}
	for _, rd := range s.r.Reads {
		edges = append(edges, polygraph.Edge{From: rd.Writer, To: rd.Reader, Kind: verdict.WR, Key: rd.Key})
	}
	return edges
}

// readsOf returns the external reads of t, in program order.
func (s *saturator) readsOf(t int32) []resolve.ExternalRead {
	return s.r.Reads[s.readStart[t]:s.readStart[t+1]]
}

// hasKey reports whether the sorted keys hold k. Most transactions
// write a few keys, which a loop that stops at the first larger key
// searches faster than a binary search does (a sixth of the processor
// time of RC's check of a million transactions went to binary searches
// of eight keys).
func hasKey(keys []history.Key, k history.Key) bool {
	if len(keys) > 16 {
		_, found := slices.BinarySearch(keys, k)
		return found
	}
	for _, x := range keys {
		if x >= k {
			return x == k
		}
	}
	return false
}

// worker is one goroutine of the forcing pass: the edges it forced, and
// scratch arrays the axioms keep per worker.
type worker struct {
	t0 int32
	// edges holds the forced edges in blocks of edgeBlock, so that
	// growing never copies them.
	edges [][]forcedEdge
	// readAtomic: the last writer of each key in the session so far (with
	// the session, plus one, that set it), the writers t3 read from, and
	// the keys it read with their writers.
	lastWriter, lastSession []int32
	from                    []int32
	readKeys                []keyRead
	// rank, unless nil, keeps only the edges t2 → t1 with rank[t2] >
	// rank[t1]: those an order by rank does not have already.
	rank []int32
	// sink keeps the words loaded ahead of their use, so that the loads
	// (taken for their cache misses) stay.
	sink history.Key
}

// edgeBlock is the number of edges in a block of worker.edges.
const edgeBlock = 1 << 15

// force records the edge t2 → t1 on key k, forced by a read of k from t1
// that had observed t2. The initial transaction precedes everything
// already.
func (w *worker) force(t2, t1 int32, k history.Key) {
	if t2 == t1 || t2 == w.t0 || w.rank != nil && t1 != w.t0 && w.rank[t2] < w.rank[t1] {
		return
	}
	last := len(w.edges) - 1
	if last < 0 || len(w.edges[last]) == edgeBlock {
		w.edges = append(w.edges, make([]forcedEdge, 0, edgeBlock))
		last++
	}
	w.edges[last] = append(w.edges[last], forcedEdge{from: t2, to: t1, key: k})
}

// minParallel is the number of transactions below which the forcing pass
// runs on one goroutine: starting more costs more than it saves.
const minParallel = 1 << 14

// parallel runs an axiom over the sessions, split into contiguous runs of
// about equal numbers of transactions, one per goroutine, which count the
// transactions done on m, and returns the edges each forced.
func (s *saturator) parallel(m *progress.Meter, axiom func(m *progress.Meter, w *worker, sessions [][]int32, first int) error) ([][]forcedEdge, error) {
	return s.parallelRanked(m, axiom, nil)
}

// parallelRanked is parallel keeping only the edges against rank (see
// worker.rank), unless nil.
func (s *saturator) parallelRanked(m *progress.Meter, axiom func(m *progress.Meter, w *worker, sessions [][]int32, first int) error, rank []int32) ([][]forcedEdge, error) {
	sessions := s.h.Sessions
	workers := min(runtime.GOMAXPROCS(0), max(1, s.n/minParallel))
	if s.workers > 0 {
		workers = s.workers
	}
	workers = min(workers, len(sessions))
	if workers <= 1 {
		w := &worker{t0: s.t0, rank: rank}
		err := axiom(m, w, sessions, 0)
		return w.edges, err
	}
	// Cut the sessions where the running count of transactions passes
	// each worker's share.
	cuts := []int{0}
	seen := 0
	for i, sess := range sessions {
		seen += len(sess)
		if len(cuts) < workers && seen*workers >= len(cuts)*s.n {
			cuts = append(cuts, i+1)
		}
	}
	if cuts[len(cuts)-1] != len(sessions) {
		cuts = append(cuts, len(sessions))
	}
	ws := make([]*worker, len(cuts)-1)
	errs := make([]error, len(ws))
	var wg sync.WaitGroup
	for i := range ws {
		ws[i] = &worker{t0: s.t0, rank: rank}
		wg.Go(func() {
			errs[i] = axiom(m, ws[i], sessions[cuts[i]:cuts[i+1]], cuts[i])
		})
	}
	wg.Wait()
	var blocks [][]forcedEdge
	for _, w := range ws {
		blocks = append(blocks, w.edges...)
	}
	// Every worker stops with the same reason: report it once.
	for _, err := range errs {
		if err != nil {
			return blocks, err
		}
	}
	return blocks, nil
}

// tick counts one more transaction in *i and, every progress.Every, adds
// them to m and returns m's error.
func tick(m *progress.Meter, i *int) error {
	*i++
	if *i&(progress.Every-1) == 0 {
		return m.Add(progress.Every)
	}
	return nil
}

// readCommitted: a read of x from t1 must not see a version older than that
// of a writer of x that an earlier read of the transaction saw (Biswas and
// Enea (OOPSLA 2019) Figure 2a).
func (s *saturator) readCommitted(m *progress.Meter, w *worker, sessions [][]int32, _ int) error {
	ticks := 0
	for _, sess := range sessions {
		for _, t3 := range sess {
			if err := tick(m, &ticks); err != nil {
				return err
			}
			if !s.r.Included[t3] {
				continue
			}
			// For each writer read from, its keys are fetched once (a
			// cache miss) and matched against the reads after. The
			// misses are taken first, in a loop of their own, so that
			// they overlap.
			reads := s.readsOf(t3)
			for _, beta := range reads {
				if i := s.keyStart[beta.Writer]; i < int32(len(s.keys)) {
					w.sink ^= s.keys[i]
				}
			}
			for j, beta := range reads {
				if beta.Writer == s.t0 {
					continue // the initial transaction precedes every other
				}
				written := s.keys[s.keyStart[beta.Writer]:s.keyStart[beta.Writer+1]]
				for _, alpha := range reads[j+1:] {
					if beta.Writer != alpha.Writer && hasKey(written, alpha.Key) {
						w.force(beta.Writer, alpha.Writer, alpha.Key)
					}
				}
			}
		}
	}
	return nil
}

// readAtomic: a read of x from t1 in t3 must see a version no older than
// that of any writer of x that t3 read from or that precedes t3 in its
// session (Figure 2b).
//
// Sessions are walked in order, keeping the last writer of each key seen
// so far in the session (the earlier ones precede it in session order).
// For the writers t3 read from, the keys each wrote (sorted) are merged
// with the keys t3 read (sorted, with their writers): a few comparisons
// in the cache, where a lookup of each written key in an array by key
// was a cache miss each. A writer of far more keys than t3 reads (a bulk
// load, a state written in one transaction) has t3's keys searched in its
// own, so that each of its readers costs what it reads, not what it
// wrote. (Every read of a key in t3 has one writer here: reads that
// differ are a non-repeatable read, reported before.)
func (s *saturator) readAtomic(m *progress.Meter, w *worker, sessions [][]int32, first int) error {
	numKeys := s.h.NumKeys()
	w.lastWriter = make([]int32, numKeys)
	w.lastSession = make([]int32, numKeys)
	ticks := 0
	for i, sess := range sessions {
		sid := int32(first+i) + 1
		for _, t3 := range sess {
			if err := tick(m, &ticks); err != nil {
				return err
			}
			if !s.r.Included[t3] {
				continue
			}
			reads := s.readsOf(t3)
			if len(reads) > 0 {
				w.from, w.readKeys = w.from[:0], w.readKeys[:0]
				for _, alpha := range reads {
					k := alpha.Key
					if w.lastSession[k] == sid {
						w.force(w.lastWriter[k], alpha.Writer, k)
					}
					w.readKeys = append(w.readKeys, keyRead{k, alpha.Writer})
					if alpha.Writer != s.t0 {
						w.from = append(w.from, alpha.Writer)
					}
				}
				slices.Sort(w.from)
				read := sortKeyReads(w.readKeys)
				// The writers' keys are cache misses: taken first, in a
				// loop of their own, they overlap.
				for _, t2 := range w.from {
					if i := s.keyStart[t2]; i < int32(len(s.keys)) {
						w.sink ^= s.keys[i]
					}
				}
				for j, t2 := range w.from {
					if j > 0 && t2 == w.from[j-1] {
						continue
					}
					written := s.keys[s.keyStart[t2]:s.keyStart[t2+1]]
					if len(written) > 4*len(read) {
						for _, r := range read {
							if hasKey(written, r.key) {
								w.force(t2, r.writer, r.key)
							}
						}
						continue
					}
					for a, b := 0, 0; a < len(written) && b < len(read); {
						switch k := written[a]; {
						case k < read[b].key:
							a++
						case k > read[b].key:
							b++
						default:
							w.force(t2, read[b].writer, k)
							a, b = a+1, b+1
						}
					}
				}
			}
			for _, k := range s.keys[s.keyStart[t3]:s.keyStart[t3+1]] {
				w.lastWriter[k], w.lastSession[k] = t3, sid
			}
		}
	}
	return nil
}

// keyRead is a key a transaction read, and the writer it read it from.
type keyRead struct {
	key    history.Key
	writer int32
}

// sortKeyReads sorts rs by key and drops the repeats of a key, in place,
// and returns what is left. Transactions read a few keys: there, an
// insertion sort, with no call for each comparison, is quicker.
func sortKeyReads(rs []keyRead) []keyRead {
	if len(rs) > 32 {
		slices.SortFunc(rs, func(a, b keyRead) int { return cmp.Compare(a.key, b.key) })
	} else {
		for i := 1; i < len(rs); i++ {
			for j := i; j > 0 && rs[j].key < rs[j-1].key; j-- {
				rs[j], rs[j-1] = rs[j-1], rs[j]
			}
		}
	}
	return slices.CompactFunc(rs, func(a, b keyRead) bool { return a.key == b.key })
}
