package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/isocheck/isocheck/format"
	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/progress"
)

// inputFlags are the flags of every command that reads a history.
type inputFlags struct {
	format     string
	allowEmpty bool
	limits     *limits
}

func addInputFlags(fs *flag.FlagSet) *inputFlags {
	in := &inputFlags{}
	fs.StringVar(&in.format, "format", "auto", "input format: auto, jsonl, text, dbcop, cobra, edn (Jepsen) or elle-json")
	fs.BoolVar(&in.allowEmpty, "allow-empty", false, "accept a history of 0 transactions (by default an error: an empty file is more often a crashed recorder than a test)")
	in.limits = addLimitFlags(fs)
	return in
}

// read reads PATH ("-": standard input) within the job's limits, timing
// it. A history of no transactions is an error unless allowed.
func (in *inputFlags) read(j *job, path string) (*history.History, *format.Info, time.Duration, error) {
	return in.readFrom(j, path, nil)
}

// readFrom is read, of the stream s when it is not nil (see openStream).
func (in *inputFlags) readFrom(j *job, path string, s *stream) (*history.History, *format.Info, time.Duration, error) {
	f, err := format.ParseFormat(in.format)
	if err != nil {
		return nil, nil, 0, err
	}
	path = inputPath(path)
	start := time.Now()
	h, info, err := readWithin(j, path, func(ctx context.Context) (*history.History, *format.Info, error) {
		if s != nil {
			defer s.deadline(ctx)()
			return format.ReadContext(ctx, s.r, path, f)
		}
		return format.ReadFileContext(ctx, path, f)
	})
	if err == nil && len(h.Txns) == 0 && !in.allowEmpty {
		err = fmt.Errorf("%s: no transactions: the history is empty (if that is what you meant to check, pass --allow-empty)", path)
	}
	return h, info, time.Since(start), err
}

// inputPath is the file a PATH argument names: "-" is standard input.
func inputPath(path string) string {
	if path == "-" {
		return "/dev/stdin"
	}
	return path
}

// A stream is an input that can be read only once, such as a pipe on
// standard input, opened and with its start read ahead, so that its
// format is known before a reader is chosen: a SQL history and a key-value
// one have readers of their own.
type stream struct {
	f      *os.File // nil for an input read already (check --follow)
	r      *bufio.Reader
	format format.Format // as its start says, as format.DetectBytes finds it
	// cleanup, when set, is what Close does instead of closing f.
	cleanup func()
}

// streamHead is how much of a stream openStream reads ahead: as much as
// format.Detect looks at.
const streamHead = 64 << 10

// openStream opens the input at PATH when it is a stream whose format is
// to be detected (--format auto, a pipe or a FIFO rather than a regular
// file or a directory), within the job's limits, and detects its format.
// It returns nil for every other input, which its reader opens itself.
func (in *inputFlags) openStream(j *job, path string) (*stream, error) {
	if f, err := format.ParseFormat(in.format); err != nil || f != format.Auto {
		return nil, nil
	}
	path = inputPath(path)
	st, err := os.Stat(path)
	if err != nil || st.IsDir() || st.Mode().IsRegular() {
		return nil, nil
	}
	s, _, err := readWithin(j, path, func(ctx context.Context) (*stream, *format.Info, error) {
		// Opening a FIFO waits for its writer.
		f, err := os.Open(path)
		if err != nil {
			return nil, nil, err
		}
		s := &stream{f: f, r: bufio.NewReaderSize(f, streamHead)}
		defer s.deadline(ctx)()
		head, err := s.r.Peek(streamHead)
		if err != nil && err != io.EOF && !errors.Is(err, bufio.ErrBufferFull) {
			f.Close()
			if ctx.Err() != nil {
				err = context.Cause(ctx)
			}
			return nil, nil, fmt.Errorf("read %s: %w", path, err)
		}
		// What cannot be detected, the reader says why.
		s.format, _ = format.DetectBytes(path, head)
		return s, nil, nil
	})
	return s, err
}

// deadline makes a read of s that blocks end when ctx does; it returns
// the function that stops watching ctx.
func (s *stream) deadline(ctx context.Context) func() {
	if s.f == nil { // read from memory
		return func() {}
	}
	stop := context.AfterFunc(ctx, func() { s.f.SetReadDeadline(time.Now()) })
	return func() { stop() }
}

// Close closes s; a nil stream is nothing to close.
func (s *stream) Close() error {
	if s == nil {
		return nil
	}
	if s.cleanup != nil {
		s.cleanup()
		return nil
	}
	return s.f.Close()
}

// readWithin runs read, which reads the file at path, within the job's
// limits. Opening a FIFO waits for its writer, where no deadline reaches:
// read runs on a goroutine, so that the limits hold even then. A reader
// stops within milliseconds of the deadline once it reads; one still
// blocked 200 ms later is left to end with the process.
func readWithin[T any](j *job, path string, read func(context.Context) (T, *format.Info, error)) (T, *format.Info, error) {
	type result struct {
		v    T
		info *format.Info
		err  error
	}
	// The reader measures its own progress once it knows the input's
	// size; until then (opening it, detecting its format) this is the
	// stage.
	progress.Start(j.ctx, "parse", 0, "bytes")
	done := make(chan result, 1)
	go func() {
		v, info, err := read(j.ctx)
		done <- result{v, info, err}
	}()
	select {
	case r := <-done:
		return r.v, r.info, r.err
	case <-j.ctx.Done():
		select {
		case r := <-done:
			return r.v, r.info, r.err
		case <-time.After(200 * time.Millisecond):
			var zero T
			return zero, nil, fmt.Errorf("read %s: stopped while opening it: %w", path, context.Cause(j.ctx))
		}
	}
}

// readOrReport reads the history of a command other than check, reporting
// an error or a stop on stderr; ok is false when the command must exit
// with status.
func readOrReport(in *inputFlags, j *job, path string, stderr io.Writer) (h *history.History, info *format.Info, parseTime time.Duration, status int, ok bool) {
	h, info, parseTime, err := in.read(j, path)
	if err == nil {
		return h, info, parseTime, 0, true
	}
	j.stop()
	if progress.Stopped(err) {
		fmt.Fprintf(stderr, "isocheck: no result: %s\n", j.stopReason(err))
		return nil, nil, 0, exitNoVerdict, false
	}
	fmt.Fprintf(stderr, "isocheck: %v\n", err)
	return nil, nil, 0, exitBadInput, false
}
