// Package postgres is isocheck's adapter to PostgreSQL: it runs the
// runner's transactions on a PostgreSQL server, or on any database that
// speaks PostgreSQL's protocol and SQL (CockroachDB, YugabyteDB), at an
// isolation level named in PostgreSQL's words.
//
// The DSN is a PostgreSQL URL,
//
//	postgres://user:password@host:port/database?sslmode=disable
//
// and may name several hosts, host:port,host:port, such as a primary
// (first) and its streaming replicas (scripts/postgres-replicas.sh): the
// table is set up on the first, and session i talks to host i mod n only,
// so that some sessions read from replicas. On a replica (a hot standby)
// a write is refused, an abort ("read-only replica"), and a transaction
// at "serializable" runs at REPEATABLE READ, which PostgreSQL's standbys
// have instead.
//
// and the levels are "read-committed" (the default), "repeatable-read" and
// "serializable". PostgreSQL runs READ UNCOMMITTED as READ COMMITTED, so
// "read-uncommitted" is refused rather than quietly run at another level.
// Open checks that the server reports the level a transaction asked for,
// which catches servers that quietly run another (CockroachDB runs READ
// COMMITTED as SERIALIZABLE unless it is enabled).
//
// The store is one table of rows (k BIGINT PRIMARY KEY, v BIGINT) for
// registers or (k BIGINT PRIMARY KEY, v BIGINT[]) for lists. Open creates
// it, empties it and inserts a row of NULL for every key, so that every
// write is an UPDATE of an existing row: at READ COMMITTED two concurrent
// read-modify-writes of a key then give the classic lost update, and no
// transaction can fail on a duplicate key.
//
// Serialization failures (SQLSTATE 40001) and deadlocks (40P01) are
// aborts; a lost connection, a context's deadline and every other error
// leave the outcome unknown.
//
// The tests run against a server named by $ISOCHECK_POSTGRES_DSN; a
// throwaway one is a command away:
//
//	export ISOCHECK_POSTGRES_DSN=$(scripts/postgres.sh start)
//	go test ./db/postgres/
//	scripts/postgres.sh stop
package postgres

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/isocheck/isocheck/db"
)

// Scheme is the DSN scheme of PostgreSQL; "postgresql" is accepted too.
const Scheme = "postgres"

// connectTimeout bounds a connection attempt whose DSN sets no
// connect_timeout, so that an unreachable host fails Open in seconds.
const connectTimeout = 10 * time.Second

// A level is an isolation level: its name in the DSN's words, in SQL, and
// as SHOW transaction_isolation reports it.
type level struct {
	name, sql, show string
}

var levels = []level{
	{"read-committed", "READ COMMITTED", "read committed"},
	{"repeatable-read", "REPEATABLE READ", "repeatable read"},
	{"serializable", "SERIALIZABLE", "serializable"},
}

func levelNames() []string {
	names := make([]string, len(levels))
	for i, l := range levels {
		names[i] = l.name
	}
	return names
}

// database is an open store. It holds no connection: each session has its
// own.
type database struct {
	config *pgx.ConnConfig
	level  level
	keys   int64
	begin  string // BEGIN ISOLATION LEVEL ...
	read   string // the statements of Txn's methods
	write  string
	append string
}

// Open opens the store cfg names: it checks the level, connects to the
// server, checks that the server runs transactions at the level, and
// creates, empties and fills the table.
func Open(ctx context.Context, cfg db.Config) (db.Database, error) {
	lv, err := findLevel(cfg.Level)
	if err != nil {
		return nil, err
	}
	if cfg.Keys < 0 {
		return nil, fmt.Errorf("postgres: a negative number of keys (%d)", cfg.Keys)
	}
	config, err := parseDSN(cfg.DSN)
	if err != nil {
		return nil, err
	}
	table := pgx.Identifier{cfg.TableName()}.Sanitize()
	d := &database{
		config: config,
		level:  lv,
		keys:   int64(cfg.Keys),
		begin:  "BEGIN ISOLATION LEVEL " + lv.sql,
		read:   "SELECT v FROM " + table + " WHERE k = $1",
		write:  "UPDATE " + table + " SET v = $2 WHERE k = $1",
		append: "UPDATE " + table + " SET v = array_append(COALESCE(v, ARRAY[]::BIGINT[]), $2::BIGINT) WHERE k = $1",
	}

	conn, err := d.connect(ctx, "isocheck setup")
	if err != nil {
		return nil, err
	}
	defer conn.Close(context.Background())
	if err := d.checkLevel(ctx, conn); err != nil {
		return nil, err
	}
	if err := d.setUp(ctx, conn, cfg.TableName(), cfg.Lists); err != nil {
		return nil, err
	}
	return d, nil
}

func findLevel(name string) (level, error) {
	if name == "" {
		return levels[0], nil
	}
	for _, l := range levels {
		if l.name == name {
			return l, nil
		}
	}
	return level{}, &db.UnsupportedLevelError{Database: "PostgreSQL", Level: name, Supported: levelNames()}
}

// parseDSN parses a postgres:// or postgresql:// URL.
func parseDSN(dsn string) (*pgx.ConnConfig, error) {
	scheme, rest, ok := strings.Cut(dsn, "://")
	if !ok || (!strings.EqualFold(scheme, Scheme) && !strings.EqualFold(scheme, "postgresql")) {
		return nil, errors.New("postgres: DSN is not a URL postgres://user:password@host:port/database")
	}
	// pgx knows the schemes in lower case only.
	config, err := pgx.ParseConfig(strings.ToLower(scheme) + "://" + rest)
	if err != nil {
		// pgx hides the password in its message.
		return nil, fmt.Errorf("postgres: %w", err)
	}
	if config.ConnectTimeout == 0 {
		config.ConnectTimeout = connectTimeout
	}
	return config, nil
}

// hosts returns the hosts of d's DSN, the first first: a DSN may name
// several, host:port,host:port, such as a primary and its replicas.
func (d *database) hosts() []*pgconn.FallbackConfig {
	hosts := []*pgconn.FallbackConfig{{Host: d.config.Host, Port: d.config.Port, TLSConfig: d.config.TLSConfig}}
	return append(hosts, d.config.Fallbacks...)
}

// connect opens a connection named name in the server's list of
// sessions, to the first host of d's DSN.
func (d *database) connect(ctx context.Context, name string) (*pgx.Conn, error) {
	return d.connectTo(ctx, name, 0)
}

// connectTo opens a connection named name to host i of d's DSN, and to
// no other.
func (d *database) connectTo(ctx context.Context, name string, i int) (*pgx.Conn, error) {
	config := d.config.Copy()
	h := d.hosts()[i]
	config.Host, config.Port, config.TLSConfig, config.Fallbacks = h.Host, h.Port, h.TLSConfig, nil
	config.RuntimeParams["application_name"] = name
	conn, err := pgx.ConnectConfig(ctx, config)
	if err != nil {
		// pgx's message names the user, database, host and port.
		return nil, fmt.Errorf("postgres: %w", err)
	}
	return conn, nil
}

// checkLevel checks that a transaction begun at d's level runs at it.
func (d *database) checkLevel(ctx context.Context, conn *pgx.Conn) error {
	if _, err := conn.Exec(ctx, d.begin); err != nil {
		return fmt.Errorf("postgres: %s: %w", d.begin, err)
	}
	var show string
	err := conn.QueryRow(ctx, "SHOW transaction_isolation").Scan(&show)
	if _, rerr := conn.Exec(ctx, "ROLLBACK"); err == nil && rerr != nil {
		err = rerr
	}
	if err != nil {
		return fmt.Errorf("postgres: SHOW transaction_isolation: %w", err)
	}
	if !strings.EqualFold(show, d.level.show) {
		return fmt.Errorf("postgres: the server runs a transaction begun with %s at %q: %w", d.begin, show,
			&db.UnsupportedLevelError{Database: "this server", Level: d.level.name, Supported: []string{show}})
	}
	return nil
}

// setUp creates the table if it is missing, checks its shape, empties it
// and inserts a row of NULL for every key.
func (d *database) setUp(ctx context.Context, conn *pgx.Conn, name string, lists bool) error {
	table := pgx.Identifier{name}.Sanitize()
	vType := "BIGINT"
	if lists {
		vType = "BIGINT[]"
	}
	if _, err := conn.Exec(ctx, "CREATE TABLE IF NOT EXISTS "+table+" (k BIGINT PRIMARY KEY, v "+vType+")"); err != nil {
		return fmt.Errorf("postgres: create table %s: %w", table, err)
	}
	if err := checkShape(ctx, conn, name, lists); err != nil {
		return err
	}
	if _, err := conn.Exec(ctx, "TRUNCATE "+table); err != nil {
		return fmt.Errorf("postgres: empty table %s: %w", table, err)
	}
	if d.keys > 0 {
		_, err := conn.Exec(ctx, "INSERT INTO "+table+" (k, v) SELECT g, NULL FROM generate_series(0::BIGINT, $1::BIGINT) AS g", d.keys-1)
		if err != nil {
			return fmt.Errorf("postgres: insert keys 0 to %d into %s: %w", d.keys-1, table, err)
		}
	}
	return nil
}

// checkShape checks that table name of the current schema has exactly the
// columns k BIGINT, the primary key, and v BIGINT (or BIGINT[] for lists).
func checkShape(ctx context.Context, conn *pgx.Conn, name string, lists bool) error {
	want := "k bigint, v bigint"
	if lists {
		want = "k bigint, v bigint[]"
	}
	rows, err := conn.Query(ctx, `
		SELECT column_name, CASE WHEN data_type = 'ARRAY' THEN udt_name ELSE data_type END
		FROM information_schema.columns
		WHERE table_schema = current_schema() AND table_name = $1
		ORDER BY ordinal_position`, name)
	if err != nil {
		return fmt.Errorf("postgres: columns of table %q: %w", name, err)
	}
	var cols []string
	for rows.Next() {
		var col, typ string
		if err := rows.Scan(&col, &typ); err != nil {
			rows.Close()
			return fmt.Errorf("postgres: columns of table %q: %w", name, err)
		}
		if typ == "_int8" {
			typ = "bigint[]"
		}
		cols = append(cols, col+" "+typ)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("postgres: columns of table %q: %w", name, err)
	}
	if have := strings.Join(cols, ", "); have != want {
		return fmt.Errorf("postgres: table %q exists with columns (%s), not (%s): drop it or name another table", name, have, want)
	}

	var key []string
	rows, err = conn.Query(ctx, `
		SELECT u.column_name
		FROM information_schema.table_constraints c
		JOIN information_schema.key_column_usage u
			ON u.constraint_schema = c.constraint_schema AND u.constraint_name = c.constraint_name
			AND u.table_schema = c.table_schema AND u.table_name = c.table_name
		WHERE c.constraint_type = 'PRIMARY KEY' AND c.table_schema = current_schema() AND c.table_name = $1`, name)
	if err != nil {
		return fmt.Errorf("postgres: primary key of table %q: %w", name, err)
	}
	key, err = pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return fmt.Errorf("postgres: primary key of table %q: %w", name, err)
	}
	if !slices.Equal(key, []string{"k"}) {
		return fmt.Errorf("postgres: table %q exists with primary key (%s), not (k): drop it or name another table", name, strings.Join(key, ", "))
	}
	return nil
}

func (d *database) Level() string { return d.level.name }

// Session opens a connection for session i.
func (d *database) Session(ctx context.Context, i int) (db.Session, error) {
	name := fmt.Sprintf("isocheck session %d", i)
	host := i % len(d.hosts())
	conn, err := d.connectTo(ctx, name, host)
	if err != nil {
		return nil, err
	}
	s := &session{d: d, name: name, host: host, conn: conn, begin: d.begin}
	if host > 0 {
		// A replica (a hot standby) refuses SERIALIZABLE: its
		// read-only transactions read a snapshot of the primary's
		// commits, as REPEATABLE READ does, and its writes fail.
		var standby bool
		if err := conn.QueryRow(ctx, "SELECT pg_is_in_recovery()").Scan(&standby); err != nil {
			conn.Close(context.Background())
			return nil, fmt.Errorf("postgres: session %d: is host %s a replica: %w", i, d.hosts()[host].Host, err)
		}
		if standby && d.level.name == "serializable" {
			s.begin = "BEGIN ISOLATION LEVEL REPEATABLE READ"
		}
	}
	return s, nil
}

// Close does nothing: the sessions hold the connections.
func (d *database) Close() error { return nil }

type session struct {
	d    *database
	name string
	// host is the index of the session's host in the DSN (session i
	// talks to host i mod n only), begin its BEGIN statement.
	host  int
	begin string
	conn  *pgx.Conn
}

// Begin begins a transaction at the database's level. A session whose
// connection was lost (by an error or a context's deadline in an earlier
// transaction) connects again first, and one whose last transaction was
// left open rolls it back.
func (s *session) Begin(ctx context.Context) (db.Txn, error) {
	if s.conn.IsClosed() {
		conn, err := s.d.connectTo(ctx, s.name, s.host)
		if err != nil {
			return nil, err
		}
		s.conn = conn
	}
	// A transaction the runner abandoned without Rollback ends here.
	if s.conn.PgConn().TxStatus() != 'I' {
		if _, err := s.conn.Exec(ctx, "ROLLBACK"); err != nil {
			return nil, fmt.Errorf("postgres: roll back the session's last transaction: %w", err)
		}
	}
	if _, err := s.conn.Exec(ctx, s.begin); err != nil {
		return nil, classify(s.begin, err)
	}
	return &txn{s: s}, nil
}

func (s *session) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return s.conn.Close(ctx)
}

// txn is a transaction on a session's connection.
type txn struct {
	s *session
	// done says the transaction is over: it committed, or a statement
	// failed and the server will not commit it.
	done bool
}

var errDone = errors.New("postgres: the transaction is over")

func (t *txn) checkKey(op string, key int64) error {
	if t.done {
		return errDone
	}
	if key < 0 || key >= t.s.d.keys {
		return fmt.Errorf("postgres: %s of key %d: the keys are 0 to %d", op, key, t.s.d.keys-1)
	}
	return nil
}

func (t *txn) fail(op string, key int64, err error) error {
	t.done = true
	return classify(fmt.Sprintf("%s of key %d", op, key), err)
}

func (t *txn) Read(ctx context.Context, key int64) (int64, bool, error) {
	if err := t.checkKey("read", key); err != nil {
		return 0, false, err
	}
	var v *int64
	if err := t.s.conn.QueryRow(ctx, t.s.d.read, key).Scan(&v); err != nil {
		return 0, false, t.fail("read", key, err)
	}
	if v == nil {
		return 0, false, nil
	}
	return *v, true, nil
}

func (t *txn) Write(ctx context.Context, key, value int64) error {
	return t.update(ctx, "write", t.s.d.write, key, value)
}

func (t *txn) Append(ctx context.Context, key, value int64) error {
	return t.update(ctx, "append", t.s.d.append, key, value)
}

func (t *txn) update(ctx context.Context, op, sql string, key, value int64) error {
	if err := t.checkKey(op, key); err != nil {
		return err
	}
	tag, err := t.s.conn.Exec(ctx, sql, key, value)
	if err != nil {
		return t.fail(op, key, err)
	}
	if tag.RowsAffected() != 1 {
		t.done = true
		return fmt.Errorf("postgres: %s of key %d: %d rows updated, want 1: was the table changed by someone else?", op, key, tag.RowsAffected())
	}
	return nil
}

func (t *txn) ReadList(ctx context.Context, key int64) ([]int64, error) {
	if err := t.checkKey("read", key); err != nil {
		return nil, err
	}
	var l []int64
	if err := t.s.conn.QueryRow(ctx, t.s.d.read, key).Scan(&l); err != nil {
		return nil, t.fail("read", key, err)
	}
	if l == nil {
		l = []int64{}
	}
	return l, nil
}

func (t *txn) Commit(ctx context.Context) error {
	if t.done {
		return errDone
	}
	t.done = true
	tag, err := t.s.conn.Exec(ctx, "COMMIT")
	if err != nil {
		return classify("commit", err)
	}
	// The server answers COMMIT of a failed transaction with ROLLBACK.
	if tag.String() == "ROLLBACK" {
		return db.Abort("rolled back", errors.New("postgres: commit: the server rolled the transaction back"))
	}
	return nil
}

// Rollback rolls the transaction back. After a failed statement the server
// has already abandoned it, and ROLLBACK only ends the transaction block.
func (t *txn) Rollback(ctx context.Context) error {
	t.done = true
	if t.s.conn.IsClosed() {
		return nil
	}
	if _, err := t.s.conn.Exec(ctx, "ROLLBACK"); err != nil {
		return fmt.Errorf("postgres: rollback: %w", err)
	}
	return nil
}

// classify wraps the error of operation op: a serialization failure,
// a deadlock or a duplicate key is an abort; any other error, with or
// without the server's answer, leaves the outcome unknown.
func classify(op string, err error) error {
	err = fmt.Errorf("postgres: %s: %w", op, err)
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) {
		return err
	}
	switch pgErr.Code {
	case "40001": // serialization_failure
		return db.Abort("serialization failure", err)
	case "40P01": // deadlock_detected
		return db.Abort("deadlock", err)
	case "23505": // unique_violation
		return db.Abort("duplicate key", err)
	case "25006": // read_only_sql_transaction: a write on a replica
		return db.Abort("read-only replica", err)
	}
	return err
}
