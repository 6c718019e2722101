package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/isocheck/isocheck/check"
	"github.com/isocheck/isocheck/interpret"
	"github.com/isocheck/isocheck/level"
)

// levelReport is one level's line of `check --level all`.
type levelReport struct {
	*interpret.Report
	// ImpliedBy names the weaker level whose violation implies this one's.
	ImpliedBy string `json:"implied_by,omitempty"`
}

// runAll checks every level, from SSER down to RC, and reports the
// strongest kept and the weakest broken, each broken level with its
// counterexample. It exits 1 if any level is broken, 3 if none is but some
// gave no verdict, and 0 if all are kept.
func runAll(path, formatName string, timeout time.Duration, asJSON, color bool, stdout, stderr io.Writer) int {
	h, info, _, err := readHistory(path, formatName)
	if err != nil {
		fmt.Fprintf(stderr, "isocheck: %v\n", err)
		return exitBadInput
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	all, err := check.CheckAll(ctx, h)
	if err != nil {
		return checkFailed(err, stderr)
	}
	status := exitSatisfied
	reports := make([]levelReport, len(all.Results))
	for i, res := range all.Results {
		rep := interpret.Explain(res)
		addFailedEventNotes(rep, res, info)
		reports[i] = levelReport{Report: rep}
		if res.ImpliedBy != 0 {
			reports[i].ImpliedBy = res.ImpliedBy.String()
		}
		switch res.Verdict {
		case check.Violated:
			status = exitViolated
		case check.NoVerdict:
			if status == exitSatisfied {
				status = exitNoVerdict
			}
		}
	}
	name := func(l level.Level) string {
		if l == 0 {
			return "none"
		}
		return l.String()
	}
	if asJSON {
		out := struct {
			Levels    []levelReport `json:"levels"`
			Strongest string        `json:"strongest_kept"`
			Weakest   string        `json:"weakest_broken"`
		}{reports, name(all.Strongest), name(all.Weakest)}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(out); err != nil {
			fmt.Fprintf(stderr, "isocheck: %v\n", err)
			return exitBadInput
		}
		return status
	}
	fmt.Fprintf(stdout, "%-5s %-10s %s\n", "level", "verdict", "anomaly")
	for i, res := range all.Results {
		anomaly := ""
		if a := reports[i].Anomaly; a != nil {
			anomaly = a.Name
		}
		if res.ImpliedBy != 0 {
			anomaly = "as " + res.ImpliedBy.String()
		}
		fmt.Fprintf(stdout, "%-5s %-10s %s\n", res.Level, res.Verdict, anomaly)
	}
	fmt.Fprintf(stdout, "strongest level kept: %s; weakest level broken: %s\n", name(all.Strongest), name(all.Weakest))
	for i, res := range all.Results {
		if res.Verdict == check.Violated && res.ImpliedBy == 0 {
			fmt.Fprintln(stdout)
			reports[i].WriteTextColor(stdout, color)
		}
	}
	return status
}
