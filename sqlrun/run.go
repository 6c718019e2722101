package sqlrun

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync"

	"github.com/isocheck/isocheck/db"
	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/predicate"
	"github.com/isocheck/isocheck/sqlhistory"
)

// Config says how to run an App.
type Config struct {
	// Sessions is the number of concurrent client sessions, each with a
	// connection of its own; TxnsPerSession the number of transactions
	// each runs (aborted ones included: there are no retries).
	Sessions, TxnsPerSession int
	// Seed seeds the initial data, the transactions and their levels.
	Seed int64
	// Levels says which level each transaction runs at.
	Levels LevelMix
	// Prefix is put before the App's table names in the database (the
	// history names them without it), so that runs of several Apps, or
	// tests, can share a database. Run drops and creates the tables.
	Prefix string
	// RecordAsked, for measurements of the checker, lets a database run a
	// transaction at a level stronger than the mix asks (SQLite runs SI
	// and RC at SER) and records the level asked. The history stays true:
	// what satisfies the stronger level satisfies the weaker; but it no
	// longer says what the database ran. Run refuses a weaker level still.
	RecordAsked bool
}

// loadBatch is how many initial rows one INSERT loads.
const loadBatch = 200

// session is a client session's state.
type session struct {
	id   int
	conn db.SQLConn
	ids  int64 // NewID's counter
}

// ended is a transaction that ended, as recorded.
type ended struct {
	spec sqlhistory.TxnSpec
}

// Run creates the App's tables in d, loads their initial rows, runs
// cfg.Sessions sessions of cfg.TxnsPerSession transactions concurrently,
// and returns the history: the initial rows, then the transactions in the
// order they ended (each session's in session order).
//
// A transaction the database refused (a serialization failure, a deadlock,
// a busy lock), or that aborted itself (Tx.Abort), is recorded as aborted
// with the events it completed; one whose commit got no answer is
// recorded as of unknown status, and its session connects again. Any
// other error (a statement the database rejects, a lost connection in the
// middle of a transaction, an error of the program) ends the run with an
// error.
//
// Run refuses, with a *LevelError and before it touches the tables, a level
// mix that d does not run as asked: SQLite runs every transaction at SER,
// so on SQLite only the mix "ser" runs.
func Run(ctx context.Context, d db.SQLDatabase, app App, cfg Config) (*sqlhistory.History, error) {
	if cfg.Sessions < 1 || cfg.TxnsPerSession < 0 {
		return nil, fmt.Errorf("sqlrun: %d sessions of %d transactions", cfg.Sessions, cfg.TxnsPerSession)
	}
	if err := cfg.Levels.valid(); err != nil {
		return nil, err
	}
	s, err := newSchema(d.Dialect(), cfg.Prefix, app.Tables())
	if err != nil {
		return nil, err
	}
	b := sqlhistory.NewBuilder("")
	if err := setUp(ctx, d, s, app, cfg, b); err != nil {
		return nil, err
	}

	var (
		mu    sync.Mutex
		order []ended
		wg    sync.WaitGroup
	)
	errs := make([]error, cfg.Sessions)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	for i := range cfg.Sessions {
		wg.Go(func() {
			err := runSession(ctx, d, s, app, cfg, i, func(e ended) {
				mu.Lock()
				order = append(order, e)
				mu.Unlock()
			})
			if err != nil {
				errs[i] = fmt.Errorf("sqlrun: session %d: %w", i, err)
				cancel()
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	for _, e := range order {
		if _, err := b.AddTxn(e.spec); err != nil {
			return nil, fmt.Errorf("sqlrun: recording %s: %w", e.spec.Name, err)
		}
	}
	h, err := b.History()
	if err != nil {
		return nil, fmt.Errorf("sqlrun: %w", err)
	}
	return h, nil
}

// LevelError is the refusal of a level mix whose levels the database does
// not all run: a transaction asked to run at Asked would run at Runs, and
// the history would record a level it did not have.
type LevelError struct {
	Dialect string
	Mix     LevelMix
	Asked   level.Level
	Runs    level.Level
}

func (e *LevelError) Error() string {
	return fmt.Sprintf("%s runs transactions asked for %s at %s: level mix %s would record %s transactions that ran at %s", e.Dialect, e.Asked, e.Runs, e.Mix, e.Asked, e.Runs)
}

// CheckLevels returns a *LevelError unless d runs every level of mix as
// itself (db.SQLConn.Level). Run refuses such a mix with the same error
// before it touches the tables.
func CheckLevels(ctx context.Context, d db.SQLDatabase, mix LevelMix) error {
	conn, err := d.Conn(ctx, -1)
	if err != nil {
		return fmt.Errorf("sqlrun: %w", err)
	}
	defer conn.Close()
	return checkLevels(conn, d.Dialect(), mix, false)
}

// checkLevels is CheckLevels on conn; stronger allows a level the
// database runs as a stronger one (Config.RecordAsked).
func checkLevels(conn db.SQLConn, dialect string, mix LevelMix, stronger bool) error {
	for _, l := range mix.Levels() {
		runs := conn.Level(l)
		if runs != l && !(stronger && runs.Implies(l)) {
			return &LevelError{Dialect: dialect, Mix: mix, Asked: l, Runs: runs}
		}
	}
	return nil
}

// setUp creates the tables and loads the initial rows, recording them.
func setUp(ctx context.Context, d db.SQLDatabase, s *schema, app App, cfg Config, b *sqlhistory.Builder) error {
	conn, err := d.Conn(ctx, -1)
	if err != nil {
		return err
	}
	defer conn.Close()
	if err := checkLevels(conn, d.Dialect(), cfg.Levels, cfg.RecordAsked); err != nil {
		return err
	}
	do := func(what string, stmts []string) error {
		t, err := conn.Begin(ctx, level.SER)
		if err != nil {
			return fmt.Errorf("sqlrun: %s: %w", what, err)
		}
		for _, q := range stmts {
			if _, err := t.Query(ctx, q); err != nil {
				t.Rollback(ctx)
				return fmt.Errorf("sqlrun: %s: %w", what, err)
			}
		}
		if err := t.Commit(ctx); err != nil {
			return fmt.Errorf("sqlrun: %s: %w", what, err)
		}
		return nil
	}
	var ddl []string
	for _, t := range app.Tables() {
		ddl = append(ddl, s.create(s.tables[t.Name])...)
	}
	if err := do("create the tables", ddl); err != nil {
		return err
	}
	load := app.Load(rand.New(rand.NewPCG(uint64(cfg.Seed), 0)))
	var inserts []string
	for _, tb := range app.Tables() {
		t := s.tables[tb.Name]
		var tuples []string
		for _, r := range load[tb.Name] {
			r, err := t.check(r)
			if err != nil {
				return err
			}
			key := t.keyText(r)
			wid := "init:" + tb.Name + ":" + key
			if err := b.AddInitial(tb.Name, key, wid, r, 0); err != nil {
				return fmt.Errorf("sqlrun: initial rows: %w", err)
			}
			tuples = append(tuples, t.values(r, wid))
			if len(tuples) == loadBatch {
				inserts = append(inserts, t.insert(tuples))
				tuples = nil
			}
		}
		if len(tuples) > 0 {
			inserts = append(inserts, t.insert(tuples))
		}
	}
	for name := range load {
		if _, ok := s.tables[name]; !ok {
			return fmt.Errorf("sqlrun: initial rows of undeclared table %q", name)
		}
	}
	return do("load the initial rows", inserts)
}

// runSession runs session i's transactions, reporting each as it ends.
func runSession(ctx context.Context, d db.SQLDatabase, s *schema, app App, cfg Config, i int, report func(ended)) error {
	rng := rand.New(rand.NewPCG(uint64(cfg.Seed), uint64(i)+1))
	sess := &session{id: i}
	defer func() {
		if sess.conn != nil {
			sess.conn.Close()
		}
	}()
	for k := range cfg.TxnsPerSession {
		if err := ctx.Err(); err != nil {
			return err
		}
		if sess.conn == nil {
			c, err := d.Conn(ctx, i)
			if err != nil {
				return err
			}
			sess.conn = c
		}
		txn := app.Next(rng)
		lv := cfg.Levels.Level(txn.Important, rng)
		spec, err := runTxn(ctx, s, sess, k, txn, lv, cfg.RecordAsked)
		if err != nil {
			return err
		}
		report(ended{spec})
	}
	return nil
}

// runTxn runs transaction k of a session.
func runTxn(ctx context.Context, s *schema, sess *session, k int, txn Txn, lv level.Level, recordAsked bool) (sqlhistory.TxnSpec, error) {
	name := fmt.Sprintf("%s-%d.%d", txn.Name, sess.id, k)
	// The level the database runs it at (checkLevels makes it lv), or
	// the one asked (Config.RecordAsked).
	recorded := sess.conn.Level(lv)
	if recordAsked {
		recorded = lv
	}
	spec := sqlhistory.TxnSpec{Name: name, Session: strconv.Itoa(sess.id), Level: recorded}
	t, err := sess.conn.Begin(ctx, lv)
	if err != nil {
		if o, _ := db.Classify(err); o == history.Aborted {
			spec.Status = sqlhistory.Aborted
			return spec, nil
		}
		return spec, fmt.Errorf("%s: begin: %w", name, err)
	}
	tx := &Tx{ctx: ctx, s: s, t: t, sess: sess, index: k, level: lv}
	err = txn.Run(tx)
	spec.Events = tx.events
	if err == nil && tx.err != nil {
		err = tx.err // the program dropped an error
	}
	if err != nil {
		t.Rollback(context.WithoutCancel(ctx))
		if o, _ := db.Classify(err); tx.aborted || o == history.Aborted {
			spec.Status = sqlhistory.Aborted
			return spec, nil
		}
		return spec, fmt.Errorf("%s: %w", name, err)
	}
	switch o, _ := db.Classify(t.Commit(ctx)); o {
	case history.Committed:
		spec.Status = sqlhistory.Committed
	case history.Aborted:
		spec.Status = sqlhistory.Aborted
	default:
		spec.Status = sqlhistory.Unknown
		sess.conn.Close()
		sess.conn = nil
	}
	return spec, nil
}

// KeyText returns the canonical text of a row's primary key, as the
// history names its rows: a single column's value as text, several
// columns' values as a JSON array.
func KeyText(t Table, r predicate.Row) string {
	tb := &table{Table: t}
	return tb.keyText(r)
}
