// Command isocheck checks whether a recorded database history satisfies an
// isolation level, and explains how it broke it when it does not.
//
// Usage:
//
//	isocheck check [--level sser|ser|si|pc|cc|ra|rc|all] [--format auto|jsonl|text|dbcop|cobra] [--json] [--timeout 60s] [--stats] [--counterexample FILE] PATH
//	isocheck explain [--level ...] [--json] [--color auto|always|never] [--counterexample FILE] [--dot FILE] [--svg FILE] [--png FILE] PATH
//	isocheck stats [--format ...] PATH
//	isocheck convert [--from FORMAT] --to jsonl|text|dbcop IN OUT
//	isocheck generate [--store ...] [--sessions N] [--txns N] [--ops N] [--keys N] [--reads P] [--zipf] [--seed N] OUT
//	isocheck lwt [--init N] [--timeout 60s] PATH
//
// check prints the verdict, a one-paragraph summary and the checker's
// cycle; explain shrinks the violation to a minimal counterexample and
// explains it in full (see package interpret).
//
// Exit status: 0 the history satisfies the level, 1 it violates it, 2 bad
// input or usage, 3 no verdict (timeout or resource limit).
package main

import (
	"os"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}
