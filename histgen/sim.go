package histgen

import (
	"math/rand/v2"
	"slices"
	"sort"

	"github.com/isocheck/isocheck/history"
)

// planOp is an operation a client intends to run; a write's value and a
// read's result are decided by the simulation.
type planOp struct {
	kind history.OpKind
	key  history.Key
}

// planTxn is a transaction a client intends to run.
type planTxn struct {
	ops   []planOp
	abort bool // the client aborts it instead of committing
	// stage, if positive, holds the transaction back until every
	// transaction of a lower positive stage has finished (see sim.waiting).
	stage int
}

// run is a transaction being executed.
type run struct {
	session int
	plan    planTxn
	next    int // index of the next planned operation
	ops     []history.Op
	start   int64
	snap    int64 // the store's snapshot
	replica int
	// List mode: lists[i] is the list read by ops[i] (nil for appends);
	// seen records the length of each key's committed list at each
	// internal read.
	lists [][]history.Value
	seen  []keyLen
}

// keyLen is a key and a length of its list.
type keyLen struct {
	key history.Key
	n   int
}

// ownAppends returns the transaction's appends to k so far.
func (r *run) ownAppends(k history.Key) []history.Value {
	var out []history.Value
	for _, op := range r.ops {
		if op.Kind == history.Write && op.Key == k {
			out = append(out, op.Value)
		}
	}
	return out
}

// ownWrite returns the transaction's last write of k so far.
func (r *run) ownWrite(k history.Key) (history.Value, bool) {
	for i := len(r.ops) - 1; i >= 0; i-- {
		if op := r.ops[i]; op.Kind == history.Write && op.Key == k {
			return op.Value, true
		}
	}
	return 0, false
}

// finalWrites returns the transaction's last write of every key it
// writes, in the order of the first writes.
func finalWrites(ops []history.Op) []history.Op {
	var out []history.Op
	for _, op := range ops {
		if op.Kind != history.Write {
			continue
		}
		found := false
		for i := range out {
			if out[i].Key == op.Key {
				out[i].Value = op.Value
				found = true
				break
			}
		}
		if !found {
			out = append(out, op)
		}
	}
	return out
}

// store is the visibility rule of a simulated store.
type store interface {
	// begin starts r at time now.
	begin(r *run, now int64)
	// read returns what r reads from k, r having not written k yet.
	read(r *run, k history.Key) history.Value
	// commit tries to commit r at time now; false means the store aborts it.
	commit(r *run, now int64) bool
	// background does the background work (replication) due by now.
	background(now int64)
}

// sim executes the transactions of several sessions against a store.
type sim struct {
	rng     *rand.Rand
	b       *history.Builder
	st      store
	nextVal []history.Value // per key, the next value to write
	clock   int64
	times   bool
	atomic  bool      // run each transaction without interleaving
	stick   float64   // probability to keep stepping the same session
	think   float64   // probability that an idle session waits instead of starting
	pace    []float64 // per session, the probability that a running transaction acts when picked; nil: 1
	unknown float64   // probability to report a finished transaction as unknown
	// rollBack records a transaction the client gave up as rolled back.
	rollBack bool
	// retry re-runs a transaction the store aborted, as a new transaction
	// of the same session; dropAborted leaves the aborted attempt out of
	// the history.
	retry, dropAborted bool
	// lists runs the list mode (see SmallConfig.Lists): global holds, per
	// key, the committed list, in commit order.
	lists  bool
	global [][]history.Value
	gen    func(session int) planTxn
	// peek, if set, returns the transaction gen will return next for a
	// session, for its stage; waiting counts the unfinished transactions
	// of each stage, doneAt the time each stage finished, and gap the
	// time a stage waits after the previous one finished.
	peek    func(session int) *planTxn
	waiting []int
	doneAt  []int64
	gap     int64
	left    []int      // per session, transactions still to start
	runs    []*run     // per session, the running transaction
	redo    []*planTxn // per session, a transaction to retry
}

func newSim(rng *rand.Rand, keys, sessions int, st store) *sim {
	s := &sim{
		rng:     rng,
		b:       history.NewBuilder(history.Null),
		st:      st,
		nextVal: make([]history.Value, keys),
		left:    make([]int, sessions),
		runs:    make([]*run, sessions),
	}
	for k := range keys {
		s.b.IntKey(int64(k))
		s.nextVal[k] = 1
	}
	for i := range sessions {
		s.b.IntSession(int64(i))
	}
	return s
}

// execute runs every session's transactions to completion and returns the
// history.
func (s *sim) execute() *history.History {
	var active []int // sessions with a transaction running or to start
	for i := range s.left {
		if s.left[i] > 0 {
			active = append(active, i)
		}
	}
	s.redo = make([]*planTxn, len(s.left))
	last := -1 // index in active of the last session stepped
	for len(active) > 0 {
		s.st.background(s.clock)
		i := s.rng.IntN(len(active))
		if last >= 0 && s.rng.Float64() < s.stick {
			i = last
		}
		sess := active[i]
		last = i
		if s.runs[sess] == nil && (s.think > 0 && s.rng.Float64() < s.think || s.held(sess)) ||
			s.runs[sess] != nil && s.pace != nil && s.rng.Float64() >= s.pace[sess] {
			s.clock++ // the client thinks, waits or is slow; time passes
			continue
		}
		if s.atomic {
			for s.step(sess) {
			}
		} else {
			s.step(sess)
		}
		if s.left[sess] == 0 && s.runs[sess] == nil && s.redo[sess] == nil {
			active[i] = active[len(active)-1]
			active = active[:len(active)-1]
			last = -1
		}
	}
	return s.b.History()
}

// held reports whether session sess's next transaction must wait for
// transactions of lower stages.
func (s *sim) held(sess int) bool {
	if s.peek == nil || s.redo[sess] != nil || s.left[sess] == 0 {
		return false
	}
	stage := s.peek(sess).stage
	for j := 1; j < stage && j < len(s.waiting); j++ {
		if s.waiting[j] > 0 || s.clock < s.doneAt[j]+s.gap {
			return true
		}
	}
	return false
}

// step does the next event of session sess: start a transaction, run an
// operation or finish the transaction. It reports whether the transaction
// is still running.
func (s *sim) step(sess int) bool {
	s.clock++
	r := s.runs[sess]
	if r == nil {
		r = &run{session: sess, start: s.clock}
		if p := s.redo[sess]; p != nil {
			r.plan = *p
			s.redo[sess] = nil
		} else {
			r.plan = s.gen(sess)
			s.left[sess]--
		}
		s.runs[sess] = r
		s.st.begin(r, s.clock)
		return true
	}
	if r.next < len(r.plan.ops) {
		p := r.plan.ops[r.next]
		r.next++
		op := history.Op{Kind: p.kind, Key: p.key}
		if p.kind == history.Write {
			op.Value = s.nextVal[p.key]
			s.nextVal[p.key]++
			if s.lists {
				r.lists = append(r.lists, nil)
			}
		} else if s.lists {
			r.lists = append(r.lists, s.readList(r, p.key))
		} else if v, ok := r.ownWrite(p.key); ok {
			op.Value = v
		} else {
			op.Value = s.st.read(r, p.key)
		}
		r.ops = append(r.ops, op)
		return true
	}
	s.runs[sess] = nil
	if st := r.plan.stage; st > 0 && st < len(s.waiting) {
		if s.waiting[st]--; s.waiting[st] == 0 {
			s.doneAt[st] = s.clock
		}
	}
	status := history.Aborted
	if r.plan.abort {
		// The client gave up.
		if s.rollBack {
			status = history.RolledBack
		}
	} else if s.commit(r) {
		status = history.Committed
	} else if s.retry {
		s.redo[sess] = &r.plan
		if s.dropAborted {
			return false
		}
	}
	if s.unknown > 0 && s.rng.Float64() < s.unknown {
		status = history.Unknown
	}
	tx := history.Txn{Session: int32(sess), Status: status, Start: history.NoTime, End: history.NoTime}
	if s.times {
		tx.Start, tx.End = r.start, s.clock
	}
	if s.lists {
		s.b.AddListTxn(tx, r.ops, r.lists)
	} else {
		s.b.AddTxn(tx, r.ops)
	}
	return false
}

// readList returns the list r reads from k in list mode. After its own
// appends to k, a transaction reads the committed list as it is now and
// its appends (commit checks that nobody appended to k since: the list
// is then the appends of the writers before it in commit order, and its
// own); otherwise the store says which prefix of the committed list it
// shows.
func (s *sim) readList(r *run, k history.Key) []history.Value {
	g := s.global[k]
	if own := r.ownAppends(k); len(own) > 0 {
		r.seen = append(r.seen, keyLen{k, len(g)})
		return append(slices.Clone(g), own...)
	}
	n := 0
	if v := s.st.read(r, k); v != history.Null {
		n = int(v)
	}
	return slices.Clone(g[:n])
}

// commit tries to commit r at the store.
//
// In list mode, a transaction that read a key after appending to it
// aborts if another one appended to the key since that read. The stores
// keep, as the version of a key, the length of its committed list: the
// store is handed, as r's writes, per key r appends to, the length of the
// list after r's appends, and a read that the store answers with version
// n shows the first n elements. So a store shows a prefix of each
// committed list, and the lists grow in commit order; the replicated
// stores' Lamport clocks are set to the number of commits first, so that
// their timestamps follow the commit order and last-writer-wins keeps the
// longest list. Once the store commits r, its appends join the committed
// lists.
func (s *sim) commit(r *run) bool {
	if !s.lists {
		return s.st.commit(r, s.clock)
	}
	for _, kl := range r.seen {
		if len(s.global[kl.key]) != kl.n {
			return false
		}
	}
	var ends []history.Op
	for _, w := range finalWrites(r.ops) {
		ends = append(ends, history.Op{Kind: history.Write, Key: w.Key, Value: history.Value(len(s.global[w.Key]) + len(r.ownAppends(w.Key)))})
	}
	if rs, ok := s.st.(*replicatedStore); ok {
		for _, rep := range rs.reps {
			rep.clock = max(rep.clock, rs.commits)
		}
	}
	ops := r.ops
	r.ops = ends
	ok := s.st.commit(r, s.clock)
	r.ops = ops
	if !ok {
		return false
	}
	for _, op := range r.ops {
		if op.Kind == history.Write {
			s.global[op.Key] = append(s.global[op.Key], op.Value)
		}
	}
	return true
}

// version is one committed value of a key.
type version struct {
	stamp int64 // commit time (snapshot stores) or apply sequence (replicas)
	ts    lamport
	val   history.Value
}

// lastBefore returns the value of the last version with stamp < limit, or
// Null.
func lastBefore(vs []version, limit int64) history.Value {
	i := sort.Search(len(vs), func(i int) bool { return vs[i].stamp >= limit })
	if i == 0 {
		return history.Null
	}
	return vs[i-1].val
}

// compact drops the versions no snapshot at or after limit can read: all
// but the last one with stamp < limit.
func compact(vs []version, limit int64) []version {
	i := sort.Search(len(vs), func(i int) bool { return vs[i].stamp >= limit })
	if i <= 1 {
		return vs
	}
	return append(vs[:0], vs[i-1:]...)
}

// latestStore keeps one committed value per key: reads see the latest
// commit. Run atomically it is a serial store; interleaved, it is read
// committed.
type latestStore struct {
	state []history.Value
}

func newLatestStore(keys int) *latestStore {
	st := &latestStore{state: make([]history.Value, keys)}
	for k := range st.state {
		st.state[k] = history.Null
	}
	return st
}

func (st *latestStore) begin(*run, int64) {}

func (st *latestStore) read(_ *run, k history.Key) history.Value { return st.state[k] }

func (st *latestStore) commit(r *run, _ int64) bool {
	for _, w := range finalWrites(r.ops) {
		st.state[w.Key] = w.Value
	}
	return true
}

func (st *latestStore) background(int64) {}

// snapshotStore is snapshot isolation, with or without first-committer-wins.
type snapshotStore struct {
	fcw      bool
	versions [][]version // per key, by commit time
	sim      *sim        // for the snapshots of running transactions
	commits  int
	// several lists the keys with more than one version, the only ones
	// compaction can shrink: a pass over every key would cost a million
	// steps per compaction of a history over a million keys.
	several []history.Key
}

func newSnapshotStore(keys int, fcw bool) *snapshotStore {
	return &snapshotStore{fcw: fcw, versions: make([][]version, keys)}
}

func (st *snapshotStore) begin(r *run, now int64) { r.snap = now }

func (st *snapshotStore) background(int64) {}

func (st *snapshotStore) read(r *run, k history.Key) history.Value {
	return lastBefore(st.versions[k], r.snap)
}

func (st *snapshotStore) commit(r *run, now int64) bool {
	ws := finalWrites(r.ops)
	if st.fcw {
		for _, w := range ws {
			if vs := st.versions[w.Key]; len(vs) > 0 && vs[len(vs)-1].stamp > r.snap {
				return false
			}
		}
	}
	for _, w := range ws {
		st.versions[w.Key] = append(st.versions[w.Key], version{stamp: now, val: w.Value})
		if len(st.versions[w.Key]) == 2 {
			st.several = append(st.several, w.Key)
		}
	}
	st.commits++
	if st.sim != nil && st.commits%1024 == 0 {
		st.gc()
	}
	return true
}

// gc drops versions older than every running transaction's snapshot.
func (st *snapshotStore) gc() {
	limit := st.sim.clock
	for _, r := range st.sim.runs {
		if r != nil && r.snap < limit {
			limit = r.snap
		}
	}
	kept := st.several[:0]
	for _, k := range st.several {
		st.versions[k] = compact(st.versions[k], limit)
		if len(st.versions[k]) > 1 {
			kept = append(kept, k)
		}
	}
	st.several = kept
}

// randomStore returns placeholders; readRandomly fills the reads in once
// every write is known.
type randomStore struct{}

func (randomStore) begin(*run, int64)                    {}
func (randomStore) read(*run, history.Key) history.Value { return history.Null }
func (randomStore) commit(*run, int64) bool              { return true }
func (randomStore) background(int64)                     {}

// readRandomly sets every external read of h to the initial value or the
// final write of the key by another transaction that did not abort.
func readRandomly(rng *rand.Rand, h *history.History) {
	type writer struct {
		txn int
		val history.Value
	}
	finals := make(map[history.Key][]writer)
	for t := range h.Txns {
		if invisible(h.Txns[t].Status) {
			continue
		}
		for _, w := range finalWrites(h.OpsOf(t)) {
			finals[w.Key] = append(finals[w.Key], writer{t, w.Value})
		}
	}
	for t := range h.Txns {
		ops := h.OpsOf(t)
		written := make(map[history.Key]bool)
		for i := range ops {
			op := &ops[i]
			if op.Kind == history.Write {
				written[op.Key] = true
				continue
			}
			if written[op.Key] {
				continue
			}
			cands := []history.Value{h.Init}
			for _, w := range finals[op.Key] {
				if w.txn != t {
					cands = append(cands, w.val)
				}
			}
			op.Value = cands[rng.IntN(len(cands))]
		}
	}
}
