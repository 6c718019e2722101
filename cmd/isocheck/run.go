package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"reflect"
	"runtime/debug"
	"strings"
	"unicode/utf8"
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
	// footer ends the command's help: what its arguments may be, and its
	// exit statuses.
	footer string
	run    func(args []string, stdout, stderr io.Writer) int
}

// Parts of the commands' footers.
const (
	levelNames = "Levels: sser, ser, si, pc, cc, ra, rc (or long names: strict-serializable, serializable, snapshot-isolation, prefix-consistency, causal, read-atomic, read-committed)."
	stopped    = "3 no verdict (timeout or resource limit; the message says which stage was reached)"
	crashed    = "4 isocheck crashed (a bug)."
)

func commands() []command {
	return []command{
		{"check", "[flags] PATH", "decide whether the history at PATH satisfies an isolation level; print the anomaly and its cycle if not",
			checkFooter,
			func(a []string, o, e io.Writer) int { return runCheck(a, o, e, false) }},
		{"explain", "[flags] PATH", "like check, then shrink a violation to a minimal counterexample and explain every dependency, in words or pictures",
			checkFooter,
			func(a []string, o, e io.Writer) int { return runCheck(a, o, e, true) }},
		{"stats", "[flags] PATH", "print the size of the history and how long it takes to parse",
			"PATH - reads standard input.\n\nExit status: 0 printed, 2 bad input or usage, " + stopped + ", " + crashed,
			runStats},
		{"convert", "[flags] --to jsonl|text|dbcop IN OUT", "convert a history to another format (OUT - is standard output)",
			"IN - reads standard input; OUT - writes standard output.\n\nExit status: 0 converted, 2 bad input or usage, or OUT could not be written, " + stopped + ", " + crashed,
			runConvert},
		{"generate", "[flags] OUT", "generate a history from a simulated store, in the native JSONL format (OUT - is standard output)",
			"OUT - writes standard output.\n\nExit status: 0 written, 2 bad usage, or OUT could not be written, " + crashed,
			runGenerate},
		{"gen", "[flags] [-o FILE]", "write a workload (what each client session will run against a database) as JSON, for 'run --workload-file'",
			"Exit status: 0 written, 2 bad usage, or FILE could not be written, " + crashed,
			runGen},
		{"run", "[flags] --db DSN [--level LEVEL] [-o FILE] [--check LEVEL]", "run a workload against a database with concurrent sessions, record the history, and check it",
			"--check " + levelNames + "\n\nExit status: 0 recorded (with --check: and the history satisfies the level), 1 with --check: the history violates the level, 2 bad usage, or the database could not be opened or nothing was recorded, 3 the run was interrupted or stopped early, or with --check no verdict, " + crashed,
			runRun},
		{"demo", "[flags]", "run and check two short workloads with nothing installed: embedded SQLite, and a simulated store with a lost-update bug",
			"Exit status: 0 both steps gave the verdict expected, 1 a step gave another, 2 bad usage, or a directory or a database could not be opened, 3 a run was interrupted or a check gave no verdict, " + crashed,
			runDemo},
		{"explore", "--app NAME [--level LEVEL] [--sessions N] [--txns N] [--seed N] [--all DIR]", "model-check an example application: enumerate every history it can produce under the level, each once, and report one that breaks its assertions",
			"Exit status: 0 every history keeps the application's assertions, 1 a history breaks one (it is shown), 2 bad usage, or --all DIR could not be written, 3 stopped (timeout or resource limit) before finding one, " + crashed,
			runExplore},
		{"lwt", "[flags] PATH", "check a history of compare-and-set registers (Jepsen EDN, elle-cli JSON, or what isocheck run --workload lwt records) for linearizability",
			"PATH - reads standard input.\n\nExit status: 0 linearizable, 1 not linearizable (the operation that cannot be placed is shown), 2 bad input or usage, 3 no verdict (timeout, resource limit, or the search's own bound), " + crashed,
			runLWT},
		{"version", "", "print isocheck's version", "Exit status: 0.", runVersion},
	}
}

// checkFooter ends the help of check and explain.
const checkFooter = "PATH - reads standard input. " + levelNames + "\n\nExit status: 0 satisfied, 1 violated, 2 bad input or usage (the message names the file and line or byte offset) or the report could not be written, " + stopped + ", " + crashed

// exitHelp ends the general help.
const exitHelp = "PATH - reads standard input. " + levelNames + "\n\nExit status (each command's help gives its own): 0 satisfied, 1 violated, 2 bad input or usage or the report could not be written, " + stopped + ", " + crashed

// usage is the general help: every command in one line.
func usage() string {
	var b strings.Builder
	b.WriteString("isocheck checks database histories against isolation levels.\n\nusage:\n")
	for _, c := range commands() {
		fmt.Fprintf(&b, "  %s\n      %s\n", strings.TrimSpace("isocheck "+c.name+" "+c.synopsis), c.summary)
	}
	b.WriteString("  isocheck help COMMAND\n      list a command's flags\n\n")
	b.WriteString(fill(exitHelp, helpWidth))
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
			help := errors.Is(err, flag.ErrHelp)
			if help {
				writeHelp(fs.Output(), strings.TrimPrefix(fs.Name(), "isocheck "), fs)
			} else {
				// The flag package has said what is wrong; the whole help
				// would bury it.
				fmt.Fprintf(fs.Output(), "run '%s -h' for its flags\n", fs.Name())
			}
			return nil, help, err
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

// newFlagSet returns the flag set of the named command, whose usage is the
// command's help: its synopsis, what it does, every flag, and its footer.
func newFlagSet(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("isocheck "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	// parse writes the help when asked for it, and a hint after an error.
	fs.Usage = func() {}
	return fs
}

// helpWidth is the width help text is filled to.
const helpWidth = 79

// writeHelp writes the help of the named command, whose flags are fs's.
func writeHelp(w io.Writer, name string, fs *flag.FlagSet) {
	for _, c := range commands() {
		if c.name != name {
			continue
		}
		synopsis := strings.TrimSpace("isocheck " + c.name + " " + c.synopsis)
		fmt.Fprintf(w, "usage: %s\n\n%s\n", synopsis, fill(strings.ToUpper(c.summary[:1])+c.summary[1:]+".", helpWidth))
		if hasFlags(fs) {
			fmt.Fprintf(w, "flags:\n")
			printFlags(w, fs)
			fmt.Fprintln(w)
		}
		fmt.Fprint(w, fill(c.footer, helpWidth))
	}
}

func hasFlags(fs *flag.FlagSet) bool {
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	return n > 0
}

// printFlags lists fs's flags as flag.PrintDefaults does, except for
// defaults: a flag's default is shown as "(default X)" unless it is the
// zero value of its type or the flag's usage already says what the
// default is, so that no line says it twice.
func printFlags(w io.Writer, fs *flag.FlagSet) {
	fs.VisitAll(func(f *flag.Flag) {
		name, usage := flag.UnquoteUsage(f)
		switch f.Value.(type) {
		case *byteSize:
			name = "size"
		case *timeoutValue:
			name = "duration"
		case *registerFlag:
			name = "int|nil"
		}
		line := "  -" + f.Name
		if name != "" {
			line += " " + name
		}
		usage = strings.ReplaceAll(usage, "\n", "\n    \t")
		if !isZeroDefault(f) && !strings.Contains(usage, "default") {
			if t := reflect.TypeOf(f.Value); t.Kind() == reflect.Pointer && t.Elem().Kind() == reflect.String {
				usage += fmt.Sprintf(" (default %q)", f.DefValue)
			} else {
				usage += fmt.Sprintf(" (default %s)", f.DefValue)
			}
		}
		fmt.Fprintf(w, "%s\n    \t%s\n", line, usage)
	})
}

// isZeroDefault reports whether f's default is the zero value of its
// type, which the help does not show.
func isZeroDefault(f *flag.Flag) bool {
	switch f.DefValue {
	case "", "0", "false", "0s":
		return true
	}
	t := reflect.TypeOf(f.Value)
	if t.Kind() != reflect.Pointer {
		return false
	}
	zero, ok := reflect.New(t.Elem()).Interface().(flag.Value)
	return ok && f.DefValue == zero.String()
}

// fill fills each paragraph of text (paragraphs are separated by blank
// lines) to lines of at most width runes, and ends it with a newline.
func fill(text string, width int) string {
	paras := strings.Split(strings.TrimSpace(text), "\n\n")
	for i, p := range paras {
		var b strings.Builder
		n := 0
		for j, word := range strings.Fields(p) {
			l := utf8.RuneCountInString(word)
			switch {
			case j == 0:
			case n+1+l > width:
				b.WriteString("\n")
				n = 0
			default:
				b.WriteString(" ")
				n++
			}
			b.WriteString(word)
			n += l
		}
		paras[i] = b.String()
	}
	return strings.Join(paras, "\n\n") + "\n"
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
