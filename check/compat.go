package check

import "github.com/isocheck/isocheck/verdict"

// Verdict is verdict.Verdict, which Result holds in its Outcome.
//
// Deprecated: use verdict.Verdict. The names below are kept only until
// the packages that still use them have moved to package verdict.
type Verdict = verdict.Verdict

const (
	// Deprecated: use verdict.Unknown.
	NoVerdict = verdict.Unknown
	// Deprecated: use verdict.Satisfied.
	Satisfied = verdict.Satisfied
	// Deprecated: use verdict.Violated.
	Violated = verdict.Violated
)
