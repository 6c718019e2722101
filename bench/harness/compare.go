package harness

import (
	"fmt"
	"strings"

	"github.com/isocheck/isocheck/format"
)

// Comparison is another checker to run on the generated histories beside
// isocheck.
type Comparison struct {
	// Command is a shell command; every {} in it becomes the history's
	// path (quoted for the shell). Without {}, the path is appended.
	Command string
	// Format is the format the checker reads: Text, DBCop, JSONL or EDN.
	Format format.Format
}

// ParseCompareFormat returns the format named by s, one of those a
// comparison can read: text, dbcop, jsonl or edn.
func ParseCompareFormat(s string) (format.Format, error) {
	switch f := format.Format(s); f {
	case format.Text, format.DBCop, format.JSONL, format.EDN:
		return f, nil
	}
	return "", fmt.Errorf("unknown comparison format %q (want text, dbcop, jsonl or edn)", s)
}

// Argv returns the command line that checks the history at path: the
// shell running the command with the path substituted.
func (c Comparison) Argv(path string) []string {
	return []string{"/bin/sh", "-c", Substitute(c.Command, path)}
}

// Substitute replaces every {} in cmd with path quoted for the shell, or
// appends the quoted path when cmd has no {}.
func Substitute(cmd, path string) string {
	q := shellQuote(path)
	if !strings.Contains(cmd, "{}") {
		return cmd + " " + q
	}
	return strings.ReplaceAll(cmd, "{}", q)
}

// shellQuote quotes s as one word of a POSIX shell.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./+,:=@") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// extension returns the file name extension of format f.
func extension(f format.Format) string {
	switch f {
	case format.Text:
		return ".txt"
	case format.DBCop:
		return ".dbcop"
	case format.EDN:
		return ".edn"
	}
	return ".jsonl"
}
