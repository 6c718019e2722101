package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"os"

	"github.com/isocheck/isocheck/db"
	"github.com/isocheck/isocheck/level"
)

// sqlDatabase is an SQLite database opened for SQL client programs.
type sqlDatabase struct {
	db      *sql.DB
	opts    options
	tempDir string
}

// OpenSQL opens the SQLite database dsn names (sqlite://PATH or
// sqlite::memory:, with the parameters of Open) for SQL client programs
// (db.SQLDatabase), in WAL mode with the DSN's busy timeout.
//
// Every transaction runs serializably, whatever level it asks for: it
// begins as the DSN says (BEGIN DEFERRED by default, or BEGIN IMMEDIATE
// with begin=immediate) and reads one snapshot; a deferred transaction
// that wants to write after another committed since its snapshot, or while
// another holds the write lock, fails with SQLITE_BUSY, an abort. With
// begin=immediate, transactions take turns and abort only when the write
// lock is not free within the busy timeout.
func OpenSQL(ctx context.Context, dsn string) (db.SQLDatabase, error) {
	o, err := parseDSN(dsn)
	if err != nil {
		return nil, err
	}
	d := &sqlDatabase{opts: o}
	if d.db, d.tempDir, _, err = openPool(ctx, o); err != nil {
		return nil, err
	}
	return d, nil
}

func (d *sqlDatabase) Dialect() string { return "sqlite" }

func (d *sqlDatabase) Conn(ctx context.Context, i int) (db.SQLConn, error) {
	c, err := d.db.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("sqlite: session %d: %w", i, err)
	}
	return &sqlConn{d: d, s: session{conn: c}}, nil
}

func (d *sqlDatabase) Close() error {
	var err error
	if d.db != nil {
		err = d.db.Close()
	}
	if d.tempDir != "" {
		if rerr := os.RemoveAll(d.tempDir); err == nil {
			err = rerr
		}
		d.tempDir = ""
	}
	if err != nil {
		return fmt.Errorf("sqlite: close: %w", err)
	}
	return nil
}

// sqlConn is a session's connection; s holds it and the rollback logic of
// the key-value sessions.
type sqlConn struct {
	d *sqlDatabase
	s session
}

// Level is SER for every level: SQLite runs every transaction serializably.
func (c *sqlConn) Level(level.Level) level.Level { return level.SER }

func (c *sqlConn) Begin(ctx context.Context, l level.Level) (db.SQLTxn, error) {
	switch l {
	case level.SER, level.SI, level.RC:
	default:
		return nil, fmt.Errorf("sqlite: no transactions at level %v (want SER, SI or RC)", l)
	}
	if _, err := c.s.conn.ExecContext(ctx, c.d.opts.begin); err != nil {
		c.s.rollback()
		return nil, classify(ctx, "begin", err)
	}
	return &sqlTxn{c: c, t: txn{s: &c.s}}, nil
}

func (c *sqlConn) Close() error {
	if !c.s.rollback() {
		c.s.conn.Raw(func(any) error { return driver.ErrBadConn })
	}
	if err := c.s.conn.Close(); err != nil {
		return fmt.Errorf("sqlite: close session: %w", err)
	}
	return nil
}

// sqlTxn is a transaction; t is the key-value transaction, whose Commit and
// Rollback it shares.
type sqlTxn struct {
	c *sqlConn
	t txn
}

func (t *sqlTxn) Query(ctx context.Context, query string) (*db.SQLRows, error) {
	rows, err := t.c.s.conn.QueryContext(ctx, query)
	if err != nil {
		return nil, classify(ctx, "query", err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, classify(ctx, "query", err)
	}
	out := &db.SQLRows{Columns: cols}
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, classify(ctx, "query", err)
		}
		out.Rows = append(out.Rows, vals)
	}
	if err := rows.Err(); err != nil {
		return nil, classify(ctx, "query", err)
	}
	if err := rows.Close(); err != nil {
		return nil, classify(ctx, "query", err)
	}
	return out, nil
}

func (t *sqlTxn) Commit(ctx context.Context) error { return t.t.Commit(ctx) }

func (t *sqlTxn) Rollback(ctx context.Context) error { return t.t.Rollback(ctx) }
