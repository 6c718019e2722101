package digraph

import (
	"math"

	"github.com/isocheck/isocheck/progress"
)

// Clocks answers reachability queries on a DAG whose nodes are (mostly)
// covered by chains: paths such as a session's transactions in session
// order. For every node it keeps, per chain, the earliest position on that
// chain it reaches; "u reaches v" for v on a chain is then one comparison.
// This is docs/design.md, "Session clocks": n·chains integers instead of
// an n×n matrix, built in O((n+m)·chains) time.
type Clocks struct {
	g       *Graph
	chains  int
	chainOf []int32 // -1: on no chain
	posOf   []int32
	clock   []int32 // clock[u*chains+c]
	// search serves the rare queries the clocks cannot answer: made once,
	// not per query (its scratch is as large as the graph).
	search *Searcher
}

// noReach is the clock entry of a chain a node does not reach.
const noReach = math.MaxInt32

// ClockEntries is the memory, in int32 entries, NewClocks would use.
func ClockEntries(n, chains int) int64 { return int64(n) * int64(chains) }

// NewClocks computes clocks for the acyclic graph g, given its topological
// order and chains of nodes such that each node of a chain reaches the next.
// A node may be on at most one chain.
func NewClocks(g *Graph, order []int32, chains [][]int32) *Clocks {
	c := &Clocks{}
	c.Reset(g, order, chains)
	return c
}

// Reset recomputes c for a new graph, reusing its memory.
func (c *Clocks) Reset(g *Graph, order []int32, chains [][]int32) {
	c.ResetMeter(nil, g, order, chains)
}

// ResetMeter is Reset that stops, leaving c unusable, once m reports an
// error (the context of its stage ended), and returns the error. The
// clocks of a large graph take the longest of the checker's passes over
// it. A nil m never stops.
func (c *Clocks) ResetMeter(m *progress.Meter, g *Graph, order []int32, chains [][]int32) error {
	c.g, c.chains = g, len(chains)
	c.chainOf = resize(c.chainOf, g.N)
	c.posOf = resize(c.posOf, g.N)
	c.clock = resize(c.clock, g.N*len(chains))
	for i := range c.chainOf {
		c.chainOf[i] = -1
	}
	for ci, ch := range chains {
		for p, u := range ch {
			c.chainOf[u] = int32(ci)
			c.posOf[u] = int32(p)
		}
	}
	k := c.chains
	// Billions of entries take seconds to fill: check m between blocks.
	for at := 0; at < len(c.clock); at += fillBlock {
		if m != nil && at > 0 {
			if err := m.Err(); err != nil {
				return err
			}
		}
		block := c.clock[at:min(at+fillBlock, len(c.clock))]
		for i := range block {
			block[i] = noReach
		}
	}
	// Check m about every progress.Every row updates.
	work := 0
	for i := len(order) - 1; i >= 0; i-- {
		if m != nil {
			if work += len(g.Succ(order[i])) + 1; work*k >= progress.Every*8 {
				work = 0
				if err := m.Err(); err != nil {
					return err
				}
			}
		}
		u := order[i]
		row := c.clock[int(u)*k : int(u)*k+k : int(u)*k+k]
		for _, v := range g.Succ(u) {
			vrow := c.clock[int(v)*k : int(v)*k+k : int(v)*k+k]
			vrow = vrow[:len(row)]
			for j := range row {
				row[j] = min(row[j], vrow[j])
			}
		}
		if ch := c.chainOf[u]; ch >= 0 {
			row[ch] = c.posOf[u]
		}
	}
	return nil
}

// fillBlock is the number of entries ResetMeter fills between two looks
// at its Meter.
const fillBlock = 1 << 22

// Fork returns clocks that share c's (read-only) entries, with scratch of
// their own: each goroutine that queries c at once needs its own fork.
func (c *Clocks) Fork() *Clocks {
	f := *c
	f.search = nil
	return &f
}

// Reaches reports whether there is a path from u to v (u reaches itself).
// It is not safe for concurrent use: see Fork.
func (c *Clocks) Reaches(u, v int32) bool {
	return c.reaches(u, v, 4)
}

func (c *Clocks) reaches(u, v int32, depth int) bool {
	if u == v {
		return true
	}
	if ch := c.chainOf[v]; ch >= 0 {
		return c.clock[int(u)*c.chains+int(ch)] <= c.posOf[v]
	}
	// v is on no chain: u reaches v iff u reaches one of its predecessors.
	if depth == 0 {
		if c.search == nil || c.search.g != c.g || len(c.search.parent) != c.g.N {
			c.search = NewSearcher(c.g)
		}
		return c.search.ShortestPath(u, v, nil) != nil
	}
	for _, p := range c.g.Pred(v) {
		if c.reaches(u, p, depth-1) {
			return true
		}
	}
	return false
}

// Chain returns the chain of node u and its position there, or -1, -1.
func (c *Clocks) Chain(u int32) (chain, pos int32) {
	if ch := c.chainOf[u]; ch >= 0 {
		return ch, c.posOf[u]
	}
	return -1, -1
}

// Earliest returns the earliest position on chain ch that u reaches, or
// math.MaxInt32 when it reaches none.
func (c *Clocks) Earliest(u int32, ch int32) int32 { return c.clock[int(u)*c.chains+int(ch)] }
