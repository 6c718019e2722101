package main

import (
	"context"
	"flag"
	"fmt"
	"io"
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
	f, err := format.ParseFormat(in.format)
	if err != nil {
		return nil, nil, 0, err
	}
	if path == "-" {
		path = "/dev/stdin"
	}
	start := time.Now()
	h, info, err := readWithin(j, path, func(ctx context.Context) (*history.History, *format.Info, error) {
		return format.ReadFileContext(ctx, path, f)
	})
	if err == nil && len(h.Txns) == 0 && !in.allowEmpty {
		err = fmt.Errorf("%s: no transactions: the history is empty (if that is what you meant to check, pass --allow-empty)", path)
	}
	return h, info, time.Since(start), err
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
