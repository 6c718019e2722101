package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/isocheck/isocheck/db"
	isolevel "github.com/isocheck/isocheck/level"
)

// sqlLevels are the statements that begin a transaction at each level:
// PostgreSQL's REPEATABLE READ is snapshot isolation.
var sqlLevels = map[isolevel.Level]string{
	isolevel.SER: "BEGIN ISOLATION LEVEL SERIALIZABLE",
	isolevel.SI:  "BEGIN ISOLATION LEVEL REPEATABLE READ",
	isolevel.RC:  "BEGIN ISOLATION LEVEL READ COMMITTED",
}

// sqlDatabase is a PostgreSQL database opened for SQL client programs.
type sqlDatabase struct {
	config *pgx.ConnConfig
}

// OpenSQL opens the PostgreSQL database dsn names for SQL client programs
// (db.SQLDatabase): transactions begin at SERIALIZABLE (SER), REPEATABLE
// READ (SI) or READ COMMITTED (RC). It checks that the server runs each
// level as asked (CockroachDB, for one, may not).
func OpenSQL(ctx context.Context, dsn string) (db.SQLDatabase, error) {
	config, err := parseDSN(dsn)
	if err != nil {
		return nil, err
	}
	d := &sqlDatabase{config: config}
	conn, err := d.connect(ctx, "isocheck setup")
	if err != nil {
		return nil, err
	}
	defer conn.Close(context.Background())
	for _, lv := range levels {
		kv := &database{level: lv, begin: "BEGIN ISOLATION LEVEL " + lv.sql}
		if err := kv.checkLevel(ctx, conn); err != nil {
			return nil, err
		}
	}
	return d, nil
}

func (d *sqlDatabase) connect(ctx context.Context, name string) (*pgx.Conn, error) {
	return (&database{config: d.config}).connect(ctx, name)
}

func (d *sqlDatabase) Dialect() string { return "postgres" }

func (d *sqlDatabase) Conn(ctx context.Context, i int) (db.SQLConn, error) {
	conn, err := d.connect(ctx, fmt.Sprintf("isocheck sql session %d", i))
	if err != nil {
		return nil, err
	}
	return &sqlConn{conn: conn}, nil
}

// Close does nothing: the connections are the sessions'.
func (d *sqlDatabase) Close() error { return nil }

type sqlConn struct {
	conn *pgx.Conn
}

func (c *sqlConn) Level(l isolevel.Level) isolevel.Level { return l }

func (c *sqlConn) Begin(ctx context.Context, l isolevel.Level) (db.SQLTxn, error) {
	begin, ok := sqlLevels[l]
	if !ok {
		return nil, fmt.Errorf("postgres: no transactions at level %v (want SER, SI or RC)", l)
	}
	if c.conn.IsClosed() {
		return nil, errors.New("postgres: the connection is closed")
	}
	if c.conn.PgConn().TxStatus() != 'I' {
		if _, err := c.conn.Exec(ctx, "ROLLBACK"); err != nil {
			return nil, fmt.Errorf("postgres: roll back the session's last transaction: %w", err)
		}
	}
	if _, err := c.conn.Exec(ctx, begin); err != nil {
		return nil, classify(begin, err)
	}
	return &sqlTxn{conn: c.conn}, nil
}

func (c *sqlConn) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return c.conn.Close(ctx)
}

type sqlTxn struct {
	conn *pgx.Conn
	done bool
}

// Query runs the statement with the simple protocol: its literals are
// inlined, and every statement differs, so preparing it would not pay.
func (t *sqlTxn) Query(ctx context.Context, query string) (*db.SQLRows, error) {
	if t.done {
		return nil, errDone
	}
	rows, err := t.conn.Query(ctx, query, pgx.QueryExecModeSimpleProtocol)
	if err != nil {
		t.done = true
		return nil, classify("query", err)
	}
	defer rows.Close()
	out := &db.SQLRows{}
	for _, f := range rows.FieldDescriptions() {
		out.Columns = append(out.Columns, f.Name)
	}
	for rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			t.done = true
			return nil, classify("query", err)
		}
		out.Rows = append(out.Rows, vals)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		t.done = true
		return nil, classify("query", err)
	}
	return out, nil
}

func (t *sqlTxn) Commit(ctx context.Context) error {
	if t.done {
		return errDone
	}
	t.done = true
	tag, err := t.conn.Exec(ctx, "COMMIT")
	if err != nil {
		return classify("commit", err)
	}
	if tag.String() == "ROLLBACK" {
		return db.Abort("rolled back", errors.New("postgres: commit: the server rolled the transaction back"))
	}
	return nil
}

func (t *sqlTxn) Rollback(ctx context.Context) error {
	t.done = true
	if t.conn.IsClosed() {
		return nil
	}
	if _, err := t.conn.Exec(ctx, "ROLLBACK"); err != nil {
		return fmt.Errorf("postgres: rollback: %w", err)
	}
	return nil
}
