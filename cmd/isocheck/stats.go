package main

import (
	"fmt"
	"io"
	"time"

	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/internal/textsafe"
)

func runStats(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("stats", stderr)
	in := addInputFlags(fs)
	pos, help, err := parse(fs, args)
	if err != nil {
		return parseStatus(help)
	}
	if len(pos) != 1 {
		return usageError(stderr, "stats", "want one PATH, got %d", len(pos))
	}
	in.allowEmpty = true // stats of an empty history are 0s, and say so
	j := in.limits.start(stderr)
	defer j.stop()
	h, info, parseTime, status, ok := readOrReport(in, j, pos[0], stderr)
	if !ok {
		return status
	}
	j.stop()
	counts := h.StatusCounts()
	reads, writes := 0, 0
	for _, op := range h.Ops {
		if op.Kind == history.Read {
			reads++
		} else {
			writes++
		}
	}
	fmt.Fprintf(stdout, "format:       %s\n", info.Format)
	fmt.Fprintf(stdout, "sessions:     %d\n", len(h.Sessions))
	rolledBack := ""
	if n := counts[history.RolledBack]; n > 0 {
		rolledBack = fmt.Sprintf(", rolled back %d", n)
	}
	fmt.Fprintf(stdout, "transactions: %d (committed %d, aborted %d, unknown %d%s)\n",
		len(h.Txns), counts[history.Committed], counts[history.Aborted], counts[history.Unknown], rolledBack)
	if h.Lists {
		fmt.Fprintf(stdout, "operations:   %d (reads of lists %d, appends %d)\n", len(h.Ops), reads, writes)
	} else {
		fmt.Fprintf(stdout, "operations:   %d (reads %d, writes %d)\n", len(h.Ops), reads, writes)
	}
	fmt.Fprintf(stdout, "keys:         %d\n", h.NumKeys())
	if len(h.Orders) > 0 {
		fmt.Fprintf(stdout, "stated version orders: %d keys\n", len(h.Orders))
	}
	if info.SkippedOps > 0 {
		fmt.Fprintf(stdout, "skipped:      %d events of processes that are not clients (such as :nemesis)\n", info.SkippedOps)
	}
	if n := len(info.FailedEvents); n > 0 {
		total := 0
		for _, c := range info.FailedEvents {
			total += c
		}
		fmt.Fprintf(stdout, "failed events dropped: %d in %d transactions\n", total, n)
	}
	for _, n := range inputNotes(info, len(h.Txns)) {
		fmt.Fprintf(stdout, "note:         %s\n", textsafe.Escape(n))
	}
	fmt.Fprintf(stdout, "parse time:   %v\n", parseTime.Round(time.Microsecond))
	return exitSatisfied
}
