package main

import (
	"io"
	"os"
)

// noColor reports whether the environment asks for no colour.
func noColor() bool { return os.Getenv("NO_COLOR") != "" || os.Getenv("TERM") == "dumb" }

// useColor decides whether to colour text written to w.
func useColor(mode string, w io.Writer) (color, ok bool) {
	switch mode {
	case "always":
		return true, true
	case "never":
		return false, true
	case "auto":
		return isTerminal(w) && !noColor(), true
	}
	return false, false
}
