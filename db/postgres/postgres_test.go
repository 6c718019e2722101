package postgres

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/isocheck/isocheck/db"
	"github.com/isocheck/isocheck/db/dbtest"
	"github.com/isocheck/isocheck/history"
)

// The tests use tables of their own, so that other packages' tests may use
// the same server at the same time.
const tablePrefix = "isocheck_pgtest_"

// server is the PostgreSQL server the tests run against, if any.
var server = dbtest.Server{Env: "ISOCHECK_POSTGRES_DSN", Name: "PostgreSQL server", Start: "scripts/postgres.sh start"}

// open opens a store in the test's own table on the server, and closes it
// and drops the table at the test's end.
func open(t *testing.T, cfg db.Config) db.Database {
	t.Helper()
	cfg.DSN = server.DSN(t)
	if cfg.Table == "" {
		cfg.Table = dbtest.Table(t, tablePrefix)
	}
	t.Cleanup(func() { dropTable(t, cfg.DSN, cfg.Table) })
	return dbtest.Open(t, Open, cfg)
}

// dropTable drops a test's table once its sessions are closed.
func dropTable(t *testing.T, dsn, table string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Errorf("drop table %s: %v", table, err)
		return
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "DROP TABLE IF EXISTS "+pgx.Identifier{table}.Sanitize()); err != nil {
		t.Errorf("drop table %s: %v", table, err)
	}
}

func TestContract(t *testing.T) {
	server.DSN(t)
	for _, l := range levels {
		t.Run(l.name, func(t *testing.T) {
			dbtest.Run(t, func(t *testing.T, cfg db.Config) db.Database {
				cfg.Level = l.name
				return open(t, cfg)
			})
		})
	}
}

func TestLevelRefused(t *testing.T) {
	for _, level := range []string{"read-uncommitted", "snapshot", "READ COMMITTED"} {
		_, err := Open(context.Background(), db.Config{DSN: "postgres://localhost/isocheck", Level: level})
		var u *db.UnsupportedLevelError
		if !errors.As(err, &u) || u.Level != level {
			t.Errorf("Open at %q: error %v, want an UnsupportedLevelError", level, err)
		}
	}
}

// TestServerLevel checks that Level fills in the default and that a
// session's transactions run at the level.
func TestServerLevel(t *testing.T) {
	for _, want := range []struct{ level, name, show string }{
		{"", "read-committed", "read committed"},
		{"read-committed", "read-committed", "read committed"},
		{"repeatable-read", "repeatable-read", "repeatable read"},
		{"serializable", "serializable", "serializable"},
	} {
		d := open(t, db.Config{Level: want.level, Keys: 1})
		if got := d.Level(); got != want.name {
			t.Errorf("Level() at %q = %q, want %q", want.level, got, want.name)
		}
		s, err := d.Session(dbtest.Context(t), 0)
		if err != nil {
			t.Fatal(err)
		}
		tx, err := s.Begin(dbtest.Context(t))
		if err != nil {
			t.Fatal(err)
		}
		var show string
		if err := s.(*session).conn.QueryRow(dbtest.Context(t), "SHOW transaction_isolation").Scan(&show); err != nil {
			t.Fatal(err)
		}
		if show != want.show {
			t.Errorf("a transaction at %q runs at %q, want %q", want.level, show, want.show)
		}
		if err := tx.Rollback(dbtest.Context(t)); err != nil {
			t.Fatal(err)
		}
		s.Close()
	}
}

func TestWrongShape(t *testing.T) {
	dsn := server.DSN(t)
	conn, err := pgx.Connect(dbtest.Context(t), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	for _, c := range []struct {
		create, row string
		lists       bool
		want        string
	}{
		{"(k INTEGER PRIMARY KEY, v TEXT)", "(1, NULL)", false, "columns (k integer, v text), not (k bigint, v bigint)"},
		{"(k BIGINT PRIMARY KEY, v BIGINT, w BIGINT)", "(1, NULL)", false, "columns (k bigint, v bigint, w bigint), not (k bigint, v bigint)"},
		{"(k BIGINT PRIMARY KEY, v BIGINT)", "(1, NULL)", true, "columns (k bigint, v bigint), not (k bigint, v bigint[])"},
		{"(k BIGINT PRIMARY KEY, v BIGINT[])", "(1, NULL)", false, "columns (k bigint, v bigint[]), not (k bigint, v bigint)"},
		{"(k BIGINT, v BIGINT)", "(1, NULL)", false, "primary key (), not (k)"},
		{"(k BIGINT, v BIGINT, PRIMARY KEY (k, v))", "(1, 0)", false, "primary key (k, v), not (k)"},
	} {
		table := tablePrefix + "shape"
		for _, sql := range []string{"DROP TABLE IF EXISTS " + table, "CREATE TABLE " + table + " " + c.create, "INSERT INTO " + table + " (k, v) VALUES " + c.row} {
			if _, err := conn.Exec(dbtest.Context(t), sql); err != nil {
				t.Fatalf("%s: %v", sql, err)
			}
		}
		_, err := Open(dbtest.Context(t), db.Config{DSN: dsn, Keys: 3, Lists: c.lists, Table: table})
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), table) {
			t.Errorf("Open of a table %s (lists %v): error %v, want one naming %s and %q", c.create, c.lists, err, table, c.want)
		}
		// The table is left as it was.
		var n int
		if err := conn.QueryRow(dbtest.Context(t), "SELECT count(*) FROM "+table).Scan(&n); err != nil || n != 1 {
			t.Errorf("the table holds %d rows (%v) after Open refused it, want 1", n, err)
		}
	}
	if _, err := conn.Exec(dbtest.Context(t), "DROP TABLE "+tablePrefix+"shape"); err != nil {
		t.Fatal(err)
	}
}

// TestOpenEmpties checks that Open empties a table of the right shape and
// fills every key with no value.
func TestOpenEmpties(t *testing.T) {
	d := open(t, db.Config{Keys: 5})
	s, err := d.Session(dbtest.Context(t), 0)
	if err != nil {
		t.Fatal(err)
	}
	tx, _ := s.Begin(dbtest.Context(t))
	if err := tx.Write(dbtest.Context(t), 4, 9); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(dbtest.Context(t)); err != nil {
		t.Fatal(err)
	}
	s.Close()
	d = open(t, db.Config{Keys: 5})
	s, err = d.Session(dbtest.Context(t), 0)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tx, _ = s.Begin(dbtest.Context(t))
	for k := range int64(5) {
		if v, ok, err := tx.Read(dbtest.Context(t), k); err != nil || ok {
			t.Errorf("read of key %d after Open = %d, %v, %v; want no value", k, v, ok, err)
		}
	}
	if _, _, err := tx.Read(dbtest.Context(t), 5); err == nil {
		t.Errorf("read of key 5 of 5 keys succeeded")
	}
	tx.Rollback(dbtest.Context(t))
}

// TestUnreachable checks that a wrong DSN or a server that is down fails
// Open quickly with an error that says what is wrong.
func TestUnreachable(t *testing.T) {
	for _, c := range []struct{ dsn, want string }{
		{"postgres://postgres@127.0.0.1:1/isocheck?sslmode=disable", "failed to connect to `user=postgres database=isocheck`: 127.0.0.1:1"},
		{"postgresql://postgres@127.0.0.1:1/isocheck?sslmode=disable", "connection refused"},
		{"PostgreSQL://postgres@127.0.0.1:1/isocheck?sslmode=disable", "connection refused"},
		{"mysql://root@127.0.0.1/isocheck", "not a URL postgres://"},
		{"127.0.0.1:5432", "not a URL postgres://"},
		{"postgres://postgres:secret@127.0.0.1:notaport/isocheck", "cannot parse"},
	} {
		start := time.Now()
		_, err := Open(dbtest.Context(t), db.Config{DSN: c.dsn})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Open(%q): error %v, want one with %q", c.dsn, err, c.want)
		} else if strings.Contains(err.Error(), "secret") {
			t.Errorf("Open(%q): error %v shows the password", c.dsn, err)
		}
		// Nothing listens on port 1: a hang, not a slow machine.
		if d := time.Since(start); d > time.Minute {
			t.Errorf("Open(%q) took %v", c.dsn, d)
		}
	}
}

func TestNoDatabase(t *testing.T) {
	u, err := url.Parse(server.DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/isocheck_no_such_database"
	_, err = Open(dbtest.Context(t), db.Config{DSN: u.String()})
	if err == nil || !strings.Contains(err.Error(), `database "isocheck_no_such_database" does not exist`) {
		t.Errorf("Open(%q): error %v, want one saying the database does not exist", u.Redacted(), err)
	}
}

// sessions opens n sessions of d, closed at the test's end.
func sessions(t *testing.T, d db.Database, n int) []db.Session {
	t.Helper()
	ss := make([]db.Session, n)
	for i := range ss {
		s, err := d.Session(dbtest.Context(t), i)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		ss[i] = s
	}
	return ss
}

// TestLostUpdate runs two read-modify-writes of one key at once: the second
// writes while the first holds the row, and goes on once the first commits.
// At READ COMMITTED it then updates the new row (a lost update); at
// REPEATABLE READ and SERIALIZABLE it fails with a serialization failure.
func TestLostUpdate(t *testing.T) {
	server.DSN(t)
	for _, l := range levels {
		t.Run(l.name, func(t *testing.T) {
			d := open(t, db.Config{Level: l.name, Keys: 1})
			ss := sessions(t, d, 2)
			ctx := dbtest.Context(t)
			t1, err := ss[0].Begin(ctx)
			if err != nil {
				t.Fatal(err)
			}
			t2, err := ss[1].Begin(ctx)
			if err != nil {
				t.Fatal(err)
			}
			for _, tx := range []db.Txn{t1, t2} {
				if _, ok, err := tx.Read(ctx, 0); err != nil || ok {
					t.Fatalf("read: %v, %v; want no value", ok, err)
				}
			}
			if err := t1.Write(ctx, 0, 1); err != nil {
				t.Fatal(err)
			}
			blocked := make(chan error)
			go func() { blocked <- t2.Write(ctx, 0, 2) }()
			select {
			case err := <-blocked:
				t.Fatalf("the second write did not wait for the first transaction: %v", err)
			case <-time.After(200 * time.Millisecond):
			}
			if err := t1.Commit(ctx); err != nil {
				t.Fatalf("commit of the first: %v", err)
			}
			err = <-blocked
			if err == nil {
				err = t2.Commit(ctx)
			}
			if l.name == "read-committed" {
				if err != nil {
					t.Fatalf("the second transaction: %v, want a commit (a lost update)", err)
				}
			} else {
				o, reason := db.Classify(err)
				var pgErr *pgconn.PgError
				if o != history.Aborted || reason != "serialization failure" || !errors.As(err, &pgErr) || pgErr.Code != "40001" {
					t.Fatalf("the second transaction: %v (%v, %q), want an abort with SQLSTATE 40001", err, o, reason)
				}
				t2.Rollback(ctx)
			}

			want := int64(1)
			if l.name == "read-committed" {
				want = 2
			}
			tx, err := ss[0].Begin(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if v, ok, err := tx.Read(ctx, 0); err != nil || !ok || v != want {
				t.Errorf("key 0 = %d, %v, %v; want %d", v, ok, err, want)
			}
			tx.Rollback(ctx)
		})
	}
}

// TestDeadlock has two transactions write two keys in opposite orders: the
// server's deadlock detector aborts one.
func TestDeadlock(t *testing.T) {
	d := open(t, db.Config{Keys: 2})
	ss := sessions(t, d, 2)
	ctx := dbtest.Context(t)
	t1, _ := ss[0].Begin(ctx)
	t2, _ := ss[1].Begin(ctx)
	if err := t1.Write(ctx, 0, 1); err != nil {
		t.Fatal(err)
	}
	if err := t2.Write(ctx, 1, 2); err != nil {
		t.Fatal(err)
	}
	errs := make(chan error, 2)
	go func() { errs <- t1.Write(ctx, 1, 1) }()
	go func() { errs <- t2.Write(ctx, 0, 2) }()
	var aborts, writes int
	for range 2 {
		err := <-errs
		if err == nil {
			writes++
			continue
		}
		o, reason := db.Classify(err)
		var pgErr *pgconn.PgError
		if o != history.Aborted || reason != "deadlock" || !errors.As(err, &pgErr) || pgErr.Code != "40P01" {
			t.Fatalf("write: %v (%v, %q), want an abort with SQLSTATE 40P01", err, o, reason)
		}
		aborts++
	}
	if aborts != 1 || writes != 1 {
		t.Errorf("%d deadlock aborts and %d writes, want 1 and 1", aborts, writes)
	}
	t1.Rollback(ctx)
	t2.Rollback(ctx)
}

// TestTimeout checks that a statement cut short by its context's deadline
// leaves the outcome unknown, and that the session works again after.
func TestTimeout(t *testing.T) {
	d := open(t, db.Config{Keys: 1})
	ss := sessions(t, d, 2)
	ctx := dbtest.Context(t)
	t1, _ := ss[0].Begin(ctx)
	if err := t1.Write(ctx, 0, 1); err != nil {
		t.Fatal(err)
	}
	t2, _ := ss[1].Begin(ctx)
	short, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	err := t2.Write(short, 0, 2)
	cancel()
	if o, _ := db.Classify(err); err == nil || o != history.Unknown {
		t.Fatalf("write past its deadline: %v (%v), want an unknown outcome", err, o)
	}
	t2.Rollback(ctx)
	if err := t1.Commit(ctx); err != nil {
		t.Fatal(err)
	}

	t2, err = ss[1].Begin(ctx)
	if err != nil {
		t.Fatalf("begin after a timeout: %v", err)
	}
	if v, ok, err := t2.Read(ctx, 0); err != nil || !ok || v != 1 {
		t.Errorf("read after a timeout: %d, %v, %v; want 1", v, ok, err)
	}
	if err := t2.Commit(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestAbandoned checks that a session whose transaction was left open
// without Rollback begins the next one afresh.
func TestAbandoned(t *testing.T) {
	d := open(t, db.Config{Keys: 1})
	s := sessions(t, d, 1)[0]
	ctx := dbtest.Context(t)
	tx, _ := s.Begin(ctx)
	if err := tx.Write(ctx, 0, 1); err != nil {
		t.Fatal(err)
	}
	tx, err := s.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if v, ok, err := tx.Read(ctx, 0); err != nil || ok {
		t.Errorf("read after an abandoned write: %d, %v, %v; want no value", v, ok, err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestClassify(t *testing.T) {
	for _, c := range []struct {
		err    error
		o      history.Status
		reason string
	}{
		{&pgconn.PgError{Code: "40001"}, history.Aborted, "serialization failure"},
		{&pgconn.PgError{Code: "40P01"}, history.Aborted, "deadlock"},
		{&pgconn.PgError{Code: "23505"}, history.Aborted, "duplicate key"},
		{&pgconn.PgError{Code: "25006"}, history.Aborted, "read-only replica"},
		{&pgconn.PgError{Code: "40003"}, history.Unknown, ""}, // statement_completion_unknown
		{&pgconn.PgError{Code: "57P01"}, history.Unknown, ""}, // admin_shutdown
		{context.DeadlineExceeded, history.Unknown, ""},
		{errors.New("conn closed"), history.Unknown, ""},
	} {
		err := classify("commit", c.err)
		if o, reason := db.Classify(err); o != c.o || reason != c.reason {
			t.Errorf("classify(%v) = %v, %q; want %v, %q", c.err, o, reason, c.o, c.reason)
		}
		if !errors.Is(err, c.err) {
			t.Errorf("classify(%v) = %v, which does not wrap it", c.err, err)
		}
	}
}
