package main

import (
	"fmt"
	"io"
	"runtime/debug"
)

func runVersion(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("version", stderr)
	if _, help, err := parse(fs, args); err != nil {
		return parseStatus(help)
	}
	fmt.Fprintln(stdout, version())
	return exitSatisfied
}

// version describes the build: the module version, and the commit it was
// built from when the build recorded it.
func version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "isocheck (unknown version)"
	}
	v := "isocheck " + bi.Main.Version
	var rev, when, dirty string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			when = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = " (modified)"
			}
		}
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if rev != "" {
		v += " commit " + rev + dirty
	}
	if when != "" {
		v += " " + when
	}
	return v + " " + bi.GoVersion
}
