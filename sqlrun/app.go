// Package sqlrun runs SQL client programs concurrently against a database
// and records the SQL history (package sqlhistory) they produce, each
// transaction at its own isolation level, as in the experiments of
// Bouajjani, Enea and Román-Calvo, "On the Complexity of Checking Mixed
// Isolation Levels for SQL Transactions" (CAV 2025), §6.
//
// An App declares its tables, their initial rows and a generator of
// transactions; a transaction is a Go function over a recording handle,
// Tx, whose Select, Insert, Update and Delete send one SQL statement each,
// built from a predicate's canonical text, and record what it read and
// wrote. To know which version of a row each statement read, every table
// has two hidden columns: wid, the unique name of the row's version,
// which every write sets, and prev, the name of the version it replaced.
// Queries return whole rows, UPDATE returns the new rows with the old
// versions' names (SET ..., wid = new, prev = wid ... RETURNING *) and
// DELETE returns the deleted rows (RETURNING *), as the paper records
// histories of BenchBase's applications on PostgreSQL.
//
// Run opens one connection per session, runs the sessions concurrently,
// each transaction at the level the LevelMix gives it, and returns the
// history: the initial rows, then the transactions in the order they
// ended.
//
// The subpackages tpcc and twitter are Apps, the applications of the
// paper's experiments; sqlruntest helps test an App.
package sqlrun

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/predicate"
)

// Type is the type of a column.
type Type uint8

// The column types. Values of a column are predicate Values of the kind
// its type names; NULL is allowed in any column but the key's.
const (
	Int   Type = iota + 1 // 64-bit integer
	Float                 // 64-bit floating point
	Text                  // string
)

// Column is a column of a table.
type Column struct {
	Name string
	Type Type
}

// Table is a table an App uses.
type Table struct {
	Name    string
	Columns []Column
	// Key lists the primary key's columns, in order.
	Key []string
}

// The hidden columns every table has.
const (
	// WID is the name of the row's version: "init:TABLE:KEY" for the
	// initial rows, "S.T.N/KEY" for the version written by the N-th
	// statement of session S's T-th transaction.
	WID = "wid"
	// Prev is the name of the version the row's version replaced (NULL
	// for an insert).
	Prev = "prev"
)

// Txn is a transaction of a client program.
type Txn struct {
	// Name is the transaction's kind ("NewOrder"); the history names
	// each transaction "Name-S.T" after its session and index.
	Name string
	// Important says the transaction runs at the strong level of a mix such
	// as "ser+rc" (Bouajjani et al., CAV 2025, §6: TPC-C's NewOrder and
	// Payment, Twitter's InsertTweet).
	Important bool
	// Run runs the transaction's statements on tx. It returns the first
	// error of tx's methods, or ErrAbort after tx.Abort.
	Run func(tx *Tx) error
}

// App is an SQL client program: its schema, its initial data and its
// transactions.
type App interface {
	// Name names the application ("tpcc", "twitter").
	Name() string
	// Tables declares the tables.
	Tables() []Table
	// Load returns the initial rows, by table. rng is seeded by the run.
	Load(rng *rand.Rand) map[string][]predicate.Row
	// Next returns a random transaction. Run calls it from one session's
	// goroutine at a time: a session has an rng of its own, and calls of
	// different sessions may be concurrent.
	Next(rng *rand.Rand) Txn
}

// LevelMix says which isolation level each transaction runs at.
type LevelMix struct {
	// Important and Other are the levels of the important transactions
	// and of the others; Random, if set, overrides them: each
	// transaction runs at a random one of SER, SI and RC.
	Important, Other level.Level
	Random           bool
}

// ParseLevelMix reads a level mix: "ser", "si" or "rc" (every transaction
// at that level), "ser+rc" or "si+rc" (the important transactions at SER or
// SI, the others at RC, as in the experiments of Bouajjani et al.,
// CAV 2025), or "random".
func ParseLevelMix(s string) (LevelMix, error) {
	one := map[string]level.Level{"ser": level.SER, "si": level.SI, "rc": level.RC}
	t := strings.ToLower(strings.TrimSpace(s))
	if t == "random" {
		return LevelMix{Important: level.SER, Other: level.RC, Random: true}, nil
	}
	if l, ok := one[t]; ok {
		return LevelMix{Important: l, Other: l}, nil
	}
	if a, b, ok := strings.Cut(t, "+"); ok {
		la, oka := one[a]
		lb, okb := one[b]
		if oka && okb {
			return LevelMix{Important: la, Other: lb}, nil
		}
	}
	return LevelMix{}, fmt.Errorf("sqlrun: level mix %q: want ser, si, rc, ser+rc, si+rc or random", s)
}

// String returns the mix as ParseLevelMix reads it.
func (m LevelMix) String() string {
	switch {
	case m.Random:
		return "random"
	case m.Important == m.Other:
		return strings.ToLower(m.Important.String())
	}
	return strings.ToLower(m.Important.String()) + "+" + strings.ToLower(m.Other.String())
}

// Levels lists the levels transactions of the mix may run at.
func (m LevelMix) Levels() []level.Level {
	switch {
	case m.Random:
		return []level.Level{level.SER, level.SI, level.RC}
	case m.Important == m.Other:
		return []level.Level{m.Important}
	}
	return []level.Level{m.Important, m.Other}
}

// Level picks the level of a transaction.
func (m LevelMix) Level(important bool, rng *rand.Rand) level.Level {
	switch {
	case m.Random:
		return []level.Level{level.SER, level.SI, level.RC}[rng.IntN(3)]
	case important:
		return m.Important
	}
	return m.Other
}

func (m LevelMix) valid() error {
	if m.Important == 0 && m.Other == 0 && !m.Random {
		return fmt.Errorf("sqlrun: no level mix")
	}
	for _, l := range m.Levels() {
		if l != level.SER && l != level.SI && l != level.RC {
			return fmt.Errorf("sqlrun: level mix %v: level %v is not SER, SI or RC", m, l)
		}
	}
	return nil
}
