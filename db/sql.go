package db

import (
	"context"

	"github.com/isocheck/isocheck/level"
)

// SQLDatabase is an open relational database on which SQL client programs
// (package sqlrun) run transactions of SQL statements, each transaction at
// its own isolation level. It is the relational counterpart of Database:
// an adapter (db/sqlite's OpenSQL, db/postgres's OpenSQL, or dial.OpenSQL
// by the DSN's scheme) hands out one connection per client session and
// begins transactions on it at the level asked for.
//
// Failures are classified as for Database: an error wrapped by Abort means
// the database refused the transaction (a serialization failure, a
// deadlock, a busy lock) and none of its writes took effect; any other
// error from Commit leaves the outcome unknown. Any other error from a
// statement means it failed for another reason (the connection was lost,
// or the statement is wrong); the transaction has not committed.
type SQLDatabase interface {
	// Dialect names the SQL dialect the statements must be written in:
	// "sqlite" or "postgres". It decides the column types of CREATE
	// TABLE; every statement isocheck's recorder sends (SELECT, INSERT
	// ... ON CONFLICT DO UPDATE, UPDATE and DELETE with RETURNING, with
	// literals inlined) is the same in both.
	Dialect() string
	// Conn opens the connection of client session i.
	Conn(ctx context.Context, session int) (SQLConn, error)
	// Close releases the database; connections must be closed first.
	Close() error
}

// SQLConn is one session's connection. It runs one transaction at a time
// and is used by one goroutine.
type SQLConn interface {
	// Begin starts a transaction at isolation level l (SER, SI or RC).
	// An adapter that has no such level runs it at a stronger one: SQLite
	// runs every transaction serializably. Level reports what it ran.
	Begin(ctx context.Context, l level.Level) (SQLTxn, error)
	// Level returns the level a transaction begun at l actually runs at.
	Level(l level.Level) level.Level
	// Close closes the connection, rolling back a transaction in
	// progress. A connection whose commit got no answer is closed and
	// not used again.
	Close() error
}

// SQLTxn is a transaction in progress. After an error from Query the
// caller calls Rollback (which may fail harmlessly) and abandons the
// transaction.
type SQLTxn interface {
	// Query runs one statement (a SELECT, or a write with RETURNING, or
	// any other statement, which returns no rows) and returns every row
	// it returned.
	Query(ctx context.Context, query string) (*SQLRows, error)
	// Commit commits the transaction.
	Commit(ctx context.Context) error
	// Rollback abandons the transaction.
	Rollback(ctx context.Context) error
}

// SQLRows are the rows a statement returned. Values are the driver's Go
// values: nil for NULL, int64 (or a smaller integer), float64, string,
// []byte or bool.
type SQLRows struct {
	Columns []string
	Rows    [][]any
}
