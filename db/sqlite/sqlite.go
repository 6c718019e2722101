// Package sqlite is the isocheck adapter of embedded SQLite databases, run
// through the pure-Go driver modernc.org/sqlite.
//
// A DSN names a database file, sqlite://PATH (relative, or absolute as in
// sqlite:///abs/path), or sqlite::memory: for a private database that lives
// as long as the Database. Query parameters:
//
//	busy_timeout=DURATION  how long a statement waits for a lock (default 5s)
//	begin=deferred|immediate  how transactions begin (default deferred)
//
// SQLite transactions are serializable: writers take turns on one lock and
// each transaction reads one snapshot. The adapter runs the database in WAL
// mode, where a deferred transaction that read an older snapshot than the
// latest commit cannot start writing (SQLITE_BUSY_SNAPSHOT): that and the
// other busy and locked errors are aborts. With begin=immediate every
// transaction takes the write lock at BEGIN, so transactions run one at a
// time and abort only when the lock is not free within the busy timeout.
// Either way a transaction reads one snapshot, taken at its first read
// (after BEGIN returned), and writes only while that snapshot is the
// latest, holding the write lock until it commits: no value it read can
// meet a conflicting commit, and histories are strict serializable.
package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/isocheck/isocheck/db"
)

// Scheme is the DSN scheme of SQLite databases.
const Scheme = "sqlite"

// Serializable is the one isolation level SQLite provides.
const Serializable = "serializable"

// DefaultBusyTimeout is how long a statement waits for a lock held by
// another connection before it fails with SQLITE_BUSY, unless the DSN's
// busy_timeout says otherwise.
const DefaultBusyTimeout = 5 * time.Second

// memory is the DSN path of a private database.
const memory = ":memory:"

// options are what a DSN says.
type options struct {
	path        string // file path, or memory
	busyTimeout time.Duration
	begin       string // "BEGIN DEFERRED" or "BEGIN IMMEDIATE"
}

// parseDSN reads sqlite://PATH[?params] and sqlite::memory:[?params].
func parseDSN(dsn string) (options, error) {
	o := options{busyTimeout: DefaultBusyTimeout, begin: "BEGIN DEFERRED"}
	prefix := Scheme + ":"
	if len(dsn) < len(prefix) || !strings.EqualFold(dsn[:len(prefix)], prefix) {
		return o, fmt.Errorf("sqlite: DSN %q does not start with %s://", dsn, Scheme)
	}
	rest, query, _ := strings.Cut(dsn[len(prefix):], "?")
	if p, ok := strings.CutPrefix(rest, "//"); ok {
		o.path = p
	} else if rest == memory {
		o.path = memory
	} else {
		return o, fmt.Errorf("sqlite: DSN %q: want sqlite://PATH, or sqlite::memory: for a database in memory", dsn)
	}
	if o.path == "" {
		return o, fmt.Errorf("sqlite: DSN %q names no file (want sqlite://PATH or sqlite::memory:)", dsn)
	}
	q, err := url.ParseQuery(query)
	if err != nil {
		return o, fmt.Errorf("sqlite: DSN %q: %w", dsn, err)
	}
	for k, vs := range q {
		v := vs[len(vs)-1]
		switch k {
		case "busy_timeout":
			d, err := time.ParseDuration(v)
			if err != nil || d < 0 {
				return o, fmt.Errorf("sqlite: DSN %q: busy_timeout %q is not a duration such as 5s", dsn, v)
			}
			o.busyTimeout = d
		case "begin":
			switch strings.ToLower(v) {
			case "deferred":
				o.begin = "BEGIN DEFERRED"
			case "immediate":
				o.begin = "BEGIN IMMEDIATE"
			default:
				return o, fmt.Errorf("sqlite: DSN %q: begin=%q, want deferred or immediate", dsn, v)
			}
		default:
			return o, fmt.Errorf("sqlite: DSN %q: unknown parameter %q (known: busy_timeout, begin)", dsn, k)
		}
	}
	return o, nil
}

// database is an open SQLite database.
type database struct {
	db      *sql.DB
	cfg     db.Config
	opts    options
	tempDir string // removed on Close; "" for a named file

	read, write, appendTo string // statements on the table
}

// Open opens the SQLite database cfg.DSN names at cfg.Level ("serializable"
// or empty), creates its table cfg.TableName() if missing and empties it.
// An existing table of another shape is refused.
func Open(ctx context.Context, cfg db.Config) (db.Database, error) {
	if cfg.Level != "" && cfg.Level != Serializable {
		return nil, &db.UnsupportedLevelError{Database: "sqlite", Level: cfg.Level, Supported: []string{Serializable}}
	}
	o, err := parseDSN(cfg.DSN)
	if err != nil {
		return nil, err
	}
	d := &database{cfg: cfg, opts: o}
	var path string
	if d.db, d.tempDir, path, err = openPool(ctx, o); err != nil {
		return nil, err
	}
	if err := d.setUp(ctx, path); err != nil {
		d.Close()
		return nil, err
	}
	return d, nil
}

// openPool opens the connection pool of o's database in WAL mode, and
// returns it with the temporary directory of a private database (to
// remove on close; empty otherwise) and the path it opened. The key-value
// and the SQL adapters share it.
func openPool(ctx context.Context, o options) (pool *sql.DB, tempDir, path string, err error) {
	path = o.path
	synchronous := "NORMAL"
	if path == memory {
		// A private database is a file in a temporary directory rather
		// than SQLite's in-memory database: connections share an
		// in-memory database only through the shared cache, whose
		// table-level locks (SQLITE_LOCKED) and read_uncommitted pragma
		// behave unlike a database file, and which cannot run in WAL
		// mode. A temporary file gives :memory: exactly the
		// concurrency of sqlite://PATH. Durability does not matter, so
		// it is not synced.
		tempDir, err = os.MkdirTemp("", "isocheck-sqlite-")
		if err != nil {
			return nil, "", "", fmt.Errorf("sqlite: private database: %w", err)
		}
		path = filepath.Join(tempDir, "db.sqlite")
		synchronous = "OFF"
	}
	fail := func(err error) (*sql.DB, string, string, error) {
		if pool != nil {
			pool.Close()
		}
		if tempDir != "" {
			os.RemoveAll(tempDir)
		}
		return nil, "", "", err
	}
	name := path
	if strings.HasPrefix(name, "file:") {
		// The driver would read the name as an SQLite URI.
		name = "./" + name
	}
	// Every connection the pool opens runs these pragmas, busy_timeout
	// first (the driver orders it so).
	name = fmt.Sprintf("%s?_pragma=busy_timeout(%d)&_pragma=journal_mode(WAL)&_pragma=synchronous(%s)",
		name, o.busyTimeout.Milliseconds(), synchronous)
	if pool, err = sql.Open("sqlite", name); err != nil {
		return fail(fmt.Errorf("sqlite: open %s: %w", path, err))
	}
	var mode string
	if err := pool.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil {
		return fail(fmt.Errorf("sqlite: open %s: %w", path, err))
	}
	if !strings.EqualFold(mode, "wal") {
		return fail(fmt.Errorf("sqlite: open %s: journal mode is %s, not WAL", path, mode))
	}
	return pool, tempDir, path, nil
}

// setUp creates, checks and empties the table.
func (d *database) setUp(ctx context.Context, path string) error {
	name := d.cfg.TableName()
	table := quote(name)
	typ := "INTEGER"
	if d.cfg.Lists {
		typ = "TEXT"
	}
	var kind string
	err := d.db.QueryRowContext(ctx,
		"SELECT type FROM sqlite_schema WHERE name = ? COLLATE NOCASE", name).Scan(&kind)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		create := fmt.Sprintf("CREATE TABLE %s (k INTEGER PRIMARY KEY, v %s)", table, typ)
		if _, err := d.db.ExecContext(ctx, create); err != nil {
			return fmt.Errorf("sqlite: %s: create table %s: %w", path, table, err)
		}
	case err != nil:
		return fmt.Errorf("sqlite: %s: look up table %s: %w", path, table, err)
	case kind != "table":
		return fmt.Errorf("sqlite: %s: %s is a %s, not a table", path, table, kind)
	default:
		if err := d.checkShape(ctx, path, typ); err != nil {
			return err
		}
	}
	if _, err := d.db.ExecContext(ctx, "DELETE FROM "+table); err != nil {
		return fmt.Errorf("sqlite: %s: empty table %s: %w", path, table, err)
	}

	d.read = fmt.Sprintf("SELECT v FROM %s WHERE k = ?", table)
	d.write = fmt.Sprintf("INSERT INTO %s (k, v) VALUES (?1, ?2) ON CONFLICT (k) DO UPDATE SET v = excluded.v", table)
	d.appendTo = fmt.Sprintf("INSERT INTO %s (k, v) VALUES (?1, ?2) ON CONFLICT (k) DO UPDATE SET v = "+
		"CASE WHEN v IS NULL OR v = '' THEN excluded.v ELSE v || ',' || excluded.v END", table)
	return nil
}

// checkShape refuses an existing table unless it is
// (k INTEGER PRIMARY KEY, v typ).
func (d *database) checkShape(ctx context.Context, path, typ string) error {
	rows, err := d.db.QueryContext(ctx, "SELECT name, type, pk FROM pragma_table_info(?)", d.cfg.TableName())
	if err != nil {
		return fmt.Errorf("sqlite: %s: columns of table %s: %w", path, quote(d.cfg.TableName()), err)
	}
	defer rows.Close()
	var have []string
	ok := true
	for rows.Next() {
		var name, ctype string
		var pk int
		if err := rows.Scan(&name, &ctype, &pk); err != nil {
			return fmt.Errorf("sqlite: %s: columns of table %s: %w", path, quote(d.cfg.TableName()), err)
		}
		col := name + " " + ctype
		if pk > 0 {
			col += " PRIMARY KEY"
		}
		have = append(have, col)
		switch i := len(have) - 1; {
		case i == 0:
			ok = ok && strings.EqualFold(name, "k") && strings.EqualFold(ctype, "INTEGER") && pk == 1
		case i == 1:
			ok = ok && strings.EqualFold(name, "v") && strings.EqualFold(ctype, typ) && pk == 0
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("sqlite: %s: columns of table %s: %w", path, quote(d.cfg.TableName()), err)
	}
	if ok && len(have) == 2 {
		return nil
	}
	what := "registers"
	if d.cfg.Lists {
		what = "lists"
	}
	return fmt.Errorf("sqlite: %s: table %s exists with columns (%s), want (k INTEGER PRIMARY KEY, v %s) for %s; drop it or name another table",
		path, quote(d.cfg.TableName()), strings.Join(have, ", "), typ, what)
}

// quote quotes an SQL identifier.
func quote(name string) string {
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}

func (d *database) Level() string { return Serializable }

// Session opens a connection of its own for the session.
func (d *database) Session(ctx context.Context, i int) (db.Session, error) {
	c, err := d.db.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("sqlite: session %d: %w", i, err)
	}
	return &session{d: d, conn: c}, nil
}

// Close closes the database and removes a private database's files.
func (d *database) Close() error {
	var err error
	if d.db != nil {
		err = d.db.Close()
	}
	if rerr := d.removeTemp(); err == nil {
		err = rerr
	}
	if err != nil {
		return fmt.Errorf("sqlite: close: %w", err)
	}
	return nil
}

func (d *database) removeTemp() error {
	if d.tempDir == "" {
		return nil
	}
	err := os.RemoveAll(d.tempDir)
	d.tempDir = ""
	return err
}

// session is one connection.
type session struct {
	d    *database
	conn *sql.Conn
}

func (s *session) Begin(ctx context.Context) (db.Txn, error) {
	if _, err := s.conn.ExecContext(ctx, s.d.opts.begin); err != nil {
		// The BEGIN may have run although ctx ended: leave no
		// transaction open on the connection.
		s.rollback()
		return nil, classify(ctx, "begin", err)
	}
	return &txn{s: s}, nil
}

// Close ends the transaction in progress, if any, and gives the connection
// back to the pool, or discards it if it cannot be rolled back: a
// connection left in a transaction would keep its locks.
func (s *session) Close() error {
	if !s.rollback() {
		// database/sql closes a connection whose Raw call fails so.
		s.conn.Raw(func(any) error { return driver.ErrBadConn })
	}
	if err := s.conn.Close(); err != nil {
		return fmt.Errorf("sqlite: close session: %w", err)
	}
	return nil
}

// rollback ends the transaction in progress on the connection, if any, and
// reports whether the connection is out of any transaction.
func (s *session) rollback() bool {
	ctx, cancel := context.WithTimeout(context.Background(), rollbackTimeout)
	defer cancel()
	_, err := s.conn.ExecContext(ctx, "ROLLBACK")
	return err == nil || noTxn(err)
}

// rollbackTimeout bounds the ROLLBACK that cleans a connection up (it
// takes no lock, so it should never wait).
const rollbackTimeout = 5 * time.Second

// txn is a transaction on a session's connection.
type txn struct {
	s *session
}

func (t *txn) checkKey(key int64) error {
	if n := t.s.d.cfg.Keys; n > 0 && (key < 0 || key >= int64(n)) {
		return fmt.Errorf("sqlite: key %d out of range 0..%d", key, n-1)
	}
	return nil
}

func (t *txn) Read(ctx context.Context, key int64) (int64, bool, error) {
	if t.s.d.cfg.Lists {
		return 0, false, errors.New("sqlite: Read of a list table (use ReadList)")
	}
	if err := t.checkKey(key); err != nil {
		return 0, false, err
	}
	var v sql.NullInt64
	err := t.s.conn.QueryRowContext(ctx, t.s.d.read, key).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, classify(ctx, fmt.Sprintf("read %d", key), err)
	}
	return v.Int64, v.Valid, nil
}

func (t *txn) Write(ctx context.Context, key, value int64) error {
	if t.s.d.cfg.Lists {
		return errors.New("sqlite: Write to a list table (use Append)")
	}
	if err := t.checkKey(key); err != nil {
		return err
	}
	if _, err := t.s.conn.ExecContext(ctx, t.s.d.write, key, value); err != nil {
		return classify(ctx, fmt.Sprintf("write %d", key), err)
	}
	return nil
}

func (t *txn) Append(ctx context.Context, key, value int64) error {
	if !t.s.d.cfg.Lists {
		return errors.New("sqlite: Append to a register table (open with Lists)")
	}
	if err := t.checkKey(key); err != nil {
		return err
	}
	if _, err := t.s.conn.ExecContext(ctx, t.s.d.appendTo, key, strconv.FormatInt(value, 10)); err != nil {
		return classify(ctx, fmt.Sprintf("append to %d", key), err)
	}
	return nil
}

func (t *txn) ReadList(ctx context.Context, key int64) ([]int64, error) {
	if !t.s.d.cfg.Lists {
		return nil, errors.New("sqlite: ReadList of a register table (open with Lists)")
	}
	if err := t.checkKey(key); err != nil {
		return nil, err
	}
	var v sql.NullString
	err := t.s.conn.QueryRowContext(ctx, t.s.d.read, key).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) || err == nil && v.String == "" {
		return []int64{}, nil
	}
	if err != nil {
		return nil, classify(ctx, fmt.Sprintf("read list %d", key), err)
	}
	return parseList(v.String)
}

// parseList reads a list stored as comma-separated integers.
func parseList(s string) ([]int64, error) {
	fields := strings.Split(s, ",")
	l := make([]int64, 0, len(fields))
	for _, f := range fields {
		x, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("sqlite: list %q: %w", s, err)
		}
		l = append(l, x)
	}
	return l, nil
}

func (t *txn) Commit(ctx context.Context) error {
	_, err := t.s.conn.ExecContext(ctx, "COMMIT")
	if err == nil {
		return nil
	}
	err = classify(ctx, "commit", err)
	// A COMMIT refused for a lock leaves the transaction open, to be
	// tried again, and one cut short by ctx may not have run: roll back,
	// so that an abort is final and the connection is free.
	if !t.s.rollback() {
		var a *db.AbortError
		if errors.As(err, &a) {
			// Unknown after all: the transaction may still commit.
			return fmt.Errorf("sqlite: commit: %w; then rollback failed", a.Err)
		}
	}
	return err
}

// Rollback rolls back even after ctx ends: the ROLLBACK takes no lock.
func (t *txn) Rollback(ctx context.Context) error {
	if _, err := t.s.conn.ExecContext(context.WithoutCancel(ctx), "ROLLBACK"); err != nil && !noTxn(err) {
		return fmt.Errorf("sqlite: rollback: %w", err)
	}
	return nil
}

// noTxn reports whether err says there is no transaction to roll back
// (SQLite rolled it back itself after an error).
func noTxn(err error) bool {
	return strings.Contains(err.Error(), "no transaction is active")
}

// abortCodes are the primary result codes of an abort, by name.
var abortCodes = map[int]string{
	sqlite3.SQLITE_BUSY:   "busy",
	sqlite3.SQLITE_LOCKED: "locked",
}

// classify wraps the error of operation op: SQLITE_BUSY (and its extended
// codes) and SQLITE_LOCKED are aborts, unless ctx is done, and anything
// else leaves the outcome unknown.
func classify(ctx context.Context, op string, err error) error {
	err = fmt.Errorf("sqlite: %s: %w", op, err)
	if ctx.Err() != nil {
		return err
	}
	var e *sqlite.Error
	if !errors.As(err, &e) {
		return err
	}
	if e.Code() == sqlite3.SQLITE_BUSY_SNAPSHOT {
		return db.Abort("busy snapshot", err)
	}
	if reason, ok := abortCodes[e.Code()&0xff]; ok {
		return db.Abort(reason, err)
	}
	return err
}
