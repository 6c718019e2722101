// Package dbtest tests database adapters: Run checks that an adapter
// keeps the contract of package db (values round-trip, commits are visible
// and rollbacks are not, lists append in order, and conflicts are
// classified as aborts), and the helpers here are the setup the adapters'
// own tests share: the server a test runs against (or skips without), a
// table of its own on that server, and a store opened for the test and
// closed after it.
package dbtest

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/isocheck/isocheck/db"
	"github.com/isocheck/isocheck/history"
)

// Opener opens a fresh, empty store of the given shape; the test closes it.
// Tests of adapters that share a server should set cfg.Table to a table of
// their own.
type Opener func(t *testing.T, cfg db.Config) db.Database

// Run runs the contract tests on the adapter open opens. Keys 0 to 9 are
// used.
func Run(t *testing.T, open Opener) {
	t.Run("Registers", func(t *testing.T) { registers(t, open) })
	t.Run("Lists", func(t *testing.T) { lists(t, open) })
	t.Run("Concurrent", func(t *testing.T) { concurrent(t, open) })
}

func session(t *testing.T, d db.Database, i int) db.Session {
	t.Helper()
	s, err := d.Session(Context(t), i)
	if err != nil {
		t.Fatalf("session %d: %v", i, err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func begin(t *testing.T, s db.Session) db.Txn {
	t.Helper()
	tx, err := s.Begin(Context(t))
	if err != nil {
		t.Fatalf("begin: %v", err)
	}
	return tx
}

func read(t *testing.T, tx db.Txn, k int64) (int64, bool) {
	t.Helper()
	v, ok, err := tx.Read(Context(t), k)
	if err != nil {
		t.Fatalf("read %d: %v", k, err)
	}
	return v, ok
}

func commit(t *testing.T, tx db.Txn) {
	t.Helper()
	if err := tx.Commit(Context(t)); err != nil {
		t.Fatalf("commit: %v", err)
	}
}

func registers(t *testing.T, open Opener) {
	d := open(t, db.Config{Keys: 10})
	t.Cleanup(func() { d.Close() })
	if d.Level() == "" {
		t.Error("Level() is empty")
	}
	a, b := session(t, d, 0), session(t, d, 1)

	tx := begin(t, a)
	if v, ok := read(t, tx, 3); ok {
		t.Fatalf("read of an unwritten key = %d, want no value", v)
	}
	if err := tx.Write(Context(t), 3, 1_000_001); err != nil {
		t.Fatalf("write: %v", err)
	}
	if v, ok := read(t, tx, 3); !ok || v != 1_000_001 {
		t.Fatalf("read of own write = %d, %v; want 1000001", v, ok)
	}
	commit(t, tx)

	tx = begin(t, b)
	if v, ok := read(t, tx, 3); !ok || v != 1_000_001 {
		t.Fatalf("another session read %d, %v after the commit; want 1000001", v, ok)
	}
	// Large values survive.
	if err := tx.Write(Context(t), 4, 1<<62+5); err != nil {
		t.Fatalf("write: %v", err)
	}
	commit(t, tx)

	tx = begin(t, a)
	if err := tx.Write(Context(t), 3, 2_000_001); err != nil {
		t.Fatalf("write: %v", err)
	}
	if err := tx.Rollback(Context(t)); err != nil {
		t.Fatalf("rollback: %v", err)
	}
	tx = begin(t, b)
	if v, ok := read(t, tx, 3); !ok || v != 1_000_001 {
		t.Fatalf("read %d, %v after a rolled back write; want 1000001", v, ok)
	}
	if v, ok := read(t, tx, 4); !ok || v != 1<<62+5 {
		t.Fatalf("read %d, %v; want 2^62+5", v, ok)
	}
	commit(t, tx)
}

func lists(t *testing.T, open Opener) {
	d := open(t, db.Config{Keys: 10, Lists: true})
	t.Cleanup(func() { d.Close() })
	a, b := session(t, d, 0), session(t, d, 1)
	readList := func(tx db.Txn, k int64) []int64 {
		t.Helper()
		l, err := tx.ReadList(Context(t), k)
		if err != nil {
			t.Fatalf("read list %d: %v", k, err)
		}
		return l
	}
	appendTo := func(tx db.Txn, k, v int64) {
		t.Helper()
		if err := tx.Append(Context(t), k, v); err != nil {
			t.Fatalf("append %d to %d: %v", v, k, err)
		}
	}

	tx := begin(t, a)
	if l := readList(tx, 2); len(l) != 0 {
		t.Fatalf("new list = %v, want empty", l)
	}
	appendTo(tx, 2, 7)
	appendTo(tx, 2, 1<<40)
	if l := readList(tx, 2); !slices.Equal(l, []int64{7, 1 << 40}) {
		t.Fatalf("own appends read as %v", l)
	}
	commit(t, tx)

	tx = begin(t, b)
	appendTo(tx, 2, 9)
	commit(t, tx)
	tx = begin(t, a)
	appendTo(tx, 2, 11)
	if err := tx.Rollback(Context(t)); err != nil {
		t.Fatalf("rollback: %v", err)
	}
	tx = begin(t, a)
	if l := readList(tx, 2); !slices.Equal(l, []int64{7, 1 << 40, 9}) {
		t.Fatalf("list = %v, want [7 2^40 9]", l)
	}
	commit(t, tx)
}

// concurrent runs read-modify-write transactions on one key from several
// sessions at once and checks that every failure is classified: aborts
// with a reason, and no unknown outcome on a healthy database. Whether
// updates are lost depends on the level; the adapters' own tests and the
// end-to-end checks decide that.
func concurrent(t *testing.T, open Opener) {
	d := open(t, db.Config{Keys: 10})
	t.Cleanup(func() { d.Close() })
	const sessions, rounds = 4, 20
	var mu sync.Mutex
	outcomes := map[history.Status]int{}
	var wg sync.WaitGroup
	for i := range sessions {
		s := session(t, d, i)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range rounds {
				c, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				err := rmw(c, s, int64((i+1)*1000+r))
				cancel()
				o, reason := db.Classify(err)
				if o == history.Aborted && reason == "" {
					t.Errorf("abort without a reason: %v", err)
				}
				if o == history.Unknown {
					t.Errorf("unknown outcome on a healthy database: %v", err)
				}
				mu.Lock()
				outcomes[o]++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if outcomes[history.Committed] == 0 {
		t.Errorf("no transaction committed: %v", outcomes)
	}
	t.Logf("outcomes: %v", outcomes)
}

func rmw(c context.Context, s db.Session, v int64) (err error) {
	tx, err := s.Begin(c)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tx.Rollback(context.Background())
		}
	}()
	if _, _, err := tx.Read(c, 0); err != nil {
		return err
	}
	if err := tx.Write(c, 0, v); err != nil {
		return err
	}
	return tx.Commit(c)
}

// IsAbort reports whether err was classified as an abort.
func IsAbort(err error) bool {
	var a *db.AbortError
	return errors.As(err, &a)
}
