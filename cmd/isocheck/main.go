// Command isocheck checks whether a recorded database history satisfies an
// isolation level, and explains how it broke it when it does not.
//
// Usage:
//
//	isocheck check [--level sser|ser|si|pc|cc|ra|rc|all] [--format ...] [--json] [--stats] [--counterexample FILE] PATH
//	isocheck explain [--level ...] [--json] [--color auto|always|never] [--dot FILE] [--svg FILE] [--png FILE] PATH
//	isocheck stats [--format ...] PATH
//	isocheck convert [--from FORMAT] --to jsonl|text|dbcop IN OUT
//	isocheck generate [--store ...] [--sessions N] [--txns N] [--ops N] [--keys N] [--reads P] [--dist uniform|zipf|hotspot] [--seed N] OUT
//	isocheck lwt [--init N] PATH
//	isocheck run --db DSN [--level LEVEL] [--workload general|mini|lwt|append] [...] [-o FILE] [--check LEVEL|all]
//	isocheck run --db sqlite://...|postgres://... --workload tpcc|twitter [--levels ser|si|rc|ser+rc|si+rc|random] [...] [-o FILE] [--check]
//	isocheck plan [--workload ...] [...] [-o FILE]
//	isocheck explore --app shopping-cart|twitter|courseware|wikipedia|tpcc [--level rc|ra|cc|pc|si|ser] [--sessions N] [--txns N] [--seed N] [--all DIR]
//	isocheck demo
//	isocheck help [COMMAND]
//	isocheck version
//
// run drives a database (sqlite://, postgres://, mysql://, etcd://, sim://)
// with concurrent sessions, records the history as it runs and, with
// --check, checks it; demo does so on embedded SQLite and a buggy simulated
// store with nothing installed.
//
// explore model-checks a transactional program (package explore): it
// enumerates every history an example application can produce when the
// database keeps the level, and shows the first that breaks the
// application's assertions, with the anomaly that made it possible.
//
// Every command that reads a history takes --timeout, --max-memory and
// --progress. `isocheck help COMMAND` lists a command's flags.
//
// check prints the verdict, a one-paragraph summary and the checker's
// cycle; explain shrinks the violation to a minimal counterexample and
// explains it in full (see package interpret).
//
// Exit status: 0 the history satisfies the level, 1 it violates it, 2 bad
// input or usage, or a report that could not be written (the verdict is
// then on stderr), 3 no verdict (timeout or resource limit), 4 isocheck
// crashed (a bug). The work runs in a supervised child process so that a
// crash of the Go runtime, which exits 2, is never taken for bad input.
package main

import (
	"os"
	"os/exec"
)

func main() {
	if os.Getenv(childEnv) != "" {
		serveChild(func() int { return runReporting(os.Args[1:], os.Stdout, os.Stderr) })
		return
	}
	exe, err := os.Executable()
	if err != nil {
		// Without a path to ourselves, run unsupervised.
		os.Exit(runReporting(os.Args[1:], os.Stdout, os.Stderr))
	}
	cmd := exec.Command(exe, os.Args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	os.Exit(supervise(cmd, os.Stderr))
}
