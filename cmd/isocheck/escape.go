package main

import (
	"io"
	"strings"

	"github.com/isocheck/isocheck/internal/textsafe"
)

// writeEscaped writes to w what write prints, with the control characters
// of each line escaped (see textsafe.Lines): for text that a package other
// than interpret formats from the input or from a database's answers.
func writeEscaped(w io.Writer, write func(io.Writer) error) error {
	var b strings.Builder
	err := write(&b)
	if _, werr := io.WriteString(w, textsafe.Lines(b.String())); err == nil {
		err = werr
	}
	return err
}
