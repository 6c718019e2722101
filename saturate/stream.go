package saturate

import (
	"cmp"
	"runtime"
	"slices"
	"sync"

	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/progress"
)

// This file checks CC. A vector clock for every transaction would take
// n × sessions entries: 8 GB for a million transactions in 2,000
// sessions.
//
// The clocks are computed in one pass, in a topological order of so ∪ wr,
// and the axiom is applied to the reads of each batch of transactions
// once their clocks are known, while the clocks of the writers they read
// are still at hand: by several workers, while the clocks of the next
// batch are computed. A clock is kept only while a transaction that needs
// it (its session successor, or a reader of one of its writes) is still
// to come, then recycled, or handed on to the session successor when
// that is the last to need it; so memory follows the transactions whose
// clocks are live (in histories from real stores, those whose writes are
// still being read) rather than all of them. AWDIT (Møldrup and
// Pavlogiannis, "AWDIT: An Optimal Weak Database Isolation Tester", PLDI
// 2025) frees its causal clocks the same way, and its axiom finds, as
// this one does, per read and per session writing the key, the last
// write in the reader's past.
//
// That last write is most often the last write of the session visited so
// far, or the one before, which the pass keeps per group of writers; for
// keys most sessions write, it keeps them in arrays by session, which the
// axiom walks side by side with the clocks. Still, a read of a key every
// session writes costs one step per session: on a million transactions
// in 2,000 sessions with Zipfian keys, some two billion steps, which
// force a hundred million edges.
//
// The edges are stored by read, not one by one: a head (the writer read
// and the key) and the tails the read forced, which is a third of the
// memory of forcedEdge when a read forces many, as reads of hot keys do.

// MaxForcedEdges is the default bound on the edges CC's axiom may force
// (4 bytes each, and 4 more to order them; Options.MaxForcedEdges): a
// million transactions in 2,000 sessions force some 100 million.
const MaxForcedEdges = 1 << 28

// rowsPerSlab is the number of clocks allocated together.
const rowsPerSlab = 256

// clockPool hands out clocks of a fixed number of entries and takes them
// back, never holding more than limit entries at once.
type clockPool struct {
	width int
	slabs [][]int32
	free  []int32 // free slots
	next  int32   // slots handed out so far, free or not
	live  int64   // slots in use
	limit int64   // entries
}

// get returns a free slot, or -1 if the pool would pass its limit.
func (p *clockPool) get() int32 {
	if (p.live+1)*int64(p.width) > p.limit {
		return -1
	}
	p.live++
	if n := len(p.free); n > 0 {
		slot := p.free[n-1]
		p.free = p.free[:n-1]
		return slot
	}
	slot := p.next
	p.next++
	if int(slot)/rowsPerSlab == len(p.slabs) {
		p.slabs = append(p.slabs, make([]int32, rowsPerSlab*p.width))
	}
	return slot
}

// put takes slot back.
func (p *clockPool) put(slot int32) {
	p.live--
	p.free = append(p.free, slot)
}

// row returns the clock in slot.
func (p *clockPool) row(slot int32) []int32 {
	i := int(slot) % rowsPerSlab * p.width
	return p.slabs[int(slot)/rowsPerSlab][i : i+p.width : i+p.width]
}

// edgeRuns holds forced edges read by read: for each read that forced
// any, the triple head (the writer read), key and count, then count
// tails. The words live in blocks of edgeBlock so that growing never
// copies them.
type edgeRuns struct {
	blocks [][]int32
	edges  int
}

// add appends the run of tails forced into head by a read of key.
func (r *edgeRuns) add(head int32, key history.Key, tails []int32) {
	need := 3 + len(tails)
	last := len(r.blocks) - 1
	if last < 0 || cap(r.blocks[last])-len(r.blocks[last]) < need {
		r.blocks = append(r.blocks, make([]int32, 0, max(edgeBlock, need)))
		last++
	}
	b := append(r.blocks[last], head, int32(key), int32(len(tails)))
	r.blocks[last] = append(b, tails...)
	r.edges += len(tails)
}

// each calls f on every run.
func (r *edgeRuns) each(f func(head int32, key history.Key, tails []int32)) {
	for _, b := range r.blocks {
		for i := 0; i < len(b); {
			n := int(b[i+2])
			f(b[i], history.Key(b[i+1]), b[i+3:i+3+n])
			i += 3 + n
		}
	}
}

// forcedEdges returns the edges of r one by one, for the evidence of a
// cycle.
func (r *edgeRuns) forcedEdges() []forcedEdge {
	edges := make([]forcedEdge, 0, r.edges)
	r.each(func(head int32, key history.Key, tails []int32) {
		for _, t := range tails {
			edges = append(edges, forcedEdge{from: t, to: head, key: key})
		}
	})
	return edges
}

// indexGroupWriters lists the writers of every group (see indexGroups) in
// session order: groupPos[groupWriters[g]:groupWriters[g+1]] are their
// positions in the group's session and groupTxn the same range their
// transactions.
func (s *saturator) indexGroupWriters() (groupWriters, groupPos, groupTxn []int32) {
	groupWriters = make([]int32, len(s.groupSession)+1)
	for _, g := range s.keyGroup {
		groupWriters[g+1]++
	}
	for g := range s.groupSession {
		groupWriters[g+1] += groupWriters[g]
	}
	fill := slices.Clone(groupWriters[:len(s.groupSession)])
	groupPos = make([]int32, len(s.keyGroup))
	groupTxn = make([]int32, len(s.keyGroup))
	for _, ts := range s.h.Sessions {
		for _, t := range ts {
			for i := s.keyStart[t]; i < s.keyStart[t+1]; i++ {
				g := s.keyGroup[i]
				groupPos[fill[g]], groupTxn[fill[g]] = s.pos[t], t
				fill[g]++
			}
		}
	}
	return groupWriters, groupPos, groupTxn
}

// denseShare: a key is dense (see denseKey) if at least one session in
// denseShare writes it.
const denseShare = 4

// streamBatch is the number of transactions whose clocks causalStream
// computes before the workers apply the axiom to their reads.
const streamBatch = 1024

// stream is the state of causalStream.
type stream struct {
	s    *saturator
	o    *orderer
	pool *clockPool
	// refs[t] counts the transactions still to come, or in a batch,
	// that need t's clock: its session successor and its readers, once
	// per read. slot[t] is where the clock is.
	refs, slot []int32
	// inBatch[t]: t is in a batch whose reads are still to be checked:
	// next, whose clocks are being computed, or checked, whose reads the
	// workers are checking meanwhile (if running).
	inBatch       []bool
	next, checked []int32
	running       sync.WaitGroup
	// groups[g] is what the axiom looks at first for group g (see
	// indexGroups): its session, and the positions (-1: none) and
	// transactions of its last two writers visited so far. visited[g] is
	// one past the last in groupPos: writers of a session are visited in
	// session order. The axiom may see writers visited after the reader
	// (later in its batch), which are never in the reader's past.
	groups                           []groupState
	visited                          []int32
	groupWriters, groupPos, groupTxn []int32
	zero                             []int32 // the clock of the initial state
	workers                          []*edgeRuns
	maxEdges                         int
	// dense[denseOf[x]] (denseOf[x] >= 0) holds the same for the groups
	// of x by session, for keys most sessions write: the axiom then
	// walks the clocks and these arrays side by side.
	denseOf []int32
	dense   []denseKey
	// check applies the axiom to the reads of a batch on one worker, and
	// record, unless nil, notes the batch's writes first.
	check  func(runs *edgeRuns, rows rowView, batch []int32)
	record func(batch []int32)
	// plan holds the clocks of the next batch to compute, and joins the
	// clocks they join (see clock).
	plan  []clockOp
	joins []clockJoin
}

// groupState is what the axiom looks at first for a group.
type groupState struct{ session, last, before, lastTxn, beforeTxn int32 }

// denseKey is groupState by session, for a key most sessions write:
// group[ws] is the group of session ws (-1: none, and then last[ws] is -1
// too).
type denseKey struct {
	group, last, before, lastTxn, beforeTxn []int32
}

// causalStream applies CC's axiom: a read of x from t1 in t3 must see a
// version no older than that of any writer of x in t3's causal past,
// (so ∪ wr)+ (Biswas and Enea (OOPSLA 2019) Figure 2c). Of those writers,
// only the last of each session can add anything (session order puts the
// others before it), and only if it is not in t1's past too (then it
// precedes t1 already), so each read forces at most one edge per session
// writing x.
//
// It computes the causal clocks in one pass over a topological order of
// so ∪ wr, keeping only the clocks still needed, at most limit entries of
// them: the clocks on one goroutine, a batch at a time, and the axiom on
// the previous batch's reads meanwhile, on several (s.workers, or
// GOMAXPROCS on large histories). It reports false if so ∪ wr is cyclic,
// and an error if the clocks need more than limit entries, the edges
// pass MaxForcedEdges (or s.maxEdges) or m reports one.
func (s *saturator) causalStream(m *progress.Meter, o *orderer, limit int64) (bool, *edgeRuns, error) {
	st := s.newStream(o, limit)
	st.groups = make([]groupState, len(s.groupSession))
	st.groupWriters, st.groupPos, st.groupTxn = s.indexGroupWriters()
	for g, ws := range s.groupSession {
		st.groups[g] = groupState{ws, -1, -1, -1, -1}
	}
	st.visited = slices.Clone(st.groupWriters[:len(s.groupSession)])
	st.denseOf = make([]int32, len(s.groupStart)-1)
	for x := range st.denseOf {
		st.denseOf[x] = -1
		gs, ge := s.groupStart[x], s.groupStart[x+1]
		if share := cmp.Or(s.denseShare, denseShare); share < 0 || int(ge-gs)*share < s.sessions {
			continue
		}
		d := denseKey{
			group:     make([]int32, s.sessions),
			last:      make([]int32, s.sessions),
			before:    make([]int32, s.sessions),
			lastTxn:   make([]int32, s.sessions),
			beforeTxn: make([]int32, s.sessions),
		}
		for i := range d.group {
			d.group[i], d.last[i], d.before[i], d.lastTxn[i], d.beforeTxn[i] = -1, -1, -1, -1, -1
		}
		for g := gs; g < ge; g++ {
			d.group[s.groupSession[g]] = g
		}
		st.denseOf[x] = int32(len(st.dense))
		st.dense = append(st.dense, d)
	}
	st.check, st.record = st.axiom, st.recordGroups
	return st.run(m, func(visit func(u int32)) (bool, error) { return o.orderMeter(m, visit) })
}

// newStream returns a stream that computes the clocks of s's transactions
// in a topological order of o's so ∪ wr, at most limit entries at once;
// the caller sets what it checks.
func (s *saturator) newStream(o *orderer, limit int64) *stream {
	st := &stream{s: s, o: o,
		pool:     &clockPool{width: s.sessions, limit: limit},
		refs:     make([]int32, s.n),
		slot:     make([]int32, s.n),
		inBatch:  make([]bool, s.n),
		zero:     make([]int32, s.sessions),
		maxEdges: cmp.Or(s.maxEdges, MaxForcedEdges),
	}
	for t := range s.n {
		if p := o.prev[t]; p != s.t0 {
			st.refs[p]++
		}
	}
	for _, rd := range s.r.Reads {
		if rd.Writer != s.t0 {
			st.refs[rd.Writer]++
		}
	}
	workers := min(runtime.GOMAXPROCS(0), max(1, s.n/minParallel))
	if s.workers > 0 {
		workers = s.workers
	}
	for range workers {
		st.workers = append(st.workers, &edgeRuns{})
	}
	return st
}

// run computes the clocks of the transactions in the order order visits
// them (a topological order of so ∪ wr), a batch at a time, and has the
// workers check each batch's reads while it computes the next. It
// returns what order returns, and the edges the workers recorded.
func (st *stream) run(m *progress.Meter, order func(visit func(u int32)) (bool, error)) (bool, *edgeRuns, error) {
	size := streamBatch
	if st.s.batch > 0 {
		size = st.s.batch
	}
	var err error
	acyclic, merr := order(func(u int32) {
		if err != nil {
			return
		}
		if err = st.clock(u); err != nil {
			return
		}
		if len(st.next) == size {
			err = st.rotate()
		}
	})
	if err2 := st.rotate(); err == nil {
		err = err2
	}
	if err2 := st.rotate(); err == nil {
		err = err2
	}
	if merr != nil {
		return false, nil, merr
	}
	if err != nil {
		return false, nil, err
	}
	runs := st.workers[0]
	for _, w := range st.workers[1:] {
		runs.blocks = append(runs.blocks, w.blocks...)
		runs.edges += w.edges
	}
	return acyclic, runs, nil
}

// clock plans u's clock and adds u to the next batch: the slot it goes
// in, where it starts from, and the clocks joined into it. The plan is
// carried out by fill, for the whole batch at once.
func (st *stream) clock(u int32) error {
	s, pool := st.s, st.pool
	p := st.o.prev[u]
	op := clockOp{src: noClock, own: -1}
	if p != s.t0 && st.refs[p] == 1 && !st.inBatch[p] {
		// u is the last to need p's clock: take it over.
		st.refs[p] = 0
		st.slot[u] = st.slot[p]
		op.src = sameClock
	} else if st.slot[u] = pool.get(); st.slot[u] < 0 {
		return &LimitError{What: ClockEntries, Limit: pool.limit, Txns: s.n, Sessions: s.sessions, Live: pool.live}
	} else if p != s.t0 {
		op.src = st.slot[p]
	}
	op.slot = st.slot[u]
	if p != s.t0 {
		op.own, op.ownPos = int32(s.h.Txns[p].Session), s.pos[p]+1
	}
	op.joinStart = int32(len(st.joins))
	for _, rd := range s.readsOf(u) {
		if w := rd.Writer; w != s.t0 {
			st.joins = append(st.joins, clockJoin{slot: st.slot[w], session: int32(s.h.Txns[w].Session), pos: s.pos[w] + 1})
		}
	}
	op.joinEnd = int32(len(st.joins))
	st.plan = append(st.plan, op)
	st.inBatch[u] = true
	st.next = append(st.next, u)
	return nil
}

// clockOp is the plan of one clock (see clock): start from the clock in
// src (noClock: the initial state's; sameClock: the one already in slot),
// note the session predecessor (own, ownPos; own -1: none), and join the
// clocks of joins[joinStart:joinEnd].
type clockOp struct {
	slot, src, own, ownPos, joinStart, joinEnd int32
}

// clockJoin is a clock joined into another: the writer read's, and the
// writer's own entry.
type clockJoin struct{ slot, session, pos int32 }

const (
	noClock   = -1
	sameClock = -2
)

// minColumns is the number of entries a share of the columns of fill has
// at least.
const minColumns = 512

// fill carries out the plan, a range of columns per goroutine: a clock's
// entries depend only on the same entries of the clocks it joins, so
// the shares need no lock. A join skips nothing, even a clock already in
// the past; one goroutine cannot know, and an entrywise maximum with a
// clock in the past changes nothing.
func (st *stream) fill() {
	if len(st.plan) == 0 {
		return
	}
	width := st.pool.width
	shares := min(runtime.GOMAXPROCS(0), max(1, width/minColumns))
	if shares == 1 {
		st.fillColumns(0, width)
	} else {
		var wg sync.WaitGroup
		step := (width + shares - 1) / shares
		for lo := 0; lo < width; lo += step {
			wg.Go(func() { st.fillColumns(lo, min(lo+step, width)) })
		}
		wg.Wait()
	}
	st.plan, st.joins = st.plan[:0], st.joins[:0]
}

// fillColumns carries out the plan on the entries lo up to hi.
func (st *stream) fillColumns(lo, hi int) {
	pool := st.pool
	for _, op := range st.plan {
		row := pool.row(op.slot)[lo:hi]
		switch op.src {
		case noClock:
			clear(row)
		case sameClock:
		default:
			copy(row, pool.row(op.src)[lo:hi])
		}
		if own := int(op.own); own >= lo && own < hi {
			row[own-lo] = max(row[own-lo], op.ownPos)
		}
		for _, j := range st.joins[op.joinStart:op.joinEnd] {
			joinClock(row, pool.row(j.slot)[lo:hi])
			if ws := int(j.session); ws >= lo && ws < hi {
				row[ws-lo] = max(row[ws-lo], j.pos)
			}
		}
	}
}

// recordGroups records the writes of batch in the groups' state.
func (st *stream) recordGroups(batch []int32) {
	s := st.s
	for _, u := range batch {
		for i := s.keyStart[u]; i < s.keyStart[u+1]; i++ {
			g := s.keyGroup[i]
			st.visited[g]++
			gs := &st.groups[g]
			gs.before, gs.beforeTxn, gs.last, gs.lastTxn = gs.last, gs.lastTxn, s.pos[u], u
			if d := st.denseOf[s.keys[i]]; d >= 0 {
				dk, ws := &st.dense[d], gs.session
				dk.before[ws], dk.beforeTxn[ws], dk.last[ws], dk.lastTxn[ws] = gs.before, gs.beforeTxn, gs.last, u
			}
		}
	}
}

// rotate waits for the workers to check the reads of the checked batch,
// lets go of the clocks only that batch needed, and sets them to check
// the next batch, in the background, while the clocks of the one after
// are computed. It returns an error if the edges forced so far pass
// MaxForcedEdges, and then leaves the next batch unchecked.
func (st *stream) rotate() error {
	s := st.s
	st.fill()
	st.running.Wait()
	for _, u := range st.checked {
		st.inBatch[u] = false
		if p := st.o.prev[u]; p != s.t0 && st.refs[p] > 0 {
			st.release(p)
		}
		for _, rd := range s.readsOf(u) {
			if rd.Writer != s.t0 {
				st.release(rd.Writer)
			}
		}
		if st.refs[u] == 0 {
			st.pool.put(st.slot[u])
		}
	}
	st.checked = st.checked[:0]
	edges := 0
	for _, w := range st.workers {
		edges += w.edges
	}
	if edges > st.maxEdges {
		return &LimitError{What: ForcedEdges, Limit: int64(st.maxEdges), Txns: s.n, Sessions: s.sessions}
	}
	if len(st.next) == 0 {
		return nil
	}
	// The workers read the groups' state and the clocks of the batch and
	// of the writers it read, which stay as they are until the next
	// rotate; they see the clocks through a copy of the pool's list of
	// slabs, to which clock may add meanwhile.
	if st.record != nil {
		st.record(st.next)
	}
	st.checked, st.next = st.next, st.checked
	batch := st.checked
	rows := rowView{slabs: st.pool.slabs, width: st.pool.width}
	share := (len(batch) + len(st.workers) - 1) / len(st.workers)
	for i, w := range st.workers {
		part := batch[min(i*share, len(batch)):min((i+1)*share, len(batch))]
		if len(part) > 0 {
			st.running.Go(func() { st.check(w, rows, part) })
		}
	}
	return nil
}

// rowView is a clockPool's clocks as they were.
type rowView struct {
	slabs [][]int32
	width int
}

// row returns the clock in slot.
func (v rowView) row(slot int32) []int32 {
	i := int(slot) % rowsPerSlab * v.width
	return v.slabs[int(slot)/rowsPerSlab][i : i+v.width : i+v.width]
}

// release drops one of t's references, and its clock with the last.
func (st *stream) release(t int32) {
	if st.refs[t]--; st.refs[t] == 0 {
		st.pool.put(st.slot[t])
	}
}

// axiom applies CC's axiom to the reads of the transactions of batch,
// recording the edges in runs: per read of x from t1 in t3 and per session
// writing x, the last writer of x in t3's past, unless it is t1 or in
// t1's past.
func (st *stream) axiom(runs *edgeRuns, rows rowView, batch []int32) {
	s := st.s
	var tails []int32
	for _, u := range batch {
		row := rows.row(st.slot[u])
		for _, alpha := range s.readsOf(u) {
			row1 := st.zero
			if alpha.Writer != s.t0 {
				row1 = rows.row(st.slot[alpha.Writer])
			}
			tails = tails[:0]
			if d := st.denseOf[alpha.Key]; d >= 0 {
				// The loop below, by session.
				dk := &st.dense[d]
				row, row1 := row[:len(dk.last)], row1[:len(dk.last)]
				for ws, last := range dk.last {
					c1 := row1[ws]
					if last < c1 {
						continue
					}
					c3 := row[ws]
					if c3 <= c1 {
						continue
					}
					t := dk.lastTxn[ws]
					if last >= c3 {
						// The one before, or an earlier one.
						before := dk.before[ws]
						if before < c1 {
							continue
						}
						if t = dk.beforeTxn[ws]; before >= c3 {
							if t = st.below(dk.group[ws], c3, c1); t < 0 {
								continue
							}
						}
					}
					if t != alpha.Writer {
						tails = append(tails, t)
					}
				}
			} else {
				for g := s.groupStart[alpha.Key]; g < s.groupStart[alpha.Key+1]; g++ {
					gs := st.groups[g]
					c3, c1 := row[gs.session], row1[gs.session]
					if gs.last < c1 || c3 <= c1 {
						continue // every write of the group in u's past is in t1's
					}
					// The last writer of the group at a position below c3:
					// one of those visited, most often the last or the one
					// before.
					t := gs.lastTxn
					if gs.last >= c3 {
						if gs.before < c1 {
							continue
						}
						if t = gs.beforeTxn; gs.before >= c3 {
							if t = st.below(g, c3, c1); t < 0 {
								continue
							}
						}
					}
					if t != alpha.Writer {
						tails = append(tails, t)
					}
				}
			}
			if len(tails) > 0 {
				runs.add(alpha.Writer, alpha.Key, tails)
			}
		}
	}
}

// below returns the last writer of group g visited so far at a position
// below c3, if that is at c1 or above, and otherwise -1. The last two
// writers visited are at c3 or above.
func (st *stream) below(g, c3, c1 int32) int32 {
	lo := st.groupWriters[g]
	i := st.visited[g] - 3
	for i >= lo && st.groupPos[i] >= c3 {
		i--
	}
	if i < lo || st.groupPos[i] < c1 {
		return -1
	}
	return st.groupTxn[i]
}

// joinClockGo sets dst to the entrywise maximum of dst and src, which is
// at least as long: joinClock where the machine has no vector kernel.
func joinClockGo(dst, src []int32) {
	src = src[:len(dst)]
	for len(dst) >= 4 {
		dst[0] = max(dst[0], src[0])
		dst[1] = max(dst[1], src[1])
		dst[2] = max(dst[2], src[2])
		dst[3] = max(dst[3], src[3])
		dst, src = dst[4:], src[4:]
	}
	for i := range dst {
		dst[i] = max(dst[i], src[i])
	}
}
