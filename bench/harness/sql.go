package harness

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/isocheck/isocheck/db"
	"github.com/isocheck/isocheck/db/dial"
	"github.com/isocheck/isocheck/format/sqljsonl"
	"github.com/isocheck/isocheck/sqlrun"
	"github.com/isocheck/isocheck/sqlrun/tpcc"
	"github.com/isocheck/isocheck/sqlrun/twitter"
)

// The SQL experiments of Bouajjani, Enea and Román-Calvo, "On the
// Complexity of Checking Mixed Isolation Levels for SQL Transactions"
// (CAV 2025), §6: histories of BenchBase's TPC-C and Twitter recorded by
// package sqlrun on a real database, each transaction at the level its
// isolation configuration gives it, checked by `isocheck check`
// (Algorithm 3) and by its naive baseline (--naive).

// SQLApps are the applications of the SQL experiments.
var SQLApps = []string{"tpcc", "twitter"}

// SQLMixes are the isolation configurations of Bouajjani et al. (CAV 2025)
// §6: SER, SI and RC throughout, and SER or SI for the important
// transactions (TPC-C's NewOrder and Payment, Twitter's InsertTweet) with
// RC for the others.
var SQLMixes = []string{"ser", "si", "rc", "ser+rc", "si+rc"}

// sqlApp returns the application named name.
func sqlApp(name string) (sqlrun.App, error) {
	switch name {
	case "tpcc":
		return tpcc.New(tpcc.DefaultConfig), nil
	case "twitter":
		return twitter.New(twitter.DefaultConfig), nil
	}
	return nil, fmt.Errorf("unknown SQL application %q", name)
}

// sqlSizes are the points of the SQL experiments at a scale.
type sqlSizes struct {
	sessions  []int // Figure 6: sessions, sqlTxnsPerSession transactions each
	txns      []int // Figure 7: transactions per session, sqlSessions sessions
	naiveTxns []int // the naive baseline: transactions per session, sqlSessions sessions
	clients   int   // histories (clients, seeds 1, 2, ...) per point
}

const (
	sqlTxnsPerSession = 10 // Figure 6's
	sqlSessions       = 3  // Figure 7's and the naive baseline's
)

func sqlScale(s Scale) sqlSizes {
	switch s {
	case Tiny:
		return sqlSizes{sessions: []int{2, 3}, txns: []int{5, 10}, naiveTxns: []int{2, 4}, clients: 1}
	case Quick:
		return sqlSizes{sessions: []int{2, 3, 4}, txns: []int{5, 10, 20}, naiveTxns: []int{2, 5}, clients: 2}
	}
	// About the paper's: 5 clients a point, sessions up to 8, 50
	// transactions a session, and ten sizes of the naive comparison
	// (about 100 histories, as the paper's).
	return sqlSizes{
		sessions:  []int{2, 3, 4, 5, 6, 7, 8},
		txns:      []int{5, 10, 15, 20, 25, 30, 35, 40, 45, 50},
		naiveTxns: []int{2, 4, 6, 8, 10, 12, 14, 16, 18, 20},
		clients:   5,
	}
}

// sqlClients is the number of clients a point: Config.SQLClients, else
// the scale's.
func (e *env) sqlClients() int {
	if e.cfg.SQLClients > 0 {
		return e.cfg.SQLClients
	}
	return sqlScale(e.cfg.Scale).clients
}

// sqlTimeout is the limit of a SQL check: Config.SQLTimeout, else
// Config.Timeout.
func (e *env) sqlTimeout() time.Duration {
	if e.cfg.SQLTimeout > 0 {
		return e.cfg.SQLTimeout
	}
	return e.cfg.Timeout
}

// SQLDBKind names the database a DSN opens: "sqlite" or "postgres" (what
// the CSV files and the summary record; never the DSN, which may hold a
// password).
func SQLDBKind(dsn string) string {
	scheme, _, _ := strings.Cut(dsn, ":")
	switch s := strings.ToLower(scheme); s {
	case "postgresql":
		return "postgres"
	default:
		return s
	}
}

// sqlDatabase opens the database of the SQL experiments the first time
// it is asked for: Config.SQLDB, else an SQLite file in the work
// directory. The env closes it at the end of the run.
func (e *env) sqlDatabase(ctx context.Context) (db.SQLDatabase, string, error) {
	if e.sqlDB != nil {
		return e.sqlDB, e.sqlKind, nil
	}
	dsn := e.cfg.SQLDB
	if dsn == "" {
		dsn = "sqlite://" + filepath.Join(e.work, "sql.sqlite")
	}
	d, err := dial.OpenSQL(ctx, dsn)
	if err != nil {
		return nil, "", fmt.Errorf("SQL database: %w", err)
	}
	e.sqlDB, e.sqlKind = d, SQLDBKind(dsn)
	fmt.Fprintf(e.log, "  (SQL histories recorded on %s)\n", e.sqlKind)
	return d, e.sqlKind, nil
}

// recordSQL runs app with mix on the database, sessions × txns
// transactions of client seed, and writes the history to a file of the
// work directory; it returns its path and number of transactions.
func (e *env) recordSQL(ctx context.Context, app, mix string, sessions, txns int, seed int64) (string, int, error) {
	d, _, err := e.sqlDatabase(ctx)
	if err != nil {
		return "", 0, err
	}
	a, err := sqlApp(app)
	if err != nil {
		return "", 0, err
	}
	levels, err := sqlrun.ParseLevelMix(mix)
	if err != nil {
		return "", 0, err
	}
	rctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	h, err := sqlrun.Run(rctx, d, a, sqlrun.Config{Sessions: sessions, TxnsPerSession: txns, Seed: seed, Levels: levels, Prefix: "isobench_",
		// The experiments vary the levels the checker is given; SQLite
		// runs them all at SER, which satisfies each.
		RecordAsked: true})
	if err != nil {
		return "", 0, fmt.Errorf("record %s %s: %w", app, mix, err)
	}
	p := filepath.Join(e.work, safeName(fmt.Sprintf("sql-%s-%s-%dx%d-%d.jsonl", app, mix, sessions, txns, seed)))
	f, err := os.Create(p)
	if err != nil {
		return "", 0, fmt.Errorf("write SQL history: %w", err)
	}
	if err := sqljsonl.Write(f, h); err != nil {
		f.Close()
		return "", 0, fmt.Errorf("write SQL history %s: %w", p, err)
	}
	if err := f.Close(); err != nil {
		return "", 0, fmt.Errorf("write SQL history: %w", err)
	}
	return p, len(h.Txns), nil
}

// sqlRun is one history to record and the checks to run on it.
type sqlRun struct {
	exp, app, mix, axis string
	x                   int
	sessions, txns      int
	seed                int64
	checks              []CheckOptions
}

// measureSQL records r's history and checks it with each of r's options
// once (the clients are the repetitions), and returns a row per check.
// A history that could not be recorded gives rows of status error.
func (e *env) measureSQL(ctx context.Context, r sqlRun, skip map[string]bool) ([]Row, error) {
	_, kind, err := e.sqlDatabase(ctx)
	if err != nil {
		return nil, err
	}
	proto := Row{Experiment: r.exp, Case: r.app, Axis: r.axis, X: strconv.Itoa(r.x), Checker: "isocheck", Rep: 1,
		Txns: r.sessions * r.txns, DB: kind, Seed: r.seed}
	path, n, recErr := e.recordSQL(ctx, r.app, r.mix, r.sessions, r.txns, r.seed)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if recErr == nil {
		defer os.Remove(path)
		proto.Txns = n
	}
	var rows []Row
	for _, o := range r.checks {
		row := proto
		row.Variant, row.Level = o.Variant(), o.Level
		if o.Level == "" {
			row.Level = r.mix
		}
		switch {
		case recErr != nil:
			row.Status, row.ExitCode, row.Detail = StatusError, -1, recErr.Error()
		case skip[sqlLine(row)]:
			row.Status, row.Detail = StatusSkipped, "every client of a smaller point timed out"
		default:
			m, err := MeasureCheck(ctx, e.sqlTimeout(), e.bin, o, path)
			if err != nil {
				return rows, err
			}
			if ctx.Err() != nil {
				return rows, ctx.Err()
			}
			row.Measurement = m
		}
		e.logSQLRow(row, r.mix)
		rows = append(rows, row)
	}
	return rows, nil
}

// sqlLine names the line of a plot a row belongs to: its experiment,
// application, variant and level.
func sqlLine(r Row) string {
	return strings.Join([]string{r.Experiment, r.Case, r.Variant, r.Level}, "\x00")
}

func (e *env) logSQLRow(r Row, mix string) {
	what := fmt.Sprintf("%s %s %s=%s #%d", r.Case, mix, r.Axis, r.X, r.Seed)
	if r.Variant != "default" {
		what += " " + r.Variant
	}
	line := fmt.Sprintf("  %-34s %-6s %-10s %8.2fs %4d txns", what, r.Level, r.Status, r.Wall.Seconds(), r.Txns)
	if r.Stats.Steps > 0 {
		line += fmt.Sprintf("  %d steps, %d conflicts", r.Stats.Steps, r.Stats.Conflicts)
	}
	if r.Detail != "" {
		line += "  (" + r.Detail + ")"
	}
	fmt.Fprintln(e.log, line)
}

// runSQLPoints measures each point of each line (the points in growing
// order), every client of a point; once every client of a point timed
// out, the larger points of its line are skipped.
func (e *env) runSQLPoints(ctx context.Context, runs []sqlRun) ([]Row, error) {
	var rows []Row
	skip := make(map[string]bool)
	for i := 0; i < len(runs); {
		// The clients of one point are consecutive.
		j := i
		for j < len(runs) && runs[j].app == runs[i].app && runs[j].mix == runs[i].mix && runs[j].x == runs[i].x {
			j++
		}
		var point []Row
		for _, r := range runs[i:j] {
			got, err := e.measureSQL(ctx, r, skip)
			point = append(point, got...)
			rows = append(rows, got...)
			if err != nil {
				return rows, err
			}
		}
		timedOut, all := make(map[string]bool), make(map[string]bool)
		for _, r := range point {
			k := sqlLine(r)
			if _, seen := all[k]; !seen {
				all[k], timedOut[k] = true, true
			}
			if r.Status != StatusTimeout && r.Status != StatusSkipped {
				timedOut[k] = false
			}
		}
		for k, t := range timedOut {
			if t {
				skip[k] = true
			}
		}
		i = j
	}
	return rows, nil
}

// runSQLSessions is Figure 6 of Bouajjani et al. (CAV 2025): sessions grow,
// 10 transactions each, every application and isolation configuration,
// checked at the recorded levels.
func runSQLSessions(ctx context.Context, e *env) ([]Row, error) {
	var runs []sqlRun
	for _, app := range SQLApps {
		for _, mix := range SQLMixes {
			for _, s := range sqlScale(e.cfg.Scale).sessions {
				for c := 1; c <= e.sqlClients(); c++ {
					runs = append(runs, sqlRun{exp: "sql-sessions", app: app, mix: mix, axis: "sessions", x: s,
						sessions: s, txns: sqlTxnsPerSession, seed: int64(c), checks: []CheckOptions{{SQL: true}}})
				}
			}
		}
	}
	return e.runSQLPoints(ctx, runs)
}

// runSQLTxns is Figure 7 of Bouajjani et al. (CAV 2025): 3 sessions,
// transactions per session grow.
func runSQLTxns(ctx context.Context, e *env) ([]Row, error) {
	var runs []sqlRun
	for _, app := range SQLApps {
		for _, mix := range SQLMixes {
			for _, n := range sqlScale(e.cfg.Scale).txns {
				for c := 1; c <= e.sqlClients(); c++ {
					runs = append(runs, sqlRun{exp: "sql-txns", app: app, mix: mix, axis: "txns/session", x: n,
						sessions: sqlSessions, txns: n, seed: int64(c), checks: []CheckOptions{{SQL: true}}})
				}
			}
		}
	}
	return e.runSQLPoints(ctx, runs)
}

// runSQLNaive is the third experiment of Bouajjani et al. (CAV 2025) §6:
// histories recorded at RC, checked at SER by isocheck and by the naive
// baseline.
func runSQLNaive(ctx context.Context, e *env) ([]Row, error) {
	var runs []sqlRun
	for _, app := range SQLApps {
		for _, n := range sqlScale(e.cfg.Scale).naiveTxns {
			for c := 1; c <= e.sqlClients(); c++ {
				runs = append(runs, sqlRun{exp: "sql-naive", app: app, mix: "rc", axis: "txns/session", x: n,
					sessions: sqlSessions, txns: n, seed: int64(c),
					checks: []CheckOptions{{SQL: true, Level: "ser"}, {SQL: true, Level: "ser", Naive: true}}})
			}
		}
	}
	return e.runSQLPoints(ctx, runs)
}
