package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/isocheck/isocheck/db"
	"github.com/isocheck/isocheck/db/dbtest"
	"github.com/isocheck/isocheck/history"
)

func opener(dsn func(t *testing.T) string) dbtest.Opener {
	return func(t *testing.T, cfg db.Config) db.Database {
		t.Helper()
		cfg.DSN = dsn(t)
		return dbtest.Open(t, Open, cfg)
	}
}

func fileDSN(t *testing.T) string {
	return "sqlite://" + filepath.Join(t.TempDir(), "test.db")
}

func TestContract(t *testing.T) {
	for _, tc := range []struct {
		name string
		dsn  func(t *testing.T) string
	}{
		{"file", fileDSN},
		{"memory", func(*testing.T) string { return "sqlite::memory:" }},
		{"immediate", func(t *testing.T) string { return fileDSN(t) + "?begin=immediate" }},
	} {
		t.Run(tc.name, func(t *testing.T) { dbtest.Run(t, opener(tc.dsn)) })
	}
}

func TestLevels(t *testing.T) {
	for _, tc := range []struct {
		level, want string // want "" means refused
	}{
		{"", Serializable},
		{"serializable", Serializable},
		{"snapshot", ""},
		{"read-committed", ""},
		{"repeatable-read", ""},
		{"SERIALIZABLE", ""},
	} {
		d, err := Open(context.Background(), db.Config{DSN: "sqlite::memory:", Level: tc.level, Keys: 1})
		if tc.want == "" {
			var u *db.UnsupportedLevelError
			if !errors.As(err, &u) {
				t.Errorf("level %q: err = %v, want *db.UnsupportedLevelError", tc.level, err)
			}
			if d != nil {
				d.Close()
			}
			continue
		}
		if err != nil {
			t.Errorf("level %q: %v", tc.level, err)
			continue
		}
		if got := d.Level(); got != tc.want {
			t.Errorf("level %q: Level() = %q, want %q", tc.level, got, tc.want)
		}
		d.Close()
	}
}

func TestBadDSN(t *testing.T) {
	for _, tc := range []struct {
		dsn, want string
	}{
		{"postgres://localhost/x", "does not start with sqlite://"},
		{"sqlite:foo.db", "want sqlite://PATH"},
		{"sqlite://", "names no file"},
		{"sqlite://?busy_timeout=1s", "names no file"},
		{"sqlite::memory:?busy_timeout=soon", "busy_timeout"},
		{"sqlite::memory:?begin=exclusive", "begin="},
		{"sqlite::memory:?cache=shared", `unknown parameter "cache"`},
		{"sqlite://" + filepath.Join(os.DevNull, "x", "y.db"), "sqlite:"},
	} {
		d, err := Open(context.Background(), db.Config{DSN: tc.dsn, Keys: 1})
		if err == nil {
			d.Close()
			t.Errorf("Open(%q) succeeded", tc.dsn)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Open(%q) = %v, want an error containing %q", tc.dsn, err, tc.want)
		}
	}
}

func TestDSNPaths(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	for _, tc := range []struct {
		dsn, file string
	}{
		{"sqlite://rel.db", filepath.Join(dir, "rel.db")},
		{"sqlite://" + filepath.Join(dir, "abs.db"), filepath.Join(dir, "abs.db")},
		{"sqlite://./sub.db?busy_timeout=100ms", filepath.Join(dir, "sub.db")},
		{"SQLite://upper.db", filepath.Join(dir, "upper.db")},
		{"sqlite://file:uri.db", filepath.Join(dir, "file:uri.db")},
	} {
		d, err := Open(context.Background(), db.Config{DSN: tc.dsn, Keys: 1})
		if err != nil {
			t.Errorf("Open(%q): %v", tc.dsn, err)
			continue
		}
		d.Close()
		if _, err := os.Stat(tc.file); err != nil {
			t.Errorf("Open(%q) made no %s: %v", tc.dsn, tc.file, err)
		}
	}
}

func TestMemoryRemoved(t *testing.T) {
	d := dbtest.Open(t, Open, db.Config{DSN: "sqlite::memory:", Keys: 1})
	dir := d.(*database).tempDir
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("private database directory: %v", err)
	}
	if err := d.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s still exists after Close (%v)", dir, err)
	}
}

// TestTableShape refuses existing tables of another shape and accepts (and
// empties) one of the right shape.
func TestTableShape(t *testing.T) {
	for _, tc := range []struct {
		name   string
		create string
		lists  bool
		want   string // "" means accepted
	}{
		{"registers", "CREATE TABLE isocheck (k INTEGER PRIMARY KEY, v INTEGER)", false, ""},
		{"lists", "CREATE TABLE isocheck (k INTEGER PRIMARY KEY, v TEXT)", true, ""},
		{"lists as registers", "CREATE TABLE isocheck (k INTEGER PRIMARY KEY, v TEXT)", false,
			`table "isocheck" exists with columns (k INTEGER PRIMARY KEY, v TEXT), want (k INTEGER PRIMARY KEY, v INTEGER) for registers`},
		{"registers as lists", "CREATE TABLE isocheck (k INTEGER PRIMARY KEY, v INTEGER)", true, "want (k INTEGER PRIMARY KEY, v TEXT) for lists"},
		{"no primary key", "CREATE TABLE isocheck (k INTEGER, v INTEGER)", false, "columns (k INTEGER, v INTEGER)"},
		{"extra column", "CREATE TABLE isocheck (k INTEGER PRIMARY KEY, v INTEGER, w TEXT)", false, "w TEXT"},
		{"other names", "CREATE TABLE isocheck (key INTEGER PRIMARY KEY, value INTEGER)", false, "key INTEGER PRIMARY KEY"},
		{"view", "CREATE VIEW isocheck AS SELECT 1 AS k, 2 AS v", false, `"isocheck" is a view`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "shape.db")
			raw, err := sql.Open("sqlite", path)
			if err != nil {
				t.Fatal(err)
			}
			defer raw.Close()
			if _, err := raw.Exec(tc.create); err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(tc.create, "CREATE VIEW") {
				if _, err := raw.Exec("INSERT INTO isocheck VALUES (0, 5" + strings.Repeat(", 6", strings.Count(tc.create, ",")-1) + ")"); err != nil {
					t.Fatal(err)
				}
			}
			d, err := Open(context.Background(), db.Config{DSN: "sqlite://" + path, Keys: 1, Lists: tc.lists, Table: "isocheck"})
			if tc.want != "" {
				if err == nil {
					d.Close()
					t.Fatalf("Open accepted %s", tc.create)
				}
				if !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("Open = %v, want an error containing %q", err, tc.want)
				}
				return
			}
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			defer d.Close()
			var n int
			if err := raw.QueryRow("SELECT count(*) FROM isocheck").Scan(&n); err != nil || n != 0 {
				t.Errorf("table holds %d rows after Open (%v), want 0", n, err)
			}
		})
	}
}

func TestTableName(t *testing.T) {
	path := filepath.Join(t.TempDir(), "names.db")
	for _, name := range []string{"other", `odd "name"`} {
		d := dbtest.Open(t, Open, db.Config{DSN: "sqlite://" + path, Keys: 2, Table: name})
		s, err := d.Session(context.Background(), 0)
		if err != nil {
			t.Fatal(err)
		}
		tx, err := s.Begin(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if err := tx.Write(context.Background(), 1, 42); err != nil {
			t.Fatalf("table %q: write: %v", name, err)
		}
		if err := tx.Commit(context.Background()); err != nil {
			t.Fatalf("table %q: commit: %v", name, err)
		}
		s.Close()
		d.Close()
	}
}

func TestKeyRange(t *testing.T) {
	d := dbtest.Open(t, Open, db.Config{DSN: "sqlite::memory:", Keys: 3})
	s, err := d.Session(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tx, err := s.Begin(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(context.Background())
	for _, k := range []int64{-1, 3} {
		if err := tx.Write(context.Background(), k, 1); err == nil {
			t.Errorf("write of key %d succeeded", k)
		} else if dbtest.IsAbort(err) {
			t.Errorf("write of key %d: %v is an abort, want a plain error", k, err)
		}
	}
}

// TestValues: registers and lists keep every int64.
func TestValues(t *testing.T) {
	ctx := context.Background()
	values := []int64{math.MinInt64, -1, 0, 1, math.MaxInt64}
	for _, lists := range []bool{false, true} {
		d := dbtest.Open(t, Open, db.Config{DSN: "sqlite::memory:", Keys: len(values), Lists: lists})
		s := sessions(t, d, 1)[0]
		tx := begin(t, s)
		for k, v := range values {
			var err error
			if lists {
				err = tx.Append(ctx, 0, v)
			} else {
				err = tx.Write(ctx, int64(k), v)
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		if err := tx.Commit(ctx); err != nil {
			t.Fatal(err)
		}
		tx = begin(t, s)
		if lists {
			if l, err := tx.ReadList(ctx, 0); err != nil || !slices.Equal(l, values) {
				t.Errorf("list = %v, %v; want %v", l, err, values)
			}
		} else {
			for k, want := range values {
				if v, ok, err := tx.Read(ctx, int64(k)); err != nil || !ok || v != want {
					t.Errorf("read %d = %d, %v, %v; want %d", k, v, ok, err, want)
				}
			}
		}
		tx.Commit(ctx)
	}
}

// sessions opens n sessions of d.
func sessions(t *testing.T, d db.Database, n int) []db.Session {
	t.Helper()
	var ss []db.Session
	for i := range n {
		s, err := d.Session(context.Background(), i)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		ss = append(ss, s)
	}
	return ss
}

func begin(t *testing.T, s db.Session) db.Txn {
	t.Helper()
	tx, err := s.Begin(context.Background())
	if err != nil {
		t.Fatalf("begin: %v", err)
	}
	return tx
}

// wantAbort fails unless err is an abort for reason.
func wantAbort(t *testing.T, what string, err error, reason string) {
	t.Helper()
	o, r := db.Classify(err)
	if o != history.Aborted || r != reason {
		t.Errorf("%s: %v classified %v (%q), want aborted (%q)", what, err, o, r, reason)
	}
}

// TestBusySnapshot: a deferred transaction that read, then finds that
// another transaction committed since, cannot write: it aborts, so the
// value it read never meets a conflicting commit.
func TestBusySnapshot(t *testing.T) {
	ctx := context.Background()
	d := dbtest.Open(t, Open, db.Config{DSN: fileDSN(t), Keys: 2})
	ss := sessions(t, d, 2)

	a := begin(t, ss[0])
	if _, ok, err := a.Read(ctx, 0); err != nil || ok {
		t.Fatalf("read: %v, %v", ok, err)
	}
	b := begin(t, ss[1])
	if err := b.Write(ctx, 0, 1); err != nil {
		t.Fatal(err)
	}
	if err := b.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	// a still reads its snapshot, and may not write.
	if _, ok, err := a.Read(ctx, 0); err != nil || ok {
		t.Fatalf("second read: %v, %v; want the snapshot's no value", ok, err)
	}
	wantAbort(t, "write after a stale read", a.Write(ctx, 1, 2), "busy snapshot")
	if err := a.Rollback(ctx); err != nil {
		t.Errorf("rollback: %v", err)
	}
	// The session is usable again, and the aborted write did not happen.
	c := begin(t, ss[0])
	if _, ok, err := c.Read(ctx, 1); err != nil || ok {
		t.Errorf("read of the aborted write: %v, %v", ok, err)
	}
	if err := c.Commit(ctx); err != nil {
		t.Error(err)
	}
}

// TestBusy: while one transaction writes, another that read and then
// writes is refused at once, and with begin=immediate a second BEGIN waits
// out the busy timeout and aborts.
func TestBusy(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name, params string
		reader       bool // whether the second transaction begins
	}{
		{"deferred", "?busy_timeout=50ms", true},
		{"immediate", "?busy_timeout=50ms&begin=immediate", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := dbtest.Open(t, Open, db.Config{DSN: fileDSN(t) + tc.params, Keys: 2})
			ss := sessions(t, d, 2)
			a := begin(t, ss[0])
			if err := a.Write(ctx, 0, 1); err != nil {
				t.Fatal(err)
			}
			if tc.reader {
				b := begin(t, ss[1])
				if _, _, err := b.Read(ctx, 1); err != nil {
					t.Fatal(err)
				}
				wantAbort(t, "write while another writes", b.Write(ctx, 1, 2), "busy")
				b.Rollback(ctx)
			} else {
				start := time.Now()
				_, err := ss[1].Begin(ctx)
				wantAbort(t, "begin while another writes", err, "busy")
				if el := time.Since(start); el < 40*time.Millisecond {
					t.Errorf("begin gave up after %v, before the busy timeout", el)
				}
			}
			if err := a.Commit(ctx); err != nil {
				t.Fatalf("commit of the writer: %v", err)
			}
			// The second session works once the lock is free.
			b := begin(t, ss[1])
			if v, ok, err := b.Read(ctx, 0); err != nil || !ok || v != 1 {
				t.Errorf("read = %d, %v, %v; want 1", v, ok, err)
			}
			if err := b.Write(ctx, 1, 3); err != nil {
				t.Errorf("write: %v", err)
			}
			if err := b.Commit(ctx); err != nil {
				t.Errorf("commit: %v", err)
			}
		})
	}
}

// TestUnknown: a cancelled context and a closed database leave outcomes
// unknown.
func TestUnknown(t *testing.T) {
	d := dbtest.Open(t, Open, db.Config{DSN: fileDSN(t), Keys: 2})
	ss := sessions(t, d, 1)
	tx := begin(t, ss[0])
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := tx.Read(cancelled, 0); err == nil {
		t.Error("read with a cancelled context succeeded")
	} else if o, _ := db.Classify(err); o != history.Unknown {
		t.Errorf("read with a cancelled context: %v classified %v, want unknown", err, o)
	}
	if err := tx.Write(context.Background(), 0, 1); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(cancelled); err == nil {
		t.Error("commit with a cancelled context succeeded")
	} else if o, _ := db.Classify(err); o != history.Unknown {
		t.Errorf("commit with a cancelled context: %v classified %v, want unknown", err, o)
	}
	tx.Rollback(context.Background())

	ss[0].Close()
	d.Close()
	if _, err := ss[0].Begin(context.Background()); err == nil {
		t.Error("begin on a closed database succeeded")
	} else if o, _ := db.Classify(err); o != history.Unknown {
		t.Errorf("begin on a closed database: %v classified %v, want unknown", err, o)
	}
}

// TestCloseInTransaction: a session closed in the middle of a transaction
// (as the runner does after an unknown commit) leaves no transaction, and
// no lock, behind.
func TestCloseInTransaction(t *testing.T) {
	ctx := context.Background()
	d := dbtest.Open(t, Open, db.Config{DSN: fileDSN(t) + "?busy_timeout=100ms", Keys: 2})
	for range 3 {
		s, err := d.Session(ctx, 0)
		if err != nil {
			t.Fatal(err)
		}
		tx := begin(t, s)
		if err := tx.Write(ctx, 0, 1); err != nil {
			t.Fatal(err)
		}
		cancelled, cancel := context.WithCancel(ctx)
		cancel()
		if err := tx.Commit(cancelled); err == nil {
			t.Fatal("commit with a cancelled context succeeded")
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
	s := sessions(t, d, 1)[0]
	tx := begin(t, s)
	if err := tx.Write(ctx, 0, 2); err != nil {
		t.Fatalf("write after sessions closed in transactions: %v", err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatalf("commit after sessions closed in transactions: %v", err)
	}
}

// TestOpenEmpties: Open empties a table written before.
func TestOpenEmpties(t *testing.T) {
	ctx := context.Background()
	cfg := db.Config{DSN: fileDSN(t), Keys: 2}
	for round := range 2 {
		d := dbtest.Open(t, Open, cfg)
		s := sessions(t, d, 1)[0]
		tx := begin(t, s)
		if v, ok, err := tx.Read(ctx, 0); err != nil || ok {
			t.Fatalf("round %d: read = %d, %v, %v; want no value", round, v, ok, err)
		}
		if err := tx.Write(ctx, 0, 7); err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(ctx); err != nil {
			t.Fatal(err)
		}
		s.Close()
		d.Close()
	}
}

func ExampleOpen() {
	ctx := context.Background()
	d, err := Open(ctx, db.Config{DSN: "sqlite::memory:", Keys: 4})
	if err != nil {
		log.Fatal(err)
	}
	defer d.Close()
	s, err := d.Session(ctx, 0)
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	tx, err := s.Begin(ctx)
	if err != nil {
		log.Fatal(err)
	}
	if err := tx.Write(ctx, 1, 10); err != nil {
		log.Fatal(err)
	}
	v, ok, err := tx.Read(ctx, 1)
	if err != nil {
		log.Fatal(err)
	}
	if err := tx.Commit(ctx); err != nil {
		log.Fatal(err)
	}
	fmt.Println(d.Level(), v, ok)
	// Output: serializable 10 true
}

// TestNoLostUpdate runs concurrent increments: every committed transaction
// read the value it overwrote, so the final value counts the commits, and
// every failure is an abort.
func TestNoLostUpdate(t *testing.T) {
	for _, params := range []string{"", "?begin=immediate"} {
		t.Run("begin"+params, func(t *testing.T) {
			ctx := context.Background()
			d := dbtest.Open(t, Open, db.Config{DSN: fileDSN(t) + params, Keys: 1})
			const n, rounds = 8, 50
			ss := sessions(t, d, n)
			commits := make(chan int, n)
			for _, s := range ss {
				go func() {
					c := 0
					for range rounds {
						err := increment(ctx, s)
						if o, _ := db.Classify(err); o == history.Committed {
							c++
						} else if o == history.Unknown {
							t.Errorf("increment: unknown outcome: %v", err)
						}
					}
					commits <- c
				}()
			}
			total := 0
			for range n {
				total += <-commits
			}
			tx := begin(t, ss[0])
			v, _, err := tx.Read(ctx, 0)
			if err != nil {
				t.Fatal(err)
			}
			tx.Commit(ctx)
			if v != int64(total) {
				t.Errorf("counter = %d after %d committed increments", v, total)
			}
			t.Logf("%d of %d increments committed", total, n*rounds)
		})
	}
}

func increment(ctx context.Context, s db.Session) (err error) {
	tx, err := s.Begin(ctx)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tx.Rollback(ctx)
		}
	}()
	v, _, err := tx.Read(ctx, 0)
	if err != nil {
		return err
	}
	if err := tx.Write(ctx, 0, v+1); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// BenchmarkTxn measures a transaction of a read and a write on one
// session.
func BenchmarkTxn(b *testing.B) {
	ctx := context.Background()
	d, err := Open(ctx, db.Config{DSN: "sqlite::memory:", Keys: 100})
	if err != nil {
		b.Fatal(err)
	}
	defer d.Close()
	s, err := d.Session(ctx, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	for i := range b.N {
		tx, err := s.Begin(ctx)
		if err != nil {
			b.Fatal(err)
		}
		k := int64(i % 100)
		if _, _, err := tx.Read(ctx, k); err != nil {
			b.Fatal(err)
		}
		if err := tx.Write(ctx, k, int64(i)); err != nil {
			b.Fatal(err)
		}
		if err := tx.Commit(ctx); err != nil {
			b.Fatal(err)
		}
	}
}
