package check

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"time"

	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/progress"
	"github.com/isocheck/isocheck/resolve"
	"github.com/isocheck/isocheck/verdict"
)

// AllLevels is the outcome of checking every level.
type AllLevels struct {
	// Results holds one result per level, strongest first (level.All()).
	// A level whose violation follows from a weaker level's has that
	// level's result, with ImpliedBy set.
	Results []*Result
	// Strongest is the strongest level kept (0 if none), Weakest the
	// weakest level broken (0 if none).
	Strongest, Weakest level.Level
	// Undecided lists the levels without a verdict, weakest first: a
	// summary must not claim they are kept, nor that no level weaker than
	// Weakest is broken.
	Undecided []level.Level
}

// CheckAll checks h at every level. It resolves the reads once and goes
// from the weakest level up: once a level is broken, every stronger one is
// too, with the same counterexample, and is not checked again.
//
// Only the result of a broken level keeps its evidence in full: the
// results of the others keep a polygraph of nodes only (no edges, no
// constraints) and no Known edges, so that each level's graphs are free
// once it is done.
//
// Each level is a part of the run (progress.Part) with its own share of
// the time: when ctx has a deadline, every level but the strongest left
// may take half the time left. A level that runs out of its share, or
// that a resource limit ends alone (the command line's --max-memory),
// has no verdict, and the next level is checked; so is one without a
// verdict for a limit of its own (CC's clocks, say). When ctx itself
// ends, the level running and every level not yet checked have no
// verdict, with the reason (the latter NotChecked too). A level without
// a verdict that a stronger kept level implies is kept (KeptBy).
func CheckAll(ctx context.Context, h *history.History) (*AllLevels, error) {
	return CheckAllWith(ctx, h, Options{})
}

// CheckAllWith is CheckAll with opts.
func CheckAllWith(ctx context.Context, h *history.History, opts Options) (*AllLevels, error) {
	levels := level.All()
	rep := &AllLevels{Results: make([]*Result, len(levels))}
	t := time.Now()
	r, err := resolve.Resolve(ctx, h)
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
	resolved := time.Since(t)
	bare := nodesOf(r)
	opts.stronger = &strongerChecks{}
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
		lctx, share, end := levelPart(ctx, i == 0)
		res, err := checkResolved(lctx, r, l, opts)
		limited := ended(lctx) && !ended(ctx)
		timedOut := errors.Is(context.Cause(lctx), context.DeadlineExceeded) || lctx.Err() == nil
		if limited && res != nil && res.Verdict == verdict.Unknown {
			// Hand its memory back before the next level, which begins
			// under the same limit, and while the part is still open:
			// a limit reached now ends it again, not the whole run.
			res.Polygraph, res.Known = bare, nil
			debug.FreeOSMemory()
		}
		end()
		if err != nil {
			return nil, err
		}
		res.Stats.Construct += resolved
		rep.Results[i] = res
		switch res.Verdict {
		case verdict.Violated:
			res.WeakerChecked, res.Undecided = true, undecided
			broken = res
			rep.Weakest = l
			continue
		case verdict.Unknown:
			switch {
			case limited:
				res.Reason = levelStopReason(res.Reason, res.Stage, timedOut, share)
				res.Stopped = false // a limit of its own: the run went on
			case res.Stopped:
				stopped = res
			}
			if undecided == 0 {
				undecided = l
			}
		case verdict.Satisfied:
			// Every weaker level without a verdict is kept too.
			for j := i + 1; j < len(levels); j++ {
				if w := rep.Results[j]; w.Verdict == verdict.Unknown && !w.NotChecked {
					w.Verdict, w.KeptBy = verdict.Satisfied, l
				}
			}
			undecided = 0
		}
		res.Polygraph, res.Known = bare, nil
	}
	for i, res := range rep.Results {
		if res.Verdict == verdict.Satisfied && rep.Strongest == 0 {
			rep.Strongest = levels[i]
		}
	}
	for i := len(levels) - 1; i >= 0; i-- {
		if rep.Results[i].Verdict == verdict.Unknown {
			rep.Undecided = append(rep.Undecided, levels[i])
		}
	}
	return rep, nil
}

// levelPart begins the check of a level among all levels as a part of
// the run (progress.Part) that a resource limit may end alone, with half
// the time ctx has left (share) unless it is the last level to check.
func levelPart(ctx context.Context, last bool) (context.Context, time.Duration, func()) {
	lctx, end := progress.Part(ctx)
	dl, ok := ctx.Deadline()
	if !ok || last {
		return lctx, 0, end
	}
	share := time.Until(dl) / 2
	tctx, cancel := context.WithTimeout(lctx, share)
	return tctx, share, func() { cancel(); end() }
}

// levelStopReason is the reason of a level whose part of the run ended
// alone, in stage, saying that the run went on: its share of the time
// ran out (timedOut), or a resource limit ended it (reason).
func levelStopReason(reason, stage string, timedOut bool, share time.Duration) string {
	where := ""
	if stage != "" {
		where = " in stage " + stage
	}
	if timedOut {
		return fmt.Sprintf("timed out%s: its share of the time, %v (half of what was left), ran out; the stronger levels were checked in the rest", where, share.Round(time.Millisecond))
	}
	if reason == "" {
		reason = "stopped"
	}
	return reason + where + " (this level only: the others were checked)"
}

// ended reports whether ctx has ended, or its deadline passed: a check
// stopped at its deadline may return before the context's timer has
// ended it (progress.Outcome counts that as a timeout).
func ended(ctx context.Context) bool {
	if ctx.Err() != nil {
		return true
	}
	dl, ok := ctx.Deadline()
	return ok && !time.Now().Before(dl)
}
