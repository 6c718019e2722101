package main

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/isocheck/isocheck/format"
)

// inputNotes says what reading a history of txns transactions inferred or
// left out, one sentence each: client operations that are not
// transactions, completions without an invocation, events without
// :process.
func inputNotes(info *format.Info, txns int) []string {
	if info == nil {
		return nil
	}
	var notes []string
	if n, fs := otherOps(info); n > 0 {
		notes = append(notes, fmt.Sprintf("%d non-transactional operations (%s) not checked; check registers with isocheck lwt", n, fs))
	}
	switch n := info.NoInvoke; {
	case n > 0 && n == txns:
		notes = append(notes, "no :invoke events: real-time order unknown, SSER checked as SER")
	case n > 0:
		notes = append(notes, fmt.Sprintf("%d transactions completed without an :invoke: their start is unknown, so real-time order relates them to no other", n))
	}
	if n := info.NoProcess; n > 0 {
		notes = append(notes, fmt.Sprintf("%d events without :process: no session order (each operation its own session)", n))
	}
	return notes
}

// registerNotes is inputNotes for a history of register operations.
func registerNotes(info *format.Info) []string {
	if info == nil {
		return nil
	}
	var notes []string
	if n, fs := otherOps(info); n > 0 {
		notes = append(notes, fmt.Sprintf("%d operations other than :read, :write and :cas (%s) not checked; check transactions with isocheck check", n, fs))
	}
	if n := info.NoInvoke; n > 0 {
		notes = append(notes, fmt.Sprintf("%d operations completed without an :invoke: each may have been invoked any time before it returned", n))
	}
	if n := info.NoProcess; n > 0 {
		notes = append(notes, fmt.Sprintf("%d events without :process", n))
	}
	if n := info.SkippedOps; n > 0 {
		note := fmt.Sprintf("%d events of processes that are not clients (such as :nemesis) skipped", n)
		if f := len(info.Faults); f > 0 {
			note += fmt.Sprintf("; the nemesis's %d faults are listed on the page (--html)", f)
		}
		notes = append(notes, note)
	}
	return notes
}

// otherOps counts the operations Info.OtherOps holds and names their
// functions: ":read 3, :cas 2".
func otherOps(info *format.Info) (int, string) {
	n := 0
	var parts []string
	for _, f := range slices.Sorted(maps.Keys(info.OtherOps)) {
		n += info.OtherOps[f]
		parts = append(parts, fmt.Sprintf(":%s %d", f, info.OtherOps[f]))
	}
	return n, strings.Join(parts, ", ")
}
