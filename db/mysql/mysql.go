// Package mysql is isocheck's adapter to MySQL and MariaDB: it runs the
// runner's transactions on a server, or on the nodes of a MariaDB Galera
// cluster, at an isolation level named in MySQL's words.
//
// The DSN is a URL naming one host or several,
//
//	mysql://user:password@host:port[,host:port...]/database?param=value
//
// (mariadb:// too), with the user and password percent-encoded; the port
// is 3306 by default, and the database must exist.
// Several hosts are the nodes of one cluster: session i connects to host
// i mod n, so that the sessions are spread over the nodes. The parameters
// are those of github.com/go-sql-driver/mysql (timeout, readTimeout, tls,
// ...); a parameter the driver does not know sets the server variable of
// that name on every connection, as in
//
//	mysql://root@127.0.0.1:3306/isocheck?innodb_snapshot_isolation=ON
//
// which makes MariaDB refuse, at REPEATABLE READ, a write to a row changed
// since the transaction's snapshot.
//
// The levels are "read-uncommitted", "read-committed", "repeatable-read"
// (the default, as in InnoDB) and "serializable". Each session sets its
// level once on its connection (SET SESSION TRANSACTION ISOLATION LEVEL);
// Open checks that every host then reports it.
//
// The store is one InnoDB table of rows (k BIGINT PRIMARY KEY, v BIGINT
// NULL) for registers or (k BIGINT PRIMARY KEY, v LONGTEXT NULL) for
// lists, a list being its elements joined by commas. Open creates the
// table, refuses one of another shape, empties it and inserts a row of
// NULL for every key, so that every write is an UPDATE of an existing row;
// in a cluster it does so through the first host and waits until the
// others see the rows. Reads are plain SELECTs (not locking reads).
//
// Deadlocks (error 1213), "record has changed since last read" (1020,
// from MariaDB's snapshot isolation check) and lock wait timeouts (1205)
// are aborts, with the reasons "deadlock", "record changed" and "lock wait
// timeout"; Galera fails a COMMIT with 1213 when the transaction conflicts
// with one replicated from another node, which is a "certification
// failure". A lost connection, a context's deadline and every other error
// leave the outcome unknown.
//
// The tests run against a server or cluster named by $ISOCHECK_MYSQL_DSN,
// and the lost update test against a cluster named by
// $ISOCHECK_GALERA_DSN. A throwaway MariaDB server, or 3-node MariaDB
// Galera cluster, on loopback is a command away:
//
//	export ISOCHECK_MYSQL_DSN=$(scripts/mariadb.sh start)
//	go test ./db/mysql/
//	scripts/mariadb.sh stop
//
//	export ISOCHECK_GALERA_DSN=$(scripts/galera.sh start)
//	export ISOCHECK_MYSQL_DSN=$ISOCHECK_GALERA_DSN
//	go test ./db/mysql/
//	scripts/galera.sh stop
package mysql

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	mysqldriver "github.com/go-sql-driver/mysql"

	"github.com/isocheck/isocheck/db"
)

// Scheme is the DSN scheme of MySQL and MariaDB; "mariadb" is accepted
// too.
const Scheme = "mysql"

// connectTimeout bounds a connection attempt whose DSN sets no timeout, so
// that an unreachable host fails Open in seconds.
const connectTimeout = 5 * time.Second

// syncTimeout bounds Open's wait for a cluster's other nodes to see the
// rows it inserted through the first.
const syncTimeout = 30 * time.Second

// lockWaitTimeout bounds the wait of Open's statements on the table for
// other clients' transactions on it.
const lockWaitTimeout = 10 * time.Second

// insertBatch is the number of rows an INSERT of Open's adds.
const insertBatch = 1000

// Error numbers of MySQL and MariaDB.
const (
	errCheckRead       = 1020 // ER_CHECKREAD: record has changed since last read
	errLockWaitTimeout = 1205 // ER_LOCK_WAIT_TIMEOUT
	errLockDeadlock    = 1213 // ER_LOCK_DEADLOCK, also Galera's certification failure
	errUnknownVariable = 1193 // ER_UNKNOWN_SYSTEM_VARIABLE
)

// A level is an isolation level: its name in the DSN's words, in SQL, and
// as @@transaction_isolation reports it.
type level struct {
	name, sql, server string
}

func levelNames() []string {
	return []string{"read-uncommitted", "read-committed", "repeatable-read", "serializable"}
}

// findLevel returns the level named name; empty means repeatable-read.
func findLevel(name string) (level, error) {
	switch name {
	case "read-uncommitted":
		return level{name, "READ UNCOMMITTED", "READ-UNCOMMITTED"}, nil
	case "read-committed":
		return level{name, "READ COMMITTED", "READ-COMMITTED"}, nil
	case "repeatable-read", "":
		return level{"repeatable-read", "REPEATABLE READ", "REPEATABLE-READ"}, nil
	case "serializable":
		return level{name, "SERIALIZABLE", "SERIALIZABLE"}, nil
	}
	return level{}, &db.UnsupportedLevelError{Database: "MySQL", Level: name, Supported: levelNames()}
}

// config is a parsed DSN.
type config struct {
	// hosts are the addresses, host:port, of the nodes.
	hosts []string
	// driver is the driver's configuration with the first host's address.
	driver *mysqldriver.Config
}

// parseDSN parses a mysql:// DSN. Its errors do not repeat the DSN, which
// may hold a password.
func parseDSN(dsn string) (*config, error) {
	scheme, rest, ok := strings.Cut(dsn, "://")
	if !ok || !strings.EqualFold(scheme, Scheme) && !strings.EqualFold(scheme, "mariadb") {
		return nil, fmt.Errorf("mysql: DSN does not start with %s:// (or mariadb://)", Scheme)
	}
	rest, rawQuery, _ := strings.Cut(rest, "?")
	authority, path, ok := strings.Cut(rest, "/")
	if !ok || path == "" {
		return nil, errors.New("mysql: DSN names no database (mysql://user@host:port/DATABASE)")
	}
	dbName, err := url.PathUnescape(path)
	if err != nil || strings.Contains(dbName, "/") {
		return nil, fmt.Errorf("mysql: DSN: bad database name %q", path)
	}

	var user, password string
	hostList := authority
	if i := strings.LastIndexByte(authority, '@'); i >= 0 {
		hostList = authority[i+1:]
		u, p, _ := strings.Cut(authority[:i], ":")
		if user, err = url.PathUnescape(u); err != nil {
			return nil, fmt.Errorf("mysql: DSN: bad user name: %w", err)
		}
		if password, err = url.PathUnescape(p); err != nil {
			return nil, errors.New("mysql: DSN: bad password: invalid percent-encoding")
		}
		if user == "" {
			return nil, errors.New("mysql: DSN: empty user name before '@'")
		}
	}
	if hostList == "" {
		return nil, errors.New("mysql: DSN names no host (mysql://user@host:port/database)")
	}
	var hosts []string
	for h := range strings.SplitSeq(hostList, ",") {
		addr, err := parseHost(h)
		if err != nil {
			return nil, fmt.Errorf("mysql: DSN: %w", err)
		}
		hosts = append(hosts, addr)
	}

	query, err := url.ParseQuery(rawQuery)
	if err != nil {
		return nil, fmt.Errorf("mysql: DSN parameters: %w", err)
	}
	d, err := mysqldriver.ParseDSN("tcp(" + hosts[0] + ")/?" + query.Encode())
	if err != nil {
		return nil, fmt.Errorf("mysql: DSN parameters: %w", err)
	}
	d.User, d.Passwd, d.DBName = user, password, dbName
	if !query.Has("timeout") {
		d.Timeout = connectTimeout
	}
	if !query.Has("interpolateParams") {
		// One round trip a statement rather than three (prepare,
		// execute, close); the arguments are integers.
		d.InterpolateParams = true
	}
	// An UPDATE's count of rows is the rows it matched, so that a write
	// of a key's current value still counts its row.
	d.ClientFoundRows = true
	// Every error the driver logs is also returned.
	d.Logger = &mysqldriver.NopLogger{}
	return &config{hosts: hosts, driver: d}, nil
}

// parseHost returns host[:port] as host:port, the port 3306 by default.
func parseHost(h string) (string, error) {
	if h == "" {
		return "", errors.New("empty host in the host list")
	}
	host, port, err := net.SplitHostPort(h)
	if err != nil {
		// No port: a name, an IPv4 address or a bracketed IPv6 one.
		host, port = h, "3306"
		if strings.HasPrefix(h, "[") && strings.HasSuffix(h, "]") {
			host = h[1 : len(h)-1]
		} else if strings.ContainsAny(h, ":[]") {
			return "", fmt.Errorf("bad host %q", h)
		}
	}
	if host == "" {
		return "", fmt.Errorf("bad host %q: no name", h)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		return "", fmt.Errorf("bad host %q: bad port %q", h, port)
	}
	return net.JoinHostPort(host, port), nil
}

// quote returns name quoted as an SQL identifier.
func quote(name string) string {
	return "`" + strings.ReplaceAll(name, "`", "``") + "`"
}

type database struct {
	level level
	hosts []string
	pools []*sql.DB // pools[i] connects to hosts[i]
	keys  int
	// Statements on the table.
	readSQL, writeSQL, appendSQL string
}

// Open opens the MySQL or MariaDB database cfg.DSN names, checks that its
// hosts run transactions at cfg.Level, and creates or empties the table
// and inserts a row of NULL for each of the cfg.Keys keys.
func Open(ctx context.Context, cfg db.Config) (db.Database, error) {
	lv, err := findLevel(cfg.Level)
	if err != nil {
		return nil, err
	}
	if cfg.Keys < 0 {
		return nil, fmt.Errorf("mysql: %d keys", cfg.Keys)
	}
	c, err := parseDSN(cfg.DSN)
	if err != nil {
		return nil, err
	}
	table := quote(cfg.TableName())
	d := &database{
		level:     lv,
		hosts:     c.hosts,
		keys:      cfg.Keys,
		readSQL:   "SELECT v FROM " + table + " WHERE k = ?",
		writeSQL:  "UPDATE " + table + " SET v = ? WHERE k = ?",
		appendSQL: "UPDATE " + table + " SET v = CONCAT_WS(',', v, ?) WHERE k = ?",
	}
	for _, h := range c.hosts {
		dc := c.driver.Clone()
		dc.Addr = h
		conn, err := mysqldriver.NewConnector(dc)
		if err != nil {
			d.Close()
			return nil, fmt.Errorf("mysql: %s: %w", h, err)
		}
		pool := sql.OpenDB(conn)
		// A session's connection is closed with it, never reused by
		// another with its leftovers (a transaction left open).
		pool.SetMaxIdleConns(0)
		d.pools = append(d.pools, pool)
	}
	for i := range d.hosts {
		if err := d.checkLevel(ctx, i, c.driver.Timeout); err != nil {
			d.Close()
			return nil, err
		}
	}
	if err := d.prepare(ctx, cfg); err != nil {
		d.Close()
		return nil, err
	}
	return d, nil
}

// checkLevel connects to host i, within timeout, and checks that it
// reports the level after a session sets it.
func (d *database) checkLevel(ctx context.Context, i int, timeout time.Duration) error {
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	conn, err := d.conn(ctx, i)
	if err != nil {
		return fmt.Errorf("mysql: %w", err)
	}
	defer conn.Close()
	var got string
	err = conn.QueryRowContext(ctx, "SELECT @@transaction_isolation").Scan(&got)
	if isError(err, errUnknownVariable) {
		// MariaDB before 11.1.
		err = conn.QueryRowContext(ctx, "SELECT @@tx_isolation").Scan(&got)
	}
	if err != nil {
		return fmt.Errorf("mysql: %s: reading the isolation level: %w", d.hosts[i], err)
	}
	if !strings.EqualFold(got, d.level.server) {
		return fmt.Errorf("mysql: %s reports isolation level %s after SET SESSION TRANSACTION ISOLATION LEVEL %s: %w",
			d.hosts[i], got, d.level.sql,
			&db.UnsupportedLevelError{Database: "this server", Level: d.level.name, Supported: []string{got}})
	}
	return nil
}

// conn returns a connection to host i whose transactions run at the
// database's level.
func (d *database) conn(ctx context.Context, i int) (*sql.Conn, error) {
	conn, err := d.pools[i].Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("connecting to %s: %w", d.hosts[i], err)
	}
	if _, err := conn.ExecContext(ctx, "SET SESSION TRANSACTION ISOLATION LEVEL "+d.level.sql); err != nil {
		conn.Close()
		return nil, fmt.Errorf("%s: setting isolation level %s: %w", d.hosts[i], d.level.sql, err)
	}
	return conn, nil
}

// prepare creates or checks the table through the first host, empties it,
// inserts a row of NULL for each key, and waits until the other hosts see
// the rows.
func (d *database) prepare(ctx context.Context, cfg db.Config) error {
	name := cfg.TableName()
	table := quote(name)
	vType := "BIGINT"
	if cfg.Lists {
		vType = "LONGTEXT"
	}
	conn, err := d.pools[0].Conn(ctx)
	if err != nil {
		return fmt.Errorf("mysql: connecting to %s: %w", d.hosts[0], err)
	}
	defer conn.Close()
	// DDL waits for the metadata locks of other clients' transactions on
	// the table, by default for a year.
	if _, err := conn.ExecContext(ctx, fmt.Sprintf("SET SESSION lock_wait_timeout = %d", int(lockWaitTimeout.Seconds()))); err != nil {
		return fmt.Errorf("mysql: %s: %w", d.hosts[0], err)
	}
	create := "CREATE TABLE IF NOT EXISTS " + table +
		" (k BIGINT NOT NULL PRIMARY KEY, v " + vType + " NULL) ENGINE=InnoDB"
	if _, err := conn.ExecContext(ctx, create); err != nil {
		return fmt.Errorf("mysql: creating table %s: %w", name, err)
	}
	if err := checkShape(ctx, conn, name, vType); err != nil {
		return err
	}
	if _, err := conn.ExecContext(ctx, "TRUNCATE TABLE "+table); err != nil {
		if isError(err, errLockWaitTimeout) {
			return fmt.Errorf("mysql: emptying table %s: another client's transaction holds it: %w", name, err)
		}
		return fmt.Errorf("mysql: emptying table %s: %w", name, err)
	}
	var b strings.Builder
	for lo := 0; lo < cfg.Keys; lo += insertBatch {
		b.Reset()
		b.WriteString("INSERT INTO " + table + " (k, v) VALUES ")
		for k := lo; k < min(lo+insertBatch, cfg.Keys); k++ {
			if k > lo {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, "(%d,NULL)", k)
		}
		if _, err := conn.ExecContext(ctx, b.String()); err != nil {
			return fmt.Errorf("mysql: inserting the rows of table %s: %w", name, err)
		}
	}
	for i := 1; i < len(d.hosts); i++ {
		if err := d.awaitRows(ctx, i, table); err != nil {
			return err
		}
	}
	return nil
}

// checkShape checks that the table has the columns and engine Open would
// have created it with.
func checkShape(ctx context.Context, conn *sql.Conn, name, vType string) error {
	rows, err := conn.QueryContext(ctx,
		`SELECT COLUMN_NAME, DATA_TYPE, COLUMN_KEY, IS_NULLABLE FROM information_schema.COLUMNS
		WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION`, name)
	if err != nil {
		return fmt.Errorf("mysql: reading the columns of table %s: %w", name, err)
	}
	var cols []string
	for rows.Next() {
		var col, typ, key, nullable string
		if err := rows.Scan(&col, &typ, &key, &nullable); err != nil {
			rows.Close()
			return fmt.Errorf("mysql: reading the columns of table %s: %w", name, err)
		}
		c := strings.ToLower(col) + " " + strings.ToLower(typ)
		if key == "PRI" {
			c += " primary key"
		} else if nullable == "YES" {
			c += " null"
		} else {
			c += " not null"
		}
		cols = append(cols, c)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("mysql: reading the columns of table %s: %w", name, err)
	}
	var engine sql.NullString
	err = conn.QueryRowContext(ctx,
		`SELECT ENGINE FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ?`,
		name).Scan(&engine)
	if err != nil {
		return fmt.Errorf("mysql: reading the engine of table %s: %w", name, err)
	}
	got := "(" + strings.Join(cols, ", ") + ") engine " + engine.String
	want := "(k bigint primary key, v " + strings.ToLower(vType) + " null) engine InnoDB"
	if !strings.EqualFold(got, want) {
		what := "registers"
		if vType != "BIGINT" {
			what = "lists"
		}
		return fmt.Errorf("mysql: table %s exists with another shape than %s need: it is %s, not %s; drop it or name another table",
			name, what, got, want)
	}
	return nil
}

// awaitRows waits until host i sees every key's row, and no value.
func (d *database) awaitRows(ctx context.Context, i int, table string) error {
	ctx, cancel := context.WithTimeout(ctx, syncTimeout)
	defer cancel()
	conn, err := d.pools[i].Conn(ctx)
	if err != nil {
		return fmt.Errorf("mysql: connecting to %s: %w", d.hosts[i], err)
	}
	defer conn.Close()
	// A Galera node's reads wait until it has applied what the cluster
	// committed before them; other servers have no such variable.
	if _, err := conn.ExecContext(ctx, "SET SESSION wsrep_sync_wait = 1"); err != nil && !isError(err, errUnknownVariable) {
		return fmt.Errorf("mysql: %s: %w", d.hosts[i], err)
	}
	for {
		var rows, values int
		err := conn.QueryRowContext(ctx, "SELECT COUNT(*), COUNT(v) FROM "+table).Scan(&rows, &values)
		if err != nil {
			return fmt.Errorf("mysql: %s: waiting for the table's rows: %w", d.hosts[i], err)
		}
		if rows == d.keys && values == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("mysql: %s sees %d rows and %d values, not the %d rows of NULL inserted through %s: is it a node of the same cluster? %w",
				d.hosts[i], rows, values, d.keys, d.hosts[0], ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

func (d *database) Level() string { return d.level.name }

func (d *database) Session(ctx context.Context, i int) (db.Session, error) {
	if i < 0 {
		return nil, fmt.Errorf("mysql: session %d", i)
	}
	conn, err := d.conn(ctx, i%len(d.hosts))
	if err != nil {
		return nil, fmt.Errorf("mysql: session %d: %w", i, err)
	}
	return &session{d: d, conn: conn}, nil
}

func (d *database) Close() error {
	var errs []error
	for _, p := range d.pools {
		errs = append(errs, p.Close())
	}
	return errors.Join(errs...)
}

type session struct {
	d    *database
	conn *sql.Conn
}

func (s *session) Begin(ctx context.Context) (db.Txn, error) {
	if _, err := s.conn.ExecContext(ctx, "START TRANSACTION"); err != nil {
		return nil, classify(err, "begin")
	}
	return &txn{s: s}, nil
}

func (s *session) Close() error { return s.conn.Close() }

type txn struct {
	s *session
}

func (t *txn) Read(ctx context.Context, key int64) (int64, bool, error) {
	var v sql.NullInt64
	if err := t.s.conn.QueryRowContext(ctx, t.s.d.readSQL, key).Scan(&v); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return 0, false, t.noKey("read", key)
		}
		return 0, false, classify(err, "read key %d", key)
	}
	return v.Int64, v.Valid, nil
}

func (t *txn) Write(ctx context.Context, key, value int64) error {
	return t.update(ctx, t.s.d.writeSQL, "write", key, value)
}

func (t *txn) Append(ctx context.Context, key, value int64) error {
	return t.update(ctx, t.s.d.appendSQL, "append to", key, value)
}

// update runs an UPDATE of the key's row.
func (t *txn) update(ctx context.Context, stmt, op string, key, value int64) error {
	res, err := t.s.conn.ExecContext(ctx, stmt, value, key)
	if err != nil {
		return classify(err, "%s key %d", op, key)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("mysql: %s key %d: %w", op, key, err)
	}
	if n != 1 {
		return t.noKey(op, key)
	}
	return nil
}

func (t *txn) ReadList(ctx context.Context, key int64) ([]int64, error) {
	var v sql.NullString
	if err := t.s.conn.QueryRowContext(ctx, t.s.d.readSQL, key).Scan(&v); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil, t.noKey("read", key)
		}
		return nil, classify(err, "read list %d", key)
	}
	l := []int64{}
	if v.String == "" {
		return l, nil
	}
	for e := range strings.SplitSeq(v.String, ",") {
		n, err := strconv.ParseInt(e, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("mysql: read list %d: element %q: %w", key, e, err)
		}
		l = append(l, n)
	}
	return l, nil
}

func (t *txn) Commit(ctx context.Context) error {
	if _, err := t.s.conn.ExecContext(ctx, "COMMIT"); err != nil {
		return classify(err, "commit")
	}
	return nil
}

func (t *txn) Rollback(ctx context.Context) error {
	if _, err := t.s.conn.ExecContext(ctx, "ROLLBACK"); err != nil {
		return fmt.Errorf("mysql: rollback: %w", err)
	}
	return nil
}

// noKey is the error of an operation on a key that has no row.
func (t *txn) noKey(op string, key int64) error {
	return fmt.Errorf("mysql: %s key %d: no such key (the keys are 0 to %d)", op, key, t.s.d.keys-1)
}

// classify wraps err, the failure of the operation format names, as an
// abort if the server refused the transaction and as an unknown outcome
// otherwise.
func classify(err error, format string, args ...any) error {
	op := fmt.Sprintf(format, args...)
	err = fmt.Errorf("mysql: %s: %w", op, err)
	if reason := abortReason(err, op == "commit"); reason != "" {
		return db.Abort(reason, err)
	}
	return err
}

// abortReason returns the abort reason of a server's refusal of a
// transaction, or "" if err is no refusal. A deadlock error from COMMIT is
// a Galera cluster's: the transaction failed certification, or a
// replicated one that did aborted it (InnoDB itself finds deadlocks only
// in statements that wait for locks, and Galera says "Deadlock found" in
// every case).
func abortReason(err error, commit bool) string {
	var e *mysqldriver.MySQLError
	if !errors.As(err, &e) {
		return ""
	}
	switch e.Number {
	case errLockDeadlock:
		if commit {
			return "certification failure"
		}
		return "deadlock"
	case errCheckRead:
		return "record changed"
	case errLockWaitTimeout:
		return "lock wait timeout"
	}
	return ""
}

// isError reports whether err is the server's error number n.
func isError(err error, n uint16) bool {
	var e *mysqldriver.MySQLError
	return errors.As(err, &e) && e.Number == n
}
