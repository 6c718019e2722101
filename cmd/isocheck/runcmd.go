package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/isocheck/isocheck/db"
	"github.com/isocheck/isocheck/db/dial"
	"github.com/isocheck/isocheck/format"
	"github.com/isocheck/isocheck/internal/textsafe"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/lwt"
	"github.com/isocheck/isocheck/nemesis"
	"github.com/isocheck/isocheck/progress"
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
		return workload.ReadPlanFile(p.file)
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
	reconnect  time.Duration
	progress   bool
	nemesis    nemesis.Config
	faults     string
	force      bool
	// histOut is standard output, where -o - writes the history.
	histOut io.Writer
	// cleanup removes temporary files once the run is checked.
	cleanup []func()
	// reconnectSet says --reconnect was given.
	reconnectSet bool
	// onTxn, if set, sees each transaction as it is recorded.
	onTxn func(*format.TxnRecord)
}

func runRun(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("run", stderr)
	var rf runFlags
	rf.plan = addPlanFlags(fs, true)
	fs.StringVar(&rf.dsn, "db", "sqlite::memory:", "the database: "+dial.Examples())
	fs.StringVar(&rf.level, "level", "", "isolation level in the database's own words (read-committed, repeatable-read, serializable, snapshot, ...); default: the database's default")
	fs.StringVar(&rf.table, "table", "", "the table (or key prefix) the workload uses, emptied first (default isocheck, or isocheck_lists for --workload append)")
	fs.StringVar(&rf.out, "o", "", "record the history to FILE in native JSONL, or to standard output with -o - (then everything else goes to stderr); default: a new file in the temporary directory, named at the end")
	fs.BoolVar(&rf.force, "force", false, "overwrite the file of -o if it exists")
	fs.StringVar(&rf.check, "check", "", "check the recorded history at LEVEL (sser, ser, si, pc, cc, ra, rc, or all) and explain a violation, or with lwt (for --workload lwt) check its registers for linearizability; the exit status is the verdict's")
	fs.DurationVar(&rf.txnTimeout, "txn-timeout", 10*time.Second, "abandon a transaction after this long (aborted if it had not sent its commit, unknown if it had)")
	fs.DurationVar(&rf.reconnect, "reconnect", runner.DefaultReconnect, "a session whose connection failed tries to reconnect for this long, then stops and the run is incomplete (exit status 3); with --nemesis, 30s more than --nemesis-duration unless set")
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
	fs.Visit(func(f *flag.Flag) { rf.reconnectSet = rf.reconnectSet || f.Name == "reconnect" })
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
	if sql, status := rf.runSQLWorkload(fs, sf, stdout, stderr); sql {
		return status
	}
	checkLWT := strings.EqualFold(rf.check, "lwt")
	if rf.check != "" && !strings.EqualFold(rf.check, "all") && !checkLWT {
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
	var lwtOps runner.LWTOps
	if checkLWT {
		if plan.Workload != workload.LWT {
			return usageError(stderr, "run", "--check lwt checks the registers of --workload lwt for linearizability, not --workload %s", plan.Workload)
		}
		rf.onTxn = lwtOps.Add
	}
	path, sum, status := rf.record(plan, stdout, stderr)
	partial := sum != nil && sum.Incomplete() && !sum.Interrupted && status == exitNoVerdict
	if rf.check == "" || status != exitSatisfied && !partial {
		return status
	}
	fmt.Fprintln(stdout)
	var verdict int
	if checkLWT {
		verdict = checkLWTRun(&lwtOps, stdout, stderr)
	} else {
		verdict = runCheck([]string{"--level", rf.check, path}, stdout, stderr, true)
	}
	if !partial {
		return verdict
	}
	// A violation in part of a history is a violation of the whole; a
	// partial history that keeps the level says nothing of the plan.
	fmt.Fprintf(stdout, "\nThe run is INCOMPLETE: %d of the plan's %d transactions not run (%s).\n", sum.Planned-sum.Done(), sum.Planned, sum.Why())
	if verdict == exitViolated {
		fmt.Fprintln(stdout, "The violation above is in the part that ran.")
		return exitViolated
	}
	fmt.Fprintln(stdout, "The verdict above is of the part that ran only: no verdict on the run (exit status 3).")
	return exitNoVerdict
}

// checkLWTRun checks the registers of a run of the lwt workload for
// linearizability and prints the verdict as the lwt command does.
func checkLWTRun(c *runner.LWTOps, stdout, stderr io.Writer) int {
	ops, err := c.Ops()
	if err != nil {
		fmt.Fprintf(stderr, "isocheck run: --check lwt: %v\n", err)
		return exitBadInput
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	res, err := lwt.CheckOptions(ctx, ops, lwt.Nil, lwt.Options{})
	if err != nil && !progress.Stopped(err) {
		fmt.Fprintf(stderr, "isocheck run: --check lwt: %v\n", err)
		return exitNoVerdict
	}
	fmt.Fprintf(stdout, "linearizability: %s (%d operations on %d registers)\n", textsafe.Escape(res.String()), res.Ops, res.Keys)
	writeLWTViolation(stdout, res, ops)
	return lwtStatus(res, err)
}

// record runs plan and records its history, printing the summary; it
// returns the history's path and the run's summary (nil if it did not
// run). The status is 3 for a run that stopped before the end of its plan
// (interrupted, or the database stopped answering); its history holds
// every transaction that ran.
func (rf *runFlags) record(plan *workload.Plan, stdout, stderr io.Writer) (string, *runner.Summary, int) {
	// The output first: a refused -o must not cost the table's data.
	f, err := rf.createOutput()
	if err != nil {
		fmt.Fprintf(stderr, "isocheck run: %v\n", err)
		return "", nil, exitBadInput
	}
	defer f.Close()

	ctx, stopSignals := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stopSignals()
	openCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	d, err := dial.Open(openCtx, db.Config{DSN: rf.dsn, Level: rf.level, Keys: plan.Keys, Lists: plan.Lists, Table: rf.table})
	cancel()
	if err != nil {
		f.Discard()
		fmt.Fprintf(stderr, "isocheck run: %v\n", err)
		return "", nil, exitBadInput
	}
	defer d.Close()

	tr := progress.NewTracker()
	meter := progress.Start(progress.WithTracker(context.Background(), tr), "run", int64(plan.Txns()), "txns")
	if rf.progress || isTerminal(stderr) {
		stop := showProgress(tr, stderr, 2*time.Second)
		defer stop()
	}
	fmt.Fprintf(stdout, "running %s workload: %d sessions × %d transactions on %s at %s\n",
		plan.Workload, len(plan.Sessions), plan.Txns()/max(1, len(plan.Sessions)), redact(rf.dsn), d.Level())
	faults := rf.startNemesis(ctx, stdout)
	opts := runner.Options{
		Recorder:   format.NewRecorder(f),
		TxnTimeout: rf.txnTimeout,
		Reconnect:  rf.reconnect,
		Progress:   func(done int) { meter.Set(int64(done)) },
		Waiting:    waitingReporter(stderr, redact(rf.dsn)),
		Completed:  rf.onTxn,
	}
	if rf.nemesis.Kind != "" && !rf.reconnectSet {
		// A killed node takes a while to restart: its sessions wait.
		opts.Reconnect = rf.nemesis.Duration + nemesisReconnect
	}
	sum, err := runner.Run(ctx, d, plan, opts)
	if sum != nil {
		writeEscaped(stdout, func(w io.Writer) error { sum.Write(w); return nil })
	}
	if nerr := faults(); nerr != nil {
		err = errors.Join(err, nerr)
	}
	if cerr := f.Close(); err == nil && cerr != nil {
		err = cerr
	}
	fmt.Fprintf(stdout, "history: %s\n", f.name)
	if err != nil {
		fmt.Fprintf(stderr, "isocheck run: %v\n", err)
		if sum == nil || sum.Done() == 0 {
			return f.path, nil, exitBadInput
		}
		return f.path, nil, exitNoVerdict
	}
	if sum.Incomplete() {
		fmt.Fprintf(stderr, "isocheck run: incomplete: %d of the plan's %d transactions not run (%s)\n", sum.Planned-sum.Done(), sum.Planned, sum.Why())
		return f.path, sum, exitNoVerdict
	}
	return f.path, sum, exitSatisfied
}

// nemesisReconnect is how long, beyond the time a node stays down, a
// session of a run with --nemesis keeps trying to reconnect.
const nemesisReconnect = 30 * time.Second

// waitingReporter returns the run's Options.Waiting: a line on w, at most
// one a second, saying what the sessions wait for.
func waitingReporter(w io.Writer, dsn string) func(runner.Waiting) {
	var last time.Time
	return func(wt runner.Waiting) {
		if time.Since(last) < time.Second {
			return
		}
		last = time.Now()
		sessions := "1 session"
		if wt.Sessions != 1 {
			sessions = fmt.Sprintf("%d sessions", wt.Sessions)
		}
		fmt.Fprintf(w, "isocheck run: %s waiting to reconnect to %s: %v (%.0f s)\n", sessions, dsn, wt.Err, wt.For.Seconds())
	}
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
		rf := runFlags{dsn: st.dsn, out: fmt.Sprintf("%s/demo-%d.jsonl", dir, i+1), force: true, txnTimeout: 10 * time.Second}
		path, _, s := rf.record(plan, stdout, stderr)
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

// historyFile is where a run writes its history: the file of -o, a
// temporary file, or standard output (-o -), which a temporary copy
// follows when --check needs to read the history back.
type historyFile struct {
	io.Writer
	name string   // for people: the path, or "standard output"
	path string   // the file the history can be read back from
	f    *os.File // nil when the history goes to standard output only
	temp bool     // path is a copy of standard output, removed by rf.cleanup
}

// Close closes the file, if any.
func (h *historyFile) Close() error {
	if h.f == nil {
		return nil
	}
	err := h.f.Close()
	if errors.Is(err, os.ErrClosed) {
		return nil
	}
	return err
}

// Discard closes and removes the file of a history that was not written.
func (h *historyFile) Discard() {
	if h.f != nil {
		h.f.Close()
		os.Remove(h.f.Name())
	}
}

// createOutput opens the history's output: -o FILE, which must not exist
// unless --force; -o -, standard output (rf.histOut); or, when -o is not
// given, a new file in the temporary directory.
func (rf *runFlags) createOutput() (*historyFile, error) {
	switch rf.out {
	case "":
		f, err := os.CreateTemp("", "isocheck-run-*.jsonl")
		if err != nil {
			return nil, err
		}
		return &historyFile{Writer: f, name: f.Name(), path: f.Name(), f: f}, nil
	case "-":
		h := &historyFile{Writer: rf.histOut, name: "standard output"}
		if rf.check == "" {
			return h, nil
		}
		f, err := os.CreateTemp("", "isocheck-run-*.jsonl")
		if err != nil {
			return nil, err
		}
		rf.cleanup = append(rf.cleanup, func() { os.Remove(f.Name()) })
		h.Writer, h.path, h.f, h.temp = io.MultiWriter(rf.histOut, f), f.Name(), f, true
		return h, nil
	}
	flags := os.O_WRONLY | os.O_CREATE | os.O_EXCL
	if rf.force {
		flags = os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	}
	f, err := os.OpenFile(rf.out, flags, 0o666)
	if errors.Is(err, fs.ErrExist) {
		return nil, fmt.Errorf("%s exists; remove it or pass --force", rf.out)
	}
	if err != nil {
		return nil, err
	}
	return &historyFile{Writer: f, name: f.Name(), path: f.Name(), f: f}, nil
}
