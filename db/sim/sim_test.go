package sim

import (
	"context"
	"errors"
	"fmt"
	"log"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/isocheck/isocheck/db"
	"github.com/isocheck/isocheck/db/dbtest"
	"github.com/isocheck/isocheck/history"
)

func TestContract(t *testing.T) {
	for _, store := range []string{"ser", "si", "rc"} {
		t.Run(store, func(t *testing.T) {
			dbtest.Run(t, func(t *testing.T, cfg db.Config) db.Database {
				cfg.DSN = "sim://" + store
				return dbtest.Open(t, Open, cfg)
			})
		})
	}
}

func TestLevels(t *testing.T) {
	for _, tc := range []struct {
		dsn, level, want string // want "" means refused
	}{
		{"sim://ser", "", "serializable"},
		{"sim://ser", "serializable", "serializable"},
		{"sim://ser", "snapshot", ""},
		{"sim://si", "", "snapshot"},
		{"sim://si", "snapshot", "snapshot"},
		{"sim://si", "serializable", ""},
		{"sim://rc", "", "read-committed"},
		{"sim://rc", "read-committed", "read-committed"},
		{"sim://rc", "repeatable-read", ""},
		{"sim://si?fault=lost-update", "", "snapshot"},
		{"sim://ser?fault=stale-read", "serializable", "serializable"},
	} {
		d, err := Open(context.Background(), db.Config{DSN: tc.dsn, Level: tc.level, Keys: 1})
		if tc.want == "" {
			var u *db.UnsupportedLevelError
			if !errors.As(err, &u) {
				t.Errorf("%s at %q: err = %v, want *db.UnsupportedLevelError", tc.dsn, tc.level, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s at %q: %v", tc.dsn, tc.level, err)
			continue
		}
		if got := d.Level(); got != tc.want {
			t.Errorf("%s at %q: Level() = %q, want %q", tc.dsn, tc.level, got, tc.want)
		}
		d.Close()
	}
}

func TestBadDSN(t *testing.T) {
	for _, tc := range []struct {
		dsn, want string
	}{
		{"sqlite::memory:", "want sim://STORE"},
		{"sim:si", "want sim://STORE"},
		{"sim://", `unknown store ""`},
		{"sim://pl2", `unknown store "pl2", want one of rc, ser, si`},
		{"sim://si/x", "unexpected path"},
		{"sim://si?fault=typo", `unknown fault "typo", want one of dirty-read, fractured-read, lost-update, stale-read`},
		{"sim://ser?fault=lost-update", "fault lost-update applies to store si, not ser"},
		{"sim://si?fault=stale-read", "applies to store ser"},
		{"sim://rc?fault=dirty-read&p=2", "not a probability"},
		{"sim://rc?fault=dirty-read&p=x", "not a probability"},
		{"sim://rc?seed=-1", "seed"},
		{"sim://rc?faults=dirty-read", `unknown parameter "faults" (known: fault, p, seed, down-after)`},
		{"sim://rc?down-after=0", "down-after"},
		{"sim://rc?down-after=x", "down-after"},
		{"sim://rc?%zz", "sim: DSN"},
	} {
		_, err := Open(context.Background(), db.Config{DSN: tc.dsn, Keys: 1})
		if err == nil {
			t.Errorf("Open(%q) succeeded", tc.dsn)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Open(%q) = %v, want an error containing %q", tc.dsn, err, tc.want)
		}
	}
}

func bg() context.Context { return context.Background() }

func sessions(t *testing.T, d db.Database, n int) []db.Session {
	t.Helper()
	var ss []db.Session
	for i := range n {
		s, err := d.Session(bg(), i)
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
	tx, err := s.Begin(bg())
	if err != nil {
		t.Fatalf("begin: %v", err)
	}
	return tx
}

func read(t *testing.T, tx db.Txn, k int64) (int64, bool) {
	t.Helper()
	v, ok, err := tx.Read(bg(), k)
	if err != nil {
		t.Fatalf("read %d: %v", k, err)
	}
	return v, ok
}

func put(t *testing.T, tx db.Txn, k, v int64) {
	t.Helper()
	if err := tx.Write(bg(), k, v); err != nil {
		t.Fatalf("write %d: %v", k, err)
	}
}

func commit(t *testing.T, tx db.Txn) {
	t.Helper()
	if err := tx.Commit(bg()); err != nil {
		t.Fatalf("commit: %v", err)
	}
}

func TestKeysAndKinds(t *testing.T) {
	for _, store := range []string{"ser", "si", "rc"} {
		d := dbtest.Open(t, Open, db.Config{DSN: "sim://" + store, Keys: 3})
		tx := begin(t, sessions(t, d, 1)[0])
		for _, k := range []int64{-1, 3} {
			if err := tx.Write(bg(), k, 1); err == nil || dbtest.IsAbort(err) {
				t.Errorf("%s: write of key %d: %v, want a plain error", store, k, err)
			}
		}
		if err := tx.Append(bg(), 0, 1); err == nil {
			t.Errorf("%s: Append to registers succeeded", store)
		}
		if _, err := tx.ReadList(bg(), 0); err == nil {
			t.Errorf("%s: ReadList of registers succeeded", store)
		}
		tx.Rollback(bg())
	}
}

// TestSerWaits: a ser transaction waits for the one in progress, and a
// waiting Begin gives up when its context ends.
func TestSerWaits(t *testing.T) {
	d := dbtest.Open(t, Open, db.Config{DSN: "sim://ser", Keys: 2})
	ss := sessions(t, d, 2)
	a := begin(t, ss[0])
	ctx, cancel := context.WithTimeout(bg(), 20*time.Millisecond)
	defer cancel()
	if _, err := ss[1].Begin(ctx); err == nil {
		t.Fatal("a second transaction began while the first runs")
	} else if o, _ := db.Classify(err); o != history.Unknown || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("begin: %v classified %v, want unknown with the context's error", err, o)
	}
	began := make(chan db.Txn)
	go func() {
		tx, err := ss[1].Begin(bg())
		if err != nil {
			t.Error(err)
		}
		began <- tx
	}()
	put(t, a, 0, 1)
	select {
	case <-began:
		t.Fatal("a second transaction began while the first runs")
	case <-time.After(10 * time.Millisecond):
	}
	commit(t, a)
	b := <-began
	if v, ok := read(t, b, 0); !ok || v != 1 {
		t.Errorf("read %d, %v; want 1", v, ok)
	}
	b.Rollback(bg())
	// Closing a session ends its transaction.
	begin(t, ss[0])
	ss[0].Close()
	begin(t, ss[1]).Rollback(bg())
}

// TestSnapshot: si reads the snapshot of its beginning, and the first
// committer wins.
func TestSnapshot(t *testing.T) {
	d := dbtest.Open(t, Open, db.Config{DSN: "sim://si", Keys: 2})
	ss := sessions(t, d, 3)
	a, b := begin(t, ss[0]), begin(t, ss[1])
	read(t, a, 0)
	read(t, b, 0)
	put(t, a, 0, 1)
	put(t, b, 0, 2)
	commit(t, a)
	c := begin(t, ss[2])
	if v, ok := read(t, b, 0); !ok || v != 2 {
		t.Errorf("read of own write = %d, %v; want 2", v, ok)
	}
	err := b.Commit(bg())
	if o, r := db.Classify(err); o != history.Aborted || r != "write conflict" {
		t.Errorf("second committer: %v classified %v (%q), want aborted (write conflict)", err, o, r)
	}
	if v, ok := read(t, c, 0); !ok || v != 1 {
		t.Errorf("c read %d, %v; want 1", v, ok)
	}
	a = begin(t, ss[0])
	put(t, a, 0, 3)
	commit(t, a)
	if v, ok := read(t, c, 0); !ok || v != 1 {
		t.Errorf("c read %d, %v after a later commit; want its snapshot's 1", v, ok)
	}
	commit(t, c)
}

// TestReadCommitted: rc reads the latest commit each time, and does not
// check conflicts.
func TestReadCommitted(t *testing.T) {
	d := dbtest.Open(t, Open, db.Config{DSN: "sim://rc", Keys: 2})
	ss := sessions(t, d, 2)
	a, b := begin(t, ss[0]), begin(t, ss[1])
	if _, ok := read(t, a, 0); ok {
		t.Fatal("read a value of an empty store")
	}
	put(t, b, 0, 1)
	if _, ok := read(t, a, 0); ok {
		t.Fatal("read an uncommitted write")
	}
	err := a.Write(bg(), 0, 2)
	if o, r := db.Classify(err); o != history.Aborted || r != "write conflict" {
		t.Errorf("write of a key another transaction wrote: %v classified %v (%q), want aborted (write conflict)", err, o, r)
	}
	a.Rollback(bg())
	a = begin(t, ss[0])
	if _, ok := read(t, a, 0); ok {
		t.Fatal("read an uncommitted write")
	}
	commit(t, b)
	if v, _ := read(t, a, 0); v != 1 {
		t.Errorf("read %d, want the commit's 1", v)
	}
	put(t, a, 0, 2)
	if v, _ := read(t, a, 0); v != 2 {
		t.Errorf("read %d, want own write 2", v)
	}
	commit(t, a)
	a = begin(t, ss[0])
	if v, _ := read(t, a, 0); v != 2 {
		t.Errorf("read %d, want the last commit's 2", v)
	}
	b = begin(t, ss[1])
	put(t, b, 0, 3)
	commit(t, b)
	if v, _ := read(t, a, 0); v != 3 {
		t.Errorf("read %d, want the latest commit's 3", v)
	}
	commit(t, a)
}

// increments runs n sessions of rounds read-modify-write increments of key
// 0 and returns the number of commits and the final value.
func increments(t *testing.T, d db.Database, n, rounds int) (commits int, final int64) {
	t.Helper()
	ss := sessions(t, d, n+1)
	done := make(chan int)
	for _, s := range ss[:n] {
		go func() {
			c := 0
			for range rounds {
				err := increment(s)
				switch o, _ := db.Classify(err); o {
				case history.Committed:
					c++
				case history.Unknown:
					t.Errorf("increment: %v", err)
				}
			}
			done <- c
		}()
	}
	for range n {
		commits += <-done
	}
	// Read the final value in a transaction that also writes, which is
	// never served from a stale snapshot.
	for {
		tx := begin(t, ss[n])
		final, _ = read(t, tx, 0)
		err := tx.Write(bg(), 0, final)
		if err == nil {
			err = tx.Commit(bg())
		}
		if err == nil {
			return commits, final
		}
		if !dbtest.IsAbort(err) {
			t.Fatal(err)
		}
		tx.Rollback(bg())
	}
}

func increment(s db.Session) (err error) {
	tx, err := s.Begin(bg())
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tx.Rollback(bg())
		}
	}()
	v, _, err := tx.Read(bg(), 0)
	if err != nil {
		return err
	}
	if err := tx.Write(bg(), 0, v+1); err != nil {
		return err
	}
	return tx.Commit(bg())
}

func TestNoLostUpdate(t *testing.T) {
	for _, dsn := range []string{"sim://ser", "sim://si", "sim://si?fault=fractured-read", "sim://ser?fault=stale-read&p=0.5"} {
		d := dbtest.Open(t, Open, db.Config{DSN: dsn, Keys: 1})
		commits, final := increments(t, d, 8, 200)
		if final != int64(commits) {
			t.Errorf("%s: counter = %d after %d committed increments", dsn, final, commits)
		}
	}
}

// TestLostUpdate: with the fault, two concurrent read-modify-writes both
// commit, and one update is lost; so are appends.
func TestLostUpdate(t *testing.T) {
	d := dbtest.Open(t, Open, db.Config{DSN: "sim://si?fault=lost-update", Keys: 2})
	ss := sessions(t, d, 3)
	a, b := begin(t, ss[0]), begin(t, ss[1])
	va, _ := read(t, a, 0)
	vb, _ := read(t, b, 0)
	put(t, a, 0, va+1)
	put(t, b, 0, vb+1)
	commit(t, a)
	commit(t, b)
	c := begin(t, ss[2])
	if v, _ := read(t, c, 0); v != 1 {
		t.Errorf("counter = %d after two committed increments, want 1 (an update lost)", v)
	}
	commit(t, c)

	d = dbtest.Open(t, Open, db.Config{DSN: "sim://si?fault=lost-update", Keys: 2, Lists: true})
	ss = sessions(t, d, 3)
	a, b = begin(t, ss[0]), begin(t, ss[1])
	if err := a.Append(bg(), 1, 10); err != nil {
		t.Fatal(err)
	}
	if err := b.Append(bg(), 1, 20); err != nil {
		t.Fatal(err)
	}
	commit(t, a)
	commit(t, b)
	c = begin(t, ss[2])
	if l, err := c.ReadList(bg(), 1); err != nil || !slices.Equal(l, []int64{20}) {
		t.Errorf("list = %v, %v; want [20] (the append of 10 lost)", l, err)
	}
	commit(t, c)
}

// TestDirtyRead: a read returns the write of a transaction that then
// aborts.
func TestDirtyRead(t *testing.T) {
	for _, lists := range []bool{false, true} {
		d := dbtest.Open(t, Open, db.Config{DSN: "sim://rc?fault=dirty-read&p=1", Keys: 2, Lists: lists})
		ss := sessions(t, d, 3)
		a, b := begin(t, ss[0]), begin(t, ss[1])
		if lists {
			if err := a.Append(bg(), 0, 5); err != nil {
				t.Fatal(err)
			}
			if l, err := b.ReadList(bg(), 0); err != nil || !slices.Equal(l, []int64{5}) {
				t.Errorf("lists: read %v, %v; want the uncommitted [5]", l, err)
			}
		} else {
			put(t, a, 0, 5)
			if v, ok := read(t, b, 0); !ok || v != 5 {
				t.Errorf("read %d, %v; want the uncommitted 5", v, ok)
			}
		}
		if err := a.Commit(bg()); !dbtest.IsAbort(err) {
			t.Errorf("commit with p=1: %v, want an abort", err)
		}
		commit(t, b)
		c := begin(t, ss[2])
		if lists {
			if l, _ := c.ReadList(bg(), 0); len(l) != 0 {
				t.Errorf("lists: the aborted append is in %v", l)
			}
		} else if _, ok := read(t, c, 0); ok {
			t.Error("the aborted write is visible after its abort")
		}
		commit(t, c)
	}
	// With the default p, some commits abort.
	d := dbtest.Open(t, Open, db.Config{DSN: "sim://rc?fault=dirty-read&seed=7", Keys: 2})
	commits, _ := increments(t, d, 4, 100)
	if commits == 400 || commits == 0 {
		t.Errorf("%d of 400 commits with p=0.1", commits)
	}
}

// TestFracturedRead: a transaction running while another commits sees
// half of its writes.
func TestFracturedRead(t *testing.T) {
	for _, name := range []string{"si", "rc"} {
		d := dbtest.Open(t, Open, db.Config{DSN: "sim://" + name + "?fault=fractured-read", Keys: 2})
		ss := sessions(t, d, 2)
		var seen []string
		d.(*store).between = func() {
			tx := begin(t, ss[1])
			x, _ := read(t, tx, 0)
			y, _ := read(t, tx, 1)
			commit(t, tx)
			seen = append(seen, fmt.Sprint(x, y))
		}
		a := begin(t, ss[0])
		put(t, a, 0, 1)
		put(t, a, 1, 1)
		commit(t, a)
		if !slices.Equal(seen, []string{"1 0"}) {
			t.Errorf("%s: reads between installs saw %v, want [1 0]", name, seen)
		}
	}
}

// TestStaleRead: a ser transaction of another session may read a snapshot
// older than the latest commit, never older than its session saw, and
// aborts if it then writes.
func TestStaleRead(t *testing.T) {
	d := dbtest.Open(t, Open, db.Config{DSN: "sim://ser?fault=stale-read&p=1", Keys: 2})
	ss := sessions(t, d, 2)
	w := d.(*store)
	stale, last := 0, int64(0)
	for i := range int64(50) {
		a := begin(t, ss[0])
		put(t, a, 0, i+1)
		commit(t, a)
		b := begin(t, ss[1])
		v, _ := read(t, b, 0)
		if v < i+1 {
			stale++
		}
		if v < last {
			t.Errorf("session read %d after %d", v, last)
		}
		last = v
		commit(t, b)
	}
	if stale == 0 {
		t.Error("no stale read in 50 transactions with p=1")
	}
	if len(w.data[0]) > staleWindow+1 {
		t.Errorf("%d versions kept, want at most %d", len(w.data[0]), staleWindow+1)
	}
	// A stale transaction that writes aborts.
	for range 100 {
		a := begin(t, ss[0])
		put(t, a, 0, 100)
		commit(t, a)
		b := begin(t, ss[1])
		if v, _ := read(t, b, 0); v == 100 {
			b.Rollback(bg())
			continue
		}
		err := b.Write(bg(), 1, 1)
		if o, r := db.Classify(err); o != history.Aborted || r != "stale read" {
			t.Errorf("write after a stale read: %v classified %v (%q)", err, o, r)
		}
		b.Rollback(bg())
		return
	}
	t.Error("no stale read in 100 transactions with p=1")
}

func TestClosed(t *testing.T) {
	d := dbtest.Open(t, Open, db.Config{DSN: "sim://si", Keys: 1})
	s := sessions(t, d, 1)[0]
	tx := begin(t, s)
	put(t, tx, 0, 1)
	d.Close()
	if err := tx.Commit(bg()); err == nil || dbtest.IsAbort(err) {
		t.Errorf("commit on a closed store: %v, want a plain error", err)
	}
	if _, err := s.Begin(bg()); err == nil {
		t.Error("begin on a closed store succeeded")
	}
}

func Example() {
	ctx := context.Background()
	d, err := Open(ctx, db.Config{DSN: "sim://si?fault=lost-update", Keys: 1})
	if err != nil {
		log.Fatal(err)
	}
	defer d.Close()
	a, _ := d.Session(ctx, 0)
	b, _ := d.Session(ctx, 1)
	ta, _ := a.Begin(ctx)
	tb, _ := b.Begin(ctx)
	ta.Write(ctx, 0, 1)
	tb.Write(ctx, 0, 2)
	fmt.Println(ta.Commit(ctx), tb.Commit(ctx)) // snapshot isolation would abort one
	// Output: <nil> <nil>
}

// TestDownAfter: a store with down-after=N stops answering after its N-th
// commit: nothing begins, commits or connects, and no error is an abort.
func TestDownAfter(t *testing.T) {
	ctx := context.Background()
	d, err := Open(ctx, db.Config{DSN: "sim://si?down-after=2", Keys: 4})
	if err != nil {
		t.Fatal(err)
	}
	s, err := d.Session(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	var inFlight db.Txn
	for i := range 2 {
		tx, err := s.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := tx.Write(ctx, 0, int64(i)); err != nil {
			t.Fatal(err)
		}
		if i == 1 {
			if inFlight, err = s.Begin(ctx); err != nil {
				t.Fatal(err)
			}
		}
		if err := tx.Commit(ctx); err != nil {
			t.Fatalf("commit %d: %v", i, err)
		}
	}
	_, beginErr := s.Begin(ctx)
	_, sessionErr := d.Session(ctx, 1)
	commitErr := inFlight.Commit(ctx)
	for what, err := range map[string]error{"begin": beginErr, "session": sessionErr, "commit": commitErr} {
		if o, _ := db.Classify(err); err == nil || o == history.Aborted || !strings.Contains(err.Error(), "connection refused") {
			t.Errorf("%s after the store went down: %v (%v)", what, err, o)
		}
	}
}
