// Package online checks a history while it is written: a Checker takes
// the input's bytes as they come (it is an io.Writer) and, each time
// Check is called, checks what arrived since, so that a violation is
// reported soon after the transaction that closes it completes, not after
// the whole run.
//
// What is checked early is a part of the input: the latest lines (a
// window, which overlaps the one before so that no transaction is
// skipped), and, each time the input has doubled, everything read so far
// (on a goroutine of its own, so that windows are checked meanwhile): up
// to 65,536 lines from the Checker's memory, or, where the caller keeps
// the input in a file (Options.Source), read from there, for as long as
// 32 MiB or the caller's bound.
// Each part is read with the format's own reader and checked by package
// check at the level, without the reads whose writer the part does not
// hold yet (it may still complete). A part that breaks the level proves
// that the whole history does, when each value is written once per key
// (as isocheck run and Jepsen's workloads write them): a level's axioms
// only gain constraints from more transactions and reads. Once values are
// seen to repeat, a read's writer may still be one of several yet to
// come, and the checker stops reporting early: the verdict waits for the
// end.
//
// The verdict on the whole input is the offline check's (package check)
// of everything written, which the caller keeps: the same verdict and
// explanation as checking the finished file.
//
// The Checker keeps the lines it may still check: everything, until the
// input passes MaxPrefix lines, then about two windows (about two windows
// from the start with a Source). A violation that spans more lines than a
// window is found by the next check of everything so far, or, past the
// bound on those, by the check of the whole at the end.
//
// A history with fences (run.Options.Fences) is also checked a piece at a
// time, from one fence to the next, read from the Source: at causal
// consistency and the levels stronger, the pieces decide the whole
// exactly (at RA and RC, when they keep CC), and Finish gives the verdict
// on an input of any length, which the Checker never holds (see fenced
// for why, and when a piece does not stand for what came before it).
package online

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/isocheck/isocheck/check"
	"github.com/isocheck/isocheck/format"
	"github.com/isocheck/isocheck/format/jepsen"
	"github.com/isocheck/isocheck/format/jsonl"
	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/progress"
	"github.com/isocheck/isocheck/verdict"
)

// DefaultWindow is how many of the latest lines an early check reads by
// default: about 4,000 transactions of native JSONL, half as many of
// Jepsen's EDN (an invocation and a completion each), checked in tens of
// milliseconds.
const DefaultWindow = 4096

// DefaultMaxPrefix is the most lines of the input checked whole before
// its end: about 65,000 transactions of native JSONL, checked in a
// fraction of a second with about a hundred megabytes; past it, the
// Checker holds about two windows.
const DefaultMaxPrefix = 1 << 16

// DefaultMaxPrefixBytes is the most bytes of the input a check of
// everything so far reads from Options.Source by default: about 125,000
// transactions of native JSONL, checked with a few hundred megabytes at
// most (SER's), so that a stream's checks stay within half a gigabyte.
const DefaultMaxPrefixBytes = 1 << 25

// Options say what a Checker checks.
type Options struct {
	// Level is the level checked.
	Level level.Level
	// Format is the input's format: format.JSONL or format.EDN, whose
	// lines can be read apart (one transaction, or one event, a line).
	Format format.Format
	// Name is the input's name, for positions in reports.
	Name string
	// Window is how many of the latest lines an early check reads
	// (DefaultWindow when 0). When the checks fall behind the input, a
	// window takes every line since the last one.
	Window int
	// NoPrefix leaves out the checks of everything read so far, each time
	// it has doubled: only windows are checked early.
	NoPrefix bool
	// MaxPrefix is the most lines a check of everything read so far
	// reads from the Checker's memory (DefaultMaxPrefix when 0): past it,
	// only windows are checked until the end, whose check reads
	// everything, unless there is a Source.
	MaxPrefix int
	// Source, when set, is the input as written so far, from its first
	// byte: a file the caller keeps, which holds every byte before it is
	// written to the Checker (check --follow's input, or its copy of a
	// pipe; the history run records). The checks of everything so far
	// then read it from there, each time the input doubles, for as long
	// as it is at most MaxPrefixBytes: the Checker itself keeps only
	// about two windows, and a violation that spans more lines than a
	// window is found before the end.
	Source io.ReaderAt
	// MaxPrefixBytes bounds the checks of everything so far that read
	// Source (DefaultMaxPrefixBytes when 0): the memory of such a check
	// is about three times the bytes it reads.
	MaxPrefixBytes int64
	// Check are the checker's options (check.CheckWith); WeakestBroken is
	// always set, so that a violation is named by the weakest level it
	// breaks.
	Check check.Options
}

// A Checker checks a history as it is written. Write and the other
// methods are safe for concurrent use: one goroutine may write the input
// while another calls Check.
type Checker struct {
	opts Options

	mu sync.Mutex
	// buf holds the input from byte offset base on, and lines the
	// offsets of the starts of lines first, first+1, ..., then the end
	// of the last complete line: the lines a check may still read.
	buf   []byte
	base  int64
	lines []int64
	first int
	// repeated says that values were seen to repeat: no early verdict.
	repeated bool
	// unreadable is the error of reading a part of the input, after which
	// there is no early verdict: reading the whole reports it.
	unreadable error
	windowEnd  int // lines covered by the last window
	prefixAt   int // lines of the last check of everything so far
	stats      Stats
	// The check of everything so far runs on a goroutine of its own, so
	// that windows go on being checked meanwhile: prefixRunning says it
	// runs, prefixFound is what it found, for the next Check to return.
	prefixRunning bool
	prefixFound   *Violation
	prefixDone    sync.WaitGroup
	// fenced is what the Checker knows of the pieces between fences it
	// checked and forgot.
	fenced fenced
}

// Stats counts the work of a Checker.
type Stats struct {
	// Lines counts the complete lines read, Kept the bytes of the input
	// the Checker holds.
	Lines, Kept int
	// Windows and Prefixes count the checks of windows and of everything
	// read so far, WindowTime and PrefixTime the time they took, and
	// LargestWindow is the most lines a window took (more than Window
	// when the checks fell behind the input).
	Windows, Prefixes      int
	WindowTime, PrefixTime time.Duration
	LargestWindow          int
	// Repeated says that values repeat, and Unreadable that a part of the
	// input could not be read: then nothing more is checked early.
	Repeated   bool
	Unreadable error
	// Pieces counts the pieces between fences checked and forgotten, and
	// Settled the lines they hold: everything before line Settled is
	// decided, and the verdict on the whole needs only what comes after
	// (Finish). NotApart, when set, says why the pieces are no longer
	// checked apart: the verdict on the whole is then the check of the
	// whole.
	Pieces, Settled int
	NotApart        string
}

// Violation is a part of the input that breaks the level.
type Violation struct {
	// History is the part checked (without the reads whose writer it
	// does not hold), Result its check, with the evidence.
	History *history.History
	Result  *check.Result
	// Lines is the number of lines of the input read when it was found:
	// the part lies within them. FromLine is the part's first line
	// (0 for everything so far).
	Lines, FromLine int
}

// New returns a Checker.
func New(opts Options) (*Checker, error) {
	if opts.Format != format.JSONL && opts.Format != format.EDN {
		return nil, fmt.Errorf("online: %s: only native JSONL and Jepsen EDN histories can be checked as they are written (one transaction, or one event, a line), not %s", opts.Name, opts.Format)
	}
	if opts.Window <= 0 {
		opts.Window = DefaultWindow
	}
	if opts.MaxPrefix <= 0 {
		opts.MaxPrefix = DefaultMaxPrefix
	}
	if opts.MaxPrefixBytes <= 0 {
		opts.MaxPrefixBytes = DefaultMaxPrefixBytes
	}
	opts.Check.WeakestBroken = true
	return &Checker{opts: opts, lines: []int64{0}}, nil
}

// Write appends p to the input. A line is taken once its newline has
// come.
func (c *Checker) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	from, n := len(c.buf), c.numLines()
	c.buf = append(c.buf, p...)
	for i := bytes.IndexByte(c.buf[from:], '\n'); i >= 0; i = bytes.IndexByte(c.buf[from:], '\n') {
		from += i + 1
		c.lines = append(c.lines, c.base+int64(from))
	}
	c.noteFences(n)
	if f := &c.fenced; f.stopped == "" && (f.pieces > 0 || len(f.pending) > 0) {
		// The pieces between fences, read from the Source, decide
		// every line: an input that comes faster than it is checked
		// is not held, and the next window begins within the last
		// two.
		c.forget(c.numLines() - c.opts.Window)
	}
	return len(p), nil
}

// numLines is the number of complete lines written; c.mu is held.
func (c *Checker) numLines() int { return c.first + len(c.lines) - 1 }

// forget lets go of the lines before keep, which no check will read again
// (c.mu is held), once they are more than half of what is kept: the
// Checker's memory stays within about two windows.
func (c *Checker) forget(keep int) {
	if keep <= c.first {
		return
	}
	off := c.lines[keep-c.first] - c.base
	if off < int64(len(c.buf))/2 {
		return
	}
	// Copies, not reslices: a check may still read the old arrays, and the
	// memory of what goes must be freed.
	c.buf = append([]byte(nil), c.buf[off:]...)
	c.base += off
	c.lines = append([]int64(nil), c.lines[keep-c.first:]...)
	c.first = keep
}

// Stats returns the counts of the Checker's work so far.
func (c *Checker) Stats() Stats {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.stats
	s.Lines, s.Kept = c.numLines(), len(c.buf)
	s.Repeated, s.Unreadable = c.repeated, c.unreadable
	s.Pieces, s.Settled, s.NotApart = c.fenced.pieces, c.fenced.settled, c.fenced.stopped
	return s
}

// Check checks the lines that came since the last call: the latest
// window and, when the input has doubled since it was last checked whole,
// everything so far, on a goroutine of its own. It returns the first part
// found to break the level, or nil. An error says that ctx ended
// (progress.Stopped is true for it). After values were seen to repeat, or
// a part of the input could not be read, Check checks nothing: Stats says
// why. The check of everything so far goes on after Check returns, until
// it is done or ctx ends; Wait waits for it.
func (c *Checker) Check(ctx context.Context) (*Violation, error) {
	if v, err := c.checkPieces(ctx); v != nil || err != nil {
		return v, err
	}
	c.mu.Lock()
	if v := c.prefixFound; v != nil {
		c.prefixFound = nil
		c.mu.Unlock()
		return v, nil
	}
	n := c.numLines()
	if n == c.windowEnd || c.repeated || c.unreadable != nil {
		c.mu.Unlock()
		return nil, nil
	}
	// The window overlaps the last one by half, and takes every line
	// since it when the checks fall behind.
	from := max(c.first, min(n-c.opts.Window, c.windowEnd-c.opts.Window/2))
	buf, base, lines, first := c.buf, c.base, c.lines, c.first
	end := lines[n-first] // the byte after line n
	c.windowEnd = n
	src := c.opts.Source
	fromMemory := src == nil && n <= c.opts.MaxPrefix
	// Once pieces between fences are checked, everything before the
	// last fence is decided.
	prefixes := !c.opts.NoPrefix && c.fenced.pieces == 0 && (fromMemory || src != nil && end <= c.opts.MaxPrefixBytes)
	if prefixes && from > 0 && !c.prefixRunning && n >= 2*max(c.prefixAt, c.opts.Window) {
		c.prefixAt, c.prefixRunning = n, true
		c.prefixDone.Add(1)
		var part io.Reader = io.NewSectionReader(src, 0, end)
		if fromMemory {
			part = bytes.NewReader(buf[:end-base])
		}
		go func() {
			defer c.prefixDone.Done()
			v, _ := c.checkPart(ctx, part, end, 0, 0, n, true)
			c.mu.Lock()
			c.prefixRunning = false
			if v != nil && c.prefixFound == nil {
				c.prefixFound = v
			}
			c.mu.Unlock()
		}()
	}
	if !fromMemory {
		// The next window begins at n-Window or later. A check of
		// everything so far still running reads arrays of its own, or
		// the Source.
		c.forget(n - c.opts.Window)
	}
	c.mu.Unlock()
	start := lines[from-first]
	return c.checkPart(ctx, bytes.NewReader(buf[start-base:end-base]), end-start, from, start, n, false)
}

// Watch calls Check every interval until a part of the input is found to
// break the level, which it returns, or ctx ends, which it returns as an
// error (progress.Stopped is true for it). After each check it calls
// report, unless nil, with the Stats so far. It returns nil and no error
// once nothing more is checked early (values repeat, or a part of the
// input could not be read: the Stats say which), as the verdict then waits
// for the end; pieces between fences, which values that repeat do not
// stop, go on being checked. It is the loop of a caller that reads the input on another
// goroutine: isocheck's check --follow and run --check.
func (c *Checker) Watch(ctx context.Context, interval time.Duration, report func(Stats)) (*Violation, error) {
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil, context.Cause(ctx)
		case <-tick.C:
		}
		v, err := c.Check(ctx)
		s := c.Stats()
		if report != nil {
			report(s)
		}
		switch {
		case err != nil || v != nil:
			return v, err
		case (s.Repeated || s.Unreadable != nil) && !c.mayCheckPieces():
			return nil, nil
		}
	}
}

// Wait waits for the check of everything so far that Check started, if
// one runs, and returns what it found.
func (c *Checker) Wait() *Violation {
	c.prefixDone.Wait()
	c.mu.Lock()
	defer c.mu.Unlock()
	v := c.prefixFound
	c.prefixFound = nil
	return v
}

// checkPart checks lines [from, n) of the input, part, size bytes from
// byte offset offset on. whole says it is the check of everything so far
// that Check runs beside the windows.
func (c *Checker) checkPart(ctx context.Context, part io.Reader, size int64, from int, offset int64, n int, whole bool) (*Violation, error) {
	began := time.Now()
	defer func() {
		c.mu.Lock()
		if whole {
			c.stats.PrefixTime += time.Since(began)
		} else {
			c.stats.WindowTime += time.Since(began)
			c.stats.LargestWindow = max(c.stats.LargestWindow, n-from)
		}
		c.mu.Unlock()
	}()
	h, err := c.read(ctx, part, size, from, offset)
	if err != nil {
		if progress.Stopped(err) {
			return nil, err
		}
		c.mu.Lock()
		c.unreadable = err
		c.mu.Unlock()
		return nil, nil
	}
	h, repeated := settled(h)
	c.mu.Lock()
	if whole {
		c.stats.Prefixes++
	} else {
		c.stats.Windows++
	}
	c.repeated = c.repeated || repeated
	c.mu.Unlock()
	if repeated {
		return nil, nil
	}
	res, err := check.CheckWith(ctx, h, c.opts.Level, c.opts.Check)
	if err != nil {
		return nil, fmt.Errorf("online: checking lines %d-%d of %s: %w", from+1, n, c.opts.Name, err)
	}
	if res.Stopped {
		return nil, context.Cause(ctx)
	}
	if res.Verdict != verdict.Violated {
		return nil, nil
	}
	return &Violation{History: h, Result: res, Lines: n, FromLine: from}, nil
}

// read reads part, size bytes of the input's lines from line first (from
// 0) on, which begin at byte offset.
func (c *Checker) read(ctx context.Context, part io.Reader, size int64, first int, offset int64) (*history.History, error) {
	// The part's reading is no stage of the caller's progress.
	ctx = progress.WithTracker(ctx, nil)
	m := progress.Start(ctx, "parse", size, "bytes")
	br := bufio.NewReader(part)
	switch c.opts.Format {
	case format.JSONL:
		return jsonl.Read(m, br, c.opts.Name, size, first, offset)
	default:
		h, _, err := jepsen.ReadEDN(m, br, c.opts.Name, size)
		if err != nil {
			return nil, err
		}
		if !h.PosIsOffset {
			for i := range h.Txns {
				if h.Txns[i].Pos > 0 {
					h.Txns[i].Pos += int64(first)
				}
			}
		}
		return h, nil
	}
}
