package explore

// This file is explore-ce, Bouajjani et al. (PLDI 2023) §4–5: Algorithm 1
// (explore) and Algorithm 2 (exploreSwaps) with the Next, ValidWrites,
// ComputeReorderings, Swap and Optimality of §5.1–5.3.
//
// Histories have at most one pending transaction, the last in history
// order, so the events of a transaction are contiguous in that order and a
// state keeps the order of its transactions only. Next runs a
// transaction up to its next read of another transaction's write (or its
// end) in one step: the events before that read are writes, own reads and
// the commit or abort, which Algorithm 1 adds one at a time with nothing
// to choose, and ComputeReorderings returns nothing until a commit.

// explore is Algorithm 1. The state is extended in place and restored
// before it returns.
func (e *engine) explore(s *state) error {
	if err := e.tick(); err != nil {
		return err
	}
	if e.split > 0 && len(e.path) == e.split {
		// The root of a subtree: one worker's (parallel.go).
		if e.counting {
			e.atSplit++
			return nil
		}
		if !e.mine() {
			return nil
		}
	}
	pid, r, fresh := e.next(s)
	if pid < 0 {
		return e.complete(s)
	}
	st, err := e.run(pid, r)
	if err != nil {
		e.bodyErr = err
		return errStop
	}
	if fresh {
		r = &txnRec{pid: pid}
		s.recs[pid] = r
		s.order = append(s.order, pid)
	}
	before := len(r.events)
	e.push(r, st.added)
	defer func() {
		r.truncate(before)
		if fresh {
			s.recs[pid] = nil
			s.order = s.order[:len(s.order)-1]
		}
	}()
	var ord int32 // the next child's number
	if !st.stopped {
		r.status, r.failures = st.status, st.failures
		if err := e.child(&ord, s); err != nil {
			return err
		}
		return e.exploreSwaps(s, &ord)
	}
	// A read: one branch per valid write (ValidWrites, §5.1), the
	// transactions that committed a write of the key, and the initial
	// state.
	n := len(r.events)
	kid := e.kid(st.readKey)
	valid := e.base.validReads(s, kid, e.candidates(s, pid, kid))
	for _, from := range valid {
		r.truncate(n)
		e.pushRead(r, s, st.readKey, from)
		if err := e.child(&ord, s); err != nil {
			return err
		}
		if err := e.exploreSwaps(s, &ord); err != nil {
			return err
		}
	}
	if len(valid) == 0 && e.counts() {
		e.res.Blocked++
	}
	return nil
}

// child explores s as the next child, number *ord, of the current node of
// the exploration tree.
func (e *engine) child(ord *int32, s *state) error {
	e.path = append(e.path, *ord)
	*ord++
	err := e.explore(s)
	e.path = e.path[:len(e.path)-1]
	return err
}

// candidates returns the transactions a read of kid by pid may read from
// in s: the initial state and every committed writer of the key.
func (e *engine) candidates(s *state, pid int, kid int32) []int {
	out := []int{fromInit}
	for _, q := range s.order {
		if q != pid && s.recs[q].writes(kid) {
			out = append(out, q)
		}
	}
	return out
}

// next is Next (§5.1): the pending transaction if there is one, else the
// first transaction in oracle order not in the history (fresh), or -1
// when the program is done.
func (e *engine) next(s *state) (pid int, r *txnRec, fresh bool) {
	if last := s.last(); last != nil && last.status == Pending {
		return last.pid, last, false
	}
	for pid := range e.txns {
		if s.recs[pid] == nil {
			return pid, nil, true
		}
	}
	return -1, nil, false
}

// exploreSwaps is Algorithm 2 with ComputeReorderings (§5.2): when the last
// transaction t just committed, every read r of a key t writes, in a
// transaction before t that t does not causally depend on, may read from t
// instead, if Optimality allows it.
func (e *engine) exploreSwaps(s *state, ord *int32) error {
	t := s.last()
	if t == nil || t.status != Committed {
		return nil
	}
	e.base.closure(s)
	causalT := e.base.causal[t.pid+1] | bit(t.pid)
	type pair struct{ txn, event int }
	var pairs []pair
	for _, x := range s.order[:len(s.order)-1] {
		if causalT&bit(x) != 0 {
			continue
		}
		rx := s.recs[x]
		for i := range rx.events {
			if rx.external(i) && t.writes(rx.kids[i]) {
				pairs = append(pairs, pair{x, i})
			}
		}
	}
	for _, p := range pairs {
		swapped, ok := e.optimal(s, p.txn, p.event, t.pid, causalT)
		if !ok {
			continue
		}
		if err := e.child(ord, swapped); err != nil {
			return err
		}
	}
	return nil
}

// swap is Swap (§5.2): the history of the events before read (x, i), the
// transactions t causally depends on (causalT, t included), and the read
// now reading from t, its transaction pending and last. It returns a new
// state, which shares the records of the transactions it keeps whole with
// s: the exploration only ever changes the pending transaction and those
// it adds.
func (e *engine) swap(s *state, x, i, t int, causalT uint64) *state {
	n := &state{recs: make([]*txnRec, len(s.recs))}
	posX := s.position(x)
	for j, p := range s.order {
		if j < posX || (j > posX && causalT&bit(p) != 0) {
			n.order = append(n.order, p)
			n.recs[p] = s.recs[p]
		}
	}
	rx := s.recs[x].clone()
	rx.truncate(i)
	e.pushRead(rx, n, s.recs[x].events[i].Key, t)
	n.order = append(n.order, x)
	n.recs[x] = rx
	return n
}

// optimal is Optimality (§5.3): the swapped history satisfies the level,
// and every read it deletes, and the read it moves, is not swapped and
// reads from the causally latest valid write. It returns the swapped
// history when it does.
func (e *engine) optimal(s *state, x, i, t int, causalT uint64) (*state, bool) {
	// The reads the swap deletes or moves: (x, i) and the external reads
	// after it in x, and those of the transactions after x that t does
	// not depend on.
	type read struct{ txn, event int }
	reads := []read{}
	posX := s.position(x)
	for j, p := range s.order {
		if j < posX || (j > posX && causalT&bit(p) != 0) {
			continue
		}
		rp := s.recs[p]
		first := 0
		if p == x {
			first = i
		}
		for k := first; k < len(rp.events); k++ {
			if rp.external(k) {
				reads = append(reads, read{p, k})
			}
		}
	}
	e.base.closure(s)
	for _, rd := range reads {
		if e.swapped(s, rd.txn, rd.event) {
			return nil, false
		}
	}
	n := e.swap(s, x, i, t, causalT)
	if !e.base.consistent(n) {
		return nil, false
	}
	for _, rd := range reads {
		if !e.readsLatest(s, rd.txn, rd.event, causalT) {
			return nil, false
		}
	}
	return n, true
}

// swapped is swapped(h, r) of §5.3 for the read (y, j), which reads from
// t: (1) t comes before y in history order but after it in oracle order,
// (2) no transaction before y in both orders causally depends on t, and
// (3) no earlier read of y reads from t (or from a (so ∪ wr)⁺ successor
// of t, see below). It needs e.base.closure(s).
func (e *engine) swapped(s *state, y, j int) bool {
	ry := s.recs[y]
	t := ry.from[j]
	if t == fromInit || t < y { // pids are the oracle order
		return false
	}
	posY := s.position(y)
	if s.position(t) > posY {
		return false
	}
	for _, p := range s.order[:posY] {
		if p < y && e.base.causal[p+1]&bit(t) != 0 {
			return false
		}
	}
	// (3), read as "no earlier read of y reads from t or from a
	// (so ∪ wr)⁺ successor of t": when an earlier read of y reads from
	// such a successor, t was already before y in history order when
	// (y, j) was added, so Next chose t for it and no swap did (a swap
	// of (y, j) brings the last transaction, after y). The paper's
	// literal (3), "from t" only, calls such a read swapped and the
	// Optimality of §5.3 then forbids every swap that deletes it:
	// explore-ce missed histories (TestReferenceRegressions, "swapped
	// via successor").
	for k := 0; k < j; k++ {
		if !ry.external(k) {
			continue
		}
		if f := ry.from[k]; f == t || f != fromInit && e.base.causal[f+1]&bit(t) != 0 {
			return false
		}
	}
	return true
}

// readsLatest is readLatest_I(h, r, t) of §5.3 for the read (y, j): it
// reads from the last transaction in history order, among those that
// write its key and that y causally depends on once the events from the
// read on that t does not depend on are deleted, that it can read from
// consistently.
func (e *engine) readsLatest(s *state, y, j int, causalT uint64) bool {
	ry := s.recs[y]
	key := ry.events[j].Key
	kid := ry.kids[j]
	// h' = h \ {e | (y, j) <= e, tr(e) not causally before t}, with the
	// read put back.
	posY := s.position(y)
	n := &state{recs: make([]*txnRec, len(s.recs))}
	for k, p := range s.order {
		if k < posY || (k > posY && causalT&bit(p) != 0) {
			n.order = append(n.order, p)
			n.recs[p] = s.recs[p]
		}
	}
	cut := ry.clone()
	cut.truncate(j)
	n.order = append(n.order, y)
	n.recs[y] = cut
	e.base.closure(n)
	past := e.base.causal[y+1] | 1
	// Candidates from the latest in history order to the initial state.
	for k := len(n.order) - 2; k >= -1; k-- {
		from := fromInit
		if k >= 0 {
			from = n.order[k]
			if past&bit(from) == 0 || !n.recs[from].writes(kid) {
				continue
			}
		}
		cut.truncate(j)
		e.pushRead(cut, n, key, from)
		if e.base.consistent(n) {
			return from == ry.from[j]
		}
	}
	return false
}
