package explore

import (
	"math/bits"

	"github.com/isocheck/isocheck/level"
)

// anyHistory is the trivial level under which every history is consistent
// ("true" in Bouajjani et al., PLDI 2023, §7.3).
const anyHistory level.Level = 255

// checker decides whether a state satisfies RC, RA or CC. It runs at every
// step of the exploration, on histories of a few dozen transactions at
// most, so it is written for them rather than built on package saturate
// (made for histories of millions of operations, whose setup costs more
// than this whole check): transaction sets are single-word bit masks and
// scratch space is reused.
//
// The levels are the axioms of Bouajjani et al. (PLDI 2023) Figure 2 and
// Figure A.1 (those of Biswas and Enea, "On the Complexity of Checking
// Transactional Consistency" (OOPSLA 2019), as isocheck's checker and
// reference define them): a history satisfies the level when some commit
// order co ⊇ so ∪ wr makes, for every read α of x in t3 from t1 and every
// t2 ≠ t1 writing x with φ(t2, α), t2 co t1, where φ is
//
//	RC: t2 wr ∘ po α (t2 wrote what an earlier read of t3 returned)
//	RA: t2 (so ∪ wr) t3
//	CC: t2 (so ∪ wr)⁺ t3
//
// None of the φ depends on co, so the edges they ask for are known: the
// history is consistent exactly when so ∪ wr plus those edges is acyclic
// (the saturation of Biswas and Enea (OOPSLA 2019) §4, in one pass).
// Aborted transactions (their body called Tx.Abort; rolled back, to
// package check: see History.KV) write nothing, and their reads count as
// everyone's;
// pending transactions are read by nobody, so their writes constrain
// nothing.
//
// Program.Final reads the final state: φ holds for every t2 for its
// reads, whatever the level, so that it reads each key from the last
// writer in a commit order the level allows. Under CC and RA this is
// their own φ (every transaction is a session predecessor of Final);
// under RC, which promises nothing across a client's transactions, it
// is what makes Final see what the database holds rather than any
// committed value (see Program.Final).
type checker struct {
	level  level.Level
	final  int      // Final's pid, or -1
	soPred []uint64 // per pid, the transactions before it in session order, the initial state included
	// scratch, indexed by pid+1
	direct, causal, co []uint64
	base               []uint64 // validReads' co without the pending transaction's edges
	writers            []uint64 // per interned key
	touched            []int32
}

func newChecker(l level.Level, soPred []uint64, final int) *checker {
	n := len(soPred) + 1
	return &checker{level: l, final: final, soPred: soPred, direct: make([]uint64, n), causal: make([]uint64, n), co: make([]uint64, n)}
}

// closure computes, for every transaction of s, its direct (so ∪ wr)
// predecessors and its causal ((so ∪ wr)⁺) predecessors, into c.direct
// and c.causal (indexed by pid+1). The history order lists a
// transaction's predecessors before it.
func (c *checker) closure(s *state) { c.closureOf(s, s.present()) }

func (c *checker) closureOf(s *state, present uint64) {
	c.direct[0], c.causal[0] = 0, 0
	for _, p := range s.order {
		r := s.recs[p]
		d := c.soPred[p] & present
		for i, f := range r.from {
			if f != fromNone && r.events[i].Kind == Read {
				d |= bit(f)
			}
		}
		cl := d
		forEach(d, func(q int) { cl |= c.causal[q+1] })
		c.direct[p+1], c.causal[p+1] = d, cl
	}
}

// consistent reports whether s satisfies the checker's level.
func (c *checker) consistent(s *state) bool {
	if c.level == anyHistory {
		return true
	}
	present := s.present()
	c.closureOf(s, present)
	c.fillWriters(s)
	c.co[0] = 0
	for _, p := range s.order {
		c.co[p+1] = c.direct[p+1]
	}
	for _, p := range s.order {
		c.constrain(s.recs[p], c.direct[p+1], c.causal[p+1], present, fromNone, 0)
	}
	return acyclic(c.co, present)
}

// fillWriters sets c.writers[k] to the transactions of s that write key
// k (the initial state, which writes them all, is added where used).
func (c *checker) fillWriters(s *state) {
	for _, k := range c.touched {
		c.writers[k] = 0
	}
	c.touched = c.touched[:0]
	for _, p := range s.order {
		r := s.recs[p]
		if r.status == Aborted {
			continue
		}
		for i, e := range r.events {
			if e.Kind == Write {
				k := r.kids[i]
				for int(k) >= len(c.writers) {
					c.writers = append(c.writers, 0)
				}
				if c.writers[k] == 0 {
					c.touched = append(c.touched, k)
				}
				c.writers[k] |= bit(p)
			}
		}
	}
}

// constrain adds to c.co the edges the axiom asks of the reads of r, its
// direct and causal predecessors given, followed by a read of key kid
// from newFrom unless newFrom is fromNone.
func (c *checker) constrain(r *txnRec, direct, causal, present uint64, newFrom int, kid int32) {
	p := r.pid
	var earlier uint64 // RC: the writers of earlier reads
	read := func(k int32, f int) {
		var phi uint64
		switch {
		case p == c.final:
			phi = present
		case c.level == level.CC:
			phi = causal
		case c.level == level.RA:
			phi = direct
		default:
			phi = earlier
		}
		earlier |= bit(f)
		var w uint64 = 1 // the initial state
		if int(k) < len(c.writers) {
			w |= c.writers[k]
		}
		if t2 := phi & w &^ bit(f) &^ bit(p); t2 != 0 {
			c.co[f+1] |= t2
		}
	}
	for i, f := range r.from {
		if f != fromNone && r.events[i].Kind == Read {
			read(r.kids[i], f)
		}
	}
	if newFrom != fromNone {
		read(kid, newFrom)
	}
}

// validReads returns the candidates a read of kid, about to be added to the
// last transaction of s (pending), may read from: those for which s with
// the read satisfies the level. It does once what the checks of the
// candidates share — the closure and the edges of every other transaction,
// which the new read cannot change since nobody depends on a pending
// transaction — and then, per candidate, the pending transaction's edges
// and the cycle check (ValidWrites of Bouajjani et al. (PLDI 2023) §5.1).
func (c *checker) validReads(s *state, kid int32, candidates []int) []int {
	if c.level == anyHistory {
		return candidates
	}
	present := s.present()
	c.closureOf(s, present)
	c.fillWriters(s)
	last := s.order[len(s.order)-1]
	r := s.recs[last]
	c.co[0] = 0
	for _, p := range s.order {
		c.co[p+1] = c.direct[p+1]
	}
	for _, p := range s.order[:len(s.order)-1] {
		c.constrain(s.recs[p], c.direct[p+1], c.causal[p+1], present, fromNone, 0)
	}
	base := append(c.base[:0], c.co...)
	c.base = base
	var valid []int
	for _, f := range candidates {
		copy(c.co, base)
		direct := c.direct[last+1] | bit(f)
		causal := c.causal[last+1] | bit(f)
		if f != fromInit {
			causal |= c.causal[f+1]
		}
		c.co[last+1] = direct
		c.constrain(r, direct, causal, present, f, kid)
		if acyclic(c.co, present) {
			valid = append(valid, f)
		}
	}
	return valid
}

// acyclic reports whether the graph whose node i has the predecessors
// preds[i] (bit j for node j) is acyclic on the nodes of mask.
func acyclic(preds []uint64, mask uint64) bool {
	for mask != 0 {
		progress := false
		for m := mask; m != 0; m &= m - 1 {
			i := bits.TrailingZeros64(m)
			if preds[i]&mask&^(1<<uint(i)) == 0 {
				mask &^= 1 << uint(i)
				progress = true
			}
		}
		if !progress {
			return false
		}
	}
	return true
}
