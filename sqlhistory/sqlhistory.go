// Package sqlhistory is the data model of SQL histories of Bouajjani, Enea
// and Román-Calvo, "On the Complexity of Checking Mixed Isolation Levels
// for SQL Transactions" (CAV 2025), §2: transactions of SELECT, INSERT,
// UPDATE and DELETE events over tables of rows with a primary key, each
// transaction with its own isolation level.
//
// Every row version a transaction writes has a unique name (the write id a
// recorder stores in the row), so a read names the versions it returned.
// A history is a client history in the paper's sense: a read names the
// versions of the rows its predicate selected and nothing about the others,
// whose versions the checker (package mixed) must infer.
//
// A History is assembled by a Builder (the format reader uses one) and is
// read-only afterwards.
package sqlhistory

import (
	"fmt"

	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/predicate"
)

// Kind is the kind of an event.
type Kind uint8

const (
	// Select returns the rows of Table that satisfy Where.
	Select Kind = iota + 1
	// Insert writes rows, inserting or replacing them (INSERT ... ON
	// CONFLICT DO UPDATE); it reads nothing.
	Insert
	// Update replaces the rows of Table that satisfy Where; it reads them
	// (Reads) and writes their new versions (Writes, in the same order).
	Update
	// Delete removes the rows of Table that satisfy Where; it reads them
	// (Reads) and writes a deletion of each (Writes, in the same order).
	Delete
)

var kindNames = [...]string{Select: "select", Insert: "insert", Update: "update", Delete: "delete"}

func (k Kind) String() string {
	if int(k) < len(kindNames) && kindNames[k] != "" {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// ParseKind reads a kind name as String writes it.
func ParseKind(s string) (Kind, bool) {
	for k, n := range kindNames {
		if n != "" && n == s {
			return Kind(k), true
		}
	}
	return 0, false
}

// Reads reports whether events of kind k evaluate a predicate over the
// table (the read events of Bouajjani et al., CAV 2025).
func (k Kind) Reads() bool { return k == Select || k == Update || k == Delete }

// Status says how a transaction ended: the key-value model's. An Unknown
// transaction is taken as committed if another transaction read a version
// it wrote, and as either otherwise. A RolledBack one (the application
// rolled it back) has its reads checked and keeps its place in its
// session, but wrote nothing anyone may read; an Aborted one (the
// database refused it) is left out.
type Status = history.Status

// The statuses.
const (
	Committed  = history.Committed
	Aborted    = history.Aborted
	Unknown    = history.Unknown
	RolledBack = history.RolledBack
)

// KeyID is a dense index into History.Keys.
type KeyID int32

// RowKey is the identity of a row: its table and its primary key, in
// canonical text.
type RowKey struct {
	Table, Key string
}

func (k RowKey) String() string { return k.Table + "/" + k.Key }

// VersionID is a dense index into History.Versions.
type VersionID int32

// Writers of versions that no transaction of the history wrote.
const (
	// Init is the writer of the initial versions (the transaction init of
	// Bouajjani et al., CAV 2025). Rows not given an initial version are
	// absent initially.
	Init = -1
	// Unwritten is the writer of a version that a read named but nobody
	// wrote: a read from thin air.
	Unwritten = -2
)

// Version is one version of a row.
type Version struct {
	// Name is the version's name as recorded (its write id).
	Name string
	Key  KeyID
	// Writer is the index of the transaction that wrote it, Init or
	// Unwritten; Event is the index of the event in the writer.
	Writer, Event int
	// Row is the row's content; nil for a deletion (the † of
	// Bouajjani et al., CAV 2025: no predicate holds on it). For an
	// Unwritten version it is what the first read of it returned, if the
	// recorder said.
	Row predicate.Row
}

// Deleted reports whether v is a deletion.
func (v *Version) Deleted() bool { return v.Row == nil }

// Event is one SQL statement of a transaction.
type Event struct {
	Kind  Kind
	Table string
	// Where is the predicate of a Select, Update or Delete; nil selects
	// every row of the table.
	Where *predicate.Expr
	// Reads are the versions a Select returned, or that an Update or a
	// Delete matched.
	Reads []VersionID
	// Writes are the versions an event wrote: inserted rows, new versions
	// of updated rows, deletions. For Update and Delete, Writes[i] is the
	// new version of Reads[i]'s row.
	Writes []VersionID
	// Text is the statement as the client sent it, if recorded, for
	// reports only.
	Text string
	// Was, on an Insert that WithoutReads made of an Update or a Delete
	// whose read a counterexample leaves out (a blind write of the
	// versions it wrote), is that event as the history recorded it, for
	// reports.
	Was *Event
}

// Txn is one transaction.
type Txn struct {
	// Name is the user's name for it.
	Name    string
	Session int
	Level   level.Level
	Status  Status
	Events  []Event
	// Line is the transaction's line in the input, 0 if unknown.
	Line int
}

// History is a recorded run of SQL transactions.
type History struct {
	Txns []Txn
	// Sessions lists, per session, its transactions in session order;
	// SessionNames are the sessions' names in the input.
	Sessions     [][]int
	SessionNames []string
	Keys         []RowKey
	// TableKeys lists, per table, the keys of its rows that appear in the
	// history.
	TableKeys map[string][]KeyID
	Versions  []Version
	// Initial maps a key to its initial version; a key without one is
	// absent initially.
	Initial map[KeyID]VersionID
	// File names the input, for messages.
	File string
}

// Levels are the isolation levels a transaction of a SQL history may have:
// those the axioms of Bouajjani et al. (CAV 2025) define (§3) plus CC,
// whose visibility relation, (so ∪ wr)+, is of the same saturable kind as
// RA's.
func Levels() []level.Level {
	return []level.Level{level.SER, level.SI, level.PC, level.CC, level.RA, level.RC}
}

// ValidLevel reports whether l is one of Levels.
func ValidLevel(l level.Level) bool {
	for _, m := range Levels() {
		if l == m {
			return true
		}
	}
	return false
}

// SessionName returns the input's name of session s.
func (h *History) SessionName(s int) string {
	if s < len(h.SessionNames) {
		return h.SessionNames[s]
	}
	return fmt.Sprint(s)
}

// TxnName returns the name of transaction i for reports ("init" for Init).
func (h *History) TxnName(i int) string {
	switch i {
	case Init:
		return "init"
	case Unwritten:
		return "nobody"
	}
	if t := &h.Txns[i]; t.Name != "" {
		return t.Name
	}
	return fmt.Sprintf("T%d", i)
}

// VersionString describes version v for reports: "stock/42@v17 {qty: 5}".
func (h *History) VersionString(v VersionID) string {
	ver := &h.Versions[v]
	s := h.Keys[ver.Key].String() + "@" + ver.Name
	if ver.Row == nil {
		if ver.Writer == Unwritten {
			return s
		}
		return s + " (deleted)"
	}
	return s + " " + RowString(ver.Row)
}

// Subset returns the history of the transactions marked in keep, and the
// index in h of each of its transactions. Versions keep their names; a
// version whose writer is dropped becomes Unwritten. Sessions keep their
// indices (some may be empty).
func (h *History) Subset(keep []bool) (*History, []int) {
	sub := &History{Keys: h.Keys, TableKeys: h.TableKeys, Initial: h.Initial, File: h.File, SessionNames: h.SessionNames,
		Sessions: make([][]int, len(h.Sessions)), Versions: make([]Version, len(h.Versions))}
	newIndex := make([]int, len(h.Txns))
	var orig []int
	for i := range h.Txns {
		newIndex[i] = -1
		if keep[i] {
			newIndex[i] = len(sub.Txns)
			orig = append(orig, i)
			sub.Txns = append(sub.Txns, h.Txns[i])
			s := h.Txns[i].Session
			sub.Sessions[s] = append(sub.Sessions[s], newIndex[i])
		}
	}
	copy(sub.Versions, h.Versions)
	for i := range sub.Versions {
		if w := sub.Versions[i].Writer; w >= 0 {
			if newIndex[w] < 0 {
				sub.Versions[i].Writer = Unwritten
			} else {
				sub.Versions[i].Writer = newIndex[w]
			}
		}
	}
	return sub, orig
}
