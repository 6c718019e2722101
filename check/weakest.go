package check

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/progress"
	"github.com/isocheck/isocheck/resolve"
	"github.com/isocheck/isocheck/verdict"
)

// walkMinBudget is the least time weakestBroken gives the weaker levels.
const walkMinBudget = 3 * time.Second

// weakestBroken returns the result that explains res, a violation of
// res.Level found on r: the violation of the weakest level r breaks. It
// checks the levels weaker than res.Level from the strongest down: a
// level kept implies every weaker one kept, so the walk ends at the first
// level kept, which for most violations is the first checked (a write
// skew breaks SER and keeps SI); a level broken becomes the candidate,
// and the walk goes on below it. It returns the weakest broken level's
// result as res.Level's, with ImpliedBy set: the history breaks the
// weaker level already, and a report names the anomaly by the rule that
// broke there, one that every level it keeps allows.
//
// A weaker level without a verdict (CC's clocks, say) is passed over and
// named in Undecided, unless a level below it is found broken, which
// implies it broken too; when ctx or the walk's budget ends, the walk
// stops there, and the first level left unchecked is Undecided.
func weakestBroken(ctx context.Context, r *resolve.Resolution, res *Result, opts Options) (*Result, error) {
	res.WeakerChecked = true
	opts.stronger.remember(res.Level, nil)
	// The weaker levels are checked within a budget: twice the time of
	// the check they explain, and at least three seconds. Most are cheaper
	// than it (RC, RA and CC take one pass), but choosing the writers of
	// repeated values can take any level long; past the budget, the
	// level is Undecided and the violation is explained at the weakest
	// level found broken.
	ctx, cancel := context.WithTimeout(ctx, max(walkMinBudget, 2*res.Stats.total()))
	defer cancel()
	levels := level.All()
	// An anomaly found without a cycle (a lost update, an aborted read)
	// breaks the weakest level that forbids it, whatever the rest: only
	// the levels below that one are left to check.
	top := res.Level
	if len(res.Anomalies) > 0 {
		if w := res.Anomalies[0].Kind.Weakest(); w != 0 && res.Level.Implies(w) {
			top = w
		}
	}
	// One stage for all of them, if any; their own stages are not
	// reported.
	var m *progress.Meter
	if n := len(levels) - 1 - slices.Index(levels, top); n > 0 {
		m = progress.Start(ctx, "check weaker levels", int64(n), "levels")
	}
	quiet := progress.WithTracker(ctx, nil)
	best, bestLevel := res, top
	var undecided level.Level
	for i := slices.Index(levels, top) + 1; i < len(levels); i++ {
		l := levels[i]
		if ctx.Err() != nil {
			undecided = l
			break
		}
		weaker, err := checkResolved(quiet, r, l, opts)
		m.Add(1)
		if err != nil {
			return nil, fmt.Errorf("checking the weaker level %v: %w", l, err)
		}
		if weaker.Verdict == verdict.Satisfied {
			break // and every weaker level is kept too
		}
		if weaker.Verdict == verdict.Violated {
			// Every level above it is broken too, the undecided ones
			// among them included.
			best, bestLevel, undecided = weaker, l, 0
			continue
		}
		undecided = l
		if weaker.Stopped {
			break
		}
	}
	if bestLevel == res.Level {
		res.Undecided = undecided
		return res, nil
	}
	out := *best
	out.Level, out.ImpliedBy, out.WeakerChecked = res.Level, bestLevel, true
	out.Undecided = undecided
	// When best is res, the anomaly's own level (top) is the weakest
	// broken: the evidence is res's.
	out.Stats = res.Stats
	out.Own = res
	return &out, nil
}

// Evidence returns r as the level of its evidence sees it: for a result
// implied by a weaker level's violation (ImpliedBy), a copy whose Level
// is that level, without ImpliedBy and Own; else r.
func (r *Result) Evidence() *Result {
	if r.ImpliedBy == 0 {
		return r
	}
	ev := *r
	ev.Level, ev.ImpliedBy, ev.Own = r.ImpliedBy, 0, nil
	return &ev
}

// Weakest returns the result that explains res, a violation of h at
// res.Level, as CheckWith with Options.WeakestBroken returns it: the
// violation of the weakest level h breaks. A result whose weaker levels
// were checked already is returned as it is.
func Weakest(ctx context.Context, h *history.History, res *Result, opts Options) (*Result, error) {
	if res.Verdict != verdict.Violated || res.WeakerChecked {
		return res, nil
	}
	out := *res
	if out.ImpliedBy != 0 {
		// CheckAll's implied results: the weaker levels were checked.
		out.WeakerChecked = true
		return &out, nil
	}
	r, err := resolve.Resolve(ctx, h)
	if err != nil {
		if progress.Stopped(err) {
			out.WeakerChecked, out.Undecided = true, level.RC
			return &out, nil
		}
		return nil, err
	}
	return weakestBroken(ctx, r, &out, opts)
}
