package sqlcheck

import (
	"math/bits"

	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/verdict"
)

// bitset is a set of nodes. The partial commit order is kept as its
// transitive closure in two matrices of bitsets (successors and
// predecessors): histories of SQL transactions have hundreds or a few
// thousand transactions, so n² bits are small, and every question the
// axioms ask becomes a word-parallel intersection.
type bitset []uint64

func newBitset(n int) bitset    { return make(bitset, (n+63)/64) }
func (b bitset) has(i int) bool { return b[i>>6]&(1<<(uint(i)&63)) != 0 }
func (b bitset) set(i int)      { b[i>>6] |= 1 << (uint(i) & 63) }
func (b bitset) clear(i int)    { b[i>>6] &^= 1 << (uint(i) & 63) }
func (b bitset) clone() bitset  { return append(bitset(nil), b...) }
func (b bitset) intersects(c bitset) bool {
	for i := range b {
		if b[i]&c[i] != 0 {
			return true
		}
	}
	return false
}

// intersects3 reports whether a ∩ b ∩ c is not empty.
func intersects3(a, b, c bitset) bool {
	for i := range a {
		if a[i]&b[i]&c[i] != 0 {
			return true
		}
	}
	return false
}

// subsetOf reports whether b ⊆ c.
func (b bitset) subsetOf(c bitset) bool {
	for i := range b {
		if b[i]&^c[i] != 0 {
			return false
		}
	}
	return true
}

// each calls f on every member, in increasing order.
func (b bitset) each(f func(int)) {
	for i, w := range b {
		for w != 0 {
			f(i*64 + bits.TrailingZeros64(w))
			w &= w - 1
		}
	}
}

func orInto(dst, src bitset) {
	for i := range dst {
		dst[i] |= src[i]
	}
}

// wrIn is a write-read dependency into a transaction: its event ev read
// some key from node from.
type wrIn struct {
	ev   int
	from int
}

// state is what the search changes: the partial commit order (the pco of
// Bouajjani et al., CAV 2025), the write-read relation with the witnesses
// chosen so far, and the direct edges with their reasons. Each branch of
// the search works on its own copy.
type state struct {
	succ, pred []bitset // pco, transitively closed
	soWr       []bitset // soWr[t]: the direct so ∪ wr predecessors of t (so is transitive)
	hb         []bitset // hb[t]: the (so ∪ wr)+ predecessors of t
	wr         [][]wrIn // wr[t]: the dependencies into t, by event
	reads      []readInst
	assigned   []bool // per unknown read
	edges      [][]Edge
}

func newState(n, unknown int) *state {
	s := &state{
		succ: make([]bitset, n), pred: make([]bitset, n), soWr: make([]bitset, n), hb: make([]bitset, n),
		wr: make([][]wrIn, n), assigned: make([]bool, unknown), edges: make([][]Edge, n),
	}
	for i := 0; i < n; i++ {
		s.succ[i], s.pred[i], s.soWr[i], s.hb[i] = newBitset(n), newBitset(n), newBitset(n), newBitset(n)
	}
	return s
}

func (s *state) clone() *state {
	c := &state{
		succ: cloneAll(s.succ), pred: cloneAll(s.pred), soWr: cloneAll(s.soWr), hb: cloneAll(s.hb),
		wr: make([][]wrIn, len(s.wr)), reads: append([]readInst(nil), s.reads...),
		assigned: append([]bool(nil), s.assigned...), edges: make([][]Edge, len(s.edges)),
	}
	for i := range s.wr {
		c.wr[i] = append([]wrIn(nil), s.wr[i]...)
		c.edges[i] = append([]Edge(nil), s.edges[i]...)
	}
	return c
}

func cloneAll(m []bitset) []bitset {
	c := make([]bitset, len(m))
	for i, b := range m {
		c[i] = b.clone()
	}
	return c
}

// addOrder adds a → b to pco with its reason. It returns false, and adds
// nothing, when b already precedes a (or a = b): the edge closes a cycle.
func (s *state) addOrder(a, b int, why Edge) bool {
	if a == b || s.succ[b].has(a) {
		return false
	}
	if s.succ[a].has(b) {
		return true
	}
	s.edges[a] = append(s.edges[a], why)
	// Everything up to a now precedes everything from b.
	from := s.pred[a].clone()
	from.set(a)
	to := s.succ[b].clone()
	to.set(b)
	from.each(func(u int) { orInto(s.succ[u], to) })
	to.each(func(v int) { orInto(s.pred[v], from) })
	return true
}

// addSoWr records a session-order or write-read dependency a → b into
// event ev of b (ev < 0 for session order), in soWr, hb and wr. The caller
// adds the order to pco.
func (s *state) addSoWr(a, b, ev int) {
	s.soWr[b].set(a)
	if ev >= 0 {
		s.wr[b] = append(s.wr[b], wrIn{ev: ev, from: a})
	}
	if s.hb[b].has(a) {
		return
	}
	add := s.hb[a].clone()
	add.set(a)
	for c := range s.hb {
		if c == b || s.hb[c].has(b) {
			orInto(s.hb[c], add)
		}
	}
}

// path returns direct edges leading from a to b in pco, which must hold.
func (s *state) path(a, b int) []Edge {
	prev := map[int]Edge{}
	queue := []int{a}
	seen := map[int]bool{a: true}
	for len(queue) > 0 {
		u := queue[0]
		queue = queue[1:]
		if u == b {
			break
		}
		for _, e := range s.edges[u] {
			if !seen[e.to] {
				seen[e.to] = true
				prev[e.to] = e
				queue = append(queue, e.to)
			}
		}
	}
	var p []Edge
	for v := b; v != a; {
		e, ok := prev[v]
		if !ok {
			return nil
		}
		p = append(p, e)
		v = e.from
	}
	for i, j := 0, len(p)-1; i < j; i, j = i+1, j-1 {
		p[i], p[j] = p[j], p[i]
	}
	return p
}

// visible reports whether writer t2 is visible to read ri under the axiom
// of ri's transaction's level, with pco for the commit order (Bouajjani
// et al. (CAV 2025) Figure 3; Biswas and Enea, "On the Complexity of
// Checking Transactional Consistency" (OOPSLA 2019) Figure 2). Algorithm 1
// adds t2 → writer for every visible t2.
func (p *problem) visible(s *state, t2 int, ri *readInst) bool {
	t := ri.t
	switch p.level[t] {
	case level.SER:
		return s.succ[t2].has(t)
	case level.PC:
		return p.prefixVisible(s, t2, t)
	case level.SI:
		return p.prefixVisible(s, t2, t) || p.conflictVisible(s, t2, t)
	case level.CC:
		return s.hb[t].has(t2)
	case level.RA:
		return s.soWr[t].has(t2)
	case level.RC:
		return p.rcVisible(s, t2, ri)
	}
	return false
}

// prefixVisible is PC's visibility: t2 co* t3 and t3 (so ∪ wr) t.
func (p *problem) prefixVisible(s *state, t2, t int) bool {
	return s.soWr[t].has(t2) || s.succ[t2].intersects(s.soWr[t])
}

// conflictVisible is SI's Conflict: t2 co* t4, t4 co t, and t4 and t
// write a common key.
func (p *problem) conflictVisible(s *state, t2, t int) bool {
	share := p.shareWrite[t]
	if share == nil {
		return false
	}
	if share.has(t2) && s.succ[t2].has(t) {
		return true
	}
	return intersects3(share, s.pred[t], s.succ[t2])
}

// rcVisible is RC's visibility: an earlier read event of t read from t2.
// Figure 3 of Bouajjani et al. (CAV 2025) also makes t's session-order
// predecessors visible; isocheck's RC is that of Biswas and Enea
// (OOPSLA 2019), without session guarantees, so that a key-value history
// gets the same verdict as a SQL history as it does as itself.
func (p *problem) rcVisible(s *state, t2 int, ri *readInst) bool {
	for _, w := range s.wr[ri.t] {
		if w.from == t2 && w.ev < ri.ev {
			return true
		}
	}
	return false
}

// saturate computes the least fixpoint of Bouajjani et al. (CAV 2025)
// Algorithm 1 from the current pco: for every read with a known writer t1
// of key x, every other writer t2 of x visible to it must commit before t1.
// It returns the cycle that an impossible order closes, or nil.
//
// It stops early, without a cycle, when p.ctx ends: the caller must look
// at the context before trusting an acyclic result.
func (p *problem) saturate(s *state, steps *int) []Edge {
	for changed := true; changed; {
		changed = false
		for i := range s.reads {
			if i&255 == 0 && p.ctx != nil && p.ctx.Err() != nil {
				return nil
			}
			ri := &s.reads[i]
			t1 := ri.w
			for _, t2 := range p.writers[ri.key] {
				if t2 == t1 || t2 == ri.t || s.succ[t2].has(t1) {
					continue
				}
				*steps++
				if !p.visible(s, t2, ri) {
					continue
				}
				why := Edge{from: t2, to: t1, Kind: verdict.Visible, Key: ri.key, readEv: ri.ev, reader: ri.t, Version: ri.version, Chosen: ri.chosen}
				if !s.addOrder(t2, t1, why) {
					return p.justify(s, append(s.path(t1, t2), why))
				}
				changed = true
			}
		}
	}
	return nil
}

// justify fills in Via for the Visible edges of cycle: the constraints
// that make the writer visible to the read, for the levels whose
// visibility goes through the commit order.
func (p *problem) justify(s *state, cycle []Edge) []Edge {
	for i := range cycle {
		e := &cycle[i]
		if e.Kind != verdict.Visible || e.Via != nil {
			continue
		}
		t2, t := e.from, e.reader
		switch p.level[t] {
		case level.SER:
			e.Via = s.path(t2, t)
		case level.PC, level.SI:
			e.Via = p.prefixVia(s, t2, t)
		}
	}
	return cycle
}

// prefixVia returns a path t2 ⇝ t3 → t where the last edge is session
// order or a read, or, for SI, t2 ⇝ t4 ⇝ t where t4 writes a row t writes.
func (p *problem) prefixVia(s *state, t2, t int) []Edge {
	for _, e := range s.edges {
		for _, d := range e {
			if d.to != t || (d.Kind != verdict.SO && d.Kind != verdict.WR) {
				continue
			}
			if d.from == t2 {
				return []Edge{d}
			}
			if s.succ[t2].has(d.from) {
				return append(s.path(t2, d.from), d)
			}
		}
	}
	if share := p.shareWrite[t]; share != nil {
		for t4 := range s.succ {
			if share.has(t4) && s.succ[t4].has(t) && (t4 == t2 || s.succ[t2].has(t4)) {
				return append(s.path(t2, t4), s.path(t4, t)...)
			}
		}
	}
	return nil
}
