package check

import (
	"context"
	"time"

	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/polygraph"
	"github.com/isocheck/isocheck/verdict"
)

// Report is the outcome of checking every level.
type Report struct {
	// Results holds one result per level, strongest first (level.All()).
	// A level whose violation follows from a weaker level's has that
	// level's result, with ImpliedBy set.
	Results []*Result
	// Strongest is the strongest level kept (0 if none), Weakest the
	// weakest level broken (0 if none).
	Strongest, Weakest level.Level
}

// CheckAll checks h at every level. It resolves the reads once and goes
// from the weakest level up: once a level is broken, every stronger one is
// too, with the same counterexample, and is not checked again.
//
// Only the result of a broken level keeps its evidence in full: the
// results of the others keep a polygraph of nodes only (no edges, no
// constraints) and no Known edges, so that each level's graphs are free
// once it is done. When ctx ends, the level running and every level not
// yet checked have no verdict, with the reason (the latter NotChecked too).
// A level without a verdict for a limit of its own (CC's clocks, say)
// leaves the others to be checked.
func CheckAll(ctx context.Context, h *history.History) (*Report, error) {
	return CheckAllWith(ctx, h, Options{})
}

// CheckAllWith is CheckAll with opts.
func CheckAllWith(ctx context.Context, h *history.History, opts Options) (*Report, error) {
	levels := level.All()
	rep := &Report{Results: make([]*Result, len(levels))}
	t := time.Now()
	r, err := polygraph.Resolve(ctx, h)
	if err != nil {
		stopped, err := stoppedBefore(ctx, h, levels[len(levels)-1], time.Since(t), err)
		if err != nil {
			return nil, err
		}
		for i, l := range levels {
			res := *stopped
			res.Level = l
			// The weakest level is the first CheckAll begins.
			res.NotChecked = i != len(levels)-1
			rep.Results[i] = &res
		}
		return rep, nil
	}
	resolve := time.Since(t)
	bare := polygraph.Bare(r)
	var broken, stopped *Result
	var undecided level.Level // a weaker level without a verdict
	for i := len(levels) - 1; i >= 0; i-- {
		l := levels[i]
		switch {
		case broken != nil:
			implied := *broken
			implied.Level, implied.ImpliedBy = l, broken.Level
			rep.Results[i] = &implied
			continue
		case stopped != nil:
			rep.Results[i] = &Result{Level: l, Outcome: verdict.Outcome{Reason: stopped.Reason, Stage: stopped.Stage, Stopped: true}, NotChecked: true, Polygraph: bare}
			continue
		}
		res, err := checkResolved(ctx, r, l, opts)
		if err != nil {
			return nil, err
		}
		res.Stats.Construct += resolve
		rep.Results[i] = res
		switch res.Verdict {
		case verdict.Violated:
			res.WeakerChecked, res.Undecided = true, undecided
			broken = res
			rep.Weakest = l
			continue
		case verdict.Unknown:
			if res.Stopped {
				stopped = res
			}
			if undecided == 0 {
				undecided = l
			}
		case verdict.Satisfied:
			undecided = 0
		}
		res.Polygraph, res.Known = bare, nil
	}
	for i, res := range rep.Results {
		if res.Verdict == verdict.Satisfied {
			rep.Strongest = levels[i]
			break
		}
	}
	return rep, nil
}
