package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/isocheck/isocheck/check"
	"github.com/isocheck/isocheck/format"
	"github.com/isocheck/isocheck/internal/textsafe"
	"github.com/isocheck/isocheck/interpret"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/online"
	"github.com/isocheck/isocheck/progress"
)

// followFlags are the flags of check --follow.
type followFlags struct {
	on bool
	// idle is how long a regular file may stay the same size before it
	// is taken as complete.
	idle time.Duration
	// stop ends the input at the first violation.
	stop bool
}

// followEvery is how often the input is checked while it grows.
const followEvery = 100 * time.Millisecond

// addFollowFlags adds the flags of --follow to fs.
func (cf *checkFlags) addFollowFlags(fs *flag.FlagSet) {
	fs.BoolVar(&cf.followFlags.on, "follow", false, "check the input while it is written (a growing file, a FIFO, or - for standard input; native JSONL or Jepsen EDN): print a violation as soon as the transactions read prove it, then the verdict on the whole input at its end, as check gives it")
	fs.DurationVar(&cf.followFlags.idle, "idle", 10*time.Second, "with --follow, take a regular file that has not grown for this long as complete")
	fs.BoolVar(&cf.followFlags.stop, "stop-on-violation", false, "with --follow, take the input as ending at the first violation found")
}

// followConflict says what other flags --follow cannot go with, or "".
func (cf *checkFlags) followConflict(all bool) string {
	switch {
	case all:
		return "--follow checks one level: give --level sser, ser, si, pc, cc, ra or rc"
	case cf.followFlags.idle <= 0:
		return "--idle must be positive"
	}
	if _, err := level.Parse(cf.level); err != nil {
		return err.Error()
	}
	return ""
}

// followPoll is how often a regular file that did not grow is looked at
// again.
const followPoll = 50 * time.Millisecond

// follower reads an input as it is written into an online checker.
type follower struct {
	path    string
	regular bool
	f       *os.File
	fmtFlag format.Format

	mu   sync.Mutex
	head []byte // what came before the format was known
	c    *online.Checker
	// fallback is why the input is not checked as it comes (its format
	// is not read line by line): it is checked at its end.
	fallback string
	done     bool
	err      error
	stop     bool // asked to stop reading
}

// follow reads the input at path as it is written, checks it at lvl as
// it comes and prints the first violation found as soon as the
// transactions read prove it. It returns, once the input has ended, a
// stream of the whole input, which the offline check then reads: the
// final verdict is the same as for the finished file. A regular file ends
// once it has not grown for --idle; a pipe or FIFO at its end.
//
// found says that a violation was printed; with an error that says the
// job's limits ended it, the violation stands all the same.
func (cf *checkFlags) follow(j *job, path string, lvl level.Level, color bool, stdout, stderr io.Writer) (s *stream, found bool, err error) {
	fmtFlag, err := format.ParseFormat(cf.input.format)
	if err != nil {
		return nil, false, err
	}
	path = inputPath(path)
	st, err := os.Stat(path)
	if err != nil {
		return nil, false, err
	}
	if st.IsDir() {
		return nil, false, fmt.Errorf("%s: --follow reads a file, a FIFO or standard input, not a directory", path)
	}
	f, _, err := readWithin(j, path, func(context.Context) (*os.File, *format.Info, error) {
		f, err := os.Open(path) // a FIFO's opening waits for its writer
		return f, nil, err
	})
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	fl := &follower{path: path, regular: st.Mode().IsRegular(), f: f, fmtFlag: fmtFlag}
	ctx, cancel := context.WithCancel(j.ctx)
	defer cancel()
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		fl.read(ctx, cf.followFlags.idle, lvl, cf.ablate)
	}()

	m := progress.Start(j.ctx, "follow", 0, "lines")
	j.tracker.SetNote(lvl.String() + ": no violation so far (memory grows with the input)")
	defer j.tracker.SetNote("")
	tick := time.NewTicker(followEvery)
	defer tick.Stop()
	for ended := false; !ended; {
		select {
		case <-readDone:
			ended = true
		case <-tick.C:
		case <-j.ctx.Done():
			ended = true
		}
		c := fl.checker()
		if c == nil || found {
			continue
		}
		v, err := c.Check(progress.WithTracker(j.ctx, nil))
		s := c.Stats()
		m.Set(int64(s.Lines))
		if err != nil {
			break // the job's limits: reported as the check's
		}
		if v == nil {
			if s.Repeated {
				j.tracker.SetNote(lvl.String() + ": values repeat, verdict at the end")
			} else if s.Unreadable != nil {
				j.tracker.SetNote(lvl.String() + ": a line cannot be read, verdict at the end")
			}
			continue
		}
		found = true
		j.tracker.SetNote(lvl.String() + ": VIOLATED")
		cf.printEarly(j, v, lvl, color, stdout, stderr)
		if cf.followFlags.stop {
			fl.mu.Lock()
			fl.stop = true
			fl.mu.Unlock()
			cancel()
			<-readDone
			break
		}
	}
	cancel()
	<-readDone
	if err := j.ctx.Err(); err != nil {
		return nil, found, fmt.Errorf("read %s: %w", path, context.Cause(j.ctx))
	}
	fl.mu.Lock()
	defer fl.mu.Unlock()
	if fl.err != nil {
		return nil, found, fl.err
	}
	if fl.fallback != "" {
		fmt.Fprintf(stderr, "isocheck: --follow: %s\n", fl.fallback)
	}
	data := fl.head
	if fl.c != nil {
		data = fl.c.Bytes()
		if s := fl.c.Stats(); s.Repeated && !found {
			fmt.Fprintf(stderr, "isocheck: --follow: values repeat, so no violation was reported early: the verdict below is of the whole input\n")
		} else if s.Unreadable != nil && !found {
			fmt.Fprintf(stderr, "isocheck: --follow: part of the input could not be read, so no violation was reported early: the check below reads it whole\n")
		}
	}
	if found && cf.followFlags.stop {
		// The input ends at the violation: up to its last complete line.
		if i := bytes.LastIndexByte(data, '\n'); i >= 0 {
			data = data[:i+1]
		}
	}
	return &stream{r: bufio.NewReader(bytes.NewReader(data)), format: fl.detected(data)}, found, nil
}

// printEarly prints an early violation: on stdout, or on stderr when
// stdout holds one JSON or EDN object.
func (cf *checkFlags) printEarly(j *job, v *online.Violation, lvl level.Level, color bool, stdout, stderr io.Writer) {
	out := stdout
	if cf.asJSON || cf.asEDN {
		out, color = stderr, false
	}
	name := textsafe.Escape(cf.inputPath)
	if v.FromLine == 0 {
		fmt.Fprintf(out, "The first %d lines of %s already violate %s:\n", v.Lines, name, lvl)
	} else {
		fmt.Fprintf(out, "Lines %d-%d of %s already violate %s:\n", v.FromLine+1, v.Lines, name, lvl)
	}
	ex := j.explaining(false)
	rep, err := interpret.Minimal(ex.ctx, v.Result)
	if err != nil {
		rep = interpret.Explain(v.Result)
	}
	rep.WriteExplanation(out, color)
	if cf.followFlags.stop {
		fmt.Fprintf(out, "(--stop-on-violation: the input is taken as ending here; the verdict on it follows)\n\n")
	} else {
		fmt.Fprintf(out, "(following on: the verdict on the whole input comes at its end)\n\n")
	}
}

// checker returns the online checker, once the format is known.
func (fl *follower) checker() *online.Checker {
	fl.mu.Lock()
	defer fl.mu.Unlock()
	return fl.c
}

// detected is the format the final check is told of (for a SQL history,
// which has a reader of its own).
func (fl *follower) detected(data []byte) format.Format {
	if fl.fmtFlag != format.Auto {
		return fl.fmtFlag
	}
	f, _ := format.DetectBytes(fl.path, data[:min(len(data), streamHead)])
	return f
}

// read reads the input until it ends, or ctx does: into the checker once
// the first line tells the format, before that into head.
func (fl *follower) read(ctx context.Context, idle time.Duration, lvl level.Level, opts check.Options) {
	stopDeadline := context.AfterFunc(ctx, func() { fl.f.SetReadDeadline(time.Now()) })
	defer stopDeadline()
	buf := make([]byte, 1<<16)
	var quiet time.Duration // how long a regular file has not grown
	for {
		n, err := fl.f.Read(buf)
		if n > 0 {
			quiet = 0
			fl.take(buf[:n], lvl, opts)
		}
		switch {
		case err == nil:
			continue
		case errors.Is(err, io.EOF) && fl.regular && quiet < idle:
			select {
			case <-ctx.Done():
			case <-time.After(followPoll):
				quiet += followPoll
				continue
			}
		case errors.Is(err, io.EOF):
		case ctx.Err() != nil:
		default:
			fl.mu.Lock()
			fl.err = fmt.Errorf("read %s: %w", fl.path, err)
			fl.mu.Unlock()
		}
		fl.mu.Lock()
		if fl.c == nil && fl.fallback == "" {
			fl.start(lvl, opts) // a short input: its format from what there is
			if fl.c != nil {
				fl.c.Write(fl.head)
				fl.head = nil
			}
		}
		fl.done = true
		fl.mu.Unlock()
		return
	}
}

// take adds p to the input.
func (fl *follower) take(p []byte, lvl level.Level, opts check.Options) {
	fl.mu.Lock()
	defer fl.mu.Unlock()
	if fl.c != nil {
		fl.c.Write(p)
		return
	}
	fl.head = append(fl.head, p...)
	if fl.fallback != "" || bytes.IndexByte(fl.head, '\n') < 0 && len(fl.head) < streamHead {
		return
	}
	fl.start(lvl, opts)
	if fl.c != nil {
		fl.c.Write(fl.head)
		fl.head = nil
	}
}

// start makes the checker, from the format of head; fl.mu is held.
func (fl *follower) start(lvl level.Level, opts check.Options) {
	f := fl.fmtFlag
	if f == format.Auto {
		var err error
		if f, err = format.DetectBytes(fl.path, fl.head); err != nil {
			fl.fallback = "the format cannot be told from the input's first line: it is read when it ends"
			return
		}
	}
	c, err := online.New(online.Options{Level: lvl, Format: f, Name: fl.path, Check: opts})
	if err != nil {
		fl.fallback = fmt.Sprintf("a %s history is checked when the input ends: only native JSONL and Jepsen EDN, one transaction or event a line, are checked as they come", f)
		return
	}
	fl.c = c
}
