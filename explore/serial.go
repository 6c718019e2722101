package explore

import (
	"math/bits"

	"github.com/isocheck/isocheck/level"
)

// serialChecker decides whether a complete history satisfies SER, SI or PC:
// the Valid filter of explore-ce* (Bouajjani et al., PLDI 2023, §6), which
// runs on every end state. Package check decides the same (a test compares
// them on every history of many programs), but building a polygraph and a
// SAT problem costs about five times the whole exploration step of a
// ten-transaction history (BenchmarkExplore/SER); this search over the
// history's prefixes is polynomial for a fixed number of sessions (Biswas
// and Enea, "On the Complexity of Checking Transactional Consistency"
// (OOPSLA 2019), §5, as Bouajjani et al. (PLDI 2023) §7.3 note) and
// allocates next to nothing.
//
// SER: the transactions can be run one at a time, each read returning the
// last write of its key. The search adds transactions to a prefix P (a
// set closed under session order); t may join when everything it read
// from is in P and when its writes would hide no write in P that a
// transaction outside P still has to read. That last rule makes the
// writer a read returns always the last of P to write the key, so the
// prefix's set alone is the search state.
//
// SI and PC: the same over two events per transaction, its snapshot (all
// its reads) and its commit (all its writes), a transaction's session
// predecessors committed before its snapshot. SI adds Conflict: a
// transaction may not commit while another that writes a common key has
// taken its snapshot and not committed.
type serialChecker struct {
	level  level.Level
	soPred []uint64
	// per search, indexed by pid
	reads  [][]readOf // external reads
	writes [][]int32  // keys written (none for aborted transactions)
	all    uint64
	seen   map[[2]uint64]bool
}

type readOf struct {
	kid  int32
	from int
}

func newSerialChecker(l level.Level, soPred []uint64) *serialChecker {
	n := len(soPred)
	return &serialChecker{level: l, soPred: soPred, reads: make([][]readOf, n), writes: make([][]int32, n), seen: map[[2]uint64]bool{}}
}

// consistent reports whether the complete history s satisfies the level.
func (c *serialChecker) consistent(s *state) bool {
	c.all = 1
	for _, p := range s.order {
		r := s.recs[p]
		c.all |= bit(p)
		c.reads[p], c.writes[p] = c.reads[p][:0], c.writes[p][:0]
		for i, e := range r.events {
			switch {
			case r.external(i):
				c.reads[p] = append(c.reads[p], readOf{r.kids[i], r.from[i]})
			case e.Kind == Write && r.status == Committed:
				c.writes[p] = append(c.writes[p], r.kids[i])
			}
		}
	}
	clear(c.seen)
	if c.level == level.SER {
		return c.serial(1)
	}
	return c.snapshots(1, 1)
}

// serial searches for a serial order extending the prefix done.
func (c *serialChecker) serial(done uint64) bool {
	if done == c.all {
		return true
	}
	if c.seen[[2]uint64{done, done}] {
		return false
	}
	c.seen[[2]uint64{done, done}] = true
	for m := c.all &^ done; m != 0; m &= m - 1 {
		t := lowest(m)
		if c.soPred[t]&c.all&^done != 0 || !c.readable(t, done) || c.hides(t, done, done|bit(t)) {
			continue
		}
		if c.serial(done | bit(t)) {
			return true
		}
	}
	return false
}

// snapshots searches for an order of snapshots and commits: started
// holds the transactions that took their snapshot, committed those that
// committed too.
func (c *serialChecker) snapshots(started, committed uint64) bool {
	if committed == c.all {
		return true
	}
	key := [2]uint64{started, committed}
	if c.seen[key] {
		return false
	}
	c.seen[key] = true
	for m := c.all &^ committed; m != 0; m &= m - 1 {
		t := lowest(m)
		if started&bit(t) == 0 {
			// Its snapshot: its session predecessors committed, and
			// what it read committed.
			if c.soPred[t]&c.all&^committed != 0 || !c.readable(t, committed) {
				continue
			}
			if c.snapshots(started|bit(t), committed) {
				return true
			}
			continue
		}
		// Its commit.
		if c.hides(t, committed, started) {
			continue
		}
		if c.level == level.SI && c.conflicts(t, started&^committed) {
			continue
		}
		if c.snapshots(started, committed|bit(t)) {
			return true
		}
	}
	return false
}

// readable reports whether every transaction t read from is in done.
func (c *serialChecker) readable(t int, done uint64) bool {
	for _, r := range c.reads[t] {
		if done&bit(r.from) == 0 {
			return false
		}
	}
	return true
}

// hides reports whether t's writes would hide, from a transaction that
// has not read yet (not in past), a write in done it reads.
func (c *serialChecker) hides(t int, done, past uint64) bool {
	for _, k := range c.writes[t] {
		for m := c.all &^ past; m != 0; m &= m - 1 {
			u := lowest(m)
			for _, r := range c.reads[u] {
				if r.kid == k && r.from != t && done&bit(r.from) != 0 {
					return true
				}
			}
		}
	}
	return false
}

// conflicts reports whether t writes a key that a transaction of open
// other than t writes.
func (c *serialChecker) conflicts(t int, open uint64) bool {
	for m := open &^ bit(t); m != 0; m &= m - 1 {
		u := lowest(m)
		for _, k := range c.writes[t] {
			for _, k2 := range c.writes[u] {
				if k == k2 {
					return true
				}
			}
		}
	}
	return false
}

// lowest returns the pid of the lowest bit of a non-empty mask without
// the initial state's bit.
func lowest(m uint64) int { return bits.TrailingZeros64(m) - 1 }
