package main

import (
	"context"
	"fmt"
	"io"
	"sync"

	"github.com/isocheck/isocheck/format"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/online"
	"github.com/isocheck/isocheck/progress"
	"github.com/isocheck/isocheck/verdict"
)

// runChecker checks a run's history at one level while it is recorded
// (run --check LEVEL): its progress line says the verdict so far, and with
// --stop-on-violation the run ends at the first violation.
type runChecker struct {
	c     *online.Checker
	opts  online.Options
	level level.Level
	stop  bool
	// stopped says the run was ended at a violation.
	stopped bool
	// final is the verdict on the whole run that the pieces between its
	// fences gave, if they did (a satisfied one).
	final *online.Final
}

// newRunChecker returns the checker of a run checked at check, or nil
// when the run is not checked at one level.
func newRunChecker(check string, stop bool) *runChecker {
	l, err := level.Parse(check)
	if err != nil {
		return nil
	}
	opts := online.Options{Level: l, Format: format.JSONL, Name: "the history"}
	c, err := online.New(opts)
	if err != nil {
		return nil
	}
	return &runChecker{c: c, opts: opts, level: l, stop: stop}
}

// readFrom makes the checker read its checks of everything so far from
// src, the file the run records the history to, which is written before
// the checker is: they go on past the lines the checker keeps, and a
// violation that spans more than a window is found during the run.
func (rc *runChecker) readFrom(src io.ReaderAt) {
	opts := rc.opts
	opts.Source = src
	if c, err := online.New(opts); err == nil {
		rc.c = c
	}
}

// watch checks what the run recorded every followEvery until the
// returned function is called, noting the verdict so far on tr; on a
// violation it says so on stderr and, with --stop-on-violation, calls
// cancelRun.
func (rc *runChecker) watch(ctx context.Context, tr *progress.Tracker, cancelRun func(), stderr io.Writer) (end func()) {
	// The checks end with the run: the check of the whole follows.
	ctx, endChecks := context.WithCancel(progress.WithTracker(ctx, nil))
	finished := make(chan struct{})
	tr.SetNote(earlyNote(rc.level, online.Stats{}))
	go func() {
		defer close(finished)
		v, _ := rc.c.Watch(ctx, followEvery, func(s online.Stats) { tr.SetNote(earlyNote(rc.level, s)) })
		if v == nil {
			return // the run ended, or nothing more is checked early
		}
		tr.SetNote(rc.level.String() + ": VIOLATED")
		what := "the check after the run explains it"
		if rc.stop {
			what = "stopping the run (--stop-on-violation); the check after it explains the violation"
			rc.stopped = true
			cancelRun()
		}
		fmt.Fprintf(stderr, "isocheck run: the transactions recorded so far (lines %d-%d of the history) violate %s: %s\n", v.FromLine+1, v.Lines, rc.level, what)
	}()
	return func() {
		endChecks()
		<-finished
		rc.c.Wait()
		tr.SetNote("")
	}
}

// finish takes the verdict of the pieces between fences, once the run
// is over and what it recorded is in the history's file, when they give
// one that the run keeps the level: the check after the run then need
// not read the history whole.
func (rc *runChecker) finish(ctx context.Context) {
	if rc.stopped {
		return
	}
	if fin, err := rc.c.Finish(ctx); err == nil && fin != nil && fin.Result.Verdict == verdict.Satisfied {
		rc.final = fin
	}
}

// lockedWriter writes to w one Write at a time, for writers on several
// goroutines.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
