package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/isocheck/isocheck/check"
	"github.com/isocheck/isocheck/explore"
	"github.com/isocheck/isocheck/format"
	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/internal/textsafe"
	"github.com/isocheck/isocheck/interpret"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/lwt"
	"github.com/isocheck/isocheck/progress"
	"github.com/isocheck/isocheck/report"
	"github.com/isocheck/isocheck/sqlcheck"
	"github.com/isocheck/isocheck/sqlhistory"
	"github.com/isocheck/isocheck/verdict"
)

// htmlUsage is the usage of --html, the same for every command that has it.
const htmlUsage = "write the report as one self-contained HTML page to FILE (the levels, every anomaly with its counterexample drawn and every dependency justified); it loads nothing and opens from disk; - writes it to stdout"

// writePage writes page to path (--html). A failure is reported on stderr
// but does not change the exit status: the verdict stands.
func writePage(path string, stdout io.Writer, page *report.Page, stderr io.Writer) {
	if page.Made == "" {
		page.Made = madeBy(time.Now())
	}
	if err := writeFile(path, stdout, page.WriteHTML); err != nil {
		fmt.Fprintf(stderr, "isocheck: --html: %v\n", err)
	}
}

// commandLine is the command as the page shows it.
func commandLine(name string, args []string) string {
	return "isocheck " + name + " " + strings.Join(args, " ")
}

// foundReports are the reports of the page's sections of a violation:
// one for each kind of anomaly rep lists (Report.Anomalies, the main one
// first), each with its own minimal counterexample; only rep when the
// others cannot be cut from the history, with a note saying why.
func foundReports(ex *explaining, h *history.History, res *check.Result, rep *interpret.Report) ([]*interpret.Report, []string) {
	if rep.Anomaly == nil || len(rep.Anomalies) < 2 {
		return nil, nil
	}
	found, err := interpret.FoundReports(ex.ctx, h, res, rep)
	if err != nil && progress.Stopped(err) {
		ex.missing("the page shows the other anomalies found without their counterexamples")
		return nil, nil
	}
	if err != nil {
		return nil, []string{fmt.Sprintf("the other anomalies found are listed without their counterexamples: %v", err)}
	}
	return found, nil
}

// fillKVPage puts into page (--html's, with its title, command, facts
// and run) the level table and the sections of the reports of the
// levels checked, strongest first, and of the anomalies found; notes go
// after those of page.
func fillKVPage(page *report.Page, levels []*interpret.Report, found []*interpret.Report, notes []string) {
	p := report.KVPage(page.Title, levels, found)
	page.Levels, page.Strongest, page.Anomalies = p.Levels, p.Strongest, p.Anomalies
	page.Notes = append(page.Notes, notes...)
}

// historyFacts are the statistics of h the page shows, after the file
// and its format.
func historyFacts(path string, h *history.History, info *format.Info) []report.Fact {
	facts := []report.Fact{{Name: "file", Value: path}}
	if info != nil {
		facts = append(facts, report.Fact{Name: "format", Value: string(info.Format)})
	}
	return append(facts, report.KVFacts(h)...)
}

// sqlPage is the page of the checks of a SQL history h, one per level
// (0: each transaction at its own): the level table and a section for
// each level broken.
func sqlPage(path, command string, h *sqlhistory.History, levels []level.Level, results []*sqlcheck.Result, reports []sqlJSON) *report.Page {
	page := &report.Page{Title: path, Command: command}
	strongest := ""
	for i, res := range results {
		row := report.LevelOf(&reports[i].Report.Report, func(a *sqlcheck.AnomalyReport) string { return a.Name.String() })
		page.Levels = append(page.Levels, row)
		if res.Verdict == verdict.Violated {
			page.Anomalies = append(page.Anomalies, report.FromSQL(res))
		}
		if res.Verdict == verdict.Satisfied && strongest == "" {
			strongest = row.Name
		}
	}
	if len(levels) > 1 {
		page.Strongest = strongest
	}
	committed := 0
	for i := range h.Txns {
		if h.Txns[i].Status == sqlhistory.Committed {
			committed++
		}
	}
	page.Facts = []report.Fact{
		{Name: "file", Value: path},
		{Name: "format", Value: "sql (each transaction at its own level)"},
		{Name: "transactions", Value: fmt.Sprintf("%d (%d committed)", len(h.Txns), committed)},
		{Name: "sessions", Value: fmt.Sprint(len(h.Sessions))},
		{Name: "rows", Value: fmt.Sprint(len(h.Keys))},
	}
	return page
}

// lwtPage is the page of a linearizability check of compare-and-set
// registers: its verdict, and for a violation the operations on a
// timeline with the one that cannot take effect.
func lwtPage(path, command string, res *lwt.Result, ops []lwt.Op, info *format.Info, notes []string) *report.Page {
	page := &report.Page{Title: path, Command: command, Notes: notes}
	row := report.LevelOf(&lwt.Explain(res, ops).Report, func(*lwt.Anomaly) string { return report.NotLinearizable })
	if row.Verdict == verdict.Violated {
		page.Anomalies = []report.Anomaly{report.FromLWT(res, ops)}
	}
	page.Levels = []report.Level{row}
	page.Facts = []report.Fact{{Name: "file", Value: path}}
	if info != nil {
		page.Facts = append(page.Facts, report.Fact{Name: "format", Value: string(info.Format)})
		// The nemesis's events the file records: listed, and marked on
		// the timeline of the operations, on their clock.
		page.Run = report.RegisterFaults(info.Faults)
		for i := range page.Anomalies {
			if tl := page.Anomalies[i].Timeline; tl != nil {
				report.MarkFaults(tl, info.Faults)
			}
		}
	}
	page.Facts = append(page.Facts,
		report.Fact{Name: "operations checked", Value: fmt.Sprint(res.Ops)},
		report.Fact{Name: "registers", Value: fmt.Sprint(res.Keys)},
	)
	return page
}

// explorePage is the page of an exploration: whether some history of the
// program breaks an assertion at the level, and the first that does,
// drawn, with the assertions it breaks, then how it came about (how, when
// not nil): the anomaly by which a stronger level would have forbidden
// it, with its own counterexample.
func explorePage(command string, r exploreReport, res *explore.Result, how *cameAbout, stopped string) *report.Page {
	title := fmt.Sprintf("%s at %s", r.App, r.Level)
	page := &report.Page{Title: title, Command: command}
	row := report.LevelOf(&r.Report, func(*brokenAssertions) string { return "an assertion breaks" })
	if stopped != "" && res.Verdict != verdict.Violated {
		row.Reason = stopped + ": not every history was explored"
	}
	if res.First != nil {
		a, err := report.FromExplore(res)
		if err != nil {
			page.Notes = append(page.Notes, fmt.Sprintf("the broken history is not drawn: %v", err))
		} else {
			page.Anomalies = []report.Anomaly{a}
		}
	}
	if how != nil && how.Report != nil && how.Report.Anomaly != nil {
		a := report.FromKV(how.Report)
		a.Summary = textsafe.Escape(how.intro()) + ". " + a.Summary
		page.Anomalies = append(page.Anomalies, a)
	} else if how != nil && res.First != nil {
		page.Notes = append(page.Notes, how.intro())
	}
	page.Levels = []report.Level{row}
	histories := fmt.Sprint(r.Histories)
	if r.EndStates != r.Histories {
		histories += fmt.Sprintf(" of %d end states", r.EndStates)
	}
	page.Facts = []report.Fact{
		{Name: "program", Value: fmt.Sprintf("%s: %d sessions × %d transactions (seed %d)", r.App, r.Sessions, r.Txns, r.Seed)},
		{Name: "level", Value: r.Level + ", explored under " + r.Base},
		{Name: "algorithm", Value: r.Algorithm},
		{Name: "histories", Value: histories},
		{Name: "histories that break an assertion", Value: fmt.Sprint(r.Failed)},
		{Name: "complete", Value: fmt.Sprint(r.Complete)},
		{Name: "time", Value: fmt.Sprintf("%.0f ms", r.Millis)},
	}
	return page
}

// writeStoppedPage writes the page (--html) of a check stopped before
// its history was read: the levels asked for, each without a verdict.
func (cf *checkFlags) writeStoppedPage(levels []report.Level, stderr io.Writer) {
	if cf.htmlFile == "" {
		return
	}
	page := &report.Page{Title: cf.inputPath, Command: cf.command, Levels: levels}
	writePage(cf.htmlFile, cf.fileOut, page, stderr)
}

// reportLevels are the rows of the level table of SQL reports.
func reportLevels(reports []sqlJSON) []report.Level {
	rows := make([]report.Level, len(reports))
	for i, r := range reports {
		rows[i] = report.LevelOf(&r.Report.Report, func(a *sqlcheck.AnomalyReport) string { return a.Name.String() })
	}
	return rows
}

// processStart is when the process began: a page's footer says how long
// the command had run when it wrote the page.
var processStart = time.Now()

// madeBy says what made a page written at now: the build, the time, and
// how long the command had run.
func madeBy(now time.Time) string {
	return fmt.Sprintf("%s, %s, after %v", version(), now.UTC().Format("2006-01-02 15:04 UTC"), now.Sub(processStart).Round(time.Millisecond))
}
