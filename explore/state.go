package explore

import "math/bits"

// A state is an ordered history (Bouajjani et al., PLDI 2023, §4): the
// transactions the explorer has run so far, in its history order <, each
// with its events. Transactions are named by their pid, their index in the
// program's oracle order (sessions in order, each session's transactions in
// session order, Final last); the initial state is pid -1. Sets of
// transactions are bit masks: bit 0 is the initial state, bit p+1 is pid p.
type state struct {
	order []int     // pids in history order
	recs  []*txnRec // by pid; nil when the transaction is not in the history
}

// txnRec is one transaction of a state.
type txnRec struct {
	pid      int
	events   []Event // Event.From is kept in sync with from
	kids     []int32 // interned key of each event
	from     []int   // pid a read read from (-1: initial state); -2 for own writes and non-reads
	status   Status
	failures []string
}

const (
	fromInit = -1
	fromNone = -2
)

func bit(pid int) uint64 { return 1 << uint(pid+1) }

// external reports whether event i is a read of another transaction's
// write (a member of reads(t) in Bouajjani et al. (PLDI 2023) §2.2.1).
func (r *txnRec) external(i int) bool { return r.from[i] != fromNone }

func (r *txnRec) clone() *txnRec {
	return &txnRec{
		pid:      r.pid,
		events:   append([]Event(nil), r.events...),
		kids:     append([]int32(nil), r.kids...),
		from:     append([]int(nil), r.from...),
		status:   r.status,
		failures: r.failures,
	}
}

// truncate keeps the first n events; the transaction is pending again.
func (r *txnRec) truncate(n int) {
	r.events = r.events[:n]
	r.kids = r.kids[:n]
	r.from = r.from[:n]
	r.status = Pending
	r.failures = nil
}

// position returns the index of pid in the history order, or -1.
func (s *state) position(pid int) int {
	if pid == fromInit {
		return -1
	}
	for i, p := range s.order {
		if p == pid {
			return i
		}
	}
	return -1
}

// last returns the last transaction in history order, or nil.
func (s *state) last() *txnRec {
	if len(s.order) == 0 {
		return nil
	}
	return s.recs[s.order[len(s.order)-1]]
}

// present is the mask of the transactions in the history, the initial
// state included.
func (s *state) present() uint64 {
	m := uint64(1)
	for _, p := range s.order {
		m |= bit(p)
	}
	return m
}

// forEach calls f with the pid of every member of mask but the initial
// state.
func forEach(mask uint64, f func(pid int)) {
	mask &^= 1
	for mask != 0 {
		i := bits.TrailingZeros64(mask)
		mask &= mask - 1
		f(i - 1)
	}
}
