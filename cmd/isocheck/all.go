package main

import (
	"bufio"
	"encoding/json"
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
	"github.com/isocheck/isocheck/progress"
	"github.com/isocheck/isocheck/report"
	"github.com/isocheck/isocheck/verdict"
)

// levelReport is one level's entry of `--level all`.
type levelReport struct {
	*interpret.Report
	// ImpliedBy names the weaker level whose violation implies this one's.
	ImpliedBy string `json:"implied_by,omitempty"`
	// KeptBy names the stronger level, kept, that keeps this one, which
	// got no verdict of its own.
	KeptBy string `json:"kept_by,omitempty"`
	Stats  stats  `json:"stats"`
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
	var weakestRep *interpret.Report
	var weakestTime time.Duration
	if weakest >= 0 {
		start := time.Now()
		weakestRep = cf.report(ex, all.Results[weakest], info, explain, stderr)
		weakestTime = time.Since(start)
	}
	for i, res := range all.Results {
		start := time.Now()
		var rep *interpret.Report
		switch {
		case i == weakest:
			rep = weakestRep
		case res.ImpliedBy != 0 && weakestRep != nil:
			rep = impliedReport(weakestRep, res.Level)
		default:
			rep = interpret.Explain(res)
			addFailedEventNotes(rep, res, info)
		}
		elapsed := time.Since(start)
		if i == weakest {
			elapsed = weakestTime
		}
		reports[i] = levelReport{Report: rep, Stats: newStats(res, parseTime, elapsed)}
		if res.ImpliedBy != 0 {
			reports[i].ImpliedBy = res.ImpliedBy.String()
		}
		if res.KeptBy != 0 {
			reports[i].KeptBy = res.KeptBy.String()
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
	stream := cf.openAnomalies(level.All(), stderr)
	every, own := cf.everyLevel(ex, h, all.Results, reports, stream, stderr)
	stream.close(stderr)
	// The page shows the weakest broken level's anomalies, each with its
	// own counterexample.
	var found []*interpret.Report
	var foundNotes []string
	var extra []interpret.Found // the anomalies of stronger levels drawn
	if page != nil && weakest >= 0 {
		found, foundNotes = foundReports(ex, h, all.Results[weakest], reports[weakest].Report)
		if found == nil {
			found = []*interpret.Report{reports[weakest].Report}
		}
		var more []*interpret.Report
		more, extra, foundNotes = strongerExamples(ex, h, every, found, foundNotes)
		found = append(found, more...)
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
	var undecided []string
	for _, l := range all.Undecided {
		undecided = append(undecided, l.String())
	}
	notes := inputNotes(info, len(h.Txns))
	if page != nil {
		levels := make([]*interpret.Report, len(reports))
		for i := range reports {
			levels[i] = reports[i].Report
		}
		fillKVPage(page, levels, found, append(notes, foundNotes...))
		// The sections of the stronger levels' anomalies count them as
		// the list of every anomaly does.
		for i, f := range extra {
			a := &page.Anomalies[len(page.Anomalies)-len(extra)+i]
			a.Count, a.More, a.ListedAs = f.Count, f.More, ""
			if a.Name != f.Name.String() {
				a.ListedAs = textsafe.Escape(f.Name.String())
			}
		}
		for i := range page.Levels {
			if by := reports[i].ImpliedBy; by != "" {
				page.Levels[i].Anomaly, page.Levels[i].Reason = "as "+by, ""
			}
		}
		page.Found = report.FoundKinds(every)
		writePage(cf.htmlFile, cf.fileOut, page, stderr)
	}
	var elle *interpret.ElleMap
	if cf.elle {
		lists := make([][]interpret.Found, len(reports))
		for i := range reports {
			lists[i] = reports[i].Anomalies
		}
		elle = interpret.ElleFound(h, own, lists, !cf.noSessionOrder)
	}
	if cf.asEDN {
		return writeElleEDN(stdout, stderr, status, elle)
	}
	if cf.asJSON {
		return encodeJSON(stdout, stderr, status, struct {
			Levels     []levelReport      `json:"levels"`
			Strongest  string             `json:"strongest_kept"`
			Weakest    string             `json:"weakest_broken"`
			Undecided  []string           `json:"undecided,omitempty"`
			Anomalies  []interpret.Found  `json:"anomalies,omitempty"`
			InputNotes []string           `json:"input_notes,omitempty"`
			Elle       *interpret.ElleMap `json:"elle,omitempty"`
		}{reports, name(all.Strongest), name(all.Weakest), undecided, every, notes, elle})
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
		case res.KeptBy != 0:
			detail = "as " + res.KeptBy.String() + " is kept (its own check: " + res.Reason + ")"
		case reports[i].Anomaly != nil:
			detail = reports[i].Anomaly.Name.String()
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
	fmt.Fprintln(stdout, summaryLine(all))
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
	interpret.WriteEveryLevel(stdout, every)
	if cf.stats {
		writeLevelStats(stdout, reports)
	}
	return status
}

// impliedReport is the report of level l, broken as the weaker level of
// weakest, its report: the same counterexample, which violates l too. It
// need not be a minimal one of l, whose checks may need fewer of its
// transactions.
func impliedReport(weakest *interpret.Report, l level.Level) *interpret.Report {
	rep := *weakest
	rep.Level = l.String()
	rep.ImpliedBy = weakest.Level
	rep.Anomalies = nil
	if weakest.Anomaly != nil {
		a := *weakest.Anomaly
		a.Minimal = false
		a.Notes = slices.Clip(a.Notes) // its notes are its own
		rep.Anomaly = &a
	}
	return &rep
}

// everyLevel lists the anomalies of every level broken, weakest first,
// each level's in its report (Report.Anomalies) and each one counted in
// stream, and returns the list of
// every anomaly the history shows (interpret.EveryLevel) with the
// results whose evidence the lists come from, one per level. A level
// broken as a weaker one is checked again on its own: its dependencies
// hold the cycles it forbids that the weaker level allows (a write skew
// under an aborted read). These checks, like the lists, run in the stage
// "explain": when it is cut short, the levels not yet listed keep no
// list, and the explanation says so.
func (cf *checkFlags) everyLevel(ex *explaining, h *history.History, results []*check.Result, reports []levelReport, stream *anomalyStream, stderr io.Writer) ([]interpret.Found, []*check.Result) {
	own := slices.Clone(results)
	var lists [][]interpret.Found
	for i := len(results) - 1; i >= 0; i-- {
		res := results[i]
		if res.Verdict != verdict.Violated || reports[i].Anomaly == nil {
			continue
		}
		if res.ImpliedBy != 0 {
			r, err := check.CheckWith(ex.ctx, h, res.Level, cf.ablate)
			switch {
			case err != nil && progress.Stopped(err) || ex.ctx.Err() != nil:
				ex.missing(fmt.Sprintf("the anomalies of %v and of the stronger levels are not listed", res.Level))
				return interpret.EveryLevel(lists...), own
			case err != nil:
				fmt.Fprintf(stderr, "isocheck: listing the anomalies of %v: %v\n", res.Level, err)
				continue
			case r.Verdict != verdict.Violated:
				// A limit of its own (CC's clocks): the weaker level's
				// violation stands, and its list is that level's.
				continue
			}
			own[i] = r
		}
		found, err := interpret.EveryWith(ex.ctx, h, own[i], reports[i].Report, stream.options())
		switch {
		case err != nil && progress.Stopped(err):
			ex.missing(fmt.Sprintf("the anomalies of %v and of the stronger levels are not listed", res.Level))
			return interpret.EveryLevel(lists...), own
		case err != nil:
			reports[i].Anomaly.Notes = append(reports[i].Anomaly.Notes, fmt.Sprintf("the other anomalies of the history were not listed: %v", err))
			continue
		}
		reports[i].Anomalies = found
		lists = append(lists, found)
	}
	return interpret.EveryLevel(lists...), own
}

// anomalyStream writes every anomaly found, as it is found, to the file
// of --anomalies: JSON Lines, a header first, then one interpret.Instance
// a line. A nil *anomalyStream writes nothing.
type anomalyStream struct {
	f   *outputFile
	w   *bufio.Writer
	enc *json.Encoder
	err error
}

// anomaliesHeader is the first line of the file of --anomalies.
type anomaliesHeader struct {
	// Levels are the levels whose anomalies follow; MaxPerName caps
	// the lines of one name at one level.
	Levels     []string `json:"levels"`
	MaxPerName int      `json:"max_per_name"`
}

// openAnomalies opens the file of --anomalies for the anomalies of
// levels, and writes its header; nil without --anomalies, or when the
// file cannot be written (said on stderr).
func (cf *checkFlags) openAnomalies(levels []level.Level, stderr io.Writer) *anomalyStream {
	if cf.anomaliesFile == "" {
		return nil
	}
	f, err := openOutput(cf.anomaliesFile, false)
	if err != nil {
		fmt.Fprintf(stderr, "isocheck: --anomalies: %v\n", err)
		return nil
	}
	s := &anomalyStream{f: f, w: bufio.NewWriter(f)}
	s.enc = json.NewEncoder(s.w)
	hdr := anomaliesHeader{MaxPerName: interpret.MaxCount}
	for _, l := range levels {
		hdr.Levels = append(hdr.Levels, l.String())
	}
	s.err = s.enc.Encode(hdr)
	return s
}

// options are the options of interpret.EveryWith that write each
// anomaly counted to s.
func (s *anomalyStream) options() interpret.EveryOptions {
	if s == nil {
		return interpret.EveryOptions{}
	}
	return interpret.EveryOptions{Instance: s.write}
}

// write writes one anomaly; after a failed write, s writes nothing more.
func (s *anomalyStream) write(in interpret.Instance) {
	if s.err == nil {
		s.err = s.enc.Encode(in)
	}
}

// close puts the file in place, or, after a failed write, gives it up
// and says so on stderr. A failure does not change the exit status: the
// verdict stands.
func (s *anomalyStream) close(stderr io.Writer) {
	if s == nil {
		return
	}
	err := s.err
	if err == nil {
		err = s.w.Flush()
	}
	if err != nil {
		s.f.Abort()
		fmt.Fprintf(stderr, "isocheck: --anomalies: %s: %v\n", s.f.target, err)
		return
	}
	if err := s.f.Commit(); err != nil {
		fmt.Fprintf(stderr, "isocheck: --anomalies: %v\n", err)
	}
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

// strongerExamples returns the reports of the examples of the anomalies
// of every (the list of every level's) that found, the reports of the
// weakest broken level's, does not show, each at the weakest level that
// forbids it, with those anomalies in the same order; and notes, with
// one more when the run's limits cut the examples short.
func strongerExamples(ex *explaining, h *history.History, every []interpret.Found, found []*interpret.Report, notes []string) ([]*interpret.Report, []interpret.Found, []string) {
	shown := map[verdict.Anomaly]bool{}
	for _, r := range found {
		if r != nil && r.Anomaly != nil {
			shown[r.Anomaly.Name] = true
		}
		if r != nil {
			for _, f := range r.Anomalies {
				shown[f.Name] = true
			}
		}
	}
	var out []*interpret.Report
	var listed []interpret.Found
	for _, f := range every {
		if shown[f.Name] || len(f.Example) == 0 {
			continue
		}
		if ex.ctx.Err() != nil {
			ex.missing("the page shows the anomalies of the stronger levels without their counterexamples")
			break
		}
		r, err := interpret.ExampleReport(ex.ctx, h, f.Name.Weakest(), f)
		if err != nil {
			if progress.Stopped(err) || ex.ctx.Err() != nil {
				ex.missing("the page shows the anomalies of the stronger levels without their counterexamples")
				break
			}
			notes = append(notes, fmt.Sprintf("the example of %s is listed without its counterexample: %v", f.Name, err))
			continue
		}
		out = append(out, r)
		listed = append(listed, f)
	}
	return out, listed, notes
}

// summaryLine is the last line of the table of --level all: the strongest
// level kept and the weakest broken, and the levels without a verdict,
// so that it never claims less than is known nor more: "none found" when
// no level was found broken but some were not decided.
func summaryLine(all *check.AllLevels) string {
	kept, broken := "none", "none"
	if all.Strongest != 0 {
		kept = all.Strongest.String()
	}
	if all.Weakest != 0 {
		broken = all.Weakest.String()
	}
	if len(all.Undecided) == 0 {
		return fmt.Sprintf("strongest level kept: %s; weakest level broken: %s", kept, broken)
	}
	var names []string
	for _, l := range all.Undecided {
		names = append(names, l.String())
	}
	if all.Weakest == 0 {
		broken = "none found"
	}
	return fmt.Sprintf("strongest level kept: %s; weakest level broken: %s; not decided: %s", kept, broken, strings.Join(names, ", "))
}
