// Package verdict is the vocabulary every isocheck vertical answers in:
// the check of a history (package check), of a SQL history (sqlcheck), of
// a compare-and-set register (lwt) and of every history of a program
// (explore). It depends on nothing but the levels (package level).
//
//   - Outcome: satisfied, violated, or no verdict with the reason and the
//     stage where the run stopped (progress.Outcome says why a stopped
//     run has none).
//   - Anomaly: the one table of the anomalies a violation shows, with
//     Adya's class and the levels that forbid each.
//   - EdgeKind: why one transaction comes before another in a
//     dependency a report shows (SO, WR, WW, RW, RT, and the SQL axioms'
//     Visible and Supposed).
//   - ID: the name an input gave a session, a key or a transaction, as
//     every report refers to it.
//
// The zero Verdict is Unknown, so that a result nobody filled in never
// reads as a pass.
package verdict

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

// String returns the verdict, and for no verdict the reason after a
// colon: "no verdict: timed out".
func (o Outcome) String() string {
	if o.Verdict == Unknown && o.Reason != "" {
		return o.Verdict.String() + ": " + o.Reason
	}
	return o.Verdict.String()
}

// Summary is an Outcome as isocheck's JSON reports print it.
type Summary struct {
	// Satisfied is true or false, or nil (JSON null) for no verdict.
	Satisfied *bool `json:"satisfied"`
	// Verdict is the Verdict's String.
	Verdict string `json:"verdict"`
	// Reason says why there is no verdict.
	Reason string `json:"reason,omitempty"`
}

// Summary returns o as a Summary.
func (o Outcome) Summary() Summary {
	s := Summary{Verdict: o.Verdict.String(), Reason: o.Reason}
	if o.Verdict != Unknown {
		ok := o.Verdict == Satisfied
		s.Satisfied = &ok
	}
	return s
}
