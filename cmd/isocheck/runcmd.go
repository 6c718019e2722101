package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/isocheck/isocheck/db"
	"github.com/isocheck/isocheck/db/dial"
	"github.com/isocheck/isocheck/format"
	"github.com/isocheck/isocheck/internal/progress"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/nemesis"
	runner "github.com/isocheck/isocheck/run"
	"github.com/isocheck/isocheck/workload"
)

// planFlags are the flags that describe a workload, shared by gen and run.
type planFlags struct {
	cfg      workload.PlanConfig
	kind     string
	dist     string
	file     string
	longOps  int
	longFrac float64
}

func addPlanFlags(fs *flag.FlagSet, withFile bool) *planFlags {
	p := &planFlags{}
	fs.StringVar(&p.kind, "workload", "general", "workload: general (reads and writes, as PolySI: Huang et al., \"Efficient Black-box Checking of Snapshot Isolation in Databases\", PVLDB 2023), mini (mini-transactions, as MTC: Wei et al., \"Boosting End-to-End Database Isolation Checking via Mini-Transactions\"), lwt (compare-and-set) or append (Elle's list-append)")
	fs.IntVar(&p.cfg.Sessions, "sessions", 20, "client sessions, run concurrently")
	fs.IntVar(&p.cfg.TxnsPerSession, "txns", 100, "transactions per session")
	fs.IntVar(&p.cfg.OpsPerTxn, "ops", 15, "operations per transaction (general and append)")
	fs.IntVar(&p.cfg.Keys, "keys", 10000, "keys")
	fs.Float64Var(&p.cfg.ReadProportion, "reads", -1, "proportion of reads (general, append; default 0.5) or of read-only transactions (mini, lwt; default 0.2), within [0, 1]")
	fs.StringVar(&p.dist, "dist", "zipf", "key distribution: uniform, zipf, or hotspot (80% of operations on 20% of keys)")
	fs.Float64Var(&p.longFrac, "long", 0, "proportion of long transactions (general)")
	fs.IntVar(&p.longOps, "long-ops", 0, "operations of a long transaction (default 10 × --ops)")
	fs.Int64Var(&p.cfg.Seed, "seed", 1, "random seed: the same seed and flags make the same workload")
	if withFile {
		fs.StringVar(&p.file, "workload-file", "", "run the workload written by 'isocheck gen' to FILE instead of generating one (the other workload flags are ignored)")
	}
	return p
}

// plan makes the workload the flags describe, or reads it from the file.
func (p *planFlags) plan() (*workload.Plan, error) {
	if p.file != "" {
		f, err := os.Open(p.file)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		plan, err := workload.ReadPlan(f)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p.file, err)
		}
		return plan, nil
	}
	kind, err := workload.ParseKind(p.kind)
	if err != nil {
		return nil, fmt.Errorf("--workload: %w", err)
	}
	if p.cfg.Dist, err = workload.ParseDistribution(p.dist); err != nil {
		return nil, fmt.Errorf("--dist: %w", err)
	}
	if p.cfg.Sessions <= 0 || p.cfg.TxnsPerSession <= 0 || p.cfg.OpsPerTxn <= 0 || p.cfg.Keys <= 0 {
		return nil, errors.New("--sessions, --txns, --ops and --keys must be positive")
	}
	if p.cfg.ReadProportion != -1 && !(p.cfg.ReadProportion >= 0 && p.cfg.ReadProportion <= 1) {
		return nil, fmt.Errorf("--reads must be within [0, 1], not %v", p.cfg.ReadProportion)
	}
	p.cfg.Workload, p.cfg.LongProportion, p.cfg.LongOps = kind, p.longFrac, p.longOps
	return workload.NewPlan(p.cfg)
}

func runGen(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("gen", stderr)
	pf := addPlanFlags(fs, false)
	out := fs.String("o", "-", "write the workload to FILE (- is standard output)")
	pos, help, err := parse(fs, args)
	if err != nil {
		return parseStatus(help)
	}
	if len(pos) != 0 {
		return usageError(stderr, "gen", "unexpected argument %q (the output is -o FILE)", pos[0])
	}
	plan, err := pf.plan()
	if err != nil {
		return usageError(stderr, "gen", "%v", err)
	}
	if err := writeFile(*out, stdout, func(w io.Writer) error { return workload.WritePlan(w, plan) }); err != nil {
		fmt.Fprintf(stderr, "isocheck gen: %v\n", err)
		return exitBadInput
	}
	return exitSatisfied
}

// runFlags are the flags of run.
type runFlags struct {
	plan       *planFlags
	dsn, level string
	table      string
	out        string
	check      string
	txnTimeout time.Duration
	progress   bool
	nemesis    nemesis.Config
	faults     string
}

func runRun(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("run", stderr)
	var rf runFlags
	rf.plan = addPlanFlags(fs, true)
	fs.StringVar(&rf.dsn, "db", "sqlite::memory:", "the database: "+dial.Examples())
	fs.StringVar(&rf.level, "level", "", "isolation level in the database's own words (read-committed, repeatable-read, serializable, snapshot, ...); default: the database's default")
	fs.StringVar(&rf.table, "table", "", "the table (or key prefix) the workload uses, emptied first (default isocheck, or isocheck_lists for --workload append)")
	fs.StringVar(&rf.out, "o", "", "record the history to FILE in native JSONL (default: a new file in the temporary directory, named at the end)")
	fs.StringVar(&rf.check, "check", "", "check the recorded history at LEVEL (sser, ser, si, pc, cc, ra, rc, or all) and explain a violation; the exit status is the verdict's")
	fs.DurationVar(&rf.txnTimeout, "txn-timeout", 10*time.Second, "abandon a transaction after this long (aborted if it had not sent its commit, unknown if it had)")
	fs.BoolVar(&rf.progress, "progress", false, "show progress on stderr even when it is not a terminal (runs over 2 s only)")
	fs.StringVar(&rf.faults, "nemesis", "", "during the run, fault one node of a cluster the project started at a time: pause (SIGSTOP, then SIGCONT) or kill (then restart); needs --cluster")
	fs.StringVar(&rf.nemesis.Script, "cluster", "", "the script that started the cluster (scripts/galera.sh or scripts/etcd.sh): the nemesis asks it for the nodes' PIDs and to restart a node")
	fs.StringVar(&rf.nemesis.Dir, "cluster-dir", "", "the cluster script's DIR, if not its default")
	fs.DurationVar(&rf.nemesis.Interval, "nemesis-interval", nemesis.DefaultInterval, "time between faults")
	fs.DurationVar(&rf.nemesis.Duration, "nemesis-duration", nemesis.DefaultDuration, "how long a node stays paused or down")
	sf := addSQLFlags(fs)
	pos, help, err := parse(fs, bareCheck(args))
	if err != nil {
		return parseStatus(help)
	}
	if len(pos) != 0 {
		return usageError(stderr, "run", "unexpected argument %q", pos[0])
	}
	if sql, status := rf.runSQLWorkload(fs, sf, stdout, stderr); sql {
		return status
	}
	if rf.check != "" && !strings.EqualFold(rf.check, "all") {
		if _, err := level.Parse(rf.check); err != nil {
			return usageError(stderr, "run", "--check: %v", err)
		}
	}
	if rf.nemesis.Kind, err = nemesis.Parse(rf.faults); err != nil {
		return usageError(stderr, "run", "--nemesis: %v", err)
	}
	if rf.nemesis.Kind != "" {
		rf.nemesis.Seed = rf.plan.cfg.Seed
		if err := rf.nemesis.Validate(); err != nil {
			return usageError(stderr, "run", "%v", err)
		}
	} else if rf.nemesis.Script != "" {
		return usageError(stderr, "run", "--cluster needs --nemesis pause or kill")
	}
	plan, err := rf.plan.plan()
	if err != nil {
		return usageError(stderr, "run", "%v", err)
	}
	path, status := rf.record(plan, stdout, stderr)
	if status != exitSatisfied || rf.check == "" {
		return status
	}
	fmt.Fprintln(stdout)
	return runCheck([]string{"--level", rf.check, path}, stdout, stderr, true)
}

// record runs plan and records its history, printing the summary; it
// returns the history's path.
func (rf *runFlags) record(plan *workload.Plan, stdout, stderr io.Writer) (string, int) {
	ctx, stopSignals := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stopSignals()
	openCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	d, err := dial.Open(openCtx, db.Config{DSN: rf.dsn, Level: rf.level, Keys: plan.Keys, Lists: plan.Lists, Table: rf.table})
	cancel()
	if err != nil {
		fmt.Fprintf(stderr, "isocheck run: %v\n", err)
		return "", exitBadInput
	}
	defer d.Close()

	f, err := rf.createOutput()
	if err != nil {
		fmt.Fprintf(stderr, "isocheck run: %v\n", err)
		return "", exitBadInput
	}
	defer f.Close()

	tr := progress.NewTracker()
	meter := progress.Start(progress.WithTracker(context.Background(), tr), "run", int64(plan.Txns()), "txns")
	if rf.progress || isTerminal(stderr) {
		stop := showProgress(tr, stderr, 2*time.Second)
		defer stop()
	}
	fmt.Fprintf(stdout, "running %s workload: %d sessions × %d transactions on %s at %s\n",
		plan.Workload, len(plan.Sessions), plan.Txns()/max(1, len(plan.Sessions)), redact(rf.dsn), d.Level())
	faults := rf.startNemesis(ctx, stdout)
	sum, err := runner.Run(ctx, d, plan, runner.Options{
		Recorder:   format.NewRecorder(f),
		TxnTimeout: rf.txnTimeout,
		Progress:   func(done int) { meter.Set(int64(done)) },
	})
	if sum != nil {
		writeEscaped(stdout, func(w io.Writer) error { sum.Write(w); return nil })
	}
	if nerr := faults(); nerr != nil {
		err = errors.Join(err, nerr)
	}
	if cerr := f.Close(); err == nil && cerr != nil {
		err = cerr
	}
	fmt.Fprintf(stdout, "history: %s\n", f.Name())
	if err != nil {
		fmt.Fprintf(stderr, "isocheck run: %v\n", err)
		if sum == nil || sum.Committed+sum.Aborted+sum.Unknown == 0 {
			return f.Name(), exitBadInput
		}
		return f.Name(), exitNoVerdict
	}
	if sum.Interrupted {
		return f.Name(), exitNoVerdict
	}
	return f.Name(), exitSatisfied
}

// startNemesis starts faulting the cluster, if asked, and returns the
// function that stops it, waits until every faulted node is healed, prints
// the faults and returns the nemesis's error.
func (rf *runFlags) startNemesis(ctx context.Context, stdout io.Writer) (stop func() error) {
	if rf.nemesis.Kind == "" {
		return func() error { return nil }
	}
	ctx, cancel := context.WithCancel(ctx)
	type result struct {
		events []nemesis.Event
		err    error
	}
	done := make(chan result, 1)
	go func() {
		ev, err := nemesis.Run(ctx, rf.nemesis)
		done <- result{ev, err}
	}()
	return func() error {
		cancel()
		r := <-done
		fmt.Fprintf(stdout, "  nemesis (%s every %s for %s): %d events\n", rf.nemesis.Kind, rf.nemesis.Interval, rf.nemesis.Duration, len(r.events))
		for _, e := range r.events {
			fmt.Fprintf(stdout, "    %s\n", e)
		}
		return r.err
	}
}

// redact hides a DSN's password.
func redact(dsn string) string {
	at := strings.LastIndex(dsn, "@")
	scheme := strings.Index(dsn, "://")
	if at < 0 || scheme < 0 || at < scheme {
		return dsn
	}
	userinfo := dsn[scheme+3 : at]
	if user, _, ok := strings.Cut(userinfo, ":"); ok {
		return dsn[:scheme+3] + user + ":***" + dsn[at:]
	}
	return dsn
}

// runDemo runs the whole loop twice with nothing installed: a short
// workload against embedded SQLite, checked at every level, and one
// against a simulated snapshot-isolation store that loses updates,
// checked for SI and explained.
func runDemo(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("demo", stderr)
	keep := fs.String("dir", "", "keep the recorded histories in DIR (default: a temporary directory, removed at the end)")
	seed := fs.Int64("seed", 1, "random seed of the workloads")
	pos, help, err := parse(fs, args)
	if err != nil {
		return parseStatus(help)
	}
	if len(pos) != 0 {
		return usageError(stderr, "demo", "unexpected argument %q", pos[0])
	}
	dir := *keep
	if dir == "" {
		if dir, err = os.MkdirTemp("", "isocheck-demo-"); err != nil {
			fmt.Fprintf(stderr, "isocheck demo: %v\n", err)
			return exitBadInput
		}
		defer os.RemoveAll(dir)
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		fmt.Fprintf(stderr, "isocheck demo: %v\n", err)
		return exitBadInput
	}
	steps := []struct {
		title, dsn, check string
		want              int
		cfg               workload.PlanConfig
	}{
		{"1. Embedded SQLite (serializable): a mini-transaction workload, checked at every level",
			"sqlite://" + dir + "/demo.db", "all", exitSatisfied,
			workload.PlanConfig{Workload: workload.MiniTxn, Sessions: 8, TxnsPerSession: 100, Keys: 20, ReadProportion: -1, Dist: workload.Zipf, Seed: *seed}},
		{"2. A simulated snapshot-isolation store with a bug (no first-committer-wins): checked for SI",
			"sim://si?fault=lost-update", "si", exitViolated,
			workload.PlanConfig{Workload: workload.MiniTxn, Sessions: 8, TxnsPerSession: 100, Keys: 20, ReadProportion: -1, Dist: workload.Zipf, Seed: *seed}},
	}
	status := exitSatisfied
	for i, st := range steps {
		if i > 0 {
			fmt.Fprintln(stdout)
		}
		fmt.Fprintf(stdout, "== %s\n$ isocheck run --db %s --workload mini --sessions %d --txns %d --keys %d --check %s\n",
			st.title, st.dsn, st.cfg.Sessions, st.cfg.TxnsPerSession, st.cfg.Keys, st.check)
		plan, err := workload.NewPlan(st.cfg)
		if err != nil {
			fmt.Fprintf(stderr, "isocheck demo: %v\n", err)
			return exitBadInput
		}
		rf := runFlags{dsn: st.dsn, out: fmt.Sprintf("%s/demo-%d.jsonl", dir, i+1), txnTimeout: 10 * time.Second}
		path, s := rf.record(plan, stdout, stderr)
		if s != exitSatisfied {
			return s
		}
		fmt.Fprintln(stdout)
		var got int
		if st.check == "all" {
			got = runCheck([]string{"--level", "all", path}, stdout, stderr, false)
		} else {
			got = runCheck([]string{"--level", st.check, path}, stdout, stderr, true)
		}
		if got != st.want {
			fmt.Fprintf(stderr, "isocheck demo: step %d gave exit status %d, expected %d\n", i+1, got, st.want)
			status = max(status, got, exitViolated)
		}
	}
	if status == exitSatisfied {
		fmt.Fprintln(stdout, "\nDemo done: SQLite kept every level; the simulated store's lost update was found and explained.")
		fmt.Fprintln(stdout, "Next: isocheck run --db postgres://... --level repeatable-read --check si (see the README).")
	}
	return status
}

// createOutput creates the history file of -o, or a temporary one when
// none is given (--check reads it back).
func (rf *runFlags) createOutput() (*os.File, error) {
	if rf.out == "" {
		return os.CreateTemp("", "isocheck-run-*.jsonl")
	}
	return os.Create(rf.out)
}
