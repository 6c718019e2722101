package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/isocheck/isocheck/db/dial"
	"github.com/isocheck/isocheck/draw"
	"github.com/isocheck/isocheck/format/jsonl"
	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/internal/textsafe"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/lwt"
	"github.com/isocheck/isocheck/nemesis"
	"github.com/isocheck/isocheck/online"
	"github.com/isocheck/isocheck/report"
	runner "github.com/isocheck/isocheck/run"
	"github.com/isocheck/isocheck/workload"
)

// runFlags are the flags of run for the key-value workloads, and what
// recording a history needs (see record and createOutput).
type runFlags struct {
	plan       *planFlags
	dsn, level string
	table      string
	out        string
	check      optionalValue
	txnTimeout time.Duration
	reconnect  time.Duration
	progress   bool
	nemesis    nemesis.Config
	faults     string
	force      bool
	// readBack says the history is read back once recorded, to check it.
	readBack bool
	// histOut is standard output, where -o - writes the history.
	histOut io.Writer
	// cleanup removes temporary files once the run is checked.
	cleanup []func()
	// reconnectSet says --reconnect was given.
	reconnectSet bool
	// onTxn, if set, sees each transaction as it is recorded.
	onTxn func(*jsonl.TxnRecord)
	// html is the page --html writes, with the run's section.
	html string
	// faulted are the faults the nemesis injected, once the run is over.
	faulted []nemesis.Event
	// stopOnViolation ends the run at the first violation its check
	// finds while it runs; online is that check.
	stopOnViolation bool
	online          *runChecker
	// fences is --fences: the sessions meet at a fence each that many
	// transactions (runner.Options.Fences); -1 until decided.
	fences int
}

// defaultFences is --fences with --check LEVEL on a run of more
// transactions a session.
const defaultFences = 1000

// runRun is `isocheck run`. The key-value workloads and the SQL
// applications (--workload tpcc or twitter, runsql.go) take flags of
// their own: runRun passes the arguments to the one --workload names.
func runRun(args []string, stdout, stderr io.Writer) int {
	if _, ok := sqlApps[strings.ToLower(workloadArg(args))]; ok {
		return runSQLApp(args, stdout, stderr)
	}
	return runKV(args, stdout, stderr)
}

// workloadArg returns the value of the last --workload of args before
// "--", or "" if there is none.
func workloadArg(args []string) string {
	kind := ""
	for i, a := range args {
		if a == "--" {
			break
		}
		name, value, hasValue := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-"), "=")
		if name != "workload" || !strings.HasPrefix(a, "-") {
			continue
		}
		switch {
		case hasValue:
			kind = value
		case i+1 < len(args):
			kind = args[i+1]
		}
	}
	return kind
}

// addKVRunFlags defines the flags of run for the key-value workloads on
// fs.
func addKVRunFlags(fs *flag.FlagSet) *runFlags {
	rf := &runFlags{check: optionalValue{placeholder: "string"}}
	rf.plan = addPlanFlags(fs, true)
	fs.Lookup("workload").Usage += "; or a SQL application, tpcc or twitter, whose flags follow"
	fs.StringVar(&rf.dsn, "db", "sqlite::memory:", "the database: "+dial.Examples())
	fs.StringVar(&rf.level, "level", "", "isolation level in the database's own words (read-committed, repeatable-read, serializable, snapshot, ...), or as --check names it (rc, ser, si, ...); default: the database's default")
	fs.StringVar(&rf.table, "table", "", "the table (or key prefix) the workload uses, emptied first (default isocheck, or isocheck_lists for --workload append)")
	fs.StringVar(&rf.out, "o", "", "record the history to FILE in native JSONL, or to standard output with -o - (then everything else goes to stderr); default: a new file in the temporary directory, named at the end")
	fs.BoolVar(&rf.force, "force", false, "overwrite the file of -o if it exists")
	fs.Var(&rf.check, "check", "check the recorded history at LEVEL (sser, ser, si, pc, cc, ra, rc, or all) and explain a violation, or with lwt (for --workload lwt) check its registers for linearizability; the exit status is the verdict's")
	fs.DurationVar(&rf.txnTimeout, "txn-timeout", 10*time.Second, "abandon a transaction after this long (aborted if it had not sent its commit, unknown if it had)")
	fs.DurationVar(&rf.reconnect, "reconnect", runner.DefaultReconnect, "a session whose connection failed tries to reconnect for this long, then stops and the run is incomplete (exit status 3); with --nemesis, 30s more than --nemesis-duration unless set")
	fs.StringVar(&rf.html, "html", "", "with --check, "+htmlUsage+", with the run's summary: throughput, aborts, latencies and faults over time")
	fs.BoolVar(&rf.stopOnViolation, "stop-on-violation", false, "with --check LEVEL, end the run at the first violation the check finds while the run goes on (the history holds every transaction that ran), then explain it")
	fs.IntVar(&rf.fences, "fences", -1, "every N transactions of each session, the sessions meet at a fence (a write of each, a read of all and of every key written since, a read of each), so that the check of --check LEVEL while the run goes on decides and forgets what came before it and its memory stays flat however long the run; 0 for none; default 1000 with --check LEVEL for --workload general or mini of more transactions a session, else 0")
	fs.BoolVar(&rf.progress, "progress", false, "show progress on stderr even when it is not a terminal (runs over 2 s only)")
	fs.StringVar(&rf.faults, "nemesis", "", "during the run, fault a cluster the project started: pause (SIGSTOP, then SIGCONT) or kill (then restart) one node at a time, or, in network namespaces (root; see scripts/netns.sh), partition[=halves|one|leader|bridge|majorities-ring] to cut links between nodes or loss[=PERCENT] to make one node at a time drop packets; clock[=MAX] sets one node's clock off (a cluster started with ISOCHECK_FAKETIME=1); ,every=DURATION and ,heal=DURATION set --nemesis-interval and --nemesis-duration (partition=one,every=10s,heal=5s); needs --cluster")
	fs.StringVar(&rf.nemesis.Script, "cluster", "", "the script that started the cluster (scripts/galera.sh or scripts/etcd.sh): the nemesis asks it for the nodes' PIDs, to restart a node, to cut and heal links and for the leader")
	fs.StringVar(&rf.nemesis.Dir, "cluster-dir", "", "the cluster script's DIR, if not its default")
	fs.DurationVar(&rf.nemesis.Interval, "nemesis-interval", nemesis.DefaultInterval, "time between faults")
	fs.DurationVar(&rf.nemesis.Duration, "nemesis-duration", nemesis.DefaultDuration, "how long a node stays paused or down, or links cut")
	return rf
}

// writeRunHelp writes run's help: the flags of the key-value workloads,
// then those of the SQL applications.
func writeRunHelp(w io.Writer) {
	kv, sql := newFlagSet("run", io.Discard), newFlagSet("run", io.Discard)
	addKVRunFlags(kv)
	addSQLRunFlags(sql)
	writeHelp(w, "run", flagSection{fs: kv}, flagSection{heading: sqlFlagsHeading, fs: sql})
}

// runKV runs a key-value workload (general, mini, lwt or append).
func runKV(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("run", stderr)
	rf := addKVRunFlags(fs)
	addForeignFlags(fs, newSQLRunFlagSet())
	pos, help, err := parseWithHelp(fs, args, writeRunHelp)
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
	if len(foreignFlagsGiven(fs)) > 0 { // --levels
		return usageError(stderr, "run", "--levels is for --workload tpcc or twitter; for --workload %s, --level sets the database's level", rf.plan.kind)
	}
	if rf.check.alone {
		return usageError(stderr, "run", "--check needs a LEVEL (sser, ser, si, pc, cc, ra, rc or all) for --workload %s", rf.plan.kind)
	}
	rf.level = level.DatabaseName(rf.level)
	check := rf.check.value
	rf.readBack = check != ""
	checkLWT := strings.EqualFold(check, "lwt")
	if check != "" && !strings.EqualFold(check, "all") && !checkLWT {
		if _, err := level.Parse(check); err != nil {
			return usageError(stderr, "run", "--check: %v", err)
		}
	}
	spec, err := nemesis.Parse(rf.faults)
	if err != nil {
		return usageError(stderr, "run", "--nemesis: %v", err)
	}
	rf.nemesis.Kind, rf.nemesis.Partition, rf.nemesis.Loss, rf.nemesis.Skew = spec.Kind, spec.Partition, spec.Loss, spec.Skew
	if spec.Interval > 0 {
		rf.nemesis.Interval = spec.Interval
	}
	if spec.Duration > 0 {
		rf.nemesis.Duration = spec.Duration
	}
	if rf.nemesis.Kind != "" {
		rf.nemesis.Seed = rf.plan.cfg.Seed
		if err := rf.nemesis.Validate(); err != nil {
			return usageError(stderr, "run", "%v", err)
		}
	} else if rf.nemesis.Script != "" {
		return usageError(stderr, "run", "--cluster needs --nemesis pause, kill, loss, clock or partition")
	}
	plan, err := rf.plan.plan()
	if err != nil {
		return usageError(stderr, "run", "%v", err)
	}
	// One level is checked while the run goes on, too.
	if rf.online = newRunChecker(check, rf.stopOnViolation); rf.stopOnViolation && rf.online == nil {
		return usageError(stderr, "run", "--stop-on-violation needs --check LEVEL (one level: sser, ser, si, pc, cc, ra or rc)")
	}
	switch kv := plan.Workload == workload.General || plan.Workload == workload.MiniTxn; {
	case rf.fences > 0 && !kv:
		return usageError(stderr, "run", "--fences is for --workload general or mini, not --workload %s", plan.Workload)
	case rf.fences < 0 && kv && rf.online != nil && online.Retires(rf.online.level) && rf.plan.cfg.TxnsPerSession > defaultFences:
		rf.fences = defaultFences
	case rf.fences < 0:
		rf.fences = 0
	}
	var lwtOps runner.LWTOps
	if checkLWT {
		if plan.Workload != workload.LWT {
			return usageError(stderr, "run", "--check lwt checks the registers of --workload lwt for linearizability, not --workload %s", plan.Workload)
		}
		rf.onTxn = lwtOps.Add
	}
	path, sum, status := rf.record(plan, stdout, stderr)
	stoppedAtViolation := rf.online != nil && rf.online.stopped
	partial := sum != nil && sum.Incomplete() && (!sum.Interrupted || stoppedAtViolation) && status == exitNoVerdict
	if rf.html != "" && check == "" {
		fmt.Fprintf(stderr, "isocheck run: --html %s: the page shows the check of the run: give --check LEVEL; %s not written\n", rf.html, rf.html)
	}
	if check == "" || status != exitSatisfied && !partial {
		return status
	}
	fmt.Fprintln(stdout)
	if rf.online != nil && rf.online.final != nil && !partial {
		return printFinal(rf.online.final, rf.online.level, "run --check", stdout, stderr)
	}
	var verdict int
	mode := checkMode{explain: true, command: commandLine("run", args), faults: rf.faulted}
	if sum != nil {
		mode.run = func(h *history.History) *report.Run {
			return report.RunOf(redact(rf.dsn), string(plan.Workload), sum, h, rf.faulted)
		}
	}
	if checkLWT {
		verdict = checkLWTRun(&lwtOps, path, rf.html, mode, stdout, stderr)
	} else {
		args := []string{"--level", check}
		if rf.html != "" {
			args = append(args, "--html", rf.html)
		}
		verdict = runCheck(append(args, path), stdout, stderr, mode)
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

// faultInForce says which fault, begun before the first operation tl
// shows, was still in force then (the last event before it, unless a
// healing), and when it was healed: a window of operations drawn between
// two events shows no mark of its own.
func faultInForce(tl *draw.Timeline, events []nemesis.Event) string {
	first := int64(math.MaxInt64)
	for _, ln := range tl.Lanes {
		for _, op := range ln.Ops {
			first = min(first, op.Start)
		}
	}
	healing := func(e nemesis.Event) bool {
		return e.Action == nemesis.ActionHeal || e.Action == nemesis.ActionResume || e.Action == nemesis.ActionRestart
	}
	last := -1
	for i, e := range events {
		if e.Err == nil && int64(e.At) < first {
			last = i
		}
	}
	if last < 0 || healing(events[last]) {
		return ""
	}
	f := events[last]
	note := fmt.Sprintf("In force during these operations: %s, from %.3f s", f.What(), f.At.Seconds())
	for _, h := range events[last+1:] {
		if healing(h) {
			return note + fmt.Sprintf(" until it was healed at %.3f s.", h.At.Seconds())
		}
	}
	return note + "."
}

// checkLWTRun checks the registers of a run of the lwt workload, recorded
// to path, for linearizability and prints the verdict as the lwt command
// does.
func checkLWTRun(c *runner.LWTOps, path, html string, mode checkMode, stdout, stderr io.Writer) int {
	ops, err := c.Ops()
	if err != nil {
		fmt.Fprintf(stderr, "isocheck run: --check lwt: %v\n", err)
		return exitBadInput
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	res, err := lwt.Check(ctx, ops, lwt.Nil)
	if err != nil {
		fmt.Fprintf(stderr, "isocheck run: --check lwt: %v\n", err)
		return exitNoVerdict
	}
	fmt.Fprintf(stdout, "linearizability: %s (%d operations on %d registers)\n", textsafe.Escape(res.String()), res.Ops, res.Keys)
	writeLWTViolation(stdout, res, ops)
	if html != "" {
		title := path
		if title == "" || title == "-" {
			title = "the run's registers"
		}
		page := lwtPage(title, mode.command, res, ops, nil, nil)
		for i := range page.Anomalies {
			if tl := page.Anomalies[i].Timeline; tl != nil {
				tl.Unit = "ns since the run began"
				for _, e := range mode.faults {
					if e.Err == nil {
						tl.Marks = append(tl.Marks, draw.TimelineMark{At: int64(e.At), Label: e.What()})
					}
				}
				if note := faultInForce(tl, mode.faults); note != "" {
					tl.Notes = append(tl.Notes, note)
				}
			}
		}
		if mode.run != nil {
			page.Run = mode.run(nil)
		}
		writePage(html, stdout, page, stderr)
	}
	return verdictStatus(res.Verdict)
}
