// Package history is isocheck's data model: transactions grouped in
// sessions, each a list of reads and writes of interned keys and values.
//
// A History is built by a Builder (the format readers use one) and is
// read-only afterwards. Keys are dense integers 0..NumKeys-1; values are
// 64-bit integers whose meaning (a number, an interned string, null) is kept
// by the History for printing only: the checker compares them, nothing more.
package history

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Status says how a transaction ended.
type Status uint8

const (
	// Committed transactions took effect.
	Committed Status = iota
	// Aborted transactions are those the database refused (a
	// serialization failure, a deadlock): nothing may read their writes,
	// and their reads, which may have seen a state the database was
	// about to refuse, are not checked.
	Aborted
	// Unknown transactions may or may not have committed (the client lost
	// the answer). A read of one of their writes proves it committed.
	Unknown
	// RolledBack transactions are those the application rolled back on
	// its own. Their writes did not take effect (nothing may read them),
	// but their reads were served by the database like any other: they
	// are checked, and the transaction keeps its place in its session's
	// order. These are the aborted transactions of Bouajjani, Enea and
	// Román-Calvo ("Dynamic Partial Order Reduction for Checking
	// Correctness against Transaction Isolation Levels", PLDI 2023,
	// §2.2.1), whose axioms range over every transaction, an aborted one
	// only having no writes; a transaction the database aborted is, as
	// there, left out (Aborted).
	RolledBack
)

// statusNames are the statuses' names in the input formats, by Status.
var statusNames = [...]string{Committed: "committed", Aborted: "aborted", Unknown: "unknown", RolledBack: "rolled-back"}

func (s Status) String() string {
	if int(s) < len(statusNames) {
		return statusNames[s]
	}
	return fmt.Sprintf("Status(%d)", uint8(s))
}

// ParseStatus returns the status named name, as String writes it.
func ParseStatus(name string) (Status, bool) {
	for s, n := range statusNames {
		if n == name {
			return Status(s), true
		}
	}
	return 0, false
}

// StatusNames lists the names of the statuses, for messages: "committed,
// aborted, unknown or rolled-back".
func StatusNames() string {
	return strings.Join(statusNames[:len(statusNames)-1], ", ") + " or " + statusNames[len(statusNames)-1]
}

// OpKind is a read or a write.
type OpKind uint8

const (
	// Read returned Value for Key.
	Read OpKind = iota
	// Write wrote Value to Key.
	Write
)

func (k OpKind) String() string {
	if k == Write {
		return "w"
	}
	return "r"
}

// Key is an interned key: an index into History.KeyNames.
type Key int32

// Value is a value read or written. Integers strictly between -StringBase
// and StringBase are stored as they are; strings are interned (see
// History.FormatValue), and so are, by the format readers, integers
// outside that range, named by their decimal form, so that no integer
// collides with an interned string or with Null. Null is the value of a
// key nobody has written yet in formats that say so.
type Value int64

// Null is the value a read returns when it saw no write, in formats that
// distinguish it from every written value.
const Null Value = math.MinInt64

// Op is one read or write. It is 16 bytes: histories of 15M operations must
// fit in memory comfortably.
type Op struct {
	Kind  OpKind
	Key   Key
	Value Value
}

func (o Op) String() string { return fmt.Sprintf("%s(%d,%d)", o.Kind, o.Key, o.Value) }

// NoTime marks a transaction without a start or end time.
const NoTime = math.MinInt64

// Txn is one transaction. Its operations are History.Ops[OpStart:OpEnd], in
// program order.
type Txn struct {
	ID      string // the user's name for it, for reports
	Session int32  // index into History.Sessions
	Status  Status
	OpStart int32
	OpEnd   int32
	Start   int64 // NoTime when not recorded
	End     int64 // NoTime when not recorded
	File    int32 // index into History.Files
	Pos     int64 // line (text formats) or byte offset (binary formats) in File
}

// HasTime reports whether both ends of the transaction's real-time interval
// were recorded.
func (t *Txn) HasTime() bool { return t.Start != NoTime && t.End != NoTime }

// History is a recorded execution.
type History struct {
	Txns []Txn
	Ops  []Op
	// Sessions lists, per session, the indices of its transactions in session
	// order.
	Sessions     [][]int32
	SessionNames []string
	KeyNames     []string
	// Init is the value the implicit initial transaction writes to every key:
	// Null for the native format, 0 for dbcop, PolySI text and Cobra.
	Init Value
	// Files are the input files, for positions in messages.
	Files []string
	// PosIsOffset says Txn.Pos is a byte offset, not a line number.
	PosIsOffset bool
	// ValueNames maps interned string values back to their text: a value
	// v >= StringBase is ValueNames[v-StringBase].
	ValueNames []string

	// Lists says the keys hold lists, as in Elle's list-append workload:
	// every write appends its Value to its key's list, and a read returns
	// the whole list (see ListOf). A list read's Op.Value is the list's
	// last element, the value of the write whose version it saw, or Init
	// for an empty list: to the checker it is a read of that version, and
	// the list adds what it shows of the order the writes were installed
	// in. The Kind of an append is Write.
	Lists bool
	// ListReads holds the lists the reads returned, in operation order
	// (empty lists are not stored: they are reads of Init).
	ListReads []ListRead
	// Orders are version orders the input states outright (beside those
	// list reads reveal), at most one per key.
	Orders []VersionOrder
	// Faults are the events of the nemesis that faulted the database
	// while the history was recorded (Jepsen's :nemesis operations), in
	// input order: reports show them beside the transactions. The check
	// does not read them.
	Faults []Fault
}

// Fault is an event of a nemesis: a fault injected or healed.
type Fault struct {
	// Time is when it happened, on the transactions' clock (Txn.Start
	// and End), or NoTime.
	Time int64
	// What says what happened, in the nemesis's words: "partition 0-2
	// 1-2", "heal", "node 1 kill", or Jepsen's :f and :value.
	What string
	// Pos is its place in the input, as Txn.Pos.
	Pos int64
}

// ListRead is the list a read returned.
type ListRead struct {
	Op     int32   // index in History.Ops
	Values []Value // the elements, first appended first; never empty
}

// VersionOrder is the order in which the writes of a key were installed,
// as far as the input knows it: Values are the values written to Key,
// starting with the first write installed after the initial state, each
// installed right after the one before it; every other write of Key was
// installed after all of them. A list read of [1 2 3] says exactly this
// of 1, 2 and 3.
type VersionOrder struct {
	Key    Key
	Values []Value
}

// ListOf returns the list read by operation op of a list history: its
// elements, first appended first, or nil for an empty list or an
// operation that is not a list read.
func (h *History) ListOf(op int32) []Value {
	i, ok := slices.BinarySearchFunc(h.ListReads, op, func(r ListRead, op int32) int { return cmp.Compare(r.Op, op) })
	if !ok {
		return nil
	}
	return h.ListReads[i].Values
}

// StringBase is the first Value used for interned strings. Integer values
// must stay strictly between -StringBase and StringBase.
const StringBase Value = 1 << 62

// NumKeys is the number of distinct keys.
func (h *History) NumKeys() int { return len(h.KeyNames) }

// StatusCounts counts the transactions of each status.
func (h *History) StatusCounts() map[Status]int {
	counts := map[Status]int{}
	for i := range h.Txns {
		counts[h.Txns[i].Status]++
	}
	return counts
}

// OpsOf returns the operations of transaction t, in program order.
func (h *History) OpsOf(t int) []Op {
	tx := &h.Txns[t]
	return h.Ops[tx.OpStart:tx.OpEnd]
}

// Where returns "file:line" or "file@offset" for transaction t.
func (h *History) Where(t int) string {
	tx := &h.Txns[t]
	file := "<input>"
	if int(tx.File) < len(h.Files) {
		file = h.Files[tx.File]
	}
	if h.PosIsOffset {
		return fmt.Sprintf("%s@%d", file, tx.Pos)
	}
	return fmt.Sprintf("%s:%d", file, tx.Pos)
}

// Name returns the user's id of transaction t, or "T<index>" when it has none.
func (h *History) Name(t int) string {
	if id := h.Txns[t].ID; id != "" {
		return id
	}
	return "T" + strconv.Itoa(t)
}

// FormatKey returns the key's name as the input wrote it.
func (h *History) FormatKey(k Key) string {
	if int(k) >= 0 && int(k) < len(h.KeyNames) {
		return h.KeyNames[k]
	}
	return fmt.Sprintf("key#%d", k)
}

// FormatValue returns the value as the input wrote it.
func (h *History) FormatValue(v Value) string {
	if v == Null {
		return "null"
	}
	if v >= StringBase && int(v-StringBase) < len(h.ValueNames) {
		return strconv.Quote(h.ValueNames[v-StringBase])
	}
	return strconv.FormatInt(int64(v), 10)
}

// SessionName returns the user's name of session s.
func (h *History) SessionName(s int) string {
	if s >= 0 && s < len(h.SessionNames) {
		return h.SessionNames[s]
	}
	return strconv.Itoa(s)
}

// WithoutSessionOrder returns h with every transaction in a session of its
// own, sharing h's operations: checking it checks the level without
// session order (Elle's serializable and snapshot-isolation, rather than
// their strong-session variants). Session s's i-th transaction is in
// session "s/i".
func (h *History) WithoutSessionOrder() *History {
	c := *h
	c.Txns = slices.Clone(h.Txns)
	c.Sessions = make([][]int32, len(h.Txns))
	c.SessionNames = make([]string, len(h.Txns))
	for s, sess := range h.Sessions {
		for i, t := range sess {
			c.Sessions[t] = []int32{t}
			c.SessionNames[t] = h.SessionName(s) + "/" + strconv.Itoa(i)
			c.Txns[t].Session = t
		}
	}
	return &c
}
