// Package db is the one interface between isocheck's runner and a database.
//
// Each database is an adapter in a subpackage (db/sqlite, db/postgres,
// db/mysql, db/etcd, db/sim) that opens a store of integer keys at an
// isolation level named in the database's own words, hands out one Session
// per client, and runs transactions of reads and writes (or appends and
// whole-list reads) on it. The runner (package run) drives sessions
// concurrently and records what each saw; it never speaks a database's
// protocol itself.
//
// Adapters classify every failure: an error wrapped by Abort means the
// database refused the transaction and none of its writes took effect
// (a serialization failure, a deadlock victim, a failed compare); any other
// error means the outcome is unknown (the connection dropped, or a timeout
// fired before the answer), so the transaction's writes may have taken
// effect.
package db

import (
	"context"
	"errors"
	"fmt"

	"github.com/isocheck/isocheck/history"
)

// Config says what store to open.
type Config struct {
	// DSN is the data source name, with the adapter's scheme
	// (sqlite://PATH, postgres://..., mysql://..., etcd://..., sim://...).
	DSN string
	// Level is the isolation level in the database's own words
	// (read-committed, repeatable-read, serializable, snapshot, ...); empty
	// means the database's default. An adapter refuses a level it does not
	// provide rather than running at another.
	Level string
	// Keys is the number of keys, 0 to Keys-1, the workload uses;
	// adapters refuse other keys with an error.
	Keys int
	// Lists says the workload appends to lists and reads whole lists
	// (Append and ReadList) instead of writing and reading registers.
	Lists bool
	// Table names the table (or key prefix) the adapter uses; empty means
	// "isocheck", or "isocheck_lists" for lists (the two shapes differ, and
	// adapters refuse a table of the other shape). Open empties it: it
	// must hold no data the user wants.
	Table string
}

// TableName returns c.Table or its default.
func (c Config) TableName() string {
	switch {
	case c.Table != "":
		return c.Table
	case c.Lists:
		return "isocheck_lists"
	}
	return "isocheck"
}

// Database is an open store. It is safe for concurrent use by the sessions
// it opened.
type Database interface {
	// Level returns the isolation level the database runs transactions at,
	// in its own words (the default filled in).
	Level() string
	// Session opens the connection of client session i. Adapters of
	// clusters spread sessions over the nodes.
	Session(ctx context.Context, i int) (Session, error)
	// Close releases the database; sessions must be closed first.
	Close() error
}

// Session is one client's connection. It runs one transaction at a time
// and is used by one goroutine.
type Session interface {
	// Begin starts a transaction at the database's level.
	Begin(ctx context.Context) (Txn, error)
	// Close closes the connection, rolling back a transaction in progress
	// (the runner closes a session whose commit got no answer). A closed
	// session's connection is never handed to another session.
	Close() error
}

// Txn is a transaction in progress. After an error from any method but
// Rollback the runner calls Rollback (which may fail harmlessly) and
// abandons the transaction. Read and Write apply to registers, Append and
// ReadList to lists (Config.Lists); adapters refuse the other kind with an
// error.
type Txn interface {
	// Read returns the key's value; ok is false when the key holds no
	// value (it was never written).
	Read(ctx context.Context, key int64) (value int64, ok bool, err error)
	// Write sets the key's value.
	Write(ctx context.Context, key, value int64) error
	// Append appends value to the key's list.
	Append(ctx context.Context, key, value int64) error
	// ReadList returns the key's whole list (empty if never appended to).
	ReadList(ctx context.Context, key int64) ([]int64, error)
	// Commit commits the transaction.
	Commit(ctx context.Context) error
	// Rollback abandons the transaction.
	Rollback(ctx context.Context) error
}

// AbortError is a database's refusal of a transaction: none of its writes
// took effect.
type AbortError struct {
	// Reason is a short name of the cause, used to count aborts by reason
	// ("serialization failure", "deadlock", "conflict", ...).
	Reason string
	Err    error
}

func (e *AbortError) Error() string {
	if e.Err == nil {
		return "aborted: " + e.Reason
	}
	return fmt.Sprintf("aborted (%s): %v", e.Reason, e.Err)
}

func (e *AbortError) Unwrap() error { return e.Err }

// Abort wraps err as a refusal of the transaction for the given reason.
func Abort(reason string, err error) error { return &AbortError{Reason: reason, Err: err} }

// Classify returns the outcome of a transaction whose operation or commit
// failed with err (nil: committed), and the abort reason if it aborted:
// history.Committed, history.Aborted (the database refused it, with an
// AbortError) or history.Unknown (no answer came: its writes may have
// taken effect).
func Classify(err error) (history.Status, string) {
	if err == nil {
		return history.Committed, ""
	}
	var a *AbortError
	if errors.As(err, &a) {
		return history.Aborted, a.Reason
	}
	return history.Unknown, ""
}

// UnsupportedLevelError is returned by Open for a level the database does
// not provide.
type UnsupportedLevelError struct {
	Database  string
	Level     string
	Supported []string
}

func (e *UnsupportedLevelError) Error() string {
	return fmt.Sprintf("%s does not provide isolation level %q (it provides %v)", e.Database, e.Level, e.Supported)
}
