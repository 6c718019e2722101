package main

import (
	"fmt"
	"io"
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
			func(a []string, o, e io.Writer) int { return runCheck(a, o, e, checkMode{}) }},
		{"explain", "[flags] PATH", "like check, then shrink a violation to a minimal counterexample and explain every dependency, in words or pictures",
			checkFooter,
			runExplain},
		{"stats", "[flags] PATH", "print the size of the history and how long it takes to parse",
			"PATH - reads standard input.\n\nExit status: 0 printed, 2 bad input or usage, " + stopped + ", " + crashed,
			runStats},
		{"convert", "[flags] --to jsonl|text|dbcop IN OUT", "convert a history to another format (OUT - is standard output)",
			"IN - reads standard input; OUT - writes standard output.\n\nExit status: 0 converted, 2 bad input or usage, or OUT could not be written, " + stopped + ", " + crashed,
			runConvert},
		{"generate", "[flags] OUT", "generate a history from a simulated store, in the native JSONL format (OUT - is standard output)",
			"OUT - writes standard output.\n\nExit status: 0 written, 2 bad usage, or OUT could not be written, " + crashed,
			runGenerate},
		{"plan", "[flags] [-o FILE]", "write a workload (what each client session will run against a database) as JSON, for 'run --workload-file'",
			"Exit status: 0 written, 2 bad usage, or FILE could not be written, " + crashed,
			runPlan},
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
	switch {
	case isHelp(name):
		if len(args) == 0 {
			fmt.Fprint(stdout, usage())
			return exitSatisfied
		}
		if isHelp(args[0]) {
			fmt.Fprint(stdout, helpHelp())
			return exitSatisfied
		}
		// help COMMAND: the command's own help, on stdout.
		name, args = args[0], []string{"--help"}
		stderr = stdout
	case name == "-version", name == "--version":
		name = "version"
	}
	name = unalias(name)
	for _, c := range commands() {
		if c.name == name {
			return c.run(args, stdout, stderr)
		}
	}
	fmt.Fprintf(stderr, "isocheck: unknown command %q\n\n%s", name, usage())
	return exitBadInput
}

// isHelp reports whether the argument asks for help.
func isHelp(arg string) bool {
	switch arg {
	case "help", "-h", "-help", "--help":
		return true
	}
	return false
}

// helpHelp is the help of help.
func helpHelp() string {
	return "usage: isocheck help [COMMAND]\n\n" +
		fill("Print the commands, or COMMAND's flags and exit statuses.", helpWidth) + "\n" +
		fill("Exit status: 0 printed, 2 COMMAND is not a command.", helpWidth)
}

// unalias returns the name of the command that name is an old name of,
// which still works without appearing in the help, or name itself.
func unalias(name string) string {
	switch name {
	case "gen": // before plan, whose name says what it writes beside generate's history
		return "plan"
	}
	return name
}

// usageError reports a misuse of the named command: the message and a
// pointer to its help.
func usageError(stderr io.Writer, name, format string, args ...any) int {
	fmt.Fprintf(stderr, "isocheck %s: %s\nrun 'isocheck help %s' for its flags\n", name, fmt.Sprintf(format, args...), name)
	return exitBadInput
}
