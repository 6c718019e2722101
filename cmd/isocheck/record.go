package main

import (
	"context"
	"errors"
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
	"github.com/isocheck/isocheck/format/jsonl"
	"github.com/isocheck/isocheck/nemesis"
	"github.com/isocheck/isocheck/progress"
	runner "github.com/isocheck/isocheck/run"
	"github.com/isocheck/isocheck/workload"
)

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
	keys := plan.Keys
	if rf.fences > 0 {
		keys += runner.FenceKeys(len(plan.Sessions))
	}
	d, err := dial.Open(openCtx, db.Config{DSN: rf.dsn, Level: rf.level, Keys: keys, Lists: plan.Lists, Table: rf.table})
	cancel()
	if err != nil {
		f.Discard()
		fmt.Fprintf(stderr, "isocheck run: %v\n", err)
		return "", nil, exitBadInput
	}
	defer d.Close()

	tr := progress.NewTracker()
	if rf.progress || isTerminal(stderr) {
		stop := showProgress(tr, stderr, 2*time.Second)
		defer stop()
	}
	fmt.Fprintf(stdout, "running %s workload: %d sessions × %d transactions on %s at %s\n",
		plan.Workload, len(plan.Sessions), plan.Txns()/max(1, len(plan.Sessions)), redact(rf.dsn), d.Level())
	runCtx, cancelRun := context.WithCancel(ctx)
	defer cancelRun()
	var rec io.Writer = f
	endWatch := func() {}
	// During the run, the sessions' reports and the check's share stderr.
	runErr := &lockedWriter{w: stderr}
	if rf.online != nil {
		if f.f != nil {
			if src, err := os.Open(f.f.Name()); err == nil {
				defer src.Close()
				rf.online.readFrom(src)
			}
		}
		rec = io.MultiWriter(f, rf.online.c)
		endWatch = rf.online.watch(ctx, tr, cancelRun, runErr)
	}
	// The transactions and the nemesis's events share one clock and one
	// history: the faults are recorded where they happen.
	recorder := jsonl.NewRecorder(rec)
	start := time.Now()
	rf.nemesis.Start = start
	rf.nemesis.OnEvent = func(e nemesis.Event) {
		if e.Err == nil {
			recorder.RecordFault(e.What(), int64(e.At))
		}
	}
	faults := rf.startNemesis(ctx, stdout)
	opts := runner.Options{
		Start:      start,
		Recorder:   recorder,
		TxnTimeout: rf.txnTimeout,
		Reconnect:  rf.reconnect,
		Waiting:    waitingReporter(runErr, redact(rf.dsn)),
		Completed:  rf.onTxn,
		Fences:     rf.fences,
	}
	if rf.nemesis.Kind != "" && !rf.reconnectSet {
		// A killed node takes a while to restart: its sessions wait.
		opts.Reconnect = rf.nemesis.Duration + nemesisReconnect
	}
	sum, err := runner.Run(progress.WithTracker(runCtx, tr), d, plan, opts)
	endWatch()
	if rf.online != nil && err == nil && rf.html == "" {
		rf.online.finish(ctx)
	}
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
	if sum.Incomplete() && rf.online != nil && rf.online.stopped {
		fmt.Fprintf(stderr, "isocheck run: stopped at the first violation: %d of the plan's %d transactions not run\n", sum.Planned-sum.Done(), sum.Planned)
		return f.path, sum, exitNoVerdict
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
		rf.faulted = r.events
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

// historyFile is where a run writes its history: the file of -o, a
// temporary file, or standard output (-o -), which a temporary copy
// follows when --check needs to read the history back. So does a device
// or a FIFO that -o names.
type historyFile struct {
	io.Writer
	name string      // for people: the path, or "standard output"
	path string      // the file the history can be read back from
	f    *outputFile // the file at path; nil when the history goes to standard output only
	// out is the device or FIFO of -o that f copies, or nil.
	out *outputFile
}

// Close closes the files and puts the history in place (see
// outputFile.Commit).
func (h *historyFile) Close() error {
	var err error
	for _, f := range []*outputFile{h.out, h.f} {
		if f == nil {
			continue
		}
		if cerr := f.Commit(); err == nil {
			err = cerr
		}
	}
	return err
}

// Discard gives up a history that was not written: it closes the files
// and removes those isocheck created, leaving any file -o named and
// isocheck did not create as it was.
func (h *historyFile) Discard() {
	for _, f := range []*outputFile{h.out, h.f} {
		if f != nil {
			f.Abort()
		}
	}
}

// createOutput opens the history's output: -o FILE, which must not exist
// unless --force; -o -, standard output (rf.histOut); or, when -o is not
// given, a new file in the temporary directory. A FILE that does not
// exist is written as the run goes; one that --force overwrites is
// replaced at the end, and stays as it was when the run does not start;
// a device or a FIFO is written in place.
func (rf *runFlags) createOutput() (*historyFile, error) {
	switch rf.out {
	case "":
		f, err := os.CreateTemp("", "isocheck-run-*.jsonl")
		if err != nil {
			return nil, err
		}
		return &historyFile{Writer: f, name: f.Name(), path: f.Name(), f: &outputFile{File: f, target: f.Name(), created: true, regular: true}}, nil
	case "-":
		h := &historyFile{Writer: rf.histOut, name: "standard output"}
		if !rf.readBack {
			return h, nil
		}
		return h, rf.copyToReadBack(h)
	}
	exists := fmt.Errorf("%s exists; remove it or pass --force", rf.out)
	if _, err := os.Lstat(rf.out); err == nil && !rf.force {
		return nil, exists
	}
	f, err := openOutput(rf.out, true)
	if errors.Is(err, fs.ErrExist) {
		return nil, exists
	}
	if err != nil {
		return nil, err
	}
	if f.regular {
		return &historyFile{Writer: f, name: rf.out, path: rf.out, f: f}, nil
	}
	h := &historyFile{Writer: f, name: rf.out, out: f}
	if !rf.readBack {
		return h, nil
	}
	if err := rf.copyToReadBack(h); err != nil {
		f.Abort()
		return nil, err
	}
	return h, nil
}

// copyToReadBack makes h, a history that cannot be read back from where it
// goes, copy it to a temporary file that rf.cleanup removes.
func (rf *runFlags) copyToReadBack(h *historyFile) error {
	f, err := os.CreateTemp("", "isocheck-run-*.jsonl")
	if err != nil {
		return err
	}
	rf.cleanup = append(rf.cleanup, func() { os.Remove(f.Name()) })
	h.Writer = io.MultiWriter(h.Writer, f)
	h.path = f.Name()
	h.f = &outputFile{File: f, target: f.Name(), created: true, regular: true}
	return nil
}
