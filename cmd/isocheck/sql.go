package main

import (
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/isocheck/isocheck/format"
	"github.com/isocheck/isocheck/format/sqljsonl"
	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/internal/textsafe"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/progress"
	"github.com/isocheck/isocheck/sqlcheck"
	"github.com/isocheck/isocheck/sqlhistory"
	"github.com/isocheck/isocheck/verdict"
)

// isSQL reports whether the history at path is a SQL history (package
// sqlhistory), which runSQL checks, by --format or by what format.Resolve
// finds in it; "-" is standard input. A pipe or a device, which can be
// read only once, is a stream whose start tells instead (see openStream).
func isSQL(formatFlag, path string) bool {
	f, err := format.ParseFormat(formatFlag)
	if err != nil || f != format.Auto {
		return f == format.SQL
	}
	f, err = format.Resolve(inputPath(path), f)
	return err == nil && f == format.SQL
}

// runSQL checks a SQL history, at path or in the stream in when it is not
// nil, within the job j: each transaction at the level it recorded, or
// all at --level when given (all: each level in turn, reported as one
// document, shaped as a key-value history's).
func (cf *checkFlags) runSQL(fs *flag.FlagSet, j *job, path string, in *stream, explain bool, stdout, stderr io.Writer) int {
	name := "check"
	if explain {
		name = "explain"
	}
	if msg := cf.sqlUnsupported(fs); msg != "" {
		return usageError(stderr, name, "%s", msg)
	}
	levelSet := false
	fs.Visit(func(f *flag.Flag) { levelSet = levelSet || f.Name == "level" })
	var levels []level.Level
	all := false
	if levelSet {
		if strings.EqualFold(cf.level, "all") {
			levels, all = sqlhistory.Levels(), true
		} else {
			l, err := level.Parse(cf.level)
			if err != nil || !sqlhistory.ValidLevel(l) {
				return usageError(stderr, name, "--level for a SQL history must be one of ser, si, pc, cc, ra, rc or all, not %q", cf.level)
			}
			levels = []level.Level{l}
		}
	}
	path = inputPath(path)
	var h *sqlhistory.History
	var err error
	start := time.Now()
	if in != nil {
		stop := in.deadline(j.ctx)
		h, err = sqljsonl.ReadContext(j.ctx, in.r, path)
		stop()
	} else {
		h, err = sqljsonl.ReadFileContext(j.ctx, path)
	}
	parseTime := time.Since(start)
	if err == nil {
		err = sqlcheck.Validate(h)
	}
	if err != nil {
		j.stop()
		if progress.Stopped(err) {
			return cf.sqlStopped(j, levels, all, err, stdout, stderr)
		}
		fmt.Fprintf(stderr, "isocheck: %v\n", err)
		return exitBadInput
	}
	if len(h.Txns) == 0 && !cf.input.allowEmpty {
		fmt.Fprintf(stderr, "isocheck: %s: no transactions: the history is empty (if that is what you meant to check, pass --allow-empty)\n", path)
		return exitBadInput
	}
	counts := map[history.Status]int{}
	for _, t := range h.Txns {
		counts[t.Status]++
	}
	uncommitted := nothingCommitted(counts)
	if uncommitted != "" && !cf.input.allowEmpty {
		return refuseNothingCommitted(stderr, path, uncommitted)
	}
	if levels == nil {
		levels = []level.Level{0}
	}
	var reports []sqlJSON
	var results []*sqlcheck.Result
	status := exitSatisfied
	for _, l := range levels {
		at := h
		if l != 0 {
			at = withLevel(h, l)
		}
		res, rep, err := cf.sqlOne(j, at, l)
		if err != nil {
			return checkFailed(err, stderr)
		}
		results = append(results, res)
		reports = append(reports, rep)
		status = worse(status, verdictStatus(res.Verdict))
	}
	// The files and pictures show the weakest level broken, as for a
	// key-value history.
	broken := -1
	for i, res := range results {
		if res.Verdict == verdict.Violated {
			broken = i
		}
	}
	if broken >= 0 {
		cf.writeSQLFiles(results[broken], explain, stdout, stderr)
	} else {
		cf.nothingToWrite(stderr, sqlNoViolation(results[0].Verdict))
	}
	if cf.htmlFile != "" {
		writePage(cf.htmlFile, cf.fileOut, sqlPage(cf.inputPath, cf.command, h, levels, results, reports), stderr)
	}
	if cf.htmlFile != "" {
		writePage(cf.htmlFile, cf.fileOut, sqlPage(cf.inputPath, cf.command, h, levels, results, reports), stderr)
	}
	switch {
	case cf.asJSON && all:
		return encodeJSON(stdout, stderr, status, sqlAll(levels, reports))
	case cf.asJSON:
		return encodeJSON(stdout, stderr, status, reports[0])
	}
	if uncommitted != "" {
		fmt.Fprintf(stdout, "%s: 0 committed transactions (%s): nothing to check\n", textsafe.Escape(cf.inputPath), uncommitted)
	}
	if all {
		return cf.writeSQLAll(stdout, status, levels, results, reports)
	}
	for _, rep := range reports {
		writeEscaped(stdout, rep.WriteText)
		if cf.stats {
			j.stop()
			writeSQLStats(stdout, rep.Stats, parseTime, j.stageStats())
		}
	}
	return status
}

// writeSQLStats prints --stats of a SQL check at one level as a key-value
// check's: the time of reading and checking, the size of the problem, and
// the table of the stages the run went through.
func writeSQLStats(w io.Writer, s sqlStats, parse time.Duration, stages []stageStat) {
	fmt.Fprintln(w, "stats:")
	if s.Stage != "" {
		fmt.Fprintf(w, "  %-24s %s (%s of %s %s)\n", "stopped in stage", s.Stage, count(s.StageDone), count(s.StageTotal), s.StageUnit)
	}
	fmt.Fprintf(w, "  %-24s %v ms\n", "parse", ms(parse))
	fmt.Fprintf(w, "  %-24s %v ms\n", "check", s.CheckMS)
	for _, c := range []struct {
		name string
		v    int
	}{
		{"transactions", s.Transactions}, {"rows not returned", s.Conflicts},
		{"steps", s.Steps}, {"SAT variables", s.Vars}, {"SAT clauses", s.Clauses},
	} {
		fmt.Fprintf(w, "  %-24s %s\n", c.name, count(int64(c.v)))
	}
	writeStages(w, stages)
}

// writeSQLLevelStats prints --stats of a SQL check at every level, one
// row each, as writeLevelStats does for a key-value history.
func writeSQLLevelStats(w io.Writer, levels []level.Level, reports []sqlJSON) {
	fmt.Fprintf(w, "\nstats:\n  %-5s %10s %12s %10s %10s %10s\n", "level", "check_ms", "transactions", "steps", "vars", "clauses")
	for i, r := range reports {
		s := r.Stats
		fmt.Fprintf(w, "  %-5s %10.1f %12s %10s %10s %10s\n", levels[i], s.CheckMS, count(int64(s.Transactions)), count(int64(s.Steps)), count(int64(s.Vars)), count(int64(s.Clauses)))
	}
}

// sqlUnsupported says why a flag given cannot apply to a SQL history, or
// "": --elle (Elle has no model of SQL transactions at mixed levels) and
// --no-session-order (the levels of a SQL history are defined with it).
func (cf *checkFlags) sqlUnsupported(fs *flag.FlagSet) string {
	var msg string
	fs.Visit(func(f *flag.Flag) {
		switch {
		case msg != "":
		case f.Name == "elle" && cf.elle:
			msg = "--elle: a SQL history has no Elle vocabulary; its anomalies are named as key-value ones are"
		case f.Name == "no-session-order" && cf.noSessionOrder:
			msg = "--no-session-order: a SQL history is checked with its sessions (its RC has no session guarantee already); give each transaction its own session in the input instead"
		}
	})
	return msg
}

// writeSQLAll prints --level all on a SQL history as on a key-value one:
// a table of the levels, the strongest kept and the weakest broken, then
// the weakest broken level's report in full.
func (cf *checkFlags) writeSQLAll(stdout io.Writer, status int, levels []level.Level, results []*sqlcheck.Result, reports []sqlJSON) int {
	fmt.Fprintf(stdout, "%-5s %-10s %s\n", "level", "verdict", "anomaly")
	weakest := -1
	for i, rep := range reports {
		detail := ""
		switch {
		case rep.Anomaly != nil:
			detail = rep.Anomaly.Name.String()
			weakest = i
		case results[i].Verdict == verdict.Unknown:
			detail = rep.Reason
		}
		fmt.Fprintf(stdout, "%-5s %-10s %s\n", levels[i], results[i].Verdict, textsafe.Escape(detail))
	}
	doc := sqlAll(levels, reports)
	fmt.Fprintf(stdout, "strongest level kept: %s; weakest level broken: %s\n", doc.Strongest, doc.Weakest)
	if weakest >= 0 {
		fmt.Fprintln(stdout)
		writeEscaped(stdout, reports[weakest].WriteText)
	} else if len(reports) > 0 {
		for _, n := range reports[0].Notes {
			fmt.Fprintf(stdout, "note: %s\n", textsafe.Escape(n))
		}
	}
	if cf.stats {
		writeSQLLevelStats(stdout, levels, reports)
	}
	return status
}

// sqlAllDoc is the document of --level all --json on a SQL history.
type sqlAllDoc struct {
	Levels    []sqlJSON `json:"levels"`
	Strongest string    `json:"strongest_kept"`
	Weakest   string    `json:"weakest_broken"`
}

// sqlAll is the document of --level all --json on a SQL history: the
// levels, the strongest kept and the weakest broken ("none" if there is
// none), as for a key-value history.
func sqlAll(levels []level.Level, reports []sqlJSON) sqlAllDoc {
	strongest, weakest := "none", "none"
	for i, l := range levels {
		if s := reports[i].Satisfied; s != nil && !*s {
			weakest = l.String()
		}
	}
	for i := range levels {
		if s := reports[i].Satisfied; s != nil && *s {
			strongest = levels[i].String()
			break
		}
	}
	return sqlAllDoc{reports, strongest, weakest}
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
func (cf *checkFlags) sqlStopped(j *job, levels []level.Level, all bool, err error, stdout, stderr io.Writer) int {
	reason := j.stopReason(err)
	if levels == nil {
		levels = []level.Level{0}
	}
	var reports []sqlJSON
	for _, l := range levels {
		rep := &sqlcheck.Report{Report: verdict.NewReport[sqlcheck.AnomalyReport](sqlLevelName(l), verdict.Outcome{Reason: reason})}
		entry := sqlJSON{Report: rep}
		entry.Stats.stopped(j)
		reports = append(reports, entry)
	}
	cf.writeStoppedPage(reportLevels(reports), stderr)
	switch {
	case cf.asJSON && all:
		return encodeJSON(stdout, stderr, exitNoVerdict, sqlAll(levels, reports))
	case cf.asJSON:
		return encodeJSON(stdout, stderr, exitNoVerdict, reports[0])
	}
	for _, r := range reports {
		writeEscaped(stdout, r.WriteText)
	}
	return exitNoVerdict
}

// sqlJSON is the JSON of a SQL check of one level.
type sqlJSON struct {
	*sqlcheck.Report
	Stats sqlStats `json:"stats"`
}

// sqlStats are a SQL check's stats, named as a key-value check's are, with
// the stage a stopped run reached.
type sqlStats struct {
	Transactions int `json:"transactions"`
	// Conflicts are reads of rows not returned that some version could
	// have matched.
	Conflicts int `json:"conflicts"`
	Steps     int `json:"steps"`
	// Vars and Clauses are the size of the SAT encoding, when solved so.
	Vars       int     `json:"vars"`
	Clauses    int     `json:"clauses"`
	CheckMS    float64 `json:"check_ms"`
	Stage      string  `json:"stage,omitempty"`
	StageDone  int64   `json:"stage_done,omitempty"`
	StageTotal int64   `json:"stage_total,omitempty"`
	StageUnit  string  `json:"stage_unit,omitempty"`
}

// newSQLStats are the stats of a check.
func newSQLStats(s sqlcheck.Stats) sqlStats {
	return sqlStats{Transactions: s.Txns, Conflicts: s.Conflicts, Steps: s.Steps, Vars: s.Vars, Clauses: s.Clauses, CheckMS: ms(s.Elapsed)}
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

// sqlOne checks h, whose transactions are all at l unless l is 0 (each at
// its own level), and puts the result in words.
func (cf *checkFlags) sqlOne(j *job, h *sqlhistory.History, l level.Level) (*sqlcheck.Result, sqlJSON, error) {
	res, err := sqlcheck.CheckWith(j.ctx, h, sqlcheck.Options{Naive: cf.sqlNaive, Paper: cf.sqlPaper})
	if err != nil {
		return nil, sqlJSON{}, err
	}
	rep := sqlcheck.Explain(res)
	rep.Level = sqlLevelName(l)
	st := newSQLStats(res.Stats)
	if res.Verdict == verdict.Unknown {
		rep.Reason = j.noVerdictReason(res.Reason)
		if j.cause(nil) != nil {
			st.stopped(j)
		}
	}
	return res, sqlJSON{rep, st}, nil
}

// sqlLevelName is the Level of a report of a check at l (0: each
// transaction at its own).
func sqlLevelName(l level.Level) string {
	if l == 0 {
		return sqlcheck.PerTransaction
	}
	return l.String()
}

// writeSQLFiles writes the counterexample and the pictures asked for.
func (cf *checkFlags) writeSQLFiles(res *sqlcheck.Result, explain bool, stdout, stderr io.Writer) {
	if cf.cexFile != "" {
		if err := writeFile(cf.cexFile, cf.fileOut, func(w io.Writer) error { return sqljsonl.Write(w, res.History) }); err != nil {
			fmt.Fprintf(stderr, "isocheck: --counterexample: %v\n", err)
		}
	}
	if explain {
		cf.writePictures(res.WriteDOT, res.Graph(), stderr)
	}
}
