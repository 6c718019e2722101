package main

import (
	"fmt"
	"github.com/isocheck/isocheck/verdict"
	"io"
	"time"

	"github.com/isocheck/isocheck/check"
	"github.com/isocheck/isocheck/format"
	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/internal/textsafe"
	"github.com/isocheck/isocheck/interpret"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/report"
)

// levelReport is one level's entry of `--level all`.
type levelReport struct {
	*interpret.Report
	// ImpliedBy names the weaker level whose violation implies this one's.
	ImpliedBy string `json:"implied_by,omitempty"`
	Stats     stats  `json:"stats"`
}

// runAll checks every level, from SSER down to RC, and reports the
// strongest kept and the weakest broken, each broken level with its
// evidence; explain (and --counterexample, and the pictures) take the
// weakest broken level, whose anomaly is the root of every other. A level
// without a verdict says why, and every other level still gets its own.
// It exits 1 if any level is broken, 3 if none is but some gave no
// verdict, and 0 if all are kept.
func (cf *checkFlags) runAll(j *job, h *history.History, info *format.Info, parseTime time.Duration, explain, color bool, page *report.Page, stdout, stderr io.Writer) int {
	all, err := check.CheckAllWith(j.ctx, h, cf.ablate)
	if err != nil {
		j.stop()
		return checkFailed(err, stderr)
	}
	status := exitSatisfied
	reports := make([]levelReport, len(all.Results))
	weakest := -1
	for i, res := range all.Results {
		if res.Verdict == verdict.Violated && res.ImpliedBy == 0 {
			weakest = i
		}
	}
	ex := j.explaining(weakest >= 0)
	for i, res := range all.Results {
		start := time.Now()
		var rep *interpret.Report
		if i == weakest {
			rep = cf.report(ex, res, info, explain, stderr)
		} else {
			rep = interpret.Explain(res)
			addFailedEventNotes(rep, res, info)
		}
		reports[i] = levelReport{Report: rep, Stats: newStats(res, parseTime, time.Since(start))}
		if res.ImpliedBy != 0 {
			reports[i].ImpliedBy = res.ImpliedBy.String()
		}
		switch res.Verdict {
		case verdict.Violated:
			status = exitViolated
		case verdict.Unknown:
			if status == exitSatisfied {
				status = exitNoVerdict
			}
		}
	}
	// The page shows the weakest broken level's anomalies, each with its
	// own counterexample.
	var found []*interpret.Report
	var foundNotes []string
	if page != nil && weakest >= 0 {
		found, foundNotes = foundReports(ex, h, all.Results[weakest], reports[weakest].Report)
		if found == nil {
			found = []*interpret.Report{reports[weakest].Report}
		}
	}
	j.stop()
	if weakest >= 0 && ex.cutShort(reports[weakest].Report) {
		reports[weakest].Stats.stopped(j)
	}
	// A level the run's stop cut short says where it stopped, and the
	// stronger ones were not begun; a level without a verdict for a limit
	// of its own (CC's clocks) says which, and the others were checked.
	stoppedAt := level.Level(0)
	for i := len(all.Results) - 1; i >= 0; i-- {
		res := all.Results[i]
		switch {
		case res.Verdict != verdict.Unknown:
		case res.NotChecked && stoppedAt != 0:
			reports[i].Reason = fmt.Sprintf("not checked: the run stopped while checking %v", stoppedAt)
		case res.Stopped || res.NotChecked:
			stoppedAt = res.Level
			reports[i].Reason = j.noVerdictReason(res.Reason)
			reports[i].Stats.stopped(j)
		default:
			reports[i].Reason = res.Reason
		}
	}
	if weakest >= 0 {
		cf.writeFiles(reports[weakest].Report, explain, stdout, stderr)
	} else {
		cf.nothingToWrite(stderr, "no level is broken")
	}
	name := func(l level.Level) string {
		if l == 0 {
			return "none"
		}
		return l.String()
	}
	notes := inputNotes(info, len(h.Txns))
	if page != nil {
		levels := make([]*interpret.Report, len(reports))
		for i := range reports {
			levels[i] = reports[i].Report
		}
		fillKVPage(page, levels, found, append(notes, foundNotes...))
		for i := range page.Levels {
			if by := reports[i].ImpliedBy; by != "" {
				page.Levels[i].Anomaly = "as " + by
			}
		}
		writePage(cf.htmlFile, cf.fileOut, page, stderr)
	}
	if cf.asEDN {
		return writeElleEDN(stdout, stderr, status, interpret.ElleResult(h, all.Results, !cf.noSessionOrder))
	}
	if cf.asJSON {
		var elle *interpret.ElleMap
		if cf.elle {
			elle = interpret.ElleResult(h, all.Results, !cf.noSessionOrder)
		}
		return encodeJSON(stdout, stderr, status, struct {
			Levels     []levelReport      `json:"levels"`
			Strongest  string             `json:"strongest_kept"`
			Weakest    string             `json:"weakest_broken"`
			InputNotes []string           `json:"input_notes,omitempty"`
			Elle       *interpret.ElleMap `json:"elle,omitempty"`
		}{reports, name(all.Strongest), name(all.Weakest), notes, elle})
	}
	if len(h.Txns) == 0 {
		fmt.Fprintln(stdout, "0 transactions (an empty history)")
	}
	if why := nothingCommitted(h.StatusCounts()); why != "" {
		fmt.Fprintf(stdout, "0 committed transactions (%s): nothing to check\n", why)
	}
	if cf.elle {
		fmt.Fprintf(stdout, "%-5s %-35s %-10s %s\n", "level", "elle model", "verdict", "anomaly (elle)")
	} else {
		fmt.Fprintf(stdout, "%-5s %-10s %s\n", "level", "verdict", "anomaly")
	}
	for i, res := range all.Results {
		detail := ""
		switch {
		case res.ImpliedBy != 0:
			detail = "as " + res.ImpliedBy.String()
		case reports[i].Anomaly != nil:
			detail = reports[i].Anomaly.Name
			if cf.elle && reports[i].Anomaly.ElleType != "" {
				detail += " (" + reports[i].Anomaly.ElleType + ")"
			}
		case res.Verdict == verdict.Unknown:
			detail = reports[i].Reason
		}
		if cf.elle {
			fmt.Fprintf(stdout, "%-5s %-35s %-10s %s\n", res.Level, interpret.ElleModel(res.Level, !cf.noSessionOrder), res.Verdict, textsafe.Escape(detail))
		} else {
			fmt.Fprintf(stdout, "%-5s %-10s %s\n", res.Level, res.Verdict, textsafe.Escape(detail))
		}
	}
	fmt.Fprintf(stdout, "strongest level kept: %s; weakest level broken: %s\n", name(all.Strongest), name(all.Weakest))
	for _, n := range notes {
		fmt.Fprintf(stdout, "note: %s\n", textsafe.Escape(n))
	}
	for i, res := range all.Results {
		if res.Verdict != verdict.Violated || res.ImpliedBy != 0 {
			continue
		}
		fmt.Fprintln(stdout)
		if explain && i == weakest {
			reports[i].WriteExplanation(stdout, color)
		} else {
			reports[i].WriteTextColor(stdout, color)
		}
	}
	if cf.stats {
		writeLevelStats(stdout, reports)
	}
	return status
}

// clockBytes is the memory clocks may take under --max-memory maxMemory,
// CC's vector clocks or the reachability clocks that order writes: half
// of it, or no bound without one (check.Options).
func clockBytes(maxMemory byteSize) int64 {
	if maxMemory <= 0 {
		return -1
	}
	return int64(maxMemory) / 2
}

// writeLevelStats prints the stats of every level checked, one row each.
func writeLevelStats(w io.Writer, reports []levelReport) {
	fmt.Fprintf(w, "\nstats:\n  %-5s %10s %10s %10s %10s %10s %12s %10s\n", "level", "parse_ms", "construct", "prune", "encode", "solve", "constraints", "remaining")
	for _, r := range reports {
		if r.ImpliedBy != "" {
			continue
		}
		s := r.Stats
		fmt.Fprintf(w, "  %-5s %10.1f %10.1f %10.1f %10.1f %10.1f %12s %10s\n", r.Level, s.ParseMS, s.ConstructMS, s.PruneMS, s.EncodeMS, s.SolveMS, count(int64(s.Constraints)), count(int64(s.ConstraintsRemaining)))
	}
}
