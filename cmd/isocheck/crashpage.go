package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/isocheck/isocheck/report"
	"github.com/isocheck/isocheck/verdict"
)

// crashPage writes the page that args (a command line of isocheck, less
// the program) asked for with --html, when the child running it ended
// without a verdict and without writing it: killed by the system for want
// of memory, crashed, or killed by a signal it could not catch. The page
// says so on its first screen, why (cause), and what the command was. A
// page written since started, by the child before it ended, is left
// alone; so is a page on standard output (--html -), which the child's
// output shares.
func crashPage(args []string, started time.Time, cause string, stderr io.Writer) {
	path := flagValue(args, "html")
	if path == "" || path == "-" {
		return
	}
	if fi, err := os.Stat(path); err == nil && !fi.ModTime().Before(started) {
		return
	}
	name := "the check"
	if len(args) > 0 {
		name = args[0]
	}
	checked := flagValue(args, "level")
	switch {
	case name == "lwt":
		checked = report.Linearizability
	case name == "run":
		checked = flagValue(args, "check")
	}
	if checked == "" {
		checked = "the level checked"
	}
	title := name
	if n := len(args); n > 1 && !strings.HasPrefix(args[n-1], "-") {
		title = args[n-1]
	}
	page := &report.Page{
		Title:   title,
		Command: commandLine(name, args[min(1, len(args)):]),
		Levels:  []report.Level{{Name: checked, Verdict: verdict.Unknown, Reason: strings.TrimPrefix(cause, "no verdict: ")}},
		Notes: []string{
			"The process checking the history ended before it could write this page; isocheck's supervising process wrote it instead. What the check had found by then is lost.",
		},
	}
	page.Made = madeBy(time.Now())
	if err := writeFile(path, nil, page.WriteHTML); err != nil {
		fmt.Fprintf(stderr, "isocheck: --html: %v\n", err)
		return
	}
	fmt.Fprintf(stderr, "isocheck: wrote %s, which says there is no verdict and why\n", path)
}

// flagValue returns the value args give the flag name (as --name V,
// -name V, --name=V or -name=V), the last if several do; "" if none.
func flagValue(args []string, name string) string {
	value := ""
	for i, a := range args {
		if a == "--" {
			break
		}
		for _, dash := range []string{"--", "-"} {
			switch {
			case a == dash+name && i+1 < len(args):
				value = args[i+1]
			case strings.HasPrefix(a, dash+name+"="):
				value = strings.TrimPrefix(a, dash+name+"=")
			}
		}
	}
	return value
}
