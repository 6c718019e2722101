package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/isocheck/isocheck/db"
	"github.com/isocheck/isocheck/db/dial"
	"github.com/isocheck/isocheck/format/sqljsonl"
	"github.com/isocheck/isocheck/internal/textsafe"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/progress"
	"github.com/isocheck/isocheck/sqlcheck"
	"github.com/isocheck/isocheck/sqlhistory"
	"github.com/isocheck/isocheck/sqlrun"
	"github.com/isocheck/isocheck/sqlrun/tpcc"
	"github.com/isocheck/isocheck/sqlrun/twitter"
	"github.com/isocheck/isocheck/verdict"
)

// The SQL workloads of run: SQL client programs (package sqlrun) that run
// each transaction at its own isolation level and record a SQL history
// (package sqlhistory), checked by package sqlcheck.
var sqlApps = map[string]func() sqlrun.App{
	"tpcc":    func() sqlrun.App { return tpcc.New(tpcc.DefaultConfig) },
	"twitter": func() sqlrun.App { return twitter.New(twitter.DefaultConfig) },
}

// defaultSQLPrefix is put before the SQL workloads' table names unless
// --table says otherwise, so that a run does not drop tables of the same
// names (warehouse, customer, ...) that are not isocheck's.
const defaultSQLPrefix = "isocheck_"

// The defaults of --sessions and --txns for the SQL workloads: checking a
// SQL history takes much longer than a key-value history of as many
// transactions (a TPC-C run of 20 × 100 exhausts memory), so they run less
// unless asked.
const (
	sqlSessions = 5
	sqlTxns     = 20
)

// sqlRunFlags are the flags of run for the SQL applications.
type sqlRunFlags struct {
	rec            runFlags // --db, --table, -o and --force
	workload       string
	sessions, txns int
	seed           int64
	levels         string
	check          optionalValue
}

// sqlFlagsHeading heads the SQL applications' flags in run's help.
const sqlFlagsHeading = "flags of --workload tpcc and twitter, SQL applications whose transactions each run at their own level (--levels), recorded as a SQL history (see 'isocheck check'), on sqlite:// or postgres:// only; the flags above that are not here are refused:"

// addSQLRunFlags defines the flags of run for the SQL applications on fs.
func addSQLRunFlags(fs *flag.FlagSet) *sqlRunFlags {
	sf := &sqlRunFlags{}
	fs.StringVar(&sf.workload, "workload", "", "the SQL application: tpcc (TPC-C) or twitter (BenchBase's Twitter)")
	fs.IntVar(&sf.sessions, "sessions", sqlSessions, "client sessions, run concurrently")
	fs.IntVar(&sf.txns, "txns", sqlTxns, "transactions per session")
	fs.Int64Var(&sf.seed, "seed", 1, "random seed: the same seed and flags make the same workload")
	fs.StringVar(&sf.rec.dsn, "db", "sqlite::memory:", "the database: sqlite://PATH, sqlite::memory: or postgres://USER@HOST:PORT/DB")
	fs.StringVar(&sf.levels, "levels", "random", "the isolation level of each transaction: ser, si or rc (all at that level; or a long name such as serializable), ser+rc or si+rc (NewOrder, Payment and InsertTweet at the first, the others at RC), or random (each at a random one of SER, SI and RC); a database that runs every transaction at one level (SQLite: SER) refuses the others, and its default is that level")
	fs.StringVar(&sf.rec.table, "table", defaultSQLPrefix, "the prefix of the tables' names; the tables are dropped and created")
	fs.StringVar(&sf.rec.out, "o", "", "record the SQL history to FILE, or to standard output with -o - (then everything else goes to stderr); default: a new file in the temporary directory, named at the end")
	fs.BoolVar(&sf.rec.force, "force", false, "overwrite the file of -o if it exists")
	fs.Var(&sf.check, "check", "check the recorded history, each transaction at the level it ran at, and explain a violation; the exit status is the verdict's")
	return sf
}

// newSQLRunFlagSet returns a flag set of the SQL applications' flags,
// which runKV refuses.
func newSQLRunFlagSet() *flag.FlagSet {
	fs := newFlagSet("run", io.Discard)
	addSQLRunFlags(fs)
	return fs
}

// runSQLApp runs a SQL application (--workload tpcc or twitter), records
// its SQL history and, with --check, checks it.
func runSQLApp(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("run", stderr)
	sf := addSQLRunFlags(fs)
	kv := newFlagSet("run", io.Discard)
	addKVRunFlags(kv)
	addForeignFlags(fs, kv)
	pos, help, err := parseWithHelp(fs, args, writeRunHelp)
	if err != nil {
		return parseStatus(help)
	}
	if len(pos) != 0 {
		return usageError(stderr, "run", "unexpected argument %q", pos[0])
	}
	rf := &sf.rec
	defer func() {
		for _, f := range rf.cleanup {
			f()
		}
	}()
	// With -o - the history alone goes to standard output.
	rf.histOut = stdout
	if rf.out == "-" {
		stdout = stderr
	}
	kind := strings.ToLower(sf.workload)
	foreign := foreignFlagsGiven(fs)
	if slices.Contains(foreign, "level") {
		return usageError(stderr, "run", "--level does not apply to --workload %s, whose transactions each run at their own level: use --levels (ser, si, rc, ser+rc, si+rc or random)", kind)
	}
	if len(foreign) > 0 {
		verb := "is"
		if len(foreign) > 1 {
			verb = "are"
		}
		return usageError(stderr, "run", "%s %s for the key-value workloads (general, mini, lwt, append), not --workload %s", flagList(foreign), verb, kind)
	}
	if c := sf.check.value; c != "" {
		return usageError(stderr, "run", "--check takes no LEVEL with --workload %s: give --check alone, and each transaction is checked at the level it ran at (to check every transaction at %s, run 'isocheck check --level %s' on the recorded history)", kind, c, c)
	}
	rf.readBack = sf.check.alone
	mix, err := parseLevelMix(sf.levels)
	if err != nil {
		return usageError(stderr, "run", "--levels: %v", err)
	}
	cfg := sqlrun.Config{Sessions: sf.sessions, TxnsPerSession: sf.txns, Seed: sf.seed, Levels: mix, Prefix: rf.table}
	if cfg.Sessions <= 0 || cfg.TxnsPerSession <= 0 {
		return usageError(stderr, "run", "--sessions and --txns must be positive")
	}
	levelsSet := false
	fs.Visit(func(f *flag.Flag) { levelsSet = levelsSet || f.Name == "levels" })
	path, status := rf.recordSQL(kind, sqlApps[kind](), cfg, levelsSet, stdout, stderr)
	if status != exitSatisfied || !rf.readBack {
		return status
	}
	fmt.Fprintln(stdout)
	return checkSQLRun(path, stdout, stderr)
}

// parseLevelMix reads --levels: random, or a level or two joined by '+',
// each in any spelling level.Parse reads ("ser+rc", "SERIALIZABLE",
// "snapshot-isolation+read-committed").
func parseLevelMix(s string) (sqlrun.LevelMix, error) {
	parts := strings.Split(s, "+")
	for i, p := range parts {
		if l, err := level.Parse(strings.TrimSpace(p)); err == nil {
			parts[i] = strings.ToLower(l.String())
		}
	}
	mix, err := sqlrun.ParseLevelMix(strings.Join(parts, "+"))
	if err != nil {
		// The error names the mix as given.
		if _, gerr := sqlrun.ParseLevelMix(s); gerr != nil {
			err = gerr
		}
	}
	return mix, err
}

// flagList names flags for people: "--keys", "--keys and --ops",
// "--dist, --keys and --ops".
func flagList(names []string) string {
	dashed := make([]string, len(names))
	for i, n := range names {
		dashed[i] = "--" + n
	}
	if len(dashed) == 1 {
		return dashed[0]
	}
	return strings.Join(dashed[:len(dashed)-1], ", ") + " and " + dashed[len(dashed)-1]
}

// recordSQL runs app and writes its SQL history, printing a summary; it
// returns the history's path. A level mix the database does not run as
// asked is refused when the user gave it (levelsSet); the default mix,
// random, becomes ser on a database that runs every transaction at SER
// (SQLite).
func (rf *runFlags) recordSQL(kind string, app sqlrun.App, cfg sqlrun.Config, levelsSet bool, stdout, stderr io.Writer) (string, int) {
	// The output first: a refused -o must not cost the tables' data.
	f, err := rf.createOutput()
	if err != nil {
		fmt.Fprintf(stderr, "isocheck run: %v\n", err)
		return "", exitBadInput
	}
	defer f.Close()

	ctx, stopSignals := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stopSignals()
	openCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	d, err := dial.OpenSQL(openCtx, rf.dsn)
	cancel()
	if err != nil {
		f.Discard()
		fmt.Fprintf(stderr, "isocheck run: --workload %s: %v\n", kind, err)
		return "", exitBadInput
	}
	defer d.Close()
	if status := rf.sqlLevels(ctx, d, &cfg, levelsSet, stdout, stderr); status != exitSatisfied {
		f.Discard()
		return "", status
	}

	fmt.Fprintf(stdout, "running %s workload: %d sessions × %d transactions on %s at levels %s\n",
		kind, cfg.Sessions, cfg.TxnsPerSession, redact(rf.dsn), mix(cfg.Levels))
	start := time.Now()
	h, err := sqlrun.Run(ctx, d, app, cfg)
	elapsed := time.Since(start)
	if err != nil {
		f.Discard()
		if ctx.Err() != nil {
			fmt.Fprintf(stderr, "isocheck run: interrupted after %.2fs: nothing recorded\n", elapsed.Seconds())
			return "", exitNoVerdict
		}
		fmt.Fprintf(stderr, "isocheck run: %v\n", err)
		return "", exitBadInput
	}
	writeSQLSummary(stdout, h, elapsed)
	if kind == "tpcc" {
		if err := tpcc.Consistent(ctx, d, cfg.Prefix); err != nil {
			fmt.Fprintf(stdout, "  TPC-C consistency conditions 1-4: VIOLATED: %s\n", textsafe.Escape(err.Error()))
		} else {
			fmt.Fprintln(stdout, "  TPC-C consistency conditions 1-4: hold")
		}
	}
	err = sqljsonl.Write(f, h)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		fmt.Fprintf(stderr, "isocheck run: %s: %v\n", f.name, err)
		return f.path, exitBadInput
	}
	fmt.Fprintf(stdout, "history: %s\n", f.name)
	return f.path, exitSatisfied
}

// sqlLevels checks that d runs cfg.Levels as asked (see recordSQL).
func (rf *runFlags) sqlLevels(ctx context.Context, d db.SQLDatabase, cfg *sqlrun.Config, levelsSet bool, stdout, stderr io.Writer) int {
	err := sqlrun.CheckLevels(ctx, d, cfg.Levels)
	le, ok := errors.AsType[*sqlrun.LevelError](err)
	switch {
	case err == nil:
		return exitSatisfied
	case !ok:
		fmt.Fprintf(stderr, "isocheck run: %v\n", err)
		return exitBadInput
	case levelsSet:
		return usageError(stderr, "run", "--levels %s: %s runs every transaction at %s, so the history would record %s transactions that ran at %s; use --levels %s, or a database that has %s (postgres://...)",
			cfg.Levels, le.Dialect, le.Runs, le.Asked, le.Runs, strings.ToLower(le.Runs.String()), le.Asked)
	}
	ser, _ := sqlrun.ParseLevelMix(strings.ToLower(le.Runs.String()))
	if sqlrun.CheckLevels(ctx, d, ser) != nil {
		fmt.Fprintf(stderr, "isocheck run: %v\n", err)
		return exitBadInput
	}
	fmt.Fprintf(stdout, "note: %s runs every transaction at %s: --levels %s (not random)\n", le.Dialect, le.Runs, ser)
	cfg.Levels = ser
	return exitSatisfied
}

// mix names a level mix for people: "random (SER, SI, RC)".
func mix(m sqlrun.LevelMix) string {
	var names []string
	for _, l := range m.Levels() {
		names = append(names, l.String())
	}
	return fmt.Sprintf("%s (%s)", m, strings.Join(names, ", "))
}

// writeSQLSummary prints how the run's transactions ended, and at which
// levels, as the key-value workloads' summary does.
func writeSQLSummary(w io.Writer, h *sqlhistory.History, elapsed time.Duration) {
	var by [3]int
	levels := map[level.Level]int{}
	for _, t := range h.Txns {
		if int(t.Status) < len(by) {
			by[t.Status]++
		}
		levels[t.Level]++
	}
	n := len(h.Txns)
	fmt.Fprintf(w, "%d transactions in %.2fs (%.0f/s)\n", n, elapsed.Seconds(), float64(n)/max(elapsed.Seconds(), 1e-9))
	fmt.Fprintf(w, "  committed %d, aborted %d (%s), unknown %d\n",
		by[sqlhistory.Committed], by[sqlhistory.Aborted], percent(by[sqlhistory.Aborted], n), by[sqlhistory.Unknown])
	var parts []string
	for _, l := range slices.Sorted(maps.Keys(levels)) {
		parts = append(parts, fmt.Sprintf("%s %d", l, levels[l]))
	}
	fmt.Fprintf(w, "  levels: %s\n", strings.Join(parts, ", "))
}

func percent(n, of int) string {
	if of == 0 {
		return "0%"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(n)/float64(of))
}

// checkSQLRun checks the SQL history at path, each transaction at the
// level it ran at, within the default limits of check, and prints the
// verdict and its explanation.
func checkSQLRun(path string, stdout, stderr io.Writer) int {
	l := &limits{maxMemory: byteSize(defaultMaxMemory())}
	j := l.start(stderr)
	defer j.stop()
	h, err := sqljsonl.ReadFileContext(j.ctx, path)
	if err != nil {
		j.stop()
		if progress.Stopped(err) {
			fmt.Fprintf(stdout, "no verdict: %s\n", j.stopReason(err))
			return exitNoVerdict
		}
		fmt.Fprintf(stderr, "isocheck: %v\n", err)
		return exitBadInput
	}
	res, err := sqlcheck.Check(j.ctx, h)
	j.stop()
	if err != nil {
		return checkFailed(err, stderr)
	}
	rep := sqlcheck.Explain(res)
	if res.Verdict == verdict.Unknown {
		rep.Reason = j.noVerdictReason(res.Reason)
	}
	if err := writeEscaped(stdout, rep.WriteText); err != nil {
		fmt.Fprintf(stderr, "isocheck: %v\n", err)
	}
	return verdictStatus(res.Verdict)
}
