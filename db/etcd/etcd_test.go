package etcd

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/isocheck/isocheck/db"
	"github.com/isocheck/isocheck/db/dbtest"
	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/internal/testkit/testsize"
)

// server is the etcd cluster the tests run against, if any.
var server = dbtest.Server{Env: "ISOCHECK_ETCD_DSN", Name: "etcd cluster", Start: "scripts/etcd.sh start"}

// open opens the test cluster with keys under a table of the test's own,
// and closes it at the test's end.
func open(t *testing.T, cfg db.Config) db.Database {
	t.Helper()
	cfg.DSN = server.DSN(t)
	if cfg.Table == "" {
		cfg.Table = dbtest.Table(t, "isocheck-test/")
	}
	return dbtest.Open(t, Open, cfg)
}

func TestContract(t *testing.T) {
	server.DSN(t)
	dbtest.Run(t, open)
}

func TestParseDSN(t *testing.T) {
	for _, tc := range []struct {
		dsn       string
		endpoints []string
		timeout   time.Duration
		err       string // a part of the error; "" for none
	}{
		{dsn: "etcd://127.0.0.1:2379", endpoints: []string{"127.0.0.1:2379"}, timeout: defaultDialTimeout},
		{dsn: "etcd://127.0.0.1:2379,127.0.0.1:2381,127.0.0.1:2383", endpoints: []string{"127.0.0.1:2379", "127.0.0.1:2381", "127.0.0.1:2383"}, timeout: defaultDialTimeout},
		{dsn: "etcd://a.example:1,[::1]:2?dial-timeout=250ms", endpoints: []string{"a.example:1", "[::1]:2"}, timeout: 250 * time.Millisecond},
		{dsn: "etcd://h:1?dial-timeout=2s&dial-timeout=3s", endpoints: []string{"h:1"}, timeout: 3 * time.Second},
		{dsn: "postgres://h:1", err: "want etcd://"},
		{dsn: "127.0.0.1:2379", err: "want etcd://"},
		{dsn: "etcd://", err: "no endpoint"},
		{dsn: "etcd://?dial-timeout=1s", err: "no endpoint"},
		{dsn: "etcd://h", err: "missing port"},
		{dsn: "etcd://h:1,", err: `endpoint ""`},
		{dsn: "etcd://:2379", err: "no host"},
		{dsn: "etcd://h:x", err: "bad port"},
		{dsn: "etcd://h:0", err: "bad port"},
		{dsn: "etcd://h:70000", err: "bad port"},
		{dsn: "etcd://h:1/db", err: "no path"},
		{dsn: "etcd://u@h:1", err: "no path, user"},
		{dsn: "etcd://h:1?dial-timeout=soon", err: "not a positive duration"},
		{dsn: "etcd://h:1?dial-timeout=-1s", err: "not a positive duration"},
		{dsn: "etcd://h:1?timeout=1s", err: `unknown parameter "timeout"`},
		{dsn: "etcd://h:1?%zz", err: "invalid URL escape"},
	} {
		c, err := parseDSN(tc.dsn)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("parseDSN(%q) = %v, %v; want an error containing %q", tc.dsn, c, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("parseDSN(%q): %v", tc.dsn, err)
			continue
		}
		if !slices.Equal(c.endpoints, tc.endpoints) || c.dialTimeout != tc.timeout {
			t.Errorf("parseDSN(%q) = %v, %v; want %v, %v", tc.dsn, c.endpoints, c.dialTimeout, tc.endpoints, tc.timeout)
		}
	}
}

func TestLevels(t *testing.T) {
	for _, level := range []string{"read-committed", "repeatable-read", "snapshot", "linearizable", "Serializable"} {
		_, err := Open(context.Background(), db.Config{DSN: "etcd://127.0.0.1:1", Level: level})
		var u *db.UnsupportedLevelError
		if !errors.As(err, &u) || u.Level != level || u.Database != "etcd" {
			t.Errorf("Open at %q: %v; want an *db.UnsupportedLevelError", level, err)
		}
	}
	if testing.Short() {
		return
	}
	for level, want := range map[string]string{"": "strict-serializable", "strict-serializable": "strict-serializable", "serializable": "serializable"} {
		t.Run(fmt.Sprintf("%q", level), func(t *testing.T) {
			d := open(t, db.Config{Level: level, Keys: 1})
			defer d.Close()
			if got := d.Level(); got != want {
				t.Errorf("Level() = %q, want %q", got, want)
			}
		})
	}
}

// TestDown opens clusters that do not answer: closed ports fail at once,
// a server that accepts connections but says nothing within the dial
// timeout, which the error names. The bound on the time each takes is
// the next longer timeout that could have ended it instead (the default
// dial timeout, or for the default itself a hang), whatever the load on
// the machine. The default's 5 s wait is for make test-long.
func TestDown(t *testing.T) {
	closed, silent := dbtest.Unreachable(t)
	type down struct {
		dsn    string
		within time.Duration
		err    string
	}
	cases := []down{
		{"etcd://" + closed, defaultDialTimeout, "does not answer (is it running?"},
		{"etcd://" + closed + "," + closed, defaultDialTimeout, "connection refused"},
		{"etcd://" + silent + "?dial-timeout=1s", defaultDialTimeout, "no answer within 1s"},
	}
	if testsize.Long() {
		cases = append(cases, down{"etcd://" + silent, time.Minute, "no answer within 5s"})
	}
	for _, tc := range cases {
		start := time.Now()
		d, err := Open(context.Background(), db.Config{DSN: tc.dsn})
		took := time.Since(start)
		if err == nil {
			d.Close()
			t.Errorf("Open(%q) succeeded", tc.dsn)
			continue
		}
		t.Logf("Open(%q) after %v: %v", tc.dsn, took.Round(time.Millisecond), err)
		if took > tc.within {
			t.Errorf("Open(%q) took %v, want at most %v", tc.dsn, took, tc.within)
		}
		if !strings.Contains(err.Error(), tc.err) {
			t.Errorf("Open(%q) = %v; want an error containing %q", tc.dsn, err, tc.err)
		}
	}
}

// TestConflict runs two read-modify-write transactions on one key
// concurrently, both reading before either commits: the first to commit
// commits and the other aborts.
func TestConflict(t *testing.T) {
	d := open(t, db.Config{Keys: 1})
	defer d.Close()
	ctx := context.Background()
	var txs [2]db.Txn
	for i := range txs {
		s, err := d.Session(ctx, i)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if txs[i], err = s.Begin(ctx); err != nil {
			t.Fatal(err)
		}
		if _, ok, err := txs[i].Read(ctx, 0); err != nil || ok {
			t.Fatalf("read: %v, %v; want no value", ok, err)
		}
		if err := txs[i].Write(ctx, 0, int64(i+1)); err != nil {
			t.Fatal(err)
		}
	}
	var errs [2]error
	var wg sync.WaitGroup
	for i, tx := range txs {
		wg.Go(func() { errs[i] = tx.Commit(ctx) })
	}
	wg.Wait()
	var committed int64
	for i, err := range errs {
		switch o, reason := db.Classify(err); o {
		case history.Committed:
			committed = int64(i + 1)
		case history.Aborted:
			if reason != "conflict" {
				t.Errorf("transaction %d aborted for %q, want conflict: %v", i, reason, err)
			}
			t.Logf("transaction %d: %v", i, err)
		default:
			t.Errorf("transaction %d: unknown outcome: %v", i, err)
		}
	}
	if committed == 0 || dbtest.IsAbort(errs[0]) == dbtest.IsAbort(errs[1]) {
		t.Fatalf("commits: %v, %v; want one commit and one abort", errs[0], errs[1])
	}

	// The committed value is there; an append conflicts the same way.
	s, err := d.Session(ctx, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tx, _ := s.Begin(ctx)
	if v, ok, err := tx.Read(ctx, 0); err != nil || !ok || v != committed {
		t.Fatalf("read %d, %v, %v; want %d", v, ok, err, committed)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatalf("read-only commit: %v", err)
	}
}

// TestListConflict: two transactions append to one list concurrently; the
// second to commit aborts, so no append is lost.
func TestListConflict(t *testing.T) {
	d := open(t, db.Config{Keys: 1, Lists: true})
	defer d.Close()
	ctx := context.Background()
	s0, _ := d.Session(ctx, 0)
	defer s0.Close()
	s1, _ := d.Session(ctx, 1)
	defer s1.Close()
	a, _ := s0.Begin(ctx)
	b, _ := s1.Begin(ctx)
	if err := a.Append(ctx, 0, 1); err != nil {
		t.Fatal(err)
	}
	if err := b.Append(ctx, 0, 2); err != nil {
		t.Fatal(err)
	}
	if err := a.Commit(ctx); err != nil {
		t.Fatalf("first commit: %v", err)
	}
	if err := b.Commit(ctx); !dbtest.IsAbort(err) {
		t.Fatalf("second commit: %v; want an abort", err)
	}
	c, _ := s1.Begin(ctx)
	if l, err := c.ReadList(ctx, 0); err != nil || !slices.Equal(l, []int64{1}) {
		t.Fatalf("list %v, %v; want [1]", l, err)
	}
}

// TestBlindWrite: a transaction that only writes commits whatever happened
// to its keys since another transaction read them.
func TestBlindWrite(t *testing.T) {
	d := open(t, db.Config{Keys: 2})
	defer d.Close()
	ctx := context.Background()
	s0, _ := d.Session(ctx, 0)
	defer s0.Close()
	s1, _ := d.Session(ctx, 1)
	defer s1.Close()
	a, _ := s0.Begin(ctx)
	if _, _, err := a.Read(ctx, 1); err != nil {
		t.Fatal(err)
	}
	a.Write(ctx, 0, 1)
	b, _ := s1.Begin(ctx)
	b.Write(ctx, 0, 2)
	if err := b.Commit(ctx); err != nil {
		t.Fatalf("blind write: %v", err)
	}
	// a read key 1 only, which did not change: it commits too, after b.
	if err := a.Commit(ctx); err != nil {
		t.Fatalf("commit: %v", err)
	}
	c, _ := s1.Begin(ctx)
	if v, _, err := c.Read(ctx, 0); err != nil || v != 1 {
		t.Fatalf("read %d, %v; want 1", v, err)
	}
}

// TestSnapshot: reads after the first see the first read's revision, not
// later commits.
func TestSnapshot(t *testing.T) {
	d := open(t, db.Config{Keys: 2})
	defer d.Close()
	ctx := context.Background()
	s0, _ := d.Session(ctx, 0)
	defer s0.Close()
	s1, _ := d.Session(ctx, 1)
	defer s1.Close()
	a, _ := s0.Begin(ctx)
	if _, ok, err := a.Read(ctx, 0); err != nil || ok {
		t.Fatalf("read: %v, %v", ok, err)
	}
	b, _ := s1.Begin(ctx)
	b.Write(ctx, 1, 5)
	if err := b.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if v, ok, err := a.Read(ctx, 1); err != nil || ok {
		t.Fatalf("read of a key written after the snapshot: %d, %v, %v; want no value", v, ok, err)
	}
	if err := a.Commit(ctx); err != nil {
		t.Fatalf("read-only commit: %v", err)
	}
	if err := a.Write(ctx, 0, 1); err == nil {
		t.Error("write after commit succeeded")
	}
}

// TestCompacted: a read at a snapshot revision etcd has compacted away
// aborts the transaction.
func TestCompacted(t *testing.T) {
	d := open(t, db.Config{Keys: 2})
	defer d.Close()
	ctx := context.Background()
	s0, _ := d.Session(ctx, 0)
	defer s0.Close()
	s1, _ := d.Session(ctx, 1)
	defer s1.Close()
	a, _ := s0.Begin(ctx)
	if _, _, err := a.Read(ctx, 0); err != nil {
		t.Fatal(err)
	}
	var rev int64
	for v := range int64(2) {
		b, _ := s1.Begin(ctx)
		b.Write(ctx, 1, v)
		if err := b.Commit(ctx); err != nil {
			t.Fatal(err)
		}
		r, err := s1.(*Session).cli.Get(ctx, "x")
		if err != nil {
			t.Fatal(err)
		}
		rev = r.Header.Revision
	}
	if _, err := s1.(*Session).cli.Compact(ctx, rev); err != nil {
		t.Fatalf("compact: %v", err)
	}
	_, _, err := a.Read(ctx, 1)
	if o, reason := db.Classify(err); o != history.Aborted || reason != "compacted" {
		t.Fatalf("read at a compacted revision: %v; want an abort for compacted", err)
	}
	t.Log(err)
}

// TestNoAnswer: a commit cut short by its context has an unknown outcome.
func TestNoAnswer(t *testing.T) {
	d := open(t, db.Config{Keys: 1})
	defer d.Close()
	ctx := context.Background()
	s, _ := d.Session(ctx, 0)
	defer s.Close()
	tx, _ := s.Begin(ctx)
	tx.Write(ctx, 0, 1)
	c, cancel := context.WithCancel(ctx)
	cancel()
	err := tx.Commit(c)
	if o, _ := db.Classify(err); o != history.Unknown {
		t.Fatalf("commit with a canceled context: %v; want an unknown outcome", err)
	}
	t.Log(err)
}

// TestTooManyOps: a transaction larger than etcd's --max-txn-ops (128 by
// default) is refused, not of unknown outcome.
func TestTooManyOps(t *testing.T) {
	d := open(t, db.Config{Keys: 200})
	defer d.Close()
	ctx := context.Background()
	s, _ := d.Session(ctx, 0)
	defer s.Close()
	tx, _ := s.Begin(ctx)
	for k := range int64(200) {
		tx.Write(ctx, k, k)
	}
	err := tx.Commit(ctx)
	if o, reason := db.Classify(err); o != history.Aborted || reason != "refused" {
		t.Fatalf("commit of 200 writes: %v; want an abort for refused", err)
	}
	t.Log(err)
}
