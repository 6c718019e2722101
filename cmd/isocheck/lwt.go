package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strconv"

	"github.com/isocheck/isocheck/format"
	"github.com/isocheck/isocheck/internal/textsafe"
	"github.com/isocheck/isocheck/lwt"
	"github.com/isocheck/isocheck/progress"
	"github.com/isocheck/isocheck/register"
	"github.com/isocheck/isocheck/verdict"
)

// runLWT checks a history of lightweight transactions (reads, writes and
// compare-and-sets on registers) for linearizability.
func runLWT(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("lwt", stderr)
	init := newRegisterFlag(fs, "init", lwt.Nil, "the registers' initial value: an integer, or nil")
	in := addInputFlags(fs)
	fs.Lookup("allow-empty").Usage = "accept a history of 0 operations (by default an error: an empty file is more often a crashed recorder than a test)"
	fs.Lookup("format").Usage = "input format: auto, edn (Jepsen), elle-json, or jsonl (Jepsen events as JSON lines, or isocheck's transactions as isocheck run --workload lwt records them)"
	htmlFile := fs.String("html", "", htmlUsage)
	asJSON := fs.Bool("json", false, "print one JSON object: the verdict as every report gives it, the operation that cannot be placed and those its reason names, and the counts (schema in docs/json.md)")
	failMeans := fs.String("fail-means", "absent", "what a failed operation (:fail) means: absent (Jepsen's and Knossos's meaning: it did not happen, and is left out) or compared (Porcupine's etcd model: a failed cas compared and found another value)")
	pos, help, err := parse(fs, args)
	if err != nil {
		return parseStatus(help)
	}
	if len(pos) != 1 {
		return usageError(stderr, "lwt", "want one PATH, got %d", len(pos))
	}
	f, err := format.ParseFormat(in.format)
	switch {
	case err != nil:
		return usageError(stderr, "lwt", "--format: %v", err)
	case f != format.Auto && f != format.EDN && f != format.ElleJSON && f != format.JSONL:
		return usageError(stderr, "lwt", "--format must be auto, edn, elle-json or jsonl, not %q", in.format)
	}
	fail, err := lwt.ParseFailMeaning(*failMeans)
	if err != nil {
		return usageError(stderr, "lwt", "--fail-means: %v", err)
	}
	// With --html -, stdout carries the page alone, and the report goes
	// to stderr (as check's routeStdout does).
	out := stdout
	if *htmlFile == "-" {
		out = stderr
	}
	path := pos[0]
	if path == "-" {
		path = "/dev/stdin"
	}
	// The exact search keeps the states it has seen: it may use half of
	// an explicit --max-memory (all of it with 0), else lwt's default.
	var opts lwt.Options
	lim := in.limits
	fs.Visit(func(f *flag.Flag) {
		if f.Name == "max-memory" {
			opts.SearchMemory = int64(lim.maxMemory) / 2
			if lim.maxMemory == 0 {
				opts.SearchMemory = -1
			}
		}
	})
	j := lim.start(stderr)
	defer j.stop()
	rops, info, err := readWithin(j, path, func(ctx context.Context) ([]register.Op, *format.Info, error) {
		return format.ReadRegisterOpsFile(ctx, path, f)
	})
	if err == nil && len(rops) == 0 && !in.allowEmpty {
		what := "the history is empty"
		if info.SkippedOps > 0 {
			what = fmt.Sprintf("the history holds only %d events of processes that are not clients (such as :nemesis)", info.SkippedOps)
		}
		err = fmt.Errorf("%s: no operations: %s (if that is what you meant to check, pass --allow-empty)", path, what)
	}
	if err != nil {
		j.stop()
		if progress.Stopped(err) {
			if *asJSON {
				rep := &lwt.Report{Report: verdict.NewReport[lwt.Anomaly](lwt.Model, verdict.Outcome{Reason: j.stopReason(err)})}
				return encodeJSON(out, stderr, exitNoVerdict, rep)
			}
			fmt.Fprintf(out, "linearizability: no verdict: %s\n", j.stopReason(err))
			return exitNoVerdict
		}
		fmt.Fprintf(stderr, "isocheck: %v\n", err)
		return exitBadInput
	}
	ops := lwt.FromRegisterOps(rops, fail)
	res, err := lwt.CheckWith(j.ctx, ops, *init, opts)
	j.stop()
	if err != nil {
		fmt.Fprintf(stderr, "isocheck: %v\n", err)
		return exitNoVerdict
	}
	var notes []string
	if n := len(rops) - len(ops); n > 0 {
		notes = append(notes, fmt.Sprintf("%d failed operations (:fail) left out: they did not happen (--fail-means compared reads a failed cas as Porcupine's etcd model does)", n))
	}
	notes = append(notes, registerNotes(info)...)
	hint := j.hint(lwtStop(res))
	if *htmlFile != "" {
		writePage(*htmlFile, stdout, lwtPage(pos[0], commandLine("lwt", args), res, ops, info, notes), stderr)
	}
	if *asJSON {
		rep := lwt.Explain(res, ops)
		if res.Verdict == verdict.Unknown && hint != "" {
			rep.Reason += "; " + hint
		}
		rep.Notes = notes
		return encodeJSON(out, stderr, verdictStatus(res.Verdict), rep)
	}
	if len(rops) == 0 {
		fmt.Fprintf(out, "%s: 0 operations (an empty history)\n", textsafe.Escape(pos[0]))
	}
	fmt.Fprintf(out, "linearizability: %s\n", textsafe.Escape(res.String()))
	if res.Verdict == verdict.Unknown && hint != "" {
		fmt.Fprintf(out, "  %s\n", hint)
	}
	writeLWTViolation(out, res, ops)
	for _, n := range notes {
		fmt.Fprintf(out, "note: %s\n", textsafe.Escape(n))
	}
	return verdictStatus(res.Verdict)
}

// lwtStop is the error that stopped the check that returned res, if it
// has no verdict and its context ran on: the exact search went past its
// memory bound (lwt.Options.SearchMemory), the only limit of its own.
func lwtStop(res *lwt.Result) error {
	if res.Verdict == verdict.Unknown && !res.Stopped {
		return progress.ErrResourceLimit
	}
	return nil
}

// writeLWTViolation prints the operation of ops that res could not place,
// and the operations related to it, if res found one.
func writeLWTViolation(w io.Writer, res *lwt.Result, ops []lwt.Op) {
	v := res.Violation
	if v == nil {
		return
	}
	fmt.Fprintf(w, "operation:\n  %s\n", textsafe.Escape(ops[v.Op].String()))
	if len(v.Related) > 0 {
		fmt.Fprintln(w, "related:")
		for _, j := range v.Related {
			fmt.Fprintf(w, "  %s\n", textsafe.Escape(ops[j].String()))
		}
	}
}

// registerFlag is a register's value as a flag: an integer, or nil
// (lwt.Nil), which is how the help shows that value.
type registerFlag int64

// newRegisterFlag defines a registerFlag on fs and returns its value.
func newRegisterFlag(fs *flag.FlagSet, name string, value int64, usage string) *int64 {
	p := new(int64)
	*p = value
	fs.Var((*registerFlag)(p), name, usage)
	return p
}

func (r *registerFlag) String() string {
	if r == nil || int64(*r) == lwt.Nil {
		return "nil"
	}
	return strconv.FormatInt(int64(*r), 10)
}

func (r *registerFlag) Set(s string) error {
	if s == "nil" {
		*r = registerFlag(lwt.Nil)
		return nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n == lwt.Nil {
		return fmt.Errorf("want an integer above %d, or nil; not %q", int64(lwt.Nil), s)
	}
	*r = registerFlag(n)
	return nil
}
