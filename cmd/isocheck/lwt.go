package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/isocheck/isocheck/lwt"
)

// runLWT checks a history of lightweight transactions (reads, writes and
// compare-and-sets on registers) for linearizability.
func runLWT(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("lwt", stderr)
	init := fs.Int64("init", lwt.Nil, "the registers' initial value (default: nil)")
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
	ops, err := lwt.ReadFile(path)
	if err != nil {
		fmt.Fprintf(stderr, "isocheck: %v\n", err)
		return exitBadInput
	}
	j := lim.start(stderr)
	defer j.stop()
	res, err := lwt.CheckContext(j.ctx, ops, *init)
	j.stop()
	if err != nil && !errors.Is(err, context.DeadlineExceeded) {
		fmt.Fprintf(stderr, "isocheck: %v\n", err)
		return exitNoVerdict
	}
	fmt.Fprintf(stdout, "linearizability: %v\n", res)
	if v := res.Violation; v != nil {
		fmt.Fprintf(stdout, "operation:\n  %v\n", ops[v.Op])
		if len(v.Related) > 0 {
			fmt.Fprintln(stdout, "related:")
			for _, j := range v.Related {
				fmt.Fprintf(stdout, "  %v\n", ops[j])
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
