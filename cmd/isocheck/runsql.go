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

	"github.com/isocheck/isocheck/check"
	"github.com/isocheck/isocheck/db"
	"github.com/isocheck/isocheck/db/dial"
	"github.com/isocheck/isocheck/format"
	"github.com/isocheck/isocheck/internal/textsafe"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/progress"
	"github.com/isocheck/isocheck/sqlcheck"
	"github.com/isocheck/isocheck/sqlhistory"
	"github.com/isocheck/isocheck/sqlrun"
	"github.com/isocheck/isocheck/workload/tpcc"
	"github.com/isocheck/isocheck/workload/twitter"
)

// The SQL workloads of run: SQL client programs (package sqlrun) that run
// each transaction at its own isolation level and record a SQL history
// (package sqlhistory), checked by package sqlcheck.
var sqlApps = map[string]func() sqlrun.App{
	"tpcc":    func() sqlrun.App { return tpcc.New(tpcc.DefaultConfig) },
	"twitter": func() sqlrun.App { return twitter.New(twitter.DefaultConfig) },
}

// checkAlone is the value of a --check given without a LEVEL (see
// bareCheck): check each transaction at the level it ran at.
const checkAlone = "\x00own-levels"

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

// sqlFlags are run's flags for the SQL workloads only.
type sqlFlags struct {
	levels string
}

// addSQLFlags defines --levels on run's fs and says in the help of the
// flags run shares with the key-value workloads what they mean for the
// SQL ones.
func addSQLFlags(fs *flag.FlagSet) *sqlFlags {
	sf := &sqlFlags{}
	fs.StringVar(&sf.levels, "levels", "random", "for --workload tpcc or twitter: the isolation level of each transaction: ser, si or rc (all at that level), ser+rc or si+rc (NewOrder, Payment and InsertTweet at the first, the others at RC), or random (each at a random one of SER, SI and RC); a database that runs every transaction at one level (SQLite: SER) refuses the others, and its default is that level")
	amend := func(name, text string) {
		if f := fs.Lookup(name); f != nil {
			f.Usage += text
		}
	}
	amend("workload", "; or a SQL application, each transaction at its own level (--levels), recorded as a SQL history: tpcc (TPC-C) or twitter (BenchBase's Twitter), on sqlite:// or postgres:// only")
	amend("sessions", fmt.Sprintf(" (tpcc and twitter: %d)", sqlSessions))
	amend("txns", fmt.Sprintf(" (tpcc and twitter: %d)", sqlTxns))
	amend("level", " (not for tpcc and twitter: see --levels)")
	amend("table", "; for tpcc and twitter, the prefix of the tables' names ("+defaultSQLPrefix+" if not given); the tables are dropped and created")
	amend("check", "; for tpcc and twitter give --check alone, without LEVEL: each transaction is checked at the level it ran at")
	amend("o", "; for tpcc and twitter a SQL history (see 'isocheck check')")
	return sf
}

// bareCheck lets --check stand without a LEVEL, as the SQL workloads
// want it: a --check that ends the arguments, or that a flag follows, is
// given the value checkAlone. (A --check followed by anything else takes
// it as its LEVEL, as before.)
func bareCheck(args []string) []string {
	out := make([]string, 0, len(args))
	for i, a := range args {
		if a == "--" {
			return append(out, args[i:]...)
		}
		if (a == "--check" || a == "-check") && (i+1 == len(args) || strings.HasPrefix(args[i+1], "-")) {
			a += "=" + checkAlone
		}
		out = append(out, a)
	}
	return out
}

// kvOnlyFlags are the flags of run that only the key-value workloads use.
var kvOnlyFlags = []string{"ops", "keys", "reads", "dist", "long", "long-ops", "workload-file",
	"txn-timeout", "reconnect", "progress", "nemesis", "cluster", "cluster-dir", "nemesis-interval", "nemesis-duration"}

// runSQLWorkload runs the SQL workload the flags name, if they name one
// (sql reports whether they did), and returns the exit status. For a
// key-value workload it only refuses the SQL workloads' flags.
func (rf *runFlags) runSQLWorkload(fs *flag.FlagSet, sf *sqlFlags, stdout, stderr io.Writer) (sql bool, status int) {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	newApp, ok := sqlApps[strings.ToLower(rf.plan.kind)]
	if !ok {
		switch {
		case set["levels"]:
			return true, usageError(stderr, "run", "--levels is for --workload tpcc or twitter; for --workload %s, --level sets the database's level", rf.plan.kind)
		case rf.check == checkAlone:
			return true, usageError(stderr, "run", "--check needs a LEVEL (sser, ser, si, pc, cc, ra, rc or all) for --workload %s", rf.plan.kind)
		}
		return false, 0
	}
	kind := strings.ToLower(rf.plan.kind)
	if set["level"] {
		return true, usageError(stderr, "run", "--level does not apply to --workload %s, whose transactions each run at their own level: use --levels (ser, si, rc, ser+rc, si+rc or random)", kind)
	}
	for _, name := range kvOnlyFlags {
		if set[name] {
			return true, usageError(stderr, "run", "--%s is for the key-value workloads (general, mini, lwt, append), not --workload %s", name, kind)
		}
	}
	if rf.check != "" && rf.check != checkAlone {
		return true, usageError(stderr, "run", "--check takes no LEVEL with --workload %s: give --check alone, and each transaction is checked at the level it ran at (to check every transaction at %s, run 'isocheck check --level %s' on the recorded history)", kind, rf.check, rf.check)
	}
	mix, err := sqlrun.ParseLevelMix(sf.levels)
	if err != nil {
		return true, usageError(stderr, "run", "--levels: %v", err)
	}
	cfg := sqlrun.Config{Sessions: rf.plan.cfg.Sessions, TxnsPerSession: rf.plan.cfg.TxnsPerSession, Seed: rf.plan.cfg.Seed, Levels: mix, Prefix: defaultSQLPrefix}
	if !set["sessions"] {
		cfg.Sessions = sqlSessions
	}
	if !set["txns"] {
		cfg.TxnsPerSession = sqlTxns
	}
	if cfg.Sessions <= 0 || cfg.TxnsPerSession <= 0 {
		return true, usageError(stderr, "run", "--sessions and --txns must be positive")
	}
	if set["table"] {
		cfg.Prefix = rf.table
	}
	path, status := rf.recordSQL(kind, newApp(), cfg, set["levels"], stdout, stderr)
	if status != exitSatisfied || rf.check == "" {
		return true, status
	}
	fmt.Fprintln(stdout)
	return true, checkSQLRun(path, stdout, stderr)
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
	err = format.WriteSQL(f, h)
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
	h, err := format.ReadSQLFileContext(j.ctx, path)
	if err != nil {
		j.stop()
		if progress.Stopped(err) {
			fmt.Fprintf(stdout, "no verdict: %s\n", j.stopReason(err))
			return exitNoVerdict
		}
		fmt.Fprintf(stderr, "isocheck: %v\n", err)
		return exitBadInput
	}
	res, err := sqlcheck.Check(j.ctx, h, sqlcheck.Options{})
	j.stop()
	if err != nil {
		return checkFailed(err, stderr)
	}
	rep := sqlcheck.Explain(res)
	if res.Verdict == check.NoVerdict {
		rep.Reason = j.noVerdictReason(res.Reason)
	}
	if err := writeEscaped(stdout, rep.WriteText); err != nil {
		fmt.Fprintf(stderr, "isocheck: %v\n", err)
	}
	return verdictStatus(res.Verdict)
}
