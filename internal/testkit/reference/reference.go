// Package reference is the brute-force reference checker: the slow,
// obviously correct oracle the real checker is tested against. It decides
// the isolation levels of Biswas and Enea, "On the Complexity of Checking
// Transactional Consistency" (OOPSLA 2019), Figure 2, literally, by
// enumerating the possible commit orders of a history (and, where values
// repeat, the possible writers of its reads), so it only accepts small
// histories (at most MaxTxns transactions that committed or may have
// committed).
//
// The definitions it implements are the project's:
//
//   - An implicit initial transaction T0 writes h.Init to every key and
//     precedes every other transaction in session order and commit order.
//   - Aborted transactions (the database refused them) are ignored: their
//     writes are invisible and their reads unchecked.
//   - Rolled-back transactions (the application rolled them back) are
//     transactions of C whose writes are invisible: they write nothing,
//     as aborted transactions do in Bouajjani, Enea and Román-Calvo,
//     "Dynamic Partial Order Reduction for Checking Correctness against
//     Transaction Isolation Levels" (PLDI 2023), §2.2.1; their reads, so
//     and real time count as those of any transaction of C.
//   - Unknown transactions may or may not have committed: h satisfies an
//     axiom set iff, for some subset S of them, C = committed ∪
//     rolled-back ∪ S does.
//   - For a fixed C, in each transaction of C, in program order, a read of
//     x after the transaction's own write of x (an internal read) must
//     return its last preceding own write of x. Any other read (an
//     external read) of x returning v reads from one writer of v: T0 if v
//     is h.Init, or any transaction of C other than the reader whose final
//     write of x (its last write of x; a rolled-back transaction has none)
//     is v. Values may repeat, and h.Init may be written, so an external
//     read may have several writers; each external read chooses one on its
//     own, a transaction's repeated reads of a key included. A choice of a
//     writer for every external read of C is a relation wr; a C in which
//     an internal read is wrong, or an external read has no writer (thin
//     air, an intermediate write, a write of an aborted or excluded
//     transaction or of the reader itself), has none. With unique values
//     and no write of h.Init, every external read has at most one writer,
//     and a C at most one wr.
//   - C ∪ {T0} then satisfies the axioms iff, for some wr of C, some strict
//     total order co, T0 first, contains so and wr (and, with real time,
//     the real-time order of transactions that both have times), satisfies
//     every chosen axiom of Figure 2 and, for lists and stated version
//     orders, the conditions below.
//
// Lists (h.Lists, Elle's list-append): every write appends its value to
// its key's list and every read returns the whole list (h.ListOf); the
// read's Op.Value is the list's last element, or h.Init for an empty list,
// and the rules above apply to it unchanged: an external read reads from
// the writer of its last element (T0 for an empty list), which must be
// that writer's last append to the key, and an internal read's last element
// must be the transaction's own last append. A list history must not
// repeat a value of a key, nor append h.Init (CheckAxioms rejects it), so
// an element names its writer. A writer's appends to x, in program order,
// are its block of x; T0's blocks are empty. The list of x after writer w
// is the concatenation, in co order, of the blocks of x of the writers of
// x in C ∪ {T0} co-before-or-equal w. Then, for each transaction of C:
//
//   - an external read of x whose last element was written by w (T0 for
//     an empty list) returns exactly the list of x after w;
//   - an internal read of x returns exactly the concatenation of the
//     blocks of x of the writers co-before the reading transaction,
//     followed by the reader's own appends to x before the read.
//
// So a list with an element nobody in C appended (thin air, an aborted
// or excluded transaction's), a duplicate element, a writer's block cut,
// reordered or interleaved with another's, or two lists of a key neither
// a prefix of the other, is explained by no co.
//
// Stated version orders (h.Orders) constrain co the same way. A stated
// order V of x says the first writers of x in co contribute exactly V: the
// concatenation of their blocks of x, in co order, over the first k
// writers of x in C (T0 aside), is V for some k. A writer's block is its
// appends for a list history and its final write of x otherwise (only
// final writes are installed versions), so a stated order that names an
// intermediate write, splits a block, or names a value nobody in C wrote
// is explained by no co. A stated order must not name a value of its key
// that two transactions write, aborted ones included (CheckAxioms rejects
// it); other values may repeat.
package reference

import (
	"fmt"
	"slices"
	"strings"

	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/level"
)

// MaxTxns is the largest number of committed and unknown transactions
// (rolled-back ones included) Check and CheckAxioms accept.
const MaxTxns = 9

// Axioms is a set of axioms of Biswas and Enea (OOPSLA 2019), Figure 2.
// Every axiom has the shape
//
//	t1 ≠ t2 ∧ ⟨t1, α⟩ ∈ wr_x ∧ t2 writes x ∧ φ(t2, α) ⇒ ⟨t2, t1⟩ ∈ co
//
// where α is an external read of x in transaction t3 and t1, t2 range over
// C ∪ {T0}; the axioms differ in φ.
type Axioms uint8

const (
	// AxRC is Read Committed: φ = some read β before α in t3's program
	// order reads from t2 (⟨t2, β⟩ ∈ wr ∧ ⟨β, α⟩ ∈ po).
	AxRC Axioms = 1 << iota
	// AxRA is Read Atomic: φ = ⟨t2, t3⟩ ∈ wr ∪ so.
	AxRA
	// AxCC is Causal: φ = ⟨t2, t3⟩ ∈ (wr ∪ so)⁺.
	AxCC
	// AxPrefix is Prefix: φ = ⟨t2, t3⟩ ∈ co* ; (wr ∪ so).
	AxPrefix
	// AxConflict is Conflict: φ = ∃ t4, y. ⟨t2, t4⟩ ∈ co* ∧ ⟨t4, t3⟩ ∈ co ∧
	// t3 writes y ∧ t4 writes y.
	AxConflict
	// AxSer is Serializability: φ = ⟨t2, t3⟩ ∈ co.
	AxSer
)

// The axiom sets of the levels.
const (
	RC  = AxRC
	RA  = AxRA
	CC  = AxCC
	PC  = AxPrefix
	SI  = AxPrefix | AxConflict
	SER = AxSer
)

var axiomNames = []string{"RC", "RA", "CC", "Prefix", "Conflict", "Ser"}

func (a Axioms) String() string {
	if a == 0 {
		return "none"
	}
	var parts []string
	for i, n := range axiomNames {
		if a&(1<<i) != 0 {
			parts = append(parts, n)
		}
	}
	if rest := a &^ (1<<len(axiomNames) - 1); rest != 0 {
		parts = append(parts, fmt.Sprintf("%#x", uint8(rest)))
	}
	return strings.Join(parts, "|")
}

// LevelAxioms returns the axioms of level l and whether it also requires
// the commit order to respect real time: SER is AxSer, SI is
// AxPrefix|AxConflict, SSER is AxSer with real time, PC is AxPrefix, CC
// AxCC, RA AxRA and RC AxRC.
func LevelAxioms(l level.Level) (ax Axioms, realTime bool, err error) {
	switch l {
	case level.SER:
		return SER, false, nil
	case level.SI:
		return SI, false, nil
	case level.SSER:
		return SER, true, nil
	case level.PC:
		return PC, false, nil
	case level.CC:
		return CC, false, nil
	case level.RA:
		return RA, false, nil
	case level.RC:
		return RC, false, nil
	}
	return 0, false, fmt.Errorf("reference: unsupported level %v", l)
}

// Check reports whether h satisfies l, by brute force. It returns an error
// for histories with more than MaxTxns committed, rolled-back and unknown
// transactions, for list histories with duplicate appends (the same value
// appended twice to the same key by any transactions, aborted ones
// included, or an append of h.Init), for histories whose stated version
// orders name a value of their key that two transactions write (aborted
// ones included), and for levels it does not know. Other histories may
// repeat values and write h.Init.
func Check(h *history.History, l level.Level) (bool, error) {
	ax, rt, err := LevelAxioms(l)
	if err != nil {
		return false, err
	}
	return CheckAxioms(h, ax, rt)
}

// CheckAxioms reports whether h satisfies the conjunction of axioms, with
// the commit order also respecting real time if realTime is set: for
// transactions T and S of C that both have times, T.End < S.Start puts T
// before S. The empty set of axioms only asks that every read be valid and
// so ∪ wr (∪ real time) be acyclic, for some wr. Errors are those of Check.
func CheckAxioms(h *history.History, axioms Axioms, realTime bool) (bool, error) {
	if err := validate(h); err != nil {
		return false, err
	}
	return anyCommitSet(h, func(in []bool) bool {
		c, ok := newInstance(h, in, axioms, realTime)
		return ok && c.search()
	}), nil
}

// anyCommitSet reports whether f holds for some set of transactions taken
// as committed or rolled back: those that are and any subset of the
// unknown ones. in marks the set; f must not keep it.
func anyCommitSet(h *history.History, f func(in []bool) bool) bool {
	var unknown []int
	for t := range h.Txns {
		if h.Txns[t].Status == history.Unknown {
			unknown = append(unknown, t)
		}
	}
	in := make([]bool, len(h.Txns))
	for mask := 0; mask < 1<<len(unknown); mask++ {
		for t := range h.Txns {
			in[t] = h.Txns[t].Status == history.Committed || h.Txns[t].Status == history.RolledBack
		}
		for i, t := range unknown {
			in[t] = mask&(1<<i) != 0
		}
		if f(in) {
			return true
		}
	}
	return false
}

// validate checks the preconditions of CheckAxioms.
func validate(h *history.History) error {
	n := 0
	for t := range h.Txns {
		tx := &h.Txns[t]
		switch tx.Status {
		case history.Committed, history.Unknown, history.RolledBack:
			n++
		case history.Aborted:
		default:
			return fmt.Errorf("reference: transaction %s has invalid status %v", h.Name(t), tx.Status)
		}
		if tx.Session < 0 || int(tx.Session) >= len(h.Sessions) {
			return fmt.Errorf("reference: transaction %s has invalid session %d", h.Name(t), tx.Session)
		}
		if tx.OpStart < 0 || tx.OpStart > tx.OpEnd || int(tx.OpEnd) > len(h.Ops) {
			return fmt.Errorf("reference: transaction %s has invalid operations [%d,%d)", h.Name(t), tx.OpStart, tx.OpEnd)
		}
	}
	if n > MaxTxns {
		return fmt.Errorf("reference: %d committed, rolled-back and unknown transactions, at most %d supported", n, MaxTxns)
	}
	seen := 0
	for s, txns := range h.Sessions {
		for _, t := range txns {
			if t < 0 || int(t) >= len(h.Txns) || int(h.Txns[t].Session) != s {
				return fmt.Errorf("reference: session %s lists transaction %d, which is not in it", h.SessionName(s), t)
			}
			seen++
		}
	}
	if seen != len(h.Txns) {
		return fmt.Errorf("reference: sessions list %d transactions, history has %d", seen, len(h.Txns))
	}
	type kv struct {
		k history.Key
		v history.Value
	}
	// In a list history every append must name its writer; so must every
	// value a stated order names.
	named := make(map[kv]bool)
	for _, o := range h.Orders {
		if o.Key < 0 || int(o.Key) >= h.NumKeys() {
			return fmt.Errorf("reference: a stated version order of unknown key %d", o.Key)
		}
		for _, v := range o.Values {
			named[kv{o.Key, v}] = true
		}
	}
	writer := make(map[kv]int)
	for t := range h.Txns {
		for _, op := range h.OpsOf(t) {
			if op.Key < 0 || int(op.Key) >= h.NumKeys() {
				return fmt.Errorf("reference: transaction %s uses unknown key %d", h.Name(t), op.Key)
			}
			switch op.Kind {
			case history.Read:
			case history.Write:
				if h.Lists && op.Value == h.Init {
					return fmt.Errorf("reference: list history: transaction %s appends the initial value %s to %s",
						h.Name(t), h.FormatValue(op.Value), h.FormatKey(op.Key))
				}
				if !h.Lists && !named[kv{op.Key, op.Value}] {
					continue
				}
				w, dup := writer[kv{op.Key, op.Value}]
				switch {
				case dup && h.Lists:
					return fmt.Errorf("reference: list history: value %s appended twice to %s (by %s and %s)",
						h.FormatValue(op.Value), h.FormatKey(op.Key), h.Name(w), h.Name(t))
				case dup && w != t:
					return fmt.Errorf("reference: a stated version order of %s names value %s, which %s and %s both write",
						h.FormatKey(op.Key), h.FormatValue(op.Value), h.Name(w), h.Name(t))
				}
				writer[kv{op.Key, op.Value}] = t
			default:
				return fmt.Errorf("reference: transaction %s has an operation of invalid kind %d", h.Name(t), op.Kind)
			}
		}
	}
	if h.Lists {
		for t := range h.Txns {
			tx := &h.Txns[t]
			for i := tx.OpStart; i < tx.OpEnd; i++ {
				op := h.Ops[i]
				if op.Kind != history.Read {
					continue
				}
				if l := h.ListOf(i); len(l) > 0 && l[len(l)-1] != op.Value || len(l) == 0 && op.Value != h.Init {
					return fmt.Errorf("reference: transaction %s reads %s=%s, which is not the last element of its list %v",
						h.Name(t), h.FormatKey(op.Key), h.FormatValue(op.Value), l)
				}
			}
		}
	}
	return nil
}

// extRead is an external read: its key, its index in h.Ops, the nodes it
// may read from (its candidate writers, in ascending order; shared, not to
// be modified) and the one chosen, its writer.
type extRead struct {
	key    history.Key
	op     int32
	from   []int
	writer int
}

// instance is the problem for one choice C of committed transactions.
// Node 0 is T0; nodes 1..n-1 are the transactions of C in history order.
type instance struct {
	h     *history.History
	ax    Axioms
	n     int
	reads [][]extRead // per node, its external reads in program order
	// multi says some external read has several candidates. Its writer
	// is then chosen when its transaction is placed (see search), and
	// pred, wrso and causal hold only what every choice has in common
	// until then; otherwise every writer is known, and so are they.
	multi bool
	// writers[x] lists the nodes writing x (T0 first), for keys written in
	// C; T0 alone writes the other keys.
	writers map[history.Key][]int
	soSucc  []uint16 // the nodes a node precedes in so (T0 precedes all)
	soPred  []uint16 // the nodes that precede a node in so ∪ rt, and T0
	pred    []uint16 // nodes that must precede a node: so ∪ wr ∪ rt, and T0
	wrso    [][]bool // ⟨a, b⟩ ∈ wr ∪ so, transaction level
	causal  [][]bool // ⟨a, b⟩ ∈ (wr ∪ so)⁺
	share   [][]bool // a and b write a common key

	// Lists and stated orders (see the package comment).
	block    []map[history.Key][]history.Value // per node, its block of each key it writes
	fromRead [][]listRead                      // per node w, the external list reads whose last element w wrote
	intRead  [][]listRead                      // per node, its internal list reads
	orders   []history.VersionOrder
	order    []int // the placed nodes, in co order, during search
}

// listRead is a list read, checked when a node is placed.
type listRead struct {
	key  history.Key
	list []history.Value
	own  []history.Value // internal reads: the reader's appends to key before the read
}

// newInstance builds the instance for C = {t | in[t]}. It reports false
// when some read of C is invalid for this C, whatever the writers chosen
// (see the package comment): an internal read that does not return the
// transaction's own last write, or an external read with no candidate
// writer.
func newInstance(h *history.History, in []bool, ax Axioms, realTime bool) (*instance, bool) {
	node := make([]int, len(h.Txns))
	txnOf := []int{-1}
	for t := range h.Txns {
		node[t] = -1
		if in[t] {
			node[t] = len(txnOf)
			txnOf = append(txnOf, t)
		}
	}
	n := len(txnOf)
	c := &instance{
		h:        h,
		ax:       ax,
		n:        n,
		reads:    make([][]extRead, n),
		writers:  make(map[history.Key][]int),
		soSucc:   make([]uint16, n),
		soPred:   make([]uint16, n),
		pred:     make([]uint16, n),
		wrso:     newMatrix(n),
		causal:   newMatrix(n),
		share:    newMatrix(n),
		block:    make([]map[history.Key][]history.Value, n),
		fromRead: make([][]listRead, n),
		intRead:  make([][]listRead, n),
		orders:   h.Orders,
	}

	// Final writes of the transactions of C, and the keys each writes: a
	// rolled-back transaction writes none. final is, per key and value,
	// the first node whose final write of the key it is; repeated lists
	// them all, in ascending order, where there are several.
	type kv struct {
		k history.Key
		v history.Value
	}
	final := make(map[kv]int)
	var repeated map[kv][]int
	writes := make([]map[history.Key]bool, n)
	for v := 1; v < n; v++ {
		writes[v] = make(map[history.Key]bool)
		c.block[v] = make(map[history.Key][]history.Value)
		if h.Txns[txnOf[v]].Status == history.RolledBack {
			continue
		}
		last := make(map[history.Key]history.Value)
		for _, op := range h.OpsOf(txnOf[v]) {
			if op.Kind == history.Write {
				last[op.Key] = op.Value
				writes[v][op.Key] = true
			}
		}
		for k, val := range last {
			w, dup := final[kv{k, val}]
			switch {
			case !dup:
				final[kv{k, val}] = v
			case repeated == nil:
				repeated = map[kv][]int{{k, val}: {w, v}}
			case repeated[kv{k, val}] == nil:
				repeated[kv{k, val}] = []int{w, v}
			default:
				repeated[kv{k, val}] = append(repeated[kv{k, val}], v)
			}
		}
		// A block is a writer's appends to a key, or its final write.
		for _, op := range h.OpsOf(txnOf[v]) {
			if op.Kind != history.Write {
				continue
			}
			if h.Lists {
				c.block[v][op.Key] = append(c.block[v][op.Key], op.Value)
			} else if c.block[v][op.Key] == nil {
				c.block[v][op.Key] = []history.Value{last[op.Key]}
			}
		}
	}
	for v := 1; v < n; v++ {
		for k := range writes[v] {
			if c.writers[k] == nil {
				c.writers[k] = []int{0}
			}
			c.writers[k] = append(c.writers[k], v)
		}
	}
	for _, ws := range c.writers {
		sortInts(ws)
	}

	// Reads: internal ones checked here, external ones get their
	// candidate writers (the first one chosen for now). List reads are
	// also kept to be checked against co as it is built.
	nodes := make([]int, n) // nodes[v:v+1] lists v alone
	for v := range nodes {
		nodes[v] = v
	}
	for v := 1; v < n; v++ {
		own := make(map[history.Key]history.Value)
		appended := make(map[history.Key][]history.Value)
		tx := &h.Txns[txnOf[v]]
		for i := tx.OpStart; i < tx.OpEnd; i++ {
			op := h.Ops[i]
			if op.Kind == history.Write {
				own[op.Key] = op.Value
				appended[op.Key] = append(appended[op.Key], op.Value)
				continue
			}
			if val, ok := own[op.Key]; ok {
				if op.Value != val {
					return nil, false
				}
				if h.Lists {
					c.intRead[v] = append(c.intRead[v], listRead{op.Key, h.ListOf(i), slices.Clone(appended[op.Key])})
				}
				continue
			}
			var list []history.Value
			if h.Lists {
				list = h.ListOf(i)
			}
			var from []int
			if ws, ok := repeated[kv{op.Key, op.Value}]; ok {
				from = ws
			} else if w, ok := final[kv{op.Key, op.Value}]; ok {
				from = nodes[w : w+1 : w+1]
			}
			if j := slices.Index(from, v); j >= 0 {
				from = slices.Delete(slices.Clone(from), j, j+1) // not from itself
			}
			// T0 wrote h.Init, and a nonempty list must end with an append.
			if op.Value == h.Init && len(list) == 0 {
				if len(from) == 0 {
					from = nodes[0:1:1]
				} else {
					from = append([]int{0}, from...)
				}
			}
			switch len(from) {
			case 0:
				return nil, false
			case 1:
			default:
				c.multi = true
			}
			c.reads[v] = append(c.reads[v], extRead{op.Key, i, from, from[0]})
		}
	}

	// so: T0 precedes everything; then each session's members of C in
	// order. With real time, rt joins it in soPred.
	for v := 1; v < n; v++ {
		c.soSucc[0] |= 1 << v
	}
	for _, txns := range h.Sessions {
		var chain []int
		for _, t := range txns {
			if node[t] >= 0 {
				chain = append(chain, node[t])
			}
		}
		for i, a := range chain {
			for _, b := range chain[i+1:] {
				c.soSucc[a] |= 1 << b
			}
		}
	}
	for a := 0; a < n; a++ {
		for b := 0; b < n; b++ {
			if c.soSucc[a]&(1<<b) != 0 {
				c.soPred[b] |= 1 << a
			}
		}
	}
	if realTime {
		for a := 1; a < n; a++ {
			ta := &h.Txns[txnOf[a]]
			for b := 1; b < n; b++ {
				tb := &h.Txns[txnOf[b]]
				if ta.HasTime() && tb.HasTime() && ta.End < tb.Start {
					c.soPred[b] |= 1 << a
				}
			}
		}
	}
	// Write sharing; T0 writes every key.
	for a := 0; a < n; a++ {
		for b := 0; b < n; b++ {
			switch {
			case a == 0 && b == 0:
				c.share[a][b] = true
			case a == 0:
				c.share[a][b] = len(writes[b]) > 0
			case b == 0:
				c.share[a][b] = len(writes[a]) > 0
			default:
				for k := range writes[a] {
					if writes[b][k] {
						c.share[a][b] = true
						break
					}
				}
			}
		}
	}

	if !c.multi {
		c.fix()
		return c, true
	}
	// Only the writers of the reads with one candidate are known.
	copy(c.pred, c.soPred)
	for v, rs := range c.reads {
		for _, r := range rs {
			if len(r.from) == 1 {
				c.pred[v] |= 1 << r.writer
			}
		}
	}
	return c, true
}

// fix takes the writers in c.reads as the choice of wr, once and for all,
// and derives pred, wrso, causal and fromRead from it: c is then the
// instance of that choice, searched with no more choice to make.
func (c *instance) fix() {
	n := c.n
	c.multi = false
	copy(c.pred, c.soPred)
	for a := 0; a < n; a++ {
		for b := 0; b < n; b++ {
			c.wrso[a][b] = c.soSucc[a]&(1<<b) != 0
		}
		c.fromRead[a] = c.fromRead[a][:0]
	}
	for v, rs := range c.reads {
		for _, r := range rs {
			c.wrso[r.writer][v] = true
			c.pred[v] |= 1 << r.writer
			if c.h.Lists && r.writer != 0 {
				c.fromRead[r.writer] = append(c.fromRead[r.writer], listRead{key: r.key, list: c.h.ListOf(r.op)})
			}
		}
	}
	// Transitive closure of wr ∪ so (Floyd–Warshall).
	for a := 0; a < n; a++ {
		copy(c.causal[a], c.wrso[a])
	}
	for m := 0; m < n; m++ {
		for a := 0; a < n; a++ {
			if !c.causal[a][m] {
				continue
			}
			for b := 0; b < n; b++ {
				if c.causal[m][b] {
					c.causal[a][b] = true
				}
			}
		}
	}
}

func newMatrix(n int) [][]bool {
	m := make([][]bool, n)
	cells := make([]bool, n*n)
	for i := range m {
		m[i] = cells[i*n : (i+1)*n : (i+1)*n]
	}
	return m
}

func sortInts(s []int) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// search reports whether some commit order satisfies the axioms. It
// enumerates the linear extensions of pred depth first, T0 first, and
// checks the axiom instances whose read α is in t3 when t3 is placed.
//
// That check is exact, not a heuristic: in every axiom the premise puts
// t2 before t3 (φ implies ⟨t2, t3⟩ ∈ co, because so ∪ wr ⊆ co) and wr puts
// t1 before t3, and every co-term of φ relates t2, t3 or a t4 with
// ⟨t4, t3⟩ ∈ co to one another. When t3 is placed, the relative order of
// all placed nodes is final and every unplaced node comes after all of
// them, so evaluating co on the placed prefix (unplaced nodes after
// everything) gives the value the instance has in every completion. Each
// instance is therefore checked exactly once, with its final value, and a
// complete order reached by the search satisfies every instance.
//
// With several candidate writers for some read (c.multi), the search
// chooses wr as it goes: when t3 is placed, it tries every choice of a
// writer for each external read of t3 among its candidates already
// placed, which is the cartesian product of the choices restricted to
// those wr ⊆ co allows. That is exact too: the axiom instances of t3 and
// its list reads depend on wr only through t3's own reads (their writers,
// RC), the wr ∪ so edges into t3 (RA, Prefix) and the (wr ∪ so)⁺ paths
// into t3 (CC), all of whose nodes precede t3 in co and so were placed,
// with their writers chosen, before it. A complete order reached by the
// search, with the writers chosen along it, is a wr and a co satisfying
// every instance, and every such pair is reached.
func (c *instance) search() bool {
	pos := make([]int, c.n)
	for i := range pos {
		pos[i] = -1
	}
	pos[0] = 0
	c.order = append(c.order[:0], 0)
	return c.extend(1, 1, pos)
}

func (c *instance) extend(placed uint16, k int, pos []int) bool {
	if k == c.n {
		return c.ordersComplete()
	}
	for v := 1; v < c.n; v++ {
		if placed&(1<<v) != 0 || c.pred[v]&^placed != 0 {
			continue
		}
		pos[v] = k
		c.order = append(c.order, v)
		if c.multi {
			if c.choose(v, 0, placed, k, pos) {
				return true
			}
		} else if c.holdsAt(v, pos) && c.listsHoldAt(v) && c.extend(placed|1<<v, k+1, pos) {
			return true
		}
		c.order = c.order[:len(c.order)-1]
		pos[v] = -1
	}
	return false
}

// choose places v, just put k-th in co, with every choice of a placed
// writer for its external reads from the i-th on, and goes on with the
// search.
func (c *instance) choose(v, i int, placed uint16, k int, pos []int) bool {
	if i == len(c.reads[v]) {
		c.connect(v)
		return c.holdsAt(v, pos) && c.listsHoldAt(v) && c.extend(placed|1<<v, k+1, pos)
	}
	for _, w := range c.reads[v][i].from {
		if placed&(1<<w) == 0 {
			continue // wr ⊆ co
		}
		c.reads[v][i].writer = w
		if c.choose(v, i+1, placed, k, pos) {
			return true
		}
	}
	return false
}

// connect sets the wr ∪ so and (wr ∪ so)⁺ edges into v from so and the
// writers chosen for v's reads, given those into the nodes placed before
// v, the only nodes with edges into v.
func (c *instance) connect(v int) {
	for a := 0; a < c.n; a++ {
		c.wrso[a][v] = c.soSucc[a]&(1<<v) != 0
	}
	for _, r := range c.reads[v] {
		c.wrso[r.writer][v] = true
	}
	for a := 0; a < c.n; a++ {
		c.causal[a][v] = c.wrso[a][v]
	}
	for m := 0; m < c.n; m++ {
		if !c.wrso[m][v] {
			continue
		}
		for a := 0; a < c.n; a++ {
			if c.causal[a][m] {
				c.causal[a][v] = true
			}
		}
	}
}

// sequence returns the concatenation of the blocks of x of the first m
// placed nodes, in co order: the list of x after c.order[m-1].
func (c *instance) sequence(x history.Key, m int) []history.Value {
	var s []history.Value
	for _, u := range c.order[:m] {
		s = append(s, c.block[u][x]...)
	}
	return s
}

// listsHoldAt reports whether the list reads and stated orders that node
// v, just placed last in c.order, decides hold. Like the axioms, each is
// decided once, when the nodes it depends on are placed: the list of x
// after w depends only on the nodes placed up to w, an internal read of v
// on those before v, and whether the sequence of a key agrees with its
// stated order so far on the blocks placed so far (ordersComplete checks
// at the end that the order was covered).
func (c *instance) listsHoldAt(v int) bool {
	m := len(c.order)
	for _, r := range c.fromRead[v] {
		if !slices.Equal(c.sequence(r.key, m), r.list) {
			return false
		}
	}
	for _, r := range c.intRead[v] {
		if !slices.Equal(append(c.sequence(r.key, m-1), r.own...), r.list) {
			return false
		}
	}
	for _, o := range c.orders {
		if _, ok := c.block[v][o.Key]; !ok {
			continue
		}
		before := len(c.sequence(o.Key, m-1))
		if before >= len(o.Values) {
			continue // v comes after the stated ones
		}
		after := c.sequence(o.Key, m)
		if len(after) > len(o.Values) || !slices.Equal(after[before:], o.Values[before:len(after)]) {
			return false
		}
	}
	return true
}

// ordersComplete reports whether, with every node placed, each stated
// order is covered by the blocks of the first writers of its key.
func (c *instance) ordersComplete() bool {
	for _, o := range c.orders {
		if len(c.sequence(o.Key, len(c.order))) < len(o.Values) {
			return false
		}
	}
	return true
}

// before reports ⟨a, b⟩ ∈ co for the placed prefix described by pos
// (-1: not placed yet, so after every placed node).
func before(a, b int, pos []int) bool {
	switch {
	case pos[a] < 0:
		return false
	case pos[b] < 0:
		return true
	}
	return pos[a] < pos[b]
}

// holdsAt reports whether every axiom instance whose read α is in t3 holds.
func (c *instance) holdsAt(t3 int, pos []int) bool {
	for i, r := range c.reads[t3] {
		t1 := r.writer
		for _, t2 := range c.writersOf(r.key) {
			if t2 != t1 && c.premise(t2, t3, i, pos) && !before(t2, t1, pos) {
				return false
			}
		}
	}
	return true
}

// writersOf returns the nodes that write x: T0 and the writers in C.
func (c *instance) writersOf(x history.Key) []int {
	if ws, ok := c.writers[x]; ok {
		return ws
	}
	return []int{0}
}

// premise reports whether φ(t2, α) holds for some chosen axiom, α being
// the i-th external read of t3.
func (c *instance) premise(t2, t3, i int, pos []int) bool {
	coStar := func(a, b int) bool { return a == b || before(a, b, pos) }
	if c.ax&AxRC != 0 {
		for _, beta := range c.reads[t3][:i] {
			if beta.writer == t2 {
				return true
			}
		}
	}
	if c.ax&AxRA != 0 && c.wrso[t2][t3] {
		return true
	}
	if c.ax&AxCC != 0 && c.causal[t2][t3] {
		return true
	}
	if c.ax&AxPrefix != 0 {
		for t4 := 0; t4 < c.n; t4++ {
			if coStar(t2, t4) && c.wrso[t4][t3] {
				return true
			}
		}
	}
	if c.ax&AxConflict != 0 {
		for t4 := 0; t4 < c.n; t4++ {
			if coStar(t2, t4) && before(t4, t3, pos) && c.share[t4][t3] {
				return true
			}
		}
	}
	if c.ax&AxSer != 0 && before(t2, t3, pos) {
		return true
	}
	return false
}
