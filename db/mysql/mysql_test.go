package mysql

import (
	"context"
	"database/sql"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	mysqldriver "github.com/go-sql-driver/mysql"

	"github.com/isocheck/isocheck/db"
	"github.com/isocheck/isocheck/db/dbtest"
	"github.com/isocheck/isocheck/history"
)

// The servers the tests run against, if any: server is a MySQL or
// MariaDB server or a Galera cluster (scripts/galera.sh start), galera a
// Galera cluster.
var (
	server = dbtest.Server{Env: "ISOCHECK_MYSQL_DSN", Name: "MySQL or MariaDB server", Start: "scripts/mariadb.sh start"}
	galera = dbtest.Server{Env: "ISOCHECK_GALERA_DSN", Name: "Galera cluster", Start: "scripts/galera.sh start"}
)

func open(t *testing.T, cfg db.Config) *database {
	t.Helper()
	return dbtest.Open(t, Open, cfg).(*database)
}

// withParam returns dsn with the parameter added.
func withParam(dsn, param string) string {
	if strings.Contains(dsn, "?") {
		return dsn + "&" + param
	}
	return dsn + "?" + param
}

// rawConn returns a connection to the DSN's first host.
func rawConn(t *testing.T, dsn string) *sql.Conn {
	t.Helper()
	c, err := parseDSN(dsn)
	if err != nil {
		t.Fatal(err)
	}
	connector, err := mysqldriver.NewConnector(c.driver)
	if err != nil {
		t.Fatal(err)
	}
	pool := sql.OpenDB(connector)
	t.Cleanup(func() { pool.Close() })
	conn, err := pool.Conn(dbtest.Context(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

func TestParseDSN(t *testing.T) {
	tests := []struct {
		dsn      string
		hosts    []string
		user     string
		password string
		dbName   string
		params   map[string]string
		timeout  time.Duration
	}{
		{
			dsn:     "mysql://root@127.0.0.1:3307/isocheck",
			hosts:   []string{"127.0.0.1:3307"},
			user:    "root",
			dbName:  "isocheck",
			timeout: connectTimeout,
		},
		{
			dsn:     "mysql://isocheck@127.0.0.1:3307,127.0.0.1:3308,127.0.0.1:3309/isocheck",
			hosts:   []string{"127.0.0.1:3307", "127.0.0.1:3308", "127.0.0.1:3309"},
			user:    "isocheck",
			dbName:  "isocheck",
			timeout: connectTimeout,
		},
		{
			dsn:      "mysql://u:p%40ss:w%2Frd@db.example:3306/test?timeout=2s&innodb_snapshot_isolation=ON",
			hosts:    []string{"db.example:3306"},
			user:     "u",
			password: "p@ss:w/rd",
			dbName:   "test",
			params:   map[string]string{"innodb_snapshot_isolation": "ON"},
			timeout:  2 * time.Second,
		},
		{
			dsn:      "mysql://u:p@ss@localhost/test",
			hosts:    []string{"localhost:3306"},
			user:     "u",
			password: "p@ss",
			dbName:   "test",
			timeout:  connectTimeout,
		},
		{
			dsn:     "MariaDB://root@h/d",
			hosts:   []string{"h:3306"},
			user:    "root",
			dbName:  "d",
			timeout: connectTimeout,
		},
		{
			dsn:     "mysql://a,[::1]:3310,[fe80::1]/d%2Db",
			hosts:   []string{"a:3306", "[::1]:3310", "[fe80::1]:3306"},
			dbName:  "d-b",
			timeout: connectTimeout,
		},
	}
	for _, tt := range tests {
		c, err := parseDSN(tt.dsn)
		if err != nil {
			t.Errorf("parseDSN(%q): %v", tt.dsn, err)
			continue
		}
		d := c.driver
		if !slices.Equal(c.hosts, tt.hosts) || d.Addr != tt.hosts[0] || d.User != tt.user ||
			d.Passwd != tt.password || d.DBName != tt.dbName || d.Timeout != tt.timeout {
			t.Errorf("parseDSN(%q) = hosts %q (addr %q), user %q, password %q, database %q, timeout %v; want %q, %q, %q, %q, %v",
				tt.dsn, c.hosts, d.Addr, d.User, d.Passwd, d.DBName, d.Timeout,
				tt.hosts, tt.user, tt.password, tt.dbName, tt.timeout)
		}
		if len(d.Params) != len(tt.params) {
			t.Errorf("parseDSN(%q): params %v, want %v", tt.dsn, d.Params, tt.params)
		}
		for k, v := range tt.params {
			if d.Params[k] != v {
				t.Errorf("parseDSN(%q): params %v, want %v", tt.dsn, d.Params, tt.params)
			}
		}
		if !d.InterpolateParams || !d.ClientFoundRows {
			t.Errorf("parseDSN(%q): interpolateParams %v, clientFoundRows %v; want both", tt.dsn, d.InterpolateParams, d.ClientFoundRows)
		}
	}

	bad := []struct{ dsn, want string }{
		{"postgres://root@localhost/isocheck", "does not start with mysql://"},
		{"root@tcp(localhost:3306)/isocheck", "does not start with mysql://"},
		{"mysql://root@localhost", "names no database"},
		{"mysql://root@localhost/", "names no database"},
		{"mysql://root@/isocheck", "names no host"},
		{"mysql:///isocheck", "names no host"},
		{"mysql://:secret@localhost/isocheck", "empty user name"},
		{"mysql://root@localhost:port/isocheck", "bad port"},
		{"mysql://root@localhost:0/isocheck", "bad port"},
		{"mysql://root@localhost:70000/isocheck", "bad port"},
		{"mysql://root@a:1,,b:2/isocheck", "empty host"},
		{"mysql://root@::1/isocheck", "bad host"},
		{"mysql://root@:3306/isocheck", "no name"},
		{"mysql://root@localhost/isocheck?timeout=soon", "DSN parameters"},
		{"mysql://root@localhost/isocheck?a=%zz", "DSN parameters"},
		{"mysql://root:%zz@localhost/isocheck", "bad password"},
		{"mysql://root@localhost/a%2Fb", "bad database name"},
	}
	for _, tt := range bad {
		_, err := parseDSN(tt.dsn)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("parseDSN(%q) = %v, want an error saying %q", tt.dsn, err, tt.want)
		}
		if err != nil && strings.Contains(err.Error(), "secret") {
			t.Errorf("parseDSN(%q) = %v, which shows the password", tt.dsn, err)
		}
	}
}

func TestLevelRefused(t *testing.T) {
	for _, l := range []string{"snapshot", "READ COMMITTED", "strict-serializable"} {
		_, err := Open(context.Background(), db.Config{DSN: "mysql://root@127.0.0.1:1/isocheck", Level: l, Keys: 1})
		var u *db.UnsupportedLevelError
		if !errors.As(err, &u) || u.Level != l {
			t.Errorf("Open at level %q: %v, want an UnsupportedLevelError", l, err)
		}
	}
}

// TestOpenUnreachable checks that Open fails quickly, naming the host,
// when nothing listens on the port or what listens never answers within
// the DSN's timeout: before the default connect timeout could have ended
// it instead, however loaded the machine.
func TestOpenUnreachable(t *testing.T) {
	closed, silent := dbtest.Unreachable(t)
	for _, tt := range []struct {
		dsn, addr string
		within    time.Duration
	}{
		{"mysql://root@" + closed + "/isocheck", closed, connectTimeout},
		{"mysql://root@" + silent + "/isocheck?timeout=1s", silent, connectTimeout},
	} {
		start := time.Now()
		_, err := Open(context.Background(), db.Config{DSN: tt.dsn, Keys: 1})
		took := time.Since(start)
		if err == nil || !strings.Contains(err.Error(), tt.addr) {
			t.Errorf("Open(%s) = %v, want an error naming %s", tt.dsn, err, tt.addr)
		}
		if took > tt.within {
			t.Errorf("Open(%s) took %v, want at most %v", tt.dsn, took, tt.within)
		}
		t.Logf("Open(%s) after %v: %v", tt.dsn, took.Round(time.Millisecond), err)
	}
}

func TestContract(t *testing.T) {
	dsn := server.DSN(t)
	if c, err := parseDSN(dsn); err == nil && len(c.hosts) > 1 {
		// The contract expects a transaction to see what another session
		// committed before it began. A Galera node may not have applied
		// it yet (and then an UPDATE of it fails certification) unless
		// reads and updates wait for it.
		dsn = withParam(dsn, "wsrep_sync_wait=3")
	}
	dbtest.Run(t, func(t *testing.T, cfg db.Config) db.Database {
		cfg.DSN = dsn
		cfg.Table = "isocheck_contract"
		if cfg.Lists {
			cfg.Table += "_lists"
		}
		return open(t, cfg)
	})
}

// TestLevels checks that a transaction of each level's sessions runs at
// that level, as the server reports it.
func TestLevels(t *testing.T) {
	dsn := server.DSN(t)
	for _, name := range append(levelNames(), "") {
		d := open(t, db.Config{DSN: dsn, Level: name, Keys: 1, Table: "isocheck_levels"})
		want := name
		if name == "" {
			want = "repeatable-read"
		}
		if d.Level() != want {
			t.Errorf("Level() = %q at level %q, want %q", d.Level(), name, want)
		}
		for i := range len(d.hosts) {
			s, err := d.Session(dbtest.Context(t), i)
			if err != nil {
				t.Fatalf("session %d: %v", i, err)
			}
			tx, err := s.Begin(dbtest.Context(t))
			if err != nil {
				t.Fatalf("begin: %v", err)
			}
			var got string
			conn := s.(*session).conn
			err = conn.QueryRowContext(dbtest.Context(t), "SELECT @@transaction_isolation").Scan(&got)
			if isError(err, errUnknownVariable) {
				err = conn.QueryRowContext(dbtest.Context(t), "SELECT @@tx_isolation").Scan(&got)
			}
			if err != nil {
				t.Fatalf("reading the level: %v", err)
			}
			if lv, _ := findLevel(name); got != lv.server {
				t.Errorf("level %q: %s reports %s in a transaction, want %s", name, d.hosts[i], got, lv.server)
			}
			tx.Rollback(dbtest.Context(t))
			s.Close()
		}
		d.Close()
	}
}

func TestWrongShape(t *testing.T) {
	dsn := server.DSN(t)
	const table = "isocheck_shape"
	d := open(t, db.Config{DSN: dsn, Keys: 1, Table: table})
	d.Close()
	conn := rawConn(t, dsn)

	_, err := Open(dbtest.Context(t), db.Config{DSN: dsn, Keys: 1, Table: table, Lists: true})
	if err == nil || !strings.Contains(err.Error(), table) || !strings.Contains(err.Error(), "another shape") {
		t.Errorf("Open of lists on a table of registers: %v, want an error naming the table and its shape", err)
	}
	t.Logf("lists on registers: %v", err)

	for _, create := range []string{
		"CREATE TABLE " + table + " (k INT PRIMARY KEY, v BIGINT)",
		"CREATE TABLE " + table + " (k BIGINT PRIMARY KEY, v BIGINT, w INT)",
		"CREATE TABLE " + table + " (k BIGINT, v BIGINT)",
	} {
		ctx := dbtest.Context(t)
		if _, err := conn.ExecContext(ctx, "DROP TABLE "+table); err != nil {
			t.Fatal(err)
		}
		if _, err := conn.ExecContext(ctx, create); err != nil {
			t.Fatal(err)
		}
		_, err = Open(ctx, db.Config{DSN: dsn, Keys: 1, Table: table})
		if err == nil || !strings.Contains(err.Error(), table) || !strings.Contains(err.Error(), "another shape") {
			t.Errorf("Open on %s: %v, want an error naming the table and its shape", create, err)
		}
	}
	conn.ExecContext(dbtest.Context(t), "DROP TABLE "+table)
}

// TestWrongDatabase checks that Open names the host and the server's
// refusal when the database or the user does not exist.
func TestWrongDatabase(t *testing.T) {
	dsn := server.DSN(t)
	c, err := parseDSN(dsn)
	if err != nil {
		t.Fatal(err)
	}
	for _, wrong := range []string{
		"mysql://" + c.driver.User + "@" + strings.Join(c.hosts, ",") + "/isocheck_no_such_database",
		"mysql://isocheck_no_such_user:x@" + strings.Join(c.hosts, ",") + "/" + c.driver.DBName,
	} {
		start := time.Now()
		_, err := Open(dbtest.Context(t), db.Config{DSN: wrong, Keys: 1})
		if err == nil || !strings.Contains(err.Error(), c.hosts[0]) {
			t.Errorf("Open(%s) = %v, want an error naming %s", wrong, err, c.hosts[0])
		}
		t.Logf("Open(%s) after %v: %v", wrong, time.Since(start).Round(time.Millisecond), err)
	}
}

// TestDeadlock checks that a deadlock between two sessions on one host is
// an abort.
func TestDeadlock(t *testing.T) {
	d := open(t, db.Config{DSN: server.DSN(t), Keys: 2, Table: "isocheck_deadlock"})
	ctx := dbtest.Context(t)
	// Sessions 0 and n are on the same host.
	a, err := d.Session(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := d.Session(ctx, len(d.hosts))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	ta, err := a.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	tb, err := b.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := ta.Write(ctx, 0, 1); err != nil {
		t.Fatal(err)
	}
	if err := tb.Write(ctx, 1, 2); err != nil {
		t.Fatal(err)
	}
	errs := make(chan error, 2)
	go func() { errs <- ta.Write(ctx, 1, 1) }()
	time.Sleep(100 * time.Millisecond)
	go func() { errs <- tb.Write(ctx, 0, 2) }()
	// The victim's locks are released when InnoDB rolls it back: the other
	// write then succeeds.
	var aborts int
	for range 2 {
		err := <-errs
		if err == nil {
			continue
		}
		if o, reason := db.Classify(err); o != history.Aborted || reason != "deadlock" {
			t.Errorf("write: %v (%v, %q), want an abort for a deadlock", err, o, reason)
		}
		aborts++
		t.Logf("deadlock: %v", err)
	}
	if aborts != 1 {
		t.Errorf("%d writes aborted, want 1", aborts)
	}
	ta.Rollback(ctx)
	tb.Rollback(ctx)
}

// TestRecordChanged checks that MariaDB's snapshot isolation check
// (innodb_snapshot_isolation) is an abort.
func TestRecordChanged(t *testing.T) {
	dsn := withParam(server.DSN(t), "innodb_snapshot_isolation=ON")
	d, err := Open(dbtest.Context(t), db.Config{DSN: dsn, Keys: 1, Table: "isocheck_changed"})
	if isError(err, errUnknownVariable) {
		t.Skipf("the server has no snapshot isolation check: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	ctx := dbtest.Context(t)
	a, err := d.Session(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := d.Session(ctx, len(d.(*database).hosts))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	ta, _ := a.Begin(ctx)
	if _, _, err := ta.Read(ctx, 0); err != nil {
		t.Fatal(err)
	}
	tb, _ := b.Begin(ctx)
	if err := tb.Write(ctx, 0, 2); err != nil {
		t.Fatal(err)
	}
	if err := tb.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	err = ta.Write(ctx, 0, 1)
	if o, reason := db.Classify(err); o != history.Aborted || reason != "record changed" {
		t.Errorf("write of a changed record: %v (%v, %q), want an abort for a changed record", err, o, reason)
	}
	ta.Rollback(ctx)
	t.Logf("record changed: %v", err)
}

// TestGaleraLostUpdate runs two read-modify-write transactions of key 0 on
// two nodes of a Galera cluster at repeatable-read and reports whether
// both commit (a lost update) or one aborts. In the "overlapping" schedule
// both write before either commits; in the "sequential" one the second
// writes after the first committed and its node applied the commit
// (MDEV-29044).
func TestGaleraLostUpdate(t *testing.T) {
	dsn := galera.DSN(t)
	for _, schedule := range []string{"overlapping", "sequential"} {
		t.Run(schedule, func(t *testing.T) {
			d := open(t, db.Config{DSN: galera.DSN(t), Level: "repeatable-read", Keys: 1, Table: "isocheck_galera"})
			if len(d.hosts) < 2 {
				t.Skipf("%s names one host, not a cluster", dsn)
			}
			ctx := dbtest.Context(t)
			a, err := d.Session(ctx, 0) // node 1
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close()
			b, err := d.Session(ctx, 1) // node 2
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			ta, err := a.Begin(ctx)
			if err != nil {
				t.Fatal(err)
			}
			tb, err := b.Begin(ctx)
			if err != nil {
				t.Fatal(err)
			}
			for _, tx := range []db.Txn{ta, tb} {
				if _, ok, err := tx.Read(ctx, 0); err != nil || ok {
					t.Fatalf("read of key 0: ok %v, %v; want no value", ok, err)
				}
			}
			var errA, errB error
			if schedule == "overlapping" {
				errA = ta.Write(ctx, 0, 1)
				errB = tb.Write(ctx, 0, 2)
				if errA == nil {
					errA = ta.Commit(ctx)
				}
				if errB == nil {
					errB = tb.Commit(ctx)
				}
			} else {
				if errA = ta.Write(ctx, 0, 1); errA == nil {
					errA = ta.Commit(ctx)
				}
				if errA == nil {
					awaitValue(t, d, 1, 0, 1)
				}
				if errB = tb.Write(ctx, 0, 2); errB == nil {
					errB = tb.Commit(ctx)
				}
			}
			for _, err := range []error{errA, errB} {
				if o, reason := db.Classify(err); o == history.Unknown {
					t.Errorf("unknown outcome on a healthy cluster: %v", err)
				} else if o == history.Aborted && reason != "certification failure" {
					t.Errorf("abort for %q, want a deadlock or certification failure: %v", reason, err)
				}
			}
			if errA != nil {
				ta.Rollback(ctx)
			}
			if errB != nil {
				tb.Rollback(ctx)
			}
			if errA == nil && errB == nil {
				t.Logf("%s: both committed: a lost update (MDEV-29044)", schedule)
			} else {
				t.Logf("%s: node 1: %v; node 2: %v", schedule, outcome(errA), outcome(errB))
			}
		})
	}
}

func outcome(err error) string {
	if err == nil {
		return "committed"
	}
	return err.Error()
}

// awaitValue waits until session i's host sees key hold value.
func awaitValue(t *testing.T, d *database, i int, key, value int64) {
	t.Helper()
	ctx := dbtest.Context(t)
	s, err := d.Session(ctx, i)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for {
		tx, err := s.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		v, ok, err := tx.Read(ctx, key)
		tx.Rollback(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if ok && v == value {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestTableInUse checks that Open fails, rather than waits for ever, when
// another client's transaction holds the table.
func TestTableInUse(t *testing.T) {
	dsn := server.DSN(t)
	if testing.Short() {
		t.Skipf("waits %v", lockWaitTimeout)
	}
	const table = "isocheck_in_use"
	d := open(t, db.Config{DSN: dsn, Keys: 1, Table: table})
	d.Close()
	if len(d.hosts) > 1 {
		t.Skip("in a Galera cluster, Open's TRUNCATE aborts the other client's transaction rather than waiting for it")
	}
	conn := rawConn(t, dsn)
	ctx := dbtest.Context(t)
	if _, err := conn.ExecContext(ctx, "START TRANSACTION"); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(ctx, "SELECT * FROM "+table); err != nil {
		t.Fatal(err)
	}
	defer conn.ExecContext(ctx, "ROLLBACK")
	start := time.Now()
	_, err := Open(ctx, db.Config{DSN: dsn, Keys: 1, Table: table})
	if err == nil || !strings.Contains(err.Error(), "another client") {
		t.Errorf("Open of a table in use: %v, want an error saying another client holds it", err)
	}
	t.Logf("Open after %v: %v", time.Since(start).Round(time.Millisecond), err)
}
