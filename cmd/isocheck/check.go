package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/isocheck/isocheck/check"
	"github.com/isocheck/isocheck/format"
	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/internal/textsafe"
	"github.com/isocheck/isocheck/interpret"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/nemesis"
	"github.com/isocheck/isocheck/online"
	"github.com/isocheck/isocheck/progress"
	"github.com/isocheck/isocheck/report"
	"github.com/isocheck/isocheck/resolve"
	"github.com/isocheck/isocheck/solver"
	"github.com/isocheck/isocheck/sqlhistory"
	"github.com/isocheck/isocheck/verdict"
)

// checkFlags are the flags of check and explain.
type checkFlags struct {
	input                     *inputFlags
	level                     string
	asJSON, stats             bool
	cexFile, colorMode        string
	dotFile, svgFile, pngFile string
	htmlFile                  string
	// inputPath and command name the input and the command line, for
	// the page (--html).
	inputPath, command   string
	fileOut              io.Writer // where a file named "-" goes (see routeStdout)
	noSessionOrder, elle bool
	asEDN                bool // Elle's result map as EDN (see ednConflict)
	// anomaliesFile is where --anomalies writes every anomaly found.
	anomaliesFile string
	// ablate are the options that turn parts of the checker off, for
	// measurements.
	ablate check.Options
	engine string
	// sqlNaive and sqlPaper check SQL histories with the naive baseline or
	// the search (Algorithms 3 and 4) of Bouajjani, Enea and Román-Calvo,
	// "On the Complexity of Checking Mixed Isolation Levels for SQL
	// Transactions" (CAV 2025).
	sqlNaive, sqlPaper bool
	// followFlags are those of --follow; followed is what it did.
	followFlags followFlags
	followed    *online.Stats
	// final is the verdict on the whole input that --follow's pieces
	// between fences gave, if they did.
	final *online.Final
}

// checkMode is what runCheck is asked beyond its flags.
type checkMode struct {
	// explain runs explain (the full report on a minimal
	// counterexample) instead of check (a summary and the checker's
	// cycle).
	explain bool
	// run, for a history `isocheck run` recorded, gives the run's
	// section of the HTML page (--html) from the history read back.
	run func(*history.History) *report.Run
	// command, when set, is the command line the page shows, for a check
	// another command runs.
	command string
	// faults, for a run's check, are the nemesis's events, at their
	// times on the transactions' clock, for the page's timeline.
	faults []nemesis.Event
}

// runCheck runs check or explain, as mode says.
func runCheck(args []string, stdout, stderr io.Writer, mode checkMode) int {
	explain := mode.explain
	name := "check"
	if explain {
		name = "explain"
	}
	fs := newFlagSet(name, stderr)
	var cf checkFlags
	fs.StringVar(&cf.level, "level", "si", "isolation level: sser, ser, si, pc, cc, ra, rc (or a long name such as serializable), or all; for a SQL history, the level of every transaction instead of each one's own")
	cf.input = addInputFlags(fs)
	fs.Lookup("format").Usage = "input format: auto, jsonl, text, dbcop, cobra, edn (Jepsen), elle-json or sql (a history of SQL queries, each transaction at its own level)"
	fs.Lookup("allow-empty").Usage = "accept a history of 0 transactions, or of none committed (by default an error: an empty file is more often a crashed recorder than a test)"
	fs.BoolVar(&cf.asJSON, "json", false, "print one JSON object (schema in docs/json.md)")
	fs.BoolVar(&cf.stats, "stats", false, "print the time of each stage and the sizes of the problem")
	fs.StringVar(&cf.cexFile, "counterexample", "", "write the minimal counterexample to FILE in native JSONL (with --level all: the weakest broken level's); - writes it to stdout, and the report to stderr")
	fs.StringVar(&cf.colorMode, "color", "auto", "colour the text: auto (when stdout is a terminal), always or never")
	fs.BoolVar(&cf.noSessionOrder, "no-session-order", false, "check the level without session order: each transaction its own session (Elle's serializable and snapshot-isolation rather than strong-session-*)")
	fs.BoolVar(&cf.elle, "elle", false, "name anomalies and levels in Elle's terms too (and, with --json, add Elle's result map)")
	fs.BoolVar(&cf.asEDN, "edn", false, "with --elle, print only Elle's result map, as one EDN map (for a Jepsen test to merge into its results)")
	fs.BoolVar(&cf.ablate.NoPrune, "no-prune", false, "for measurements: send every constraint to the solver (the verdict is the same)")
	fs.BoolVar(&cf.ablate.AllPairs, "all-pairs", false, "for measurements: constrain every pair of write chains of a key, as PolySI does (Huang et al., \"Efficient Black-box Checking of Snapshot Isolation in Databases\", PVLDB 2023), instead of ordering them by reachability first")
	fs.BoolVar(&cf.sqlNaive, "naive", false, "for measurements: check a SQL history by enumerating every witness and commit order (the naive baseline of Bouajjani, Enea and Román-Calvo, \"On the Complexity of Checking Mixed Isolation Levels for SQL Transactions\", CAV 2025)")
	fs.BoolVar(&cf.sqlPaper, "paper", false, "for measurements: check a SQL history by the search (Algorithms 3 and 4) of Bouajjani, Enea and Román-Calvo, \"On the Complexity of Checking Mixed Isolation Levels for SQL Transactions\" (CAV 2025), instead of its SAT encoding")
	fs.StringVar(&cf.engine, "solver", string(solver.DefaultEngine), fmt.Sprintf("for measurements: the solver's engine, one of %v", solver.Engines()))
	if explain {
		cf.addPictureFlags(fs)
	}
	addExplainTimeFlag(fs, cf.input.limits)
	fs.StringVar(&cf.htmlFile, "html", "", htmlUsage)
	fs.StringVar(&cf.anomaliesFile, "anomalies", "", fmt.Sprintf("write every anomaly found to FILE as JSON Lines, one line each as the check found it (not shrunk), at most %d of each name and level (schema in docs/json.md)", interpret.MaxCount))
	cf.addFollowFlags(fs)
	pos, help, err := parse(fs, args)
	if err != nil {
		return parseStatus(help)
	}
	if len(pos) != 1 {
		return usageError(stderr, name, "want one PATH, got %d", len(pos))
	}
	cf.inputPath, cf.command = pos[0], commandLine(name, args)
	if mode.command != "" {
		cf.command = mode.command
	}
	stdout, routed := cf.routeStdout(stdout, stderr)
	if !routed {
		return usageError(stderr, name, "only one of --counterexample, --dot, --svg, --png and --html can write standard output (-)")
	}
	color, ok := useColor(cf.colorMode, stdout)
	if !ok {
		return usageError(stderr, name, "--color must be auto, always or never, not %q", cf.colorMode)
	}
	if !slices.Contains(solver.Engines(), solver.Engine(cf.engine)) {
		return usageError(stderr, name, "--solver must be one of %v, not %q", solver.Engines(), cf.engine)
	}
	cf.ablate.Engine = solver.Engine(cf.engine)
	if msg := cf.ednConflict(); msg != "" {
		return usageError(stderr, name, "%s", msg)
	}
	if cf.anomaliesFile == "-" {
		return usageError(stderr, name, "--anomalies writes a file: give its path, not -")
	}
	cf.ablate.MaxClockBytes = clockBytes(cf.input.limits.maxMemory)
	cf.ablate.MaxReachBytes = cf.ablate.MaxClockBytes
	all := strings.EqualFold(cf.level, "all")
	if cf.followFlags.on {
		if msg := cf.followConflict(all); msg != "" {
			return usageError(stderr, name, "%s", msg)
		}
	} else if cf.followFlags.stop {
		return usageError(stderr, name, "--stop-on-violation needs --follow")
	}
	j := cf.input.limits.start(stderr)
	defer j.stop()
	// A pipe is read once: its start tells which reader reads it.
	var in *stream
	if cf.followFlags.on {
		var found bool
		lvl, _ := level.Parse(cf.level)
		in, found, err = cf.follow(j, pos[0], lvl, color, stdout, stderr)
		if err != nil && found {
			j.stop()
			fmt.Fprintf(stderr, "isocheck: %s: %s before the input ended: the violation above stands\n", textsafe.Escape(pos[0]), j.stopReason(err))
			return exitViolated
		}
		if err == nil && cf.final != nil {
			in.Close()
			j.stop()
			return printFinal(cf.final, lvl, "--follow", stdout, stderr)
		}
	} else {
		in, err = cf.input.openStream(j, pos[0])
	}
	if err != nil {
		j.stop()
		if progress.Stopped(err) {
			lvl, _ := level.Parse(cf.level)
			return cf.printStopped(j, stdout, stderr, lvl, all, err, 0)
		}
		fmt.Fprintf(stderr, "isocheck: %v\n", err)
		return exitBadInput
	}
	defer in.Close()
	if in != nil && in.format == format.SQL || in == nil && isSQL(cf.input.format, pos[0]) {
		if cf.asEDN {
			return usageError(stderr, name, "--edn: a SQL history has no Elle result map")
		}
		if cf.anomaliesFile != "" {
			return usageError(stderr, name, "--anomalies: a SQL history's check lists no other anomalies")
		}
		return cf.runSQL(fs, j, pos[0], in, explain, stdout, stderr)
	}
	var lvl level.Level
	if !all {
		if lvl, err = level.Parse(cf.level); err != nil {
			return usageError(stderr, name, "%v", err)
		}
	}
	h, info, parseTime, err := cf.input.readFrom(j, pos[0], in)
	if err != nil {
		j.stop()
		if progress.Stopped(err) {
			return cf.printStopped(j, stdout, stderr, lvl, all, err, parseTime)
		}
		fmt.Fprintf(stderr, "isocheck: %v\n", err)
		return exitBadInput
	}
	uncommitted := nothingCommitted(h.StatusCounts())
	if uncommitted != "" && !cf.input.allowEmpty {
		j.stop()
		return refuseNothingCommitted(stderr, pos[0], uncommitted)
	}
	if cf.noSessionOrder {
		h = h.WithoutSessionOrder()
	}
	var page *report.Page // --html's
	if cf.htmlFile != "" {
		page = &report.Page{Title: cf.inputPath, Command: cf.command, Facts: historyFacts(pos[0], h, info)}
		if mode.run != nil {
			page.Run = mode.run(h)
		} else {
			page.Run = report.FaultsOf(h)
		}
	}
	if all {
		return cf.runAll(j, h, info, parseTime, explain, color, page, stdout, stderr)
	}
	// On a violation, the weaker levels are checked too: the report
	// explains the weakest one broken, by the rule that broke there.
	opts := cf.ablate
	opts.WeakestBroken = true
	res, err := check.CheckWith(j.ctx, h, lvl, opts)
	if err != nil {
		j.stop()
		return checkFailed(err, stderr)
	}
	// The stages of the check; explaining it runs the checker again on
	// parts of the history, as the one stage "explain".
	stages := j.stageStats()
	start := time.Now()
	ex := j.explaining(res.Verdict == verdict.Violated)
	rep := cf.report(ex, res, info, explain, stderr)
	stream := cf.openAnomalies([]level.Level{lvl}, stderr)
	// The anomalies the level forbids are listed from its own evidence,
	// the weaker level's included.
	own := res
	if res.Own != nil {
		own = res.Own
	}
	if every, err := interpret.EveryWith(ex.ctx, h, own, rep, stream.options()); err == nil {
		rep.Anomalies = every
	} else if progress.Stopped(err) {
		ex.missing("the other anomalies of the history are not listed")
	} else if rep.Anomaly != nil {
		// The verdict and its evidence stand; say that the list of the
		// other anomalies is missing rather than leave it out in silence.
		rep.Anomaly.Notes = append(rep.Anomaly.Notes, fmt.Sprintf("the other anomalies of the history were not listed: %v", err))
	}
	stream.close(stderr)
	var elle *interpret.ElleMap
	if cf.elle {
		elle = elleEvery(ex, h, res, rep.Anomalies, !cf.noSessionOrder)
	}
	var found []*interpret.Report
	var foundNotes []string
	if page != nil {
		found, foundNotes = foundReports(ex, h, own, rep)
	}
	explainTime := time.Since(start)
	j.stop()
	st := newStats(res, parseTime, explainTime)
	st.Follow = cf.followedStats()
	st.Stages = append(stages, stageStat{Stage: "explain", MS: ms(explainTime), PeakRSS: peakResidentMemory()})
	st.InputNotes = inputNotes(info, len(h.Txns))
	if res.Verdict == verdict.Unknown {
		rep.Reason = j.noVerdictReason(res.Reason)
		st.stopped(j)
	}
	if ex.cutShort(rep) {
		st.stopped(j)
	}
	status := verdictStatus(res.Verdict)
	cf.writeFiles(rep, explain, stdout, stderr)
	if page != nil {
		fillKVPage(page, []*interpret.Report{rep}, found, append(st.InputNotes, foundNotes...))
		writePage(cf.htmlFile, cf.fileOut, page, stderr)
	}
	if cf.asEDN {
		return writeElleEDN(stdout, stderr, status, elle)
	}
	if cf.asJSON {
		return encodeJSON(stdout, stderr, status, struct {
			*interpret.Report
			Elle  *interpret.ElleMap `json:"elle,omitempty"`
			Stats stats              `json:"stats"`
		}{rep, elle, st})
	}
	if len(h.Txns) == 0 {
		fmt.Fprintf(stdout, "%s: 0 transactions (an empty history)\n", textsafe.Escape(pos[0]))
	}
	if uncommitted != "" {
		fmt.Fprintf(stdout, "%s: 0 committed transactions (%s): nothing to check\n", textsafe.Escape(pos[0]), uncommitted)
	}
	if explain {
		rep.WriteExplanation(stdout, color)
	} else {
		rep.WriteTextColor(stdout, color)
	}
	rep.WriteAnomalies(stdout)
	if cf.elle {
		fmt.Fprintf(stdout, "elle: %s\n", strings.ReplaceAll(rep.ElleRow(!cf.noSessionOrder), "\t", " "))
	}
	for _, n := range st.InputNotes {
		fmt.Fprintf(stdout, "note: %s\n", textsafe.Escape(n))
	}
	if cf.stats {
		st.write(stdout)
	}
	return status
}

// report explains res: in full, on a minimal counterexample, for explain;
// for check the checker's own evidence, with the minimal counterexample
// only when --counterexample asks for it. It runs in the stage "explain"
// of ex: when the run's limits stop it, the report is of the checker's
// evidence and ex says what is missing.
func (cf *checkFlags) report(ex *explaining, res *check.Result, info *format.Info, full bool, stderr io.Writer) *interpret.Report {
	var rep *interpret.Report
	if res.Verdict == verdict.Violated {
		shrink := interpret.Checked
		if full || cf.cexFile != "" {
			shrink = interpret.Minimal
		}
		min, err := shrink(ex.ctx, res)
		switch {
		case err != nil:
			fmt.Fprintf(stderr, "isocheck: shrinking the violation to a minimal counterexample: %v (the report shows the checker's evidence)\n", err)
		default:
			rep = min
			if rep.CutShort {
				ex.shrinkCut(rep)
			}
		}
	}
	if rep == nil {
		rep = interpret.Explain(res)
	}
	addFailedEventNotes(rep, res, info)
	return rep
}

// writeFiles writes the counterexample and the pictures asked for. A
// failure is reported on stderr but does not change the exit status: the
// verdict stands.
func (cf *checkFlags) writeFiles(rep *interpret.Report, explain bool, stdout, stderr io.Writer) {
	if rep.Anomaly == nil {
		cf.nothingToWrite(stderr, noViolation(rep))
		return
	}
	if cf.cexFile != "" {
		writeCounterexample(cf.cexFile, rep, cf.fileOut, stderr)
	}
	if explain {
		cf.writePictures(rep.WriteDOT, rep.Graph(), stderr)
	}
}

// printStopped reports a run stopped while parsing: no verdict, with the
// stage reached.
func (cf *checkFlags) printStopped(j *job, stdout, stderr io.Writer, lvl level.Level, all bool, err error, parseTime time.Duration) int {
	name := lvl.String()
	if all {
		name = "all levels"
	}
	reason := j.stopReason(err)
	cf.writeStoppedPage([]report.Level{{Name: name, Reason: reason}}, stderr)
	if cf.asEDN {
		return writeStoppedEDN(stdout, stderr, reason)
	}
	if cf.asJSON {
		st := stats{ParseMS: ms(parseTime)}
		st.stopped(j)
		return encodeJSON(stdout, stderr, exitNoVerdict, struct {
			Level string `json:"level"`
			verdict.Summary
			Stats stats `json:"stats"`
		}{name, verdict.Outcome{Reason: reason}.Summary(), st})
	}
	fmt.Fprintf(stdout, "%s: no verdict: %s\n", name, reason)
	return exitNoVerdict
}

func verdictStatus(v verdict.Verdict) int {
	switch v {
	case verdict.Satisfied:
		return exitSatisfied
	case verdict.Unknown:
		return exitNoVerdict
	}
	return exitViolated
}

func encodeJSON(stdout, stderr io.Writer, status int, v any) int {
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		fmt.Fprintf(stderr, "isocheck: %v\n", err)
		return exitBadInput
	}
	return status
}

// writeCounterexample writes the report's minimal counterexample in the
// native format.
func writeCounterexample(path string, rep *interpret.Report, stdout, stderr io.Writer) {
	if rep.Anomaly != nil && rep.Anomaly.Counterexample == nil && rep.CutShort {
		fmt.Fprintf(stderr, "isocheck: --counterexample %s: the explanation was cut short before a minimal counterexample was found, nothing written\n", path)
		return
	}
	if rep.Anomaly == nil || rep.Anomaly.Counterexample == nil {
		fmt.Fprintf(stderr, "isocheck: --counterexample %s: no violation to write, nothing written\n", path)
		return
	}
	err := writeFile(path, stdout, func(w io.Writer) error { return format.Write(w, rep.Anomaly.Counterexample, format.JSONL) })
	if err != nil {
		fmt.Fprintf(stderr, "isocheck: --counterexample: %v\n", err)
	}
}

// addFailedEventNotes says when a transaction of the counterexample had
// failed events that were dropped: in dbcop histories those are the
// likeliest cause of a reported violation (see the corpus README).
func addFailedEventNotes(rep *interpret.Report, res *check.Result, info *format.Info) {
	if info == nil || len(info.FailedEvents) == 0 || rep.Anomaly == nil {
		return
	}
	for _, t := range rep.Anomaly.Txns {
		if n := info.FailedEvents[t.Index]; n > 0 {
			rep.Anomaly.Notes = append(rep.Anomaly.Notes, fmt.Sprintf(
				"transaction %s had %d failed event(s), dropped as dbcop and PolySI do; the database reported them failed inside a committed transaction, the likeliest cause of this violation",
				t.Name, n))
		}
	}
}

// checkFailed reports an error of the checker (of a key-value or a SQL
// history): bad input (exit 2), or anything else, which leaves no verdict
// (exit 3).
func checkFailed(err error, stderr io.Writer) int {
	fmt.Fprintf(stderr, "isocheck: %v\n", err)
	var in *resolve.InputError
	var sqlIn *sqlhistory.InputError
	if errors.As(err, &in) || errors.As(err, &sqlIn) {
		return exitBadInput
	}
	return exitNoVerdict
}

// nothingCommitted says why a history of transactions of the statuses
// counts has nothing to check when none of them committed or was rolled
// back (whose reads are checked): "its 2 transactions all aborted". It
// returns "" for a history with a transaction to check, and for an empty
// one, which says so itself.
func nothingCommitted(counts map[history.Status]int) string {
	if counts[history.Committed]+counts[history.RolledBack] > 0 {
		return ""
	}
	aborted, unknown := counts[history.Aborted], counts[history.Unknown]
	switch {
	case aborted+unknown == 0:
		return ""
	case aborted == 1 && unknown == 0:
		return "its one transaction aborted"
	case unknown == 0:
		return fmt.Sprintf("its %d transactions all aborted", aborted)
	case aborted == 0 && unknown == 1:
		return "its one transaction has an unknown outcome"
	case aborted == 0:
		return fmt.Sprintf("its %d transactions all have an unknown outcome", unknown)
	}
	return fmt.Sprintf("its %d transactions aborted (%d) or have an unknown outcome (%d)", aborted+unknown, aborted, unknown)
}

// refuseNothingCommitted says on stderr that the history at path has no
// committed transaction to check, for the reason why (see
// nothingCommitted), as an empty history is refused, and returns the
// exit status.
func refuseNothingCommitted(stderr io.Writer, path, why string) int {
	fmt.Fprintf(stderr, "isocheck: %s: no committed transactions: %s, so there is nothing to check (if that is what you meant to check, pass --allow-empty)\n", textsafe.Escape(inputPath(path)), why)
	return exitBadInput
}
