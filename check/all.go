package check

import (
	"context"
	"time"

	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/polygraph"
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
func CheckAll(ctx context.Context, h *history.History) (*Report, error) {
	t := time.Now()
	r, err := polygraph.Resolve(h)
	if err != nil {
		return nil, err
	}
	resolve := time.Since(t)
	levels := level.All()
	rep := &Report{Results: make([]*Result, len(levels))}
	var broken *Result
	for i := len(levels) - 1; i >= 0; i-- {
		l := levels[i]
		if broken != nil {
			implied := *broken
			implied.Level, implied.ImpliedBy = l, broken.Level
			rep.Results[i] = &implied
			continue
		}
		res, err := CheckResolved(ctx, r, l)
		if err != nil {
			return nil, err
		}
		res.Stats.Construct += resolve
		rep.Results[i] = res
		if res.Verdict == Violated {
			broken = res
			rep.Weakest = l
		}
	}
	for i, res := range rep.Results {
		if res.Verdict == Satisfied {
			rep.Strongest = levels[i]
			break
		}
	}
	return rep, nil
}
