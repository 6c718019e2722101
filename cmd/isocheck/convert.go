package main

import (
	"fmt"
	"io"

	"github.com/isocheck/isocheck/format"
	"github.com/isocheck/isocheck/history"
)

func runConvert(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("convert", stderr)
	in := addInputFlags(fs)
	fs.StringVar(&in.format, "from", "auto", "input format: auto, jsonl, text, dbcop or cobra (same as --format)")
	to := fs.String("to", "", "output format: jsonl, text or dbcop")
	pos, help, err := parse(fs, args)
	if err != nil {
		return parseStatus(help)
	}
	if len(pos) != 2 || *to == "" {
		return usageError(stderr, "convert", "want --to FORMAT IN OUT")
	}
	outFormat, err := format.ParseFormat(*to)
	if err != nil || outFormat == format.Auto || outFormat == format.Cobra || outFormat == format.SQL {
		return usageError(stderr, "convert", "--to must be jsonl, text or dbcop, not %q", *to)
	}
	j := in.limits.start(stderr)
	defer j.stop()
	h, _, _, status, ok := readOrReport(in, j, pos[0], stderr)
	if !ok {
		return status
	}
	j.stop()
	if err := writeFile(pos[1], stdout, func(w io.Writer) error { return format.Write(w, h, outFormat) }); err != nil {
		fmt.Fprintf(stderr, "isocheck convert: %v\n", err)
		return exitBadInput
	}
	if outFormat == format.Text {
		if n := abortedTxns(h); n > 0 {
			fmt.Fprintf(stderr, "isocheck convert: note: %d aborted transaction(s) written with the transaction id -1, as Plume and AWDIT read them; PolySI's own loader reads non-negative ids only\n", n)
		}
	}
	return exitSatisfied
}

// abortedTxns counts h's aborted transactions.
func abortedTxns(h *history.History) int {
	n := 0
	for i := range h.Txns {
		if h.Txns[i].Status == history.Aborted {
			n++
		}
	}
	return n
}
