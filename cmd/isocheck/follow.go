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
	"github.com/isocheck/isocheck/verdict"
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

// followStats are what --follow did, for --stats and --json.
type followStats struct {
	// Lines counts the lines read while following.
	Lines int `json:"lines"`
	// Windows counts the checks of the latest lines, WindowMS their
	// time, LargestWindow the most lines one took (more than 4,096 when
	// the checks fell behind the input).
	Windows       int     `json:"windows"`
	WindowMS      float64 `json:"window_ms"`
	LargestWindow int     `json:"largest_window"`
	// Prefixes counts the checks of everything so far, PrefixMS their
	// time.
	Prefixes int     `json:"prefixes"`
	PrefixMS float64 `json:"prefix_ms"`
}

// followedStats are the stats of what --follow did, nil without it.
func (cf *checkFlags) followedStats() *followStats {
	s := cf.followed
	if s == nil {
		return nil
	}
	return &followStats{Lines: s.Lines, Windows: s.Windows, WindowMS: ms(s.WindowTime), LargestWindow: s.LargestWindow, Prefixes: s.Prefixes, PrefixMS: ms(s.PrefixTime)}
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

	// spool keeps the input that is not a regular file, for the check of
	// the whole (a file of ours, open but already removed).
	spool *os.File

	mu sync.Mutex
	// size is the bytes read, lineEnd the end of the last complete line.
	size, lineEnd int64
	// start is the input's start, from which its format is told; head
	// is what came before the format was known, for the checker.
	start []byte
	head  []byte
	c     *online.Checker
	// fallback is why the input is not checked as it comes (its format
	// is not read line by line): it is checked at its end.
	fallback string
	err      error
	// maxPrefixBytes bounds the checks of everything so far
	// (online.Options.MaxPrefixBytes).
	maxPrefixBytes int64
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
	fl := &follower{path: path, regular: st.Mode().IsRegular(), f: f, fmtFlag: fmtFlag}
	if m := int64(cf.input.limits.maxMemory); m > 0 {
		// A check of everything so far takes about three times the bytes
		// it reads: within --max-memory with room to spare for the rest.
		fl.maxPrefixBytes = min(m/8, online.DefaultMaxPrefixBytes)
	}
	if !fl.regular {
		// A pipe is read once: what came is kept in a file of ours, for
		// the check of the whole.
		if fl.spool, err = os.CreateTemp("", "isocheck-follow-*"); err != nil {
			f.Close()
			return nil, false, fmt.Errorf("--follow: keeping the input: %w", err)
		}
		// Gone from the folder at once, so that nothing is left behind
		// even if isocheck is killed: the open file is read at the end.
		os.Remove(fl.spool.Name())
	}
	keep := false // the stream returned closes the files
	defer func() {
		if !keep {
			fl.close()
		}
	}()
	ctx, cancel := context.WithCancel(j.ctx)
	defer cancel()
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		fl.read(ctx, cf.followFlags.idle, lvl, cf.ablate)
	}()

	m := progress.Start(j.ctx, "follow", 0, "lines")
	j.tracker.SetNote(earlyNote(lvl, online.Stats{}))
	defer j.tracker.SetNote("")
	// The checks end as the input does: the check of the whole follows.
	checkCtx, endChecks := context.WithCancel(progress.WithTracker(j.ctx, nil))
	defer endChecks()
	go func() {
		select {
		case <-readDone:
		case <-checkCtx.Done():
		}
		endChecks()
	}()
	if c := fl.waitChecker(checkCtx); c != nil {
		// An error is the input's end, or the job's limits (reported as
		// the check's).
		v, _ := c.Watch(checkCtx, followEvery, func(s online.Stats) {
			m.Set(int64(s.Lines))
			j.tracker.SetNote(earlyNote(lvl, s))
		})
		if v != nil {
			found = true
			j.tracker.SetNote(lvl.String() + ": VIOLATED")
			cf.printEarly(j, v, lvl, color, stdout, stderr)
			if cf.followFlags.stop {
				cancel()
			}
		}
	}
	<-readDone
	endChecks()
	if c := fl.checker(); c != nil {
		c.Wait()
	}
	cancel()
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
	if fl.c != nil && !found && cf.plainVerdict() {
		// Pieces between fences decide the whole without reading it.
		if fin, err := fl.c.Finish(j.ctx); err == nil && fin != nil && fin.Result.Verdict == verdict.Satisfied {
			cf.final = fin
		}
	}
	if fl.c != nil {
		s := fl.c.Stats()
		cf.followed = &s
		if s.Repeated && !found {
			fmt.Fprintf(stderr, "isocheck: --follow: values repeat, so no violation was reported early: the verdict below is of the whole input\n")
		} else if s.Unreadable != nil && !found {
			fmt.Fprintf(stderr, "isocheck: --follow: part of the input could not be read, so no violation was reported early: the check below reads it whole\n")
		}
	}
	size := fl.size
	if found && cf.followFlags.stop {
		// The input ends at the violation: up to its last complete line.
		size = fl.lineEnd
	}
	whole := io.ReaderAt(fl.f)
	if fl.spool != nil {
		whole = fl.spool
	}
	keep = true
	return &stream{r: bufio.NewReader(io.NewSectionReader(whole, 0, size)), format: fl.detected(), cleanup: fl.close}, found, nil
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

// earlyNote is the note of the progress line while the input is checked
// as it comes at l, from what the checker's Stats say.
func earlyNote(l level.Level, s online.Stats) string {
	switch {
	case s.Repeated && s.Pieces == 0:
		return l.String() + ": values repeat, verdict at the end"
	case s.Unreadable != nil:
		return l.String() + ": a line cannot be read, verdict at the end"
	case s.Pieces > 0 && s.NotApart != "":
		return fmt.Sprintf("%s: no violation so far; %d pieces decided, then %s: memory grows", l, s.Pieces, s.NotApart)
	case s.Pieces > 0:
		return fmt.Sprintf("%s: no violation in %d pieces between fences, up to line %d", l, s.Pieces, s.Settled)
	case s.Lines > online.DefaultMaxPrefix:
		// Past what is checked whole early: the whole, at the end,
		// takes memory that grows with it.
		return l.String() + ": no violation so far; no fences, so the whole is checked at the end"
	}
	return l.String() + ": no violation so far"
}

// waitChecker returns the online checker once the input's first line
// has told the format, or nil when ctx ends first (the input ended
// without one: a format that is read whole).
func (fl *follower) waitChecker(ctx context.Context) *online.Checker {
	for {
		if c := fl.checker(); c != nil {
			return c
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(followPoll):
		}
	}
}

// checker returns the online checker, once the format is known.
func (fl *follower) checker() *online.Checker {
	fl.mu.Lock()
	defer fl.mu.Unlock()
	return fl.c
}

// detected is the format the final check is told of (for a SQL history,
// which has a reader of its own); fl.mu is held.
func (fl *follower) detected() format.Format {
	if fl.fmtFlag != format.Auto {
		return fl.fmtFlag
	}
	f, _ := format.DetectBytes(fl.path, fl.start)
	return f
}

// close closes the input and the copy of it.
func (fl *follower) close() {
	fl.f.Close()
	if fl.spool != nil {
		fl.spool.Close()
	}
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
			fl.begin(lvl, opts) // a short input: its format from what there is
			if fl.c != nil {
				fl.c.Write(fl.head)
				fl.head = nil
			}
		}
		fl.mu.Unlock()
		return
	}
}

// take adds p to the input.
func (fl *follower) take(p []byte, lvl level.Level, opts check.Options) {
	fl.mu.Lock()
	defer fl.mu.Unlock()
	if fl.spool != nil && fl.err == nil {
		if _, err := fl.spool.Write(p); err != nil {
			fl.err = fmt.Errorf("--follow: keeping the input: %w", err)
		}
	}
	if i := bytes.LastIndexByte(p, '\n'); i >= 0 {
		fl.lineEnd = fl.size + int64(i) + 1
	}
	fl.size += int64(len(p))
	if n := min(len(p), streamHead-len(fl.start)); n > 0 {
		fl.start = append(fl.start, p[:n]...)
	}
	if fl.c != nil {
		fl.c.Write(p)
		return
	}
	if fl.fallback != "" {
		return // the copy of the input is all the check of the whole needs
	}
	fl.head = append(fl.head, p...)
	if bytes.IndexByte(fl.head, '\n') < 0 && len(fl.head) < streamHead {
		return
	}
	fl.begin(lvl, opts)
	if fl.c != nil {
		fl.c.Write(fl.head)
		fl.head = nil
	}
}

// begin makes the checker, from the format of head; fl.mu is held.
func (fl *follower) begin(lvl level.Level, opts check.Options) {
	f := fl.fmtFlag
	if f == format.Auto {
		var err error
		if f, err = format.DetectBytes(fl.path, fl.head); err != nil {
			fl.fallback = "the format cannot be told from the input's first line: it is read when it ends"
			return
		}
	}
	// The checks of everything so far read the input back from the file
	// it is, or from the copy of a pipe, which hold each byte before the
	// checker does.
	src := io.ReaderAt(fl.f)
	if fl.spool != nil {
		src = fl.spool
	}
	c, err := online.New(online.Options{Level: lvl, Format: f, Name: fl.path, Check: opts, Source: src, MaxPrefixBytes: fl.maxPrefixBytes})
	if err != nil {
		fl.fallback = fmt.Sprintf("a %s history is checked when the input ends: only native JSONL and Jepsen EDN, one transaction or event a line, are checked as they come", f)
		return
	}
	fl.c = c
}

// plainVerdict says that the check prints its verdict and nothing else
// that needs the whole history (no JSON, EDN, page, picture, statistics or
// list of anomalies), so that a verdict the pieces between fences gave
// can stand for it.
func (cf *checkFlags) plainVerdict() bool {
	return !cf.asJSON && !cf.asEDN && !cf.stats && !cf.elle && cf.htmlFile == "" && cf.cexFile == "" &&
		cf.dotFile == "" && cf.svgFile == "" && cf.pngFile == "" && cf.anomaliesFile == ""
}

// printFinal prints the verdict on an input the pieces between its fences
// decided, as check prints it, and on stderr how it was reached.
func printFinal(fin *online.Final, lvl level.Level, what string, stdout, stderr io.Writer) int {
	fmt.Fprintf(stdout, "%s: satisfied\n", lvl)
	fmt.Fprintf(stderr, "isocheck: %s: decided in %d pieces between fences, checked as they came (%d lines): the whole was never held in memory\n", what, fin.Pieces, fin.Lines)
	return exitSatisfied
}
