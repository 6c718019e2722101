// Package isocheck is where a library user starts: read a history, check
// it at an isolation level or at every level, and explain a violation.
//
//	h, err := isocheck.ReadFile("history.jsonl")
//	...
//	v, err := isocheck.Check(ctx, h, level.SI)
//	...
//	if v.Verdict == verdict.Violated {
//		v.Report.WriteText(os.Stdout) // the anomaly, a minimal counterexample, every dependency's reason
//	}
//
// A Verdict says satisfied, violated, or no verdict with the reason (a
// timeout, a memory limit): never a pass the check did not reach. Its
// Report prints as text (WriteText), JSON (encoding/json) and Graphviz
// DOT (WriteDOT).
//
// The pipeline behind it stays importable one stage a package, for those
// who measure or change a stage: format reads the files, polygraph
// resolves the reads and builds the graph of dependencies and
// constraints, prune, encode and solver decide it, saturate checks the
// weak levels, check runs them in order, shrink and interpret explain.
// The other verticals have their own front: sqlcheck for SQL histories,
// lwt for compare-and-set registers, explore for programs. They all
// answer in the vocabulary of package verdict.
package isocheck

import (
	"context"
	"errors"
	"fmt"

	"github.com/isocheck/isocheck/check"
	"github.com/isocheck/isocheck/format"
	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/interpret"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/verdict"
)

// A Verdict is the answer at one level, with its explanation.
type Verdict struct {
	// Level is the level checked.
	Level level.Level
	// Outcome is satisfied, violated, or no verdict with the reason.
	verdict.Outcome
	// Report explains it. For a violation: the anomaly, named by the rule
	// of the weakest level the history breaks; a minimal counterexample;
	// and why each dependency holds. It is never nil.
	Report *interpret.Report
	// Result is the checker's own result, with its raw evidence (see
	// package check).
	Result *check.Result
}

// ReadFile reads the history at path in whichever format it is: native
// JSONL, Jepsen EDN, elle-cli JSON, PolySI, dbcop, Cobra or the text
// format (see package format). Bad input is an error naming the file and
// the line or byte offset.
func ReadFile(path string) (*history.History, error) {
	return format.ReadFile(path, format.Auto)
}

// ErrNothingToCheck is the error of a check of a history with no
// committed transaction (empty, or every transaction aborted or of unknown
// outcome): it keeps every level, which says nothing of the database, so
// it is refused rather than passed.
var ErrNothingToCheck = errors.New("isocheck: no committed transaction: nothing to check")

// committed returns ErrNothingToCheck when h has no committed (or rolled
// back) transaction.
func committed(h *history.History) error {
	for _, t := range h.Txns {
		if t.Status == history.Committed || t.Status == history.RolledBack {
			return nil
		}
	}
	return ErrNothingToCheck
}

// Check decides whether h satisfies level l and, on a violation, explains
// it with a minimal counterexample. When ctx ends first, the Verdict is
// no verdict with the reason (or, if the violation was found, the verdict
// stands with the explanation at hand: Report.CutShort). The error is for
// failures of the check itself, not for violations, and
// ErrNothingToCheck when h has no committed transaction.
func Check(ctx context.Context, h *history.History, l level.Level) (*Verdict, error) {
	if err := committed(h); err != nil {
		return nil, err
	}
	res, err := check.CheckWith(ctx, h, l, check.Options{WeakestBroken: true})
	if err != nil {
		return nil, fmt.Errorf("isocheck: check %v: %w", l, err)
	}
	return explain(ctx, res)
}

// CheckAll checks h at every level, strongest first (level.All()), in one
// run: a violation of a weaker level is one of every stronger level, and
// the explanations name the anomaly at the weakest level broken.
func CheckAll(ctx context.Context, h *history.History) ([]*Verdict, error) {
	if err := committed(h); err != nil {
		return nil, err
	}
	all, err := check.CheckAll(ctx, h)
	if err != nil {
		return nil, fmt.Errorf("isocheck: check every level: %w", err)
	}
	out := make([]*Verdict, len(all.Results))
	for i, res := range all.Results {
		if out[i], err = explain(ctx, res); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// explain wraps res with its report: a minimal counterexample for a
// violation, the verdict alone otherwise.
func explain(ctx context.Context, res *check.Result) (*Verdict, error) {
	v := &Verdict{Level: res.Level, Outcome: res.Outcome, Result: res}
	if res.Verdict != verdict.Violated {
		v.Report = interpret.Explain(res)
		return v, nil
	}
	rep, err := interpret.Minimal(ctx, res)
	if err != nil {
		return nil, fmt.Errorf("isocheck: explain the violation of %v: %w", res.Level, err)
	}
	v.Report = rep
	return v, nil
}
