// Package verdict is the vocabulary every isocheck vertical answers in:
// the check of a history (package check), of a SQL history (sqlcheck), of
// a compare-and-set register (lwt) and of every history of a program
// (explore). Each returns an Outcome: satisfied, violated, or no verdict
// with the reason and the stage where the run stopped.
//
// The zero Verdict is Unknown, so that a result nobody filled in never
// reads as a pass.
package verdict

import (
	"context"
	"errors"

	"github.com/isocheck/isocheck/progress"
)

// Verdict is the answer to "does it keep the level?".
type Verdict int8

const (
	// Unknown: no verdict. The run stopped (a timeout, a cancellation, a
	// resource limit) or a stage gave up; the Outcome's Reason says why.
	Unknown Verdict = iota
	// Satisfied: the level is kept.
	Satisfied
	// Violated: the level is broken; the vertical's result holds the
	// evidence.
	Violated
)

// String returns "satisfied", "violated" or "no verdict".
func (v Verdict) String() string {
	switch v {
	case Satisfied:
		return "satisfied"
	case Violated:
		return "violated"
	}
	return "no verdict"
}

// Outcome is the part of every vertical's result that says what was
// decided, and, when nothing was, why.
type Outcome struct {
	Verdict Verdict
	// Reason says why there is no verdict, in the user's terms: "timed
	// out", "cancelled", or the message of the limit that was reached.
	Reason string
	// Stage names the stage the run had reached when it stopped ("parse",
	// "solve", ...), when known.
	Stage string
	// Stopped says that the run was stopped from outside, by its context
	// ending (a deadline, a cancellation, a memory limit watched from
	// outside), rather than by a limit of its own.
	Stopped bool
}

// OK reports whether the verdict is Satisfied.
func (o Outcome) OK() bool { return o.Verdict == Satisfied }

// Stop says why a run that ended with err gave no verdict. It reports
// false when err is not a stop (progress.Stopped) and giveUp does not
// hold: such an error is a failure of its own, to be returned as it is.
//
// The Reason is "timed out" when ctx's deadline passed, "cancelled" when
// ctx was cancelled, and the message of the resource limit (see
// progress.ErrResourceLimit) that ended ctx or that err wraps; when ctx
// runs on and err is not a resource limit (a stage gave up), err's own
// message.
func Stop(ctx context.Context, err error, giveUp bool) (Outcome, bool) {
	if !progress.Stopped(err) && !giveUp {
		return Outcome{}, false
	}
	o := Outcome{Verdict: Unknown, Stopped: ctx.Err() != nil}
	cause := context.Cause(ctx)
	switch {
	case errors.Is(cause, progress.ErrResourceLimit):
		o.Reason = cause.Error()
	case errors.Is(err, progress.ErrResourceLimit):
		o.Reason = err.Error()
	case errors.Is(cause, context.Canceled):
		o.Reason = "cancelled"
	case errors.Is(cause, context.DeadlineExceeded), errors.Is(err, context.DeadlineExceeded):
		o.Reason = "timed out"
	case err != nil:
		o.Reason = err.Error()
	default:
		o.Reason = "stopped"
	}
	if t := progress.TrackerOf(ctx); t != nil {
		o.Stage = t.Snapshot().Stage
	}
	return o, true
}
