package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/isocheck/isocheck/internal/progress"
	"github.com/isocheck/isocheck/internal/textsafe"
	"github.com/isocheck/isocheck/lwt"
)

// runLWT checks a history of lightweight transactions (reads, writes and
// compare-and-sets on registers) for linearizability.
func runLWT(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("lwt", stderr)
	init := newRegisterFlag(fs, "init", lwt.Nil, "the registers' initial value: an integer, or nil")
	lim := addLimitFlags(fs)
	pos, help, err := parse(fs, args)
	if err != nil {
		return parseStatus(help)
	}
	if len(pos) != 1 {
		return usageError(stderr, "lwt", "want one PATH, got %d", len(pos))
	}
	path := pos[0]
	if path == "-" {
		path = "/dev/stdin"
	}
	// The exact search keeps the states it has seen: it may use half of
	// an explicit --max-memory (all of it with 0), else lwt's default.
	var opts lwt.Options
	fs.Visit(func(f *flag.Flag) {
		if f.Name == "max-memory" {
			opts.SearchMemory = int64(lim.maxMemory) / 2
			if lim.maxMemory == 0 {
				opts.SearchMemory = -1
			}
		}
	})
	j := lim.start(stderr)
	defer j.stop()
	ops, err := lwt.ReadFileContext(j.ctx, path)
	if err != nil {
		j.stop()
		if progress.Stopped(err) {
			fmt.Fprintf(stdout, "linearizability: no verdict: %s\n", j.stopReason(err))
			return exitNoVerdict
		}
		fmt.Fprintf(stderr, "isocheck: %v\n", err)
		return exitBadInput
	}
	res, err := lwt.CheckOptions(j.ctx, ops, *init, opts)
	j.stop()
	if err != nil && !progress.Stopped(err) {
		fmt.Fprintf(stderr, "isocheck: %v\n", err)
		return exitNoVerdict
	}
	fmt.Fprintf(stdout, "linearizability: %s\n", textsafe.Escape(res.String()))
	if h := j.hint(err); res.Verdict == lwt.Unknown && h != "" {
		fmt.Fprintf(stdout, "  %s\n", h)
	}
	if v := res.Violation; v != nil {
		fmt.Fprintf(stdout, "operation:\n  %s\n", textsafe.Escape(ops[v.Op].String()))
		if len(v.Related) > 0 {
			fmt.Fprintln(stdout, "related:")
			for _, j := range v.Related {
				fmt.Fprintf(stdout, "  %s\n", textsafe.Escape(ops[j].String()))
			}
		}
	}
	switch {
	case res.OK():
		return exitSatisfied
	case res.Verdict == lwt.Unknown || err != nil:
		return exitNoVerdict
	}
	return exitViolated
}
