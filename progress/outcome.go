package progress

import (
	"context"
	"errors"
	"time"

	"github.com/isocheck/isocheck/verdict"
)

// Outcome says why a run that ended with err gave no verdict. It reports
// false when err is not a stop (Stopped) and giveUp does not
// hold: such an error is a failure of its own, to be returned as it is.
// giveUp says that err is a stage giving up (such as the solver's
// ErrGaveUp).
//
// The Reason is, in this order: the message of the resource limit (see
// ErrResourceLimit) that ended ctx or that err wraps;
// "cancelled" when ctx was cancelled; "timed out" when ctx's deadline
// passed (even if ctx has not yet noticed) or err says a deadline passed;
// the cause ctx ended with, if any other; and, when ctx runs on, err's own
// message. Stopped is set when ctx ended or its deadline passed, and
// Stage is the stage the Tracker of ctx, if any, reached.
func Outcome(ctx context.Context, err error, giveUp bool) (verdict.Outcome, bool) {
	if !Stopped(err) && !giveUp {
		return verdict.Outcome{}, false
	}
	cause := context.Cause(ctx)
	dl, ok := ctx.Deadline()
	expired := ok && !time.Now().Before(dl)
	o := verdict.Outcome{Verdict: verdict.Unknown, Stopped: cause != nil || expired}
	switch {
	case errors.Is(cause, ErrResourceLimit):
		o.Reason = cause.Error()
	case errors.Is(err, ErrResourceLimit):
		o.Reason = err.Error()
	case errors.Is(cause, context.Canceled):
		o.Reason = "cancelled"
	case errors.Is(cause, context.DeadlineExceeded), expired, errors.Is(err, context.DeadlineExceeded):
		o.Reason = "timed out"
	case cause != nil:
		o.Reason = cause.Error()
	case errors.Is(err, context.Canceled):
		o.Reason = "cancelled"
	case err != nil:
		o.Reason = err.Error()
	default:
		o.Reason = "stopped"
	}
	if t := TrackerOf(ctx); t != nil {
		o.Stage = t.Snapshot().Stage
	}
	return o, true
}
