package main

import (
	"fmt"
	"io"

	"github.com/isocheck/isocheck/interpret"
	"github.com/isocheck/isocheck/verdict"
)

// routeStdout decides what standard output carries. A file named "-"
// (--counterexample -, --dot -, --svg -, --png - or --html -) is written to stdout, and stdout then
// carries that file alone, so that it can be piped or redirected whole:
// the report goes to stderr. routeStdout sets cf.fileOut, where "-" is
// written, and returns where the report goes; ok is false when two files
// ask for stdout.
func (cf *checkFlags) routeStdout(stdout, stderr io.Writer) (report io.Writer, ok bool) {
	cf.fileOut = stdout
	toStdout := 0
	for _, f := range []string{cf.cexFile, cf.dotFile, cf.svgFile, cf.pngFile, cf.htmlFile} {
		if f == "-" {
			toStdout++
		}
	}
	switch toStdout {
	case 0:
		return stdout, true
	case 1:
		return stderr, true
	}
	return stdout, false
}

// nothingToWrite says on stderr, for each file asked for (the
// counterexample and the pictures), that the report has no violation to
// write there, and why: a run that writes nothing says so.
func (cf *checkFlags) nothingToWrite(stderr io.Writer, why string) {
	files := []struct{ flag, file, what string }{
		{"counterexample", cf.cexFile, "no counterexample"},
		{"dot", cf.dotFile, "nothing to draw"},
		{"svg", cf.svgFile, "nothing to draw"},
		{"png", cf.pngFile, "nothing to draw"},
	}
	for _, f := range files {
		if f.file == "" {
			continue
		}
		written := f.file + " not written"
		if f.file == "-" {
			written = "nothing written"
		}
		fmt.Fprintf(stderr, "isocheck: --%s %s: %s; %s, %s\n", f.flag, f.file, why, f.what, written)
	}
}

// noViolation says why a report has no violation: the history satisfies
// the level, or the check gave no verdict.
func noViolation(rep *interpret.Report) string {
	if rep.Satisfied == nil {
		return fmt.Sprintf("%s: no verdict", rep.Level)
	}
	return "the history satisfies " + rep.Level
}

// sqlNoViolation is noViolation for a SQL history, checked at each
// transaction's level.
func sqlNoViolation(v verdict.Verdict) string {
	if v == verdict.Unknown {
		return "no verdict"
	}
	return "the history satisfies its levels"
}
