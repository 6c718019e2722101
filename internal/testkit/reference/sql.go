package reference

// SQL histories
//
// CheckSQL decides the consistency of a small SQL history (package
// sqlhistory), whose transactions each have their own isolation level, by
// brute force: it is the oracle the real checker (package mixed) is tested
// against. It follows Bouajjani, Enea and Román-Calvo, "On the Complexity
// of Checking Mixed Isolation Levels for SQL Transactions" (CAV 2025)
// literally: a client history is consistent iff some witness of it (§2.3,
// Definitions 2–4 and 7) is a consistent full history (§3, Definition 6,
// with the axioms of Figure 3, which are those of Figure 2 of Biswas and
// Enea, "On the Complexity of Checking Transactional Consistency"
// (OOPSLA 2019), restated per read event). The definitions it implements
// are the project's:
//
//   - The keys of table T are h.TableKeys[T]. An implicit transaction init
//     precedes every other transaction in session order and commit order
//     and writes every key x: its initial version h.Initial[x] if it has
//     one, else the deletion † of x (an absent row). A deletion
//     (Version.Row == nil) satisfies no predicate, not even the absent
//     WHERE clause.
//   - Committed set: h is consistent iff for SOME subset S of the Unknown
//     transactions, C = Committed ∪ RolledBack ∪ S is. Aborted
//     transactions and the Unknown ones outside S are ignored: their
//     writes are invisible and their events unchecked. A rolled-back
//     transaction is in C but writes nothing (its Writes are invisible to
//     every other transaction), as an aborted transaction in Bouajjani,
//     Enea and Román-Calvo, "Dynamic Partial Order Reduction for Checking
//     Correctness against Transaction Isolation Levels" (PLDI 2023),
//     §2.2.1: its reads, including those of its own writes, are checked
//     like any other.
//   - The events of a transaction are in program order (po). Insert,
//     Update and Delete write the versions Event.Writes (for Update and
//     Delete, Writes[i] is the new version of the row of Reads[i]). A
//     transaction's final version of x is its last write of x in po; a
//     transaction writes x iff it has a final version of x (init writes
//     every key). Select, Update and Delete are read events; each one
//     inspects every key of its table.
//   - For a read event r of t ∈ C: every row r lists must be of a key of
//     r's table, listed at most once. Then for every key x of its table:
//       * x is LOCAL to r if an event of t po-before r wrote x. r sees t's
//         last write of x before r: if that version satisfies Where(r), r
//         must list exactly it, otherwise r must not list x.
//       * otherwise x is EXTERNAL to r. If r lists x with version v, v must
//         be the final version of x of some w ∈ C \ {t}, or x's initial
//         version (w = init): not an aborted or excluded transaction's
//         version, an intermediate one, t's own, or one nobody wrote
//         (sqlhistory.Unwritten); and v must satisfy Where(r). Then
//         wr_x(w, r). If r does not list x, the witness chooses
//         wr_x(w, r) for any w ∈ (C \ {t}) ∪ {init} that writes x and
//         whose final version of x (for init: x's initial version, or †)
//         does not satisfy Where(r) (Definition 4); if there is no such w,
//         there is no witness for this C.
//     A witness (Definitions 2–4) fixes the writer of every external
//     (r, x). If any condition fails, C is inconsistent.
//   - Between transactions: wr(t1, t) iff some event of t reads some key
//     from t1 (t1 ≠ t: reads of t's own writes are local). so is the
//     session order, transitive, with init before every transaction.
//   - co is a strict total order on C ∪ {init}, init first, containing so
//     and wr (Definition 5).
//   - Axioms (Figure 3, which restates Figure 2 of Biswas and Enea
//     (OOPSLA 2019) per read event): for every external read (r, x) of
//     t ∈ C, with level L = t.Level and wr_x(t1, r), and every
//     t2 ∈ C ∪ {init} that writes x with t2 ≠ t1 and t2 ≠ t: if
//     vis_L(t2, r) then (t2, t1) ∈ co, where vis_L(t2, r) is
//       * RC:  some read event r' of t strictly po-before r reads some key
//              (any key, externally) from t2. Figure 3 of
//              Bouajjani et al. (CAV 2025) also counts (t2, t) ∈ so;
//              isocheck's RC is Biswas and Enea's (Check's AxRC), so
//              that a key-value history gets the same verdict as itself
//              and as a SQL history;
//       * RA:  (t2, t) ∈ so ∪ wr;
//       * CC:  (t2, t) ∈ (so ∪ wr)⁺;
//       * PC:  ∃ t3: (t2, t3) ∈ co* and (t3, t) ∈ so ∪ wr (Prefix);
//       * SI:  Prefix's condition, or Conflict's: ∃ t4 ≠ t: (t2, t4) ∈ co*,
//              (t4, t) ∈ co, and t4 and t both write some key y;
//       * SER: (t2, t) ∈ co.
//   - h is consistent (Definitions 6 and 7) iff there are S, a witness
//     for C = Committed ∪ S and a co such that every local and external
//     condition above and every axiom holds.
//
// The search enumerates the subsets S, then builds co depth first,
// placing init and then one transaction at a time among those whose
// predecessors in so and in the wr of their listed reads are placed.
// When it places t, it enumerates the witness's choices for t's unlisted
// external reads among the transactions already placed (as wr ⊆ co, the
// writer of a read of t precedes t, so this enumerates every pair of a
// witness and a co exactly once), and checks the axioms of t's reads.
// That check is exact, as in CheckAxioms: each premise implies that t2
// precedes t, and every co-term relates placed transactions, or an
// unplaced one (which comes after every placed one) to a placed one, so
// its value is the same in every completion. A complete order is only
// accepted after every axiom has been checked again, literally, on the
// complete co and witness; the early check only prunes.
//
// CheckSQL refuses histories it cannot enumerate: more than MaxSQLTxns
// transactions that may commit, or a search that would take more than
// MaxSQLWork steps (a step is one placement of a transaction with one
// choice of its unlisted reads' writers). It then returns an error, never
// a verdict.

import (
	"errors"
	"fmt"

	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/sqlhistory"
)

const (
	// MaxSQLTxns is the largest number of committed, rolled-back and
	// unknown transactions CheckSQL accepts.
	MaxSQLTxns = 7
	// MaxSQLWork bounds the steps of CheckSQL's search, over all subsets
	// of the unknown transactions.
	MaxSQLWork = 1 << 19
)

// ErrSQLTooBig is the error CheckSQL returns when its search would take
// more than MaxSQLWork steps.
var ErrSQLTooBig = errors.New("reference: SQL history too big to enumerate")

// sqlCheckEarly turns on the check of a transaction's axioms when it is
// placed; the tests turn it off to show that it only prunes.
var sqlCheckEarly = true

// CheckSQL reports whether SQL history h is consistent, each transaction
// at its own level (see the section "SQL histories" at the top of sql.go).
// It returns an error for histories with more than MaxSQLTxns committed,
// rolled-back and unknown transactions, levels other than sqlhistory.Levels, or a
// search longer than MaxSQLWork steps (ErrSQLTooBig).
func CheckSQL(h *sqlhistory.History) (bool, error) {
	var unknown []int
	n := 0
	for i := range h.Txns {
		t := &h.Txns[i]
		if !sqlhistory.ValidLevel(t.Level) {
			return false, fmt.Errorf("reference: transaction %s has level %v, not one of a SQL history's", h.TxnName(i), t.Level)
		}
		switch t.Status {
		case sqlhistory.Committed, sqlhistory.RolledBack:
			n++
		case sqlhistory.Unknown:
			n++
			unknown = append(unknown, i)
		case sqlhistory.Aborted:
		default:
			return false, fmt.Errorf("reference: transaction %s has invalid status %v", h.TxnName(i), t.Status)
		}
	}
	if n > MaxSQLTxns {
		return false, fmt.Errorf("reference: %d committed, rolled-back and unknown transactions, at most %d supported", n, MaxSQLTxns)
	}
	work := 0
	in := make([]bool, len(h.Txns))
	for mask := 0; mask < 1<<len(unknown); mask++ {
		for i := range h.Txns {
			in[i] = h.Txns[i].Status == sqlhistory.Committed || h.Txns[i].Status == sqlhistory.RolledBack
		}
		for j, i := range unknown {
			in[i] = mask&(1<<j) != 0
		}
		c, ok := newSQLInstance(h, in)
		if !ok {
			continue
		}
		c.work = work
		found := c.search()
		work = c.work
		if found {
			return true, nil
		}
		if c.exhausted {
			return false, fmt.Errorf("%w (more than %d steps)", ErrSQLTooBig, MaxSQLWork)
		}
	}
	return false, nil
}

// sqlItem is an external read (r, x): the node of its listed writer, or
// -1 if r does not list x and the witness chooses among cands.
type sqlItem struct {
	key   sqlhistory.KeyID
	fixed int
	cands []int // nodes, ascending
}

// sqlNode is a transaction of C (node 0 is init).
type sqlNode struct {
	txn   int
	level level.Level
	// reads lists, per read event in program order, its external reads.
	reads  [][]sqlItem
	nItems int
	// writes[x] is the node's final version of x; writes nothing for init
	// (which writes every key).
	writes map[sqlhistory.KeyID]sqlhistory.VersionID
	soPred uint32 // nodes before it in so
	fixed  uint32 // writers of its listed external reads
}

// sqlInstance is the search for one C.
type sqlInstance struct {
	h       *sqlhistory.History
	nodes   []sqlNode
	writers [][]int // per key, the nodes writing it, init first
	share   [][]bool

	// Search state.
	pos    []int   // position in co; -1 if not placed
	chosen [][]int // per node, the writer of each external read, flattened
	wrIn   []uint32
	causal []uint32
	work   int
	// exhausted is set when the search ran out of steps.
	exhausted bool
}

func satisfies(r *sqlhistory.Event, v *sqlhistory.Version) bool {
	return v.Row != nil && r.Where.Eval(v.Row)
}

// newSQLInstance builds the instance for C = {t | in[t]}; it reports false
// when some local or listed read of C is invalid, or some unlisted
// external read has no possible writer.
func newSQLInstance(h *sqlhistory.History, in []bool) (*sqlInstance, bool) {
	node := make([]int, len(h.Txns))
	c := &sqlInstance{h: h, nodes: []sqlNode{{txn: sqlhistory.Init}}}
	for i := range h.Txns {
		node[i] = -1
		if in[i] {
			node[i] = len(c.nodes)
			c.nodes = append(c.nodes, sqlNode{txn: i, level: h.Txns[i].Level})
		}
	}
	n := len(c.nodes)

	// Final versions; a rolled-back transaction has none.
	for v := 1; v < n; v++ {
		nd := &c.nodes[v]
		nd.writes = make(map[sqlhistory.KeyID]sqlhistory.VersionID)
		if h.Txns[nd.txn].Status == sqlhistory.RolledBack {
			continue
		}
		for _, e := range h.Txns[nd.txn].Events {
			for _, w := range e.Writes {
				nd.writes[h.Versions[w].Key] = w
			}
		}
	}
	c.writers = make([][]int, len(h.Keys))
	for x := range h.Keys {
		c.writers[x] = []int{0}
		for v := 1; v < n; v++ {
			if _, ok := c.nodes[v].writes[sqlhistory.KeyID(x)]; ok {
				c.writers[x] = append(c.writers[x], v)
			}
		}
	}
	// finalOf returns node w's final version of x, and for init its
	// initial version (ok false: †).
	finalOf := func(w int, x sqlhistory.KeyID) (sqlhistory.VersionID, bool) {
		if w == 0 {
			v, ok := h.Initial[x]
			return v, ok
		}
		v, ok := c.nodes[w].writes[x]
		return v, ok
	}

	// Reads.
	for v := 1; v < n; v++ {
		nd := &c.nodes[v]
		own := make(map[sqlhistory.KeyID]sqlhistory.VersionID) // last write so far
		for ei := range h.Txns[nd.txn].Events {
			e := &h.Txns[nd.txn].Events[ei]
			if e.Kind.Reads() {
				listed := make(map[sqlhistory.KeyID]sqlhistory.VersionID)
				for _, rv := range e.Reads {
					k := h.Versions[rv].Key
					if h.Keys[k].Table != e.Table {
						return nil, false
					}
					if _, dup := listed[k]; dup {
						return nil, false
					}
					listed[k] = rv
				}
				var items []sqlItem
				for _, x := range h.TableKeys[e.Table] {
					lv, isListed := listed[x]
					if ov, local := own[x]; local {
						if satisfies(e, &h.Versions[ov]) {
							if !isListed || lv != ov {
								return nil, false
							}
						} else if isListed {
							return nil, false
						}
						continue
					}
					if isListed {
						ver := &h.Versions[lv]
						w := -1
						switch {
						case ver.Writer == sqlhistory.Init:
							if iv, ok := h.Initial[x]; ok && iv == lv {
								w = 0
							}
						case ver.Writer >= 0 && node[ver.Writer] > 0:
							if fv, ok := finalOf(node[ver.Writer], x); ok && fv == lv {
								w = node[ver.Writer]
							}
						}
						if w < 0 || w == v || !satisfies(e, ver) {
							return nil, false
						}
						items = append(items, sqlItem{key: x, fixed: w})
						nd.fixed |= 1 << w
						continue
					}
					var cands []int
					for _, w := range c.writers[x] {
						if w == v {
							continue
						}
						fv, ok := finalOf(w, x)
						if !ok || !satisfies(e, &h.Versions[fv]) {
							cands = append(cands, w)
						}
					}
					if len(cands) == 0 {
						return nil, false
					}
					items = append(items, sqlItem{key: x, fixed: -1, cands: cands})
				}
				nd.reads = append(nd.reads, items)
				nd.nItems += len(items)
			}
			for _, w := range e.Writes {
				own[h.Versions[w].Key] = w
			}
		}
	}

	// so: init before all; each session's members of C in order.
	for v := 1; v < n; v++ {
		c.nodes[v].soPred |= 1
	}
	for _, txns := range h.Sessions {
		var chain []int
		for _, t := range txns {
			if node[t] > 0 {
				chain = append(chain, node[t])
			}
		}
		for i, a := range chain {
			for _, b := range chain[i+1:] {
				c.nodes[b].soPred |= 1 << a
			}
		}
	}
	// Writing a common key; init writes every key.
	c.share = newMatrix(n)
	for a := 0; a < n; a++ {
		for b := 0; b < n; b++ {
			switch {
			case a == 0 && b == 0:
				c.share[a][b] = len(h.Keys) > 0
			case a == 0:
				c.share[a][b] = len(c.nodes[b].writes) > 0
			case b == 0:
				c.share[a][b] = len(c.nodes[a].writes) > 0
			default:
				for x := range c.nodes[a].writes {
					if _, ok := c.nodes[b].writes[x]; ok {
						c.share[a][b] = true
						break
					}
				}
			}
		}
	}

	c.pos = make([]int, n)
	c.chosen = make([][]int, n)
	for v := range c.nodes {
		c.pos[v] = -1
		c.chosen[v] = make([]int, c.nodes[v].nItems)
	}
	c.wrIn = make([]uint32, n)
	c.causal = make([]uint32, n)
	return c, true
}

func has(set uint32, v int) bool { return set&(1<<v) != 0 }

// search reports whether some witness and co make C consistent.
func (c *sqlInstance) search() bool {
	c.pos[0] = 0
	return c.extend(1, 1)
}

func (c *sqlInstance) extend(placed uint32, k int) bool {
	if k == len(c.nodes) {
		return c.consistentExecution()
	}
	for v := 1; v < len(c.nodes); v++ {
		nd := &c.nodes[v]
		if has(placed, v) || (nd.soPred|nd.fixed)&^placed != 0 {
			continue
		}
		c.pos[v] = k
		if c.choose(v, placed, k, 0, 0) {
			return true
		}
		c.pos[v] = -1
		if c.exhausted {
			return false
		}
	}
	return false
}

// choose enumerates the writers of node v's external reads from the j-th
// (flattened index) on, among the placed nodes, then checks v's axioms
// and extends the order.
func (c *sqlInstance) choose(v int, placed uint32, k, j int, wrIn uint32) bool {
	nd := &c.nodes[v]
	if j == nd.nItems {
		c.work++
		if c.work > MaxSQLWork {
			c.exhausted = true
			return false
		}
		c.wrIn[v] = wrIn
		var causal uint32
		for p := 0; p < len(c.nodes); p++ {
			if has(nd.soPred|wrIn, p) {
				causal |= 1<<p | c.causal[p]
			}
		}
		c.causal[v] = causal
		if sqlCheckEarly && !c.holdsAt(v) {
			return false
		}
		return c.extend(placed|1<<v, k+1)
	}
	it := c.item(v, j)
	if it.fixed >= 0 {
		c.chosen[v][j] = it.fixed
		return c.choose(v, placed, k, j+1, wrIn|1<<it.fixed)
	}
	for _, w := range it.cands {
		if !has(placed, w) {
			continue
		}
		c.chosen[v][j] = w
		if c.choose(v, placed, k, j+1, wrIn|1<<w) {
			return true
		}
		if c.exhausted {
			return false
		}
	}
	return false
}

// item returns node v's j-th external read, flattened over its events.
func (c *sqlInstance) item(v, j int) *sqlItem {
	for _, items := range c.nodes[v].reads {
		if j < len(items) {
			return &items[j]
		}
		j -= len(items)
	}
	panic("reference: item out of range")
}

// before reports (a, b) ∈ co for the placed prefix (an unplaced node is
// after every placed one).
func (c *sqlInstance) before(a, b int) bool {
	switch {
	case c.pos[a] < 0:
		return false
	case c.pos[b] < 0:
		return true
	}
	return c.pos[a] < c.pos[b]
}

// holdsAt reports whether the axioms of node v's reads hold, with the
// incremental wrIn and causal of the placed nodes.
func (c *sqlInstance) holdsAt(v int) bool {
	nd := &c.nodes[v]
	direct := nd.soPred | c.wrIn[v]
	vis := func(t2 int, earlier uint32) bool {
		switch nd.level {
		case level.RC:
			return has(earlier, t2)
		case level.RA:
			return has(direct, t2)
		case level.CC:
			return has(c.causal[v], t2)
		case level.PC, level.SI:
			for t3 := range c.nodes {
				if has(direct, t3) && (t2 == t3 || c.before(t2, t3)) {
					return true
				}
			}
			if nd.level == level.SI {
				for t4 := range c.nodes {
					if t4 != v && (t2 == t4 || c.before(t2, t4)) && c.before(t4, v) && c.share[t4][v] {
						return true
					}
				}
			}
			return false
		case level.SER:
			return c.before(t2, v)
		}
		panic("reference: unknown level")
	}
	j := 0
	var earlier uint32 // writers read by the read events before this one
	for _, items := range nd.reads {
		for _, it := range items {
			t1 := c.chosen[v][j]
			for _, t2 := range c.writers[it.key] {
				if t2 != t1 && t2 != v && vis(t2, earlier) && !c.before(t2, t1) {
					return false
				}
			}
			j++
		}
		for j2 := j - len(items); j2 < j; j2++ {
			earlier |= 1 << c.chosen[v][j2]
		}
	}
	return true
}

// consistentExecution checks, literally and from scratch, that the
// complete co (c.pos) and witness (c.chosen) form a consistent execution:
// so ∪ wr ⊆ co and every axiom holds.
func (c *sqlInstance) consistentExecution() bool {
	n := len(c.nodes)
	co := func(a, b int) bool { return c.pos[a] < c.pos[b] }
	coStar := func(a, b int) bool { return a == b || co(a, b) }
	if c.pos[0] != 0 {
		return false
	}
	// so ∪ wr, transaction level, and its transitive closure.
	sowr := newMatrix(n)
	for v := 1; v < n; v++ {
		for p := 0; p < n; p++ {
			if has(c.nodes[v].soPred, p) {
				sowr[p][v] = true
			}
		}
		for _, w := range c.chosen[v] {
			sowr[w][v] = true
		}
	}
	plus := newMatrix(n)
	for a := range plus {
		copy(plus[a], sowr[a])
	}
	for m := 0; m < n; m++ {
		for a := 0; a < n; a++ {
			for b := 0; b < n; b++ {
				if plus[a][m] && plus[m][b] {
					plus[a][b] = true
				}
			}
		}
	}
	for a := 0; a < n; a++ {
		for b := 0; b < n; b++ {
			if sowr[a][b] && !co(a, b) {
				return false
			}
		}
	}
	for t := 1; t < n; t++ {
		nd := &c.nodes[t]
		j := 0
		for ri, items := range nd.reads {
			for _, it := range items {
				t1 := c.chosen[t][j]
				j++
				for t2 := 0; t2 < n; t2++ {
					if t2 == t1 || t2 == t || !c.writesKey(t2, it.key) {
						continue
					}
					var vis bool
					switch nd.level {
					case level.RC:
						vis = c.readsFromBefore(t, ri, t2)
					case level.RA:
						vis = sowr[t2][t]
					case level.CC:
						vis = plus[t2][t]
					case level.PC, level.SI:
						for t3 := 0; t3 < n; t3++ {
							if coStar(t2, t3) && sowr[t3][t] {
								vis = true
							}
						}
						if nd.level == level.SI {
							for t4 := 0; t4 < n; t4++ {
								if t4 != t && coStar(t2, t4) && co(t4, t) && c.share[t4][t] {
									vis = true
								}
							}
						}
					case level.SER:
						vis = co(t2, t)
					}
					if vis && !co(t2, t1) {
						return false
					}
				}
			}
		}
	}
	return true
}

// writesKey reports whether node w writes x (init writes every key).
func (c *sqlInstance) writesKey(w int, x sqlhistory.KeyID) bool {
	if w == 0 {
		return true
	}
	_, ok := c.nodes[w].writes[x]
	return ok
}

// readsFromBefore reports whether some read event of node t before its
// ri-th read event reads some key from t2.
func (c *sqlInstance) readsFromBefore(t, ri, t2 int) bool {
	j := 0
	for _, items := range c.nodes[t].reads[:ri] {
		for range items {
			if c.chosen[t][j] == t2 {
				return true
			}
			j++
		}
	}
	return false
}
