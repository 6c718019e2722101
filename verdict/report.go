package verdict

// Report is the shape of every vertical's report, for people (its text)
// and programs (its JSON encoding, docs/json.md): what was checked, the
// verdict, and the evidence of a violation, which is the one part that
// differs from vertical to vertical. E is that evidence: the cycles of
// dependencies of a key-value history (interpret.Anomaly), the statements
// of a SQL history with the reasons they conflict (sqlcheck.AnomalyReport),
// the operation of a register that cannot be placed (lwt.Anomaly), the
// assertions a program's history broke (explore's). Each vertical's
// report embeds a Report, so that their JSON starts the same way:
//
//	{"level": "SER", "satisfied": false, "verdict": "violated", "anomaly": {...}}
type Report[E any] struct {
	// Level is what was checked: a level by its short name (SER), or
	// what the vertical checks for (linearizable, for registers).
	Level string `json:"level"`
	// Summary is the verdict: Satisfied true or false, or nil (JSON
	// null) when there is none, and then the Reason (such as a timeout).
	Summary
	// Anomaly is the evidence of the violation, when Satisfied is false
	// and the check found some.
	Anomaly *E `json:"anomaly,omitempty"`
	// Notes say what helps read the verdict (which definition of a level
	// is meant, what the input left out).
	Notes []string `json:"notes,omitempty"`
}

// NewReport returns the head of a report of o: the evidence and the
// notes are the vertical's to add.
func NewReport[E any](level string, o Outcome) Report[E] {
	return Report[E]{Level: level, Summary: o.Summary()}
}
