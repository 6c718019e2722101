package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/isocheck/isocheck/lwt"
)

// runLWT checks a history of lightweight transactions (reads, writes and
// compare-and-sets on registers) for linearizability.
func runLWT(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("lwt", stderr)
	timeout := fs.Duration("timeout", 60*time.Second, "give up after this long (exit 3)")
	init := fs.Int64("init", lwt.Nil, "the registers' initial value (default: nil)")
	pos, err := parse(fs, args)
	if err != nil {
		return exitBadInput
	}
	if len(pos) != 1 {
		fmt.Fprintf(stderr, "isocheck lwt: want one PATH\n%s", usage)
		return exitBadInput
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
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	res, err := lwt.CheckContext(ctx, ops, *init)
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
