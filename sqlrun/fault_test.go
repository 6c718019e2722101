package sqlrun_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/isocheck/isocheck/db"
	"github.com/isocheck/isocheck/db/sqlite"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/sqlhistory"
	"github.com/isocheck/isocheck/sqlrun"
	"github.com/isocheck/isocheck/sqlrun/sqlruntest"
)

// faulty wraps a database: every 7th commit commits but answers with an
// error that is not an abort (the answer was lost), and every 11th
// statement of a transaction fails as an abort (after rolling back).
type faulty struct {
	db.SQLDatabase
	commits, queries atomic.Int64
	conns            atomic.Int64
}

func (f *faulty) Conn(ctx context.Context, i int) (db.SQLConn, error) {
	c, err := f.SQLDatabase.Conn(ctx, i)
	f.conns.Add(1)
	return &faultyConn{c, f}, err
}

type faultyConn struct {
	db.SQLConn
	f *faulty
}

func (c *faultyConn) Begin(ctx context.Context, l level.Level) (db.SQLTxn, error) {
	t, err := c.SQLConn.Begin(ctx, l)
	return &faultyTxn{t, c.f}, err
}

type faultyTxn struct {
	db.SQLTxn
	f *faulty
}

func (t *faultyTxn) Query(ctx context.Context, q string) (*db.SQLRows, error) {
	if strings.HasPrefix(q, "SELECT") || strings.HasPrefix(q, "UPDATE") {
		if t.f.queries.Add(1)%11 == 0 {
			t.SQLTxn.Rollback(ctx)
			return nil, db.Abort("injected", errors.New("injected abort"))
		}
	}
	return t.SQLTxn.Query(ctx, q)
}

func (t *faultyTxn) Commit(ctx context.Context) error {
	err := t.SQLTxn.Commit(ctx)
	if err == nil && t.f.commits.Add(1)%7 == 0 {
		return errors.New("injected: connection lost")
	}
	return err
}

// A transaction the database aborts is recorded as aborted with the
// events it completed; one whose commit got no answer as unknown, and its
// session connects again.
func TestFaults(t *testing.T) {
	ctx := context.Background()
	d, err := sqlite.OpenSQL(ctx, "sqlite://"+filepath.Join(t.TempDir(), "db.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	f := &faulty{SQLDatabase: d}
	levels, _ := sqlrun.ParseLevelMix("ser") // SQLite's only level
	cfg := sqlrun.Config{Sessions: 3, TxnsPerSession: 20, Seed: 5, Levels: levels}
	h, err := sqlrun.Run(ctx, f, bank{}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	status := map[sqlhistory.Status]int{}
	abortedWithEvents := 0
	for _, tx := range h.Txns {
		status[tx.Status]++
		if tx.Status == sqlhistory.Aborted && len(tx.Events) > 0 {
			abortedWithEvents++
		}
	}
	t.Logf("%v, %d aborted with events, %d connections", status, abortedWithEvents, f.conns.Load())
	if status[sqlhistory.Unknown] == 0 || status[sqlhistory.Aborted] == 0 || abortedWithEvents == 0 {
		t.Errorf("statuses %v, %d aborted with events: want unknown and aborted ones", status, abortedWithEvents)
	}
	// One connection for the set-up, one a session, one after each
	// unknown but a session's last.
	want := int64(1 + cfg.Sessions)
	for _, txns := range h.Sessions {
		for _, i := range txns[:len(txns)-1] {
			if h.Txns[i].Status == sqlhistory.Unknown {
				want++
			}
		}
	}
	if f.conns.Load() != want {
		t.Errorf("%d connections, want %d", f.conns.Load(), want)
	}
	for _, err := range sqlruntest.Problems(h, cfg) {
		if !strings.Contains(err.Error(), "status unknown") {
			t.Error(err)
		}
	}
	sqlruntest.Satisfied(t, h, "sqlite")
}
