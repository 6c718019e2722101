package main

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
)

// A report that could not be written must not pass for one that was: a
// `check > /dev/full` that exits 1 says "violated, see the report" when
// there is no report to see. Commands write their report to a
// reportWriter, which remembers the first error; the command finishes as
// if the writes had succeeded, so that its verdict is known, and
// runReporting then says on stderr that the report is lost, gives the
// verdict there instead, and exits 2.

// reportWriter is a command's standard output. It remembers the first
// write error and, from then on, drops what it is given: once a write has
// failed the report is lost anyway, and the command goes on to its
// verdict. It keeps the report's first line, most commands' verdict line,
// to repeat it on stderr.
type reportWriter struct {
	w    io.Writer
	err  error
	head []byte
	// headDone is set once head holds the whole first line, or as much
	// of it as is kept.
	headDone bool
}

// maxHead bounds the first line kept.
const maxHead = 200

// Write writes p to the underlying writer unless an earlier write failed.
// It always reports success: the failure is the caller of runReporting's
// to report, with the verdict.
func (r *reportWriter) Write(p []byte) (int, error) {
	if !r.headDone {
		line, _, found := bytes.Cut(p, []byte("\n"))
		if n := maxHead - len(r.head); len(line) > n {
			line, found = line[:n], true
		}
		r.head = append(r.head, line...)
		r.headDone = found
	}
	if r.err != nil {
		return len(p), nil
	}
	if _, err := r.w.Write(p); err != nil {
		r.err = err
	}
	return len(p), nil
}

// runReporting runs the command args with stdout wrapped in a
// reportWriter. When writing the report failed it says so on stderr with
// the verdict the report would have carried, and returns exit status 2:
// the verdict's own status would claim a report that does not exist.
func runReporting(args []string, stdout, stderr io.Writer) int {
	out := &reportWriter{w: stdout}
	status := run(args, out, stderr)
	if out.err == nil {
		return status
	}
	name := ""
	if len(args) > 0 {
		name = args[0]
	}
	fmt.Fprintf(stderr, "isocheck: writing the report: %v; %s\n", out.err, lostOutcome(name, status, string(out.head)))
	return exitBadInput
}

// lostOutcome says what the command whose report was lost had found: its
// verdict, from its exit status, and the report's first line when it is
// text (not JSON's opening brace).
func lostOutcome(command string, status int, head string) string {
	var s string
	switch {
	case status == exitViolated:
		s = "verdict: violated"
	case status == exitNoVerdict:
		s = "no verdict"
	case status == exitSatisfied && givesVerdict(command):
		s = "verdict: satisfied"
	case status == exitSatisfied:
		s = "the command had succeeded otherwise"
	default:
		// The command failed on its own as well, and said why.
		return "the command failed as well (exit status " + strconv.Itoa(status) + ")"
	}
	if head != "" && head[0] != '{' && head[0] != '[' {
		s += fmt.Sprintf(" (the report began %q)", head)
	}
	return s
}

// givesVerdict reports whether the command's exit status 0 is a verdict
// (satisfied, or no broken assertion) rather than mere success. run's is
// only with --check, so it does not count.
func givesVerdict(command string) bool {
	switch command {
	case "check", "explain", "lwt", "explore", "demo":
		return true
	}
	return false
}
