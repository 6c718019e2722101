package main

import (
	"flag"
	"fmt"
	"github.com/isocheck/isocheck/verdict"
	"io"
	"strings"

	"github.com/isocheck/isocheck/format"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/progress"
	"github.com/isocheck/isocheck/sqlcheck"
	"github.com/isocheck/isocheck/sqlhistory"
)

// isSQL reports whether the history at path is a SQL history (package
// sqlhistory), which runSQL checks, by --format or by what format.Resolve
// finds in it. A pipe or a device is read once, by the key-value readers,
// which detect SQL and say so; "-" is standard input.
func isSQL(formatFlag, path string) bool {
	f, err := format.ParseFormat(formatFlag)
	if err != nil || f != format.Auto || path == "-" {
		return f == format.SQL
	}
	f, err = format.Resolve(path, f)
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
	h, err := format.ReadSQLFileContext(j.ctx, path)
	if err != nil {
		j.stop()
		if progress.Stopped(err) {
			return cf.sqlStopped(j, levels, err, stdout, stderr)
		}
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
		status = worse(status, cf.sqlOne(j, at, l.String(), explain, stdout, stderr))
	}
	return status
}

// worse returns the status of a run of several checks whose statuses are
// a and b: an error (bad input, a crash) over a violation, a violation
// over no verdict, no verdict over satisfied (as --level all does).
func worse(a, b int) int {
	rank := func(s int) int {
		switch s {
		case exitSatisfied:
			return 0
		case exitNoVerdict:
			return 1
		case exitViolated:
			return 2
		}
		return 3 + s
	}
	if rank(b) > rank(a) {
		return b
	}
	return a
}

// sqlStopped reports a SQL check stopped, by err, before its history was
// read: no verdict, with the stage reached, for every level asked for.
func (cf *checkFlags) sqlStopped(j *job, levels []level.Level, err error, stdout, stderr io.Writer) int {
	reason := j.stopReason(err)
	names := []string{""}
	if levels != nil {
		names = names[:0]
		for _, l := range levels {
			names = append(names, l.String())
		}
	}
	for _, name := range names {
		if cf.asJSON {
			var st sqlStats
			st.stopped(j)
			rep := &sqlcheck.Report{Summary: verdict.Outcome{Reason: reason}.Summary()}
			if status := encodeJSON(stdout, stderr, exitNoVerdict, sqlJSON{levelName(name), rep, st}); status != exitNoVerdict {
				return status
			}
			continue
		}
		if name != "" {
			fmt.Fprintf(stdout, "every transaction at %s: ", name)
		}
		fmt.Fprintf(stdout, "no verdict: %s\n", reason)
	}
	return exitNoVerdict
}

// sqlJSON is the JSON of a SQL check of one level.
type sqlJSON struct {
	Level string `json:"level"`
	*sqlcheck.Report
	Stats sqlStats `json:"stats"`
}

// sqlStats are a SQL check's stats, with the stage a stopped run reached.
type sqlStats struct {
	sqlcheck.Stats
	Stage      string `json:"stage,omitempty"`
	StageDone  int64  `json:"stage_done,omitempty"`
	StageTotal int64  `json:"stage_total,omitempty"`
	StageUnit  string `json:"stage_unit,omitempty"`
}

// stopped records the stage a stopped job reached.
func (s *sqlStats) stopped(j *job) {
	snap := j.tracker.Snapshot()
	s.Stage, s.StageDone, s.StageTotal, s.StageUnit = snap.Stage, snap.Done, snap.Total, snap.Unit
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
	res, err := sqlcheck.Check(j.ctx, h, sqlcheck.Options{Naive: cf.sqlNaive, Paper: cf.sqlPaper})
	if err != nil {
		return checkFailed(err, stderr)
	}
	rep := sqlcheck.Explain(res)
	st := sqlStats{Stats: res.Stats}
	if res.Verdict == verdict.Unknown {
		rep.Reason = j.noVerdictReason(res.Reason)
		if j.cause(nil) != nil {
			st.stopped(j)
		}
	}
	status := verdictStatus(res.Verdict)
	if res.Verdict == verdict.Violated {
		cf.writeSQLFiles(res, explain, stdout, stderr)
	} else {
		cf.nothingToWrite(stderr, sqlNoViolation(res.Verdict))
	}
	if cf.asJSON {
		return encodeJSON(stdout, stderr, status, sqlJSON{levelName(name), rep, st})
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
func (cf *checkFlags) writeSQLFiles(res *sqlcheck.Result, explain bool, stdout, stderr io.Writer) {
	if cf.cexFile != "" {
		if err := writeFile(cf.cexFile, cf.fileOut, func(w io.Writer) error { return format.WriteSQL(w, res.History) }); err != nil {
			fmt.Fprintf(stderr, "isocheck: --counterexample: %v\n", err)
		}
	}
	if explain {
		cf.writePictures(res.WriteDOT, stderr)
	}
}
