package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"
)

// Exit statuses.
const (
	exitSatisfied = 0
	exitViolated  = 1
	exitBadInput  = 2
	exitNoVerdict = 3
)

// command is one subcommand of isocheck.
type command struct {
	name     string
	synopsis string // its arguments, after "isocheck NAME "
	summary  string // one line
	run      func(args []string, stdout, stderr io.Writer) int
}

func commands() []command {
	return []command{
		{"check", "[flags] PATH", "decide whether the history at PATH satisfies an isolation level; print the anomaly and its cycle if not",
			func(a []string, o, e io.Writer) int { return runCheck(a, o, e, false) }},
		{"explain", "[flags] PATH", "like check, then shrink a violation to a minimal counterexample and explain every dependency, in words or pictures",
			func(a []string, o, e io.Writer) int { return runCheck(a, o, e, true) }},
		{"stats", "[flags] PATH", "print the size of the history and how long it takes to parse", runStats},
		{"convert", "[flags] --to jsonl|text|dbcop IN OUT", "convert a history to another format (OUT - is standard output)", runConvert},
		{"generate", "[flags] OUT", "generate a history from a simulated store, in the native JSONL format (OUT - is standard output)", runGenerate},
		{"gen", "[flags] [-o FILE]", "write a workload (what each client session will run against a database) as JSON, for 'run --workload-file'", runGen},
		{"run", "[flags] --db DSN [--level LEVEL] [-o FILE] [--check LEVEL]", "run a workload against a database with concurrent sessions, record the history, and check it", runRun},
		{"demo", "[flags]", "run and check two short workloads with nothing installed: embedded SQLite, and a simulated store with a lost-update bug", runDemo},
		{"explore", "--app NAME [--level LEVEL] [--sessions N] [--txns N] [--seed N] [--all DIR]", "model-check an example application: enumerate every history it can produce under the level, each once, and report one that breaks its assertions", runExplore},
		{"lwt", "[flags] PATH", "check a history of compare-and-set registers (Jepsen EDN or JSONL events) for linearizability", runLWT},
		{"version", "", "print isocheck's version", runVersion},
	}
}

const exitHelp = `
PATH - reads standard input. Levels: sser, ser, si, pc, cc, ra, rc (or long
names: strict-serializable, serializable, snapshot-isolation,
prefix-consistency, causal, read-atomic, read-committed).

Exit status: 0 satisfied, 1 violated, 2 bad input or usage (the message names
the file and line or byte offset), 3 no verdict (timeout or resource limit; the
message says which stage was reached), 4 isocheck crashed (a bug).
`

// usage is the general help: every command in one line.
func usage() string {
	var b strings.Builder
	b.WriteString("isocheck checks database histories against isolation levels.\n\nusage:\n")
	for _, c := range commands() {
		fmt.Fprintf(&b, "  isocheck %s %s\n      %s\n", c.name, c.synopsis, c.summary)
	}
	b.WriteString("  isocheck help COMMAND\n      list a command's flags\n")
	b.WriteString(exitHelp)
	return b.String()
}

// run is the whole command, with its streams, for tests.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage())
		return exitBadInput
	}
	name, args := args[0], args[1:]
	switch name {
	case "help", "-h", "-help", "--help":
		if len(args) == 0 {
			fmt.Fprint(stdout, usage())
			return exitSatisfied
		}
		// help COMMAND: the command's own help, on stdout.
		name, args = args[0], []string{"--help"}
		stderr = stdout
	case "-version", "--version":
		name = "version"
	}
	for _, c := range commands() {
		if c.name == name {
			return c.run(args, stdout, stderr)
		}
	}
	fmt.Fprintf(stderr, "isocheck: unknown command %q\n\n%s", name, usage())
	return exitBadInput
}

// parse parses flags that may come before or after the positional
// arguments, and returns the positional ones. help reports that the user
// asked for the command's help (which fs has printed).
func parse(fs *flag.FlagSet, args []string) (pos []string, help bool, err error) {
	for {
		if err := fs.Parse(args); err != nil {
			return nil, errors.Is(err, flag.ErrHelp), err
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, false, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// parseStatus is the exit status of a command whose flags did not parse:
// 0 when the user asked for help, 2 otherwise.
func parseStatus(help bool) int {
	if help {
		return exitSatisfied
	}
	return exitBadInput
}

// newFlagSet returns the flag set of the named command, whose usage lists
// the command's synopsis and every flag.
func newFlagSet(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("isocheck "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		for _, c := range commands() {
			if c.name == name {
				fmt.Fprintf(fs.Output(), "usage: isocheck %s %s\n\n%s.\n\nflags:\n", c.name, c.synopsis, c.summary)
			}
		}
		fs.PrintDefaults()
		fmt.Fprint(fs.Output(), exitHelp)
	}
	return fs
}

// usageError reports a misuse of the named command: the message and a
// pointer to its help.
func usageError(stderr io.Writer, name, format string, args ...any) int {
	fmt.Fprintf(stderr, "isocheck %s: %s\nrun 'isocheck help %s' for its flags\n", name, fmt.Sprintf(format, args...), name)
	return exitBadInput
}

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

// createOutput opens path for writing; "-" is standard output, which
// closing leaves open.
func createOutput(path string, stdout io.Writer) (io.WriteCloser, error) {
	if path == "-" {
		return nopCloser{stdout}, nil
	}
	return os.Create(path)
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

// writeFile writes path ("-": stdout) with write, removing a file on error.
func writeFile(path string, stdout io.Writer, write func(io.Writer) error) error {
	f, err := createOutput(path, stdout)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		if path != "-" {
			os.Remove(path)
		}
		return fmt.Errorf("%s: %w", path, err)
	}
	return f.Close()
}
