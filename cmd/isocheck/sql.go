package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"

	"github.com/isocheck/isocheck/check"
	"github.com/isocheck/isocheck/format"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/mixed"
	"github.com/isocheck/isocheck/sqlhistory"
)

// isSQL reports whether the history at path is a SQL history (package
// sqlhistory): asked for with --format sql, or detected.
func isSQL(formatFlag, path string) bool {
	if strings.EqualFold(formatFlag, string(format.SQL)) {
		return true
	}
	if !strings.EqualFold(formatFlag, string(format.Auto)) || path == "-" {
		return false
	}
	// Only a regular file can be looked at twice: a FIFO or a device is
	// read once, by the key-value readers, which detect SQL and say so.
	if fi, err := os.Stat(path); err != nil || !fi.Mode().IsRegular() {
		return false
	}
	f, err := format.Detect(path)
	return err == nil && f == format.SQL
}

// runSQL checks a SQL history: each transaction at the level it recorded,
// or all at --level when given (all: each level in turn).
func (cf *checkFlags) runSQL(fs *flag.FlagSet, path string, explain bool, stdout, stderr io.Writer) int {
	levelSet := false
	fs.Visit(func(f *flag.Flag) { levelSet = levelSet || f.Name == "level" })
	var levels []level.Level
	if levelSet {
		if strings.EqualFold(cf.level, "all") {
			levels = sqlhistory.Levels()
		} else {
			l, err := level.Parse(cf.level)
			if err != nil || !sqlhistory.ValidLevel(l) {
				return usageError(stderr, "check", "--level for a SQL history must be one of ser, si, pc, cc, ra, rc or all, not %q", cf.level)
			}
			levels = []level.Level{l}
		}
	}
	j := cf.input.limits.start(stderr)
	defer j.stop()
	if path == "-" {
		path = "/dev/stdin"
	}
	h, err := format.ReadSQLFile(path)
	if err != nil {
		fmt.Fprintf(stderr, "isocheck: %v\n", err)
		return exitBadInput
	}
	if len(h.Txns) == 0 && !cf.input.allowEmpty {
		fmt.Fprintf(stderr, "isocheck: %s: no transactions: the history is empty (if that is what you meant to check, pass --allow-empty)\n", path)
		return exitBadInput
	}
	if levels == nil {
		return cf.sqlOne(j, h, "", explain, stdout, stderr)
	}
	status := exitSatisfied
	for _, l := range levels {
		at := withLevel(h, l)
		s := cf.sqlOne(j, at, l.String(), explain, stdout, stderr)
		if s > status {
			status = s
		}
	}
	return status
}

// withLevel returns h with every transaction at level l.
func withLevel(h *sqlhistory.History, l level.Level) *sqlhistory.History {
	c := *h
	c.Txns = append([]sqlhistory.Txn(nil), h.Txns...)
	for i := range c.Txns {
		c.Txns[i].Level = l
	}
	return &c
}

// sqlOne checks h and prints the verdict; name, if set, is the level
// every transaction was set to.
func (cf *checkFlags) sqlOne(j *job, h *sqlhistory.History, name string, explain bool, stdout, stderr io.Writer) int {
	res, err := mixed.Check(j.ctx, h, mixed.Options{Naive: cf.sqlNaive, Paper: cf.sqlPaper})
	if err != nil {
		return checkFailed(err, stderr)
	}
	rep := mixed.Explain(res)
	if res.Verdict == check.NoVerdict {
		rep.Reason = j.noVerdictReason(res.Reason)
	}
	status := verdictStatus(res.Verdict)
	if res.Verdict == check.Violated {
		cf.writeSQLFiles(res, explain, stdout, stderr)
	} else {
		cf.nothingToWrite(stderr, sqlNoViolation(res.Verdict))
	}
	if cf.asJSON {
		return encodeJSON(stdout, stderr, status, struct {
			Level string `json:"level"`
			*mixed.Report
			Stats mixed.Stats `json:"stats"`
		}{levelName(name), rep, res.Stats})
	}
	if name != "" {
		fmt.Fprintf(stdout, "every transaction at %s: ", name)
	}
	writeEscaped(stdout, rep.WriteText)
	if cf.stats {
		fmt.Fprintf(stdout, "stats: %d transactions, %d reads of rows not returned, %d steps, %v\n",
			res.Stats.Txns, res.Stats.Conflicts, res.Stats.Steps, res.Stats.Elapsed.Round(1e5))
	}
	return status
}

func levelName(name string) string {
	if name == "" {
		return "per transaction"
	}
	return name
}

// writeSQLFiles writes the counterexample and the pictures asked for.
func (cf *checkFlags) writeSQLFiles(res *mixed.Result, explain bool, stdout, stderr io.Writer) {
	if cf.cexFile != "" {
		if err := writeFile(cf.cexFile, cf.fileOut, func(w io.Writer) error { return format.WriteSQL(w, res.History) }); err != nil {
			fmt.Fprintf(stderr, "isocheck: --counterexample: %v\n", err)
		}
	}
	if !explain {
		return
	}
	if cf.dotFile != "" {
		if err := writeFile(cf.dotFile, cf.fileOut, res.WriteDOT); err != nil {
			fmt.Fprintf(stderr, "isocheck: --dot: %v\n", err)
		}
	}
	for _, r := range []struct{ file, format string }{{cf.svgFile, "svg"}, {cf.pngFile, "png"}} {
		if r.file == "" {
			continue
		}
		if err := renderDOT(res, r.file, r.format); err != nil {
			fmt.Fprintf(stderr, "isocheck: --%s %s: %v\n", r.format, r.file, err)
		}
	}
}

// renderDOT runs Graphviz's dot on the counterexample.
func renderDOT(res *mixed.Result, path, format string) error {
	dot, err := exec.LookPath("dot")
	if err != nil {
		return fmt.Errorf("Graphviz's dot is not installed")
	}
	var in, errs bytes.Buffer
	if err := res.WriteDOT(&in); err != nil {
		return err
	}
	cmd := exec.Command(dot, "-T"+format, "-o", path)
	cmd.Stdin, cmd.Stderr = &in, &errs
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("dot -T%s: %v: %s", format, err, strings.TrimSpace(errs.String()))
	}
	return nil
}
