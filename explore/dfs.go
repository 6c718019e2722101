package explore

// dfs is the baseline of Bouajjani et al. (PLDI 2023) §7.3: a depth-first
// search of the operational semantics of §2.3 with no reduction. At every
// step any session may take its next step: one event of its live
// transaction, or the start of its next one; a read may return the write of
// any committed transaction that keeps the history consistent with the base
// level. It reaches every history once per interleaving that produces it.
// The state's order lists the ended transactions in the order they ended,
// then the live ones, so that every transaction comes after those it read
// from.
func (e *engine) dfs(s *state) error {
	if err := e.tick(); err != nil {
		return err
	}
	moved := false
	for _, pid := range e.live(s) {
		moved = true
		if err := e.dfsStep(s, pid); err != nil {
			return err
		}
	}
	if moved {
		return nil
	}
	if len(s.order) == len(e.txns) {
		return e.complete(s)
	}
	e.res.Blocked++
	return nil
}

// live returns, for every session that has not finished, the pid of its
// live transaction or of the next one it would start. Final starts once
// every other transaction ended.
func (e *engine) live(s *state) []int {
	var out []int
	ended := 0
	for _, p := range s.order {
		if s.recs[p].status != Pending {
			ended++
		}
	}
	last := -1
	for pid, t := range e.txns {
		if t.id.Session == last {
			continue
		}
		if r := s.recs[pid]; r != nil && r.status != Pending {
			continue
		}
		last = t.id.Session
		if e.prog.Final != nil && pid == len(e.txns)-1 && ended < len(e.txns)-1 {
			continue
		}
		out = append(out, pid)
	}
	return out
}

// dfsStep explores the next step of transaction pid.
func (e *engine) dfsStep(s *state, pid int) error {
	r := s.recs[pid]
	st, err := e.run(pid, r)
	if err != nil {
		e.bodyErr = err
		return errStop
	}
	order := append([]int(nil), s.order...)
	fresh := r == nil
	if fresh {
		r = &txnRec{pid: pid}
		s.recs[pid] = r
		s.order = append(s.order, pid)
	}
	before := len(r.events)
	defer func() {
		r.truncate(before)
		s.order = order
		if fresh {
			s.recs[pid] = nil
		}
	}()
	if len(st.added) > 0 {
		ev := st.added[0]
		e.push(r, st.added[:1])
		if ev.Kind == Commit || ev.Kind == Abort {
			r.status, r.failures = st.status, st.failures
			e.endTxn(s, pid)
		}
		return e.dfs(s)
	}
	for _, from := range e.candidates(s, pid, e.kid(st.readKey)) {
		r.truncate(before)
		e.pushRead(r, s, st.readKey, from)
		if !e.base.consistent(s) {
			continue
		}
		if err := e.dfs(s); err != nil {
			return err
		}
	}
	return nil
}

// endTxn moves pid, which just ended, after the transactions that ended
// before it and before the live ones.
func (e *engine) endTxn(s *state, pid int) {
	order := make([]int, 0, len(s.order))
	for _, p := range s.order {
		if p != pid && s.recs[p].status != Pending {
			order = append(order, p)
		}
	}
	order = append(order, pid)
	for _, p := range s.order {
		if p != pid && s.recs[p].status == Pending {
			order = append(order, p)
		}
	}
	s.order = order
}
