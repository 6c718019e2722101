package verdict

// A Finding is what every vertical's report says of the violation it
// explains, whatever the evidence that follows it: the anomaly, what it
// means, what happened, and whether the counterexample shown is minimal.
// The explanations of key-value histories (interpret.Anomaly) and of SQL
// histories (sqlcheck.AnomalyReport) embed it, so their JSON starts the
// same way, and the report page reads it from either.
type Finding struct {
	// Name is the anomaly, one the level broken forbids and no weaker
	// level the history keeps forbids (see Forbids).
	Name Anomaly `json:"name"`
	// Class is Adya's phenomenon (G0, G1a, G1b, G1c, G-single, G2-item,
	// G2), when there is one.
	Class string `json:"class,omitempty"`
	// Description says what the anomaly means in general.
	Description string `json:"description,omitempty"`
	// Summary says what happened in this history.
	Summary string `json:"summary"`
	// Minimal says the transactions shown are a minimal counterexample:
	// they violate the level on their own, and without any one of them
	// the rest satisfy it (docs/checking.md, "Minimal counterexamples").
	Minimal bool `json:"minimal"`
	// NotMinimal, for a counterexample that is not minimal, says why.
	NotMinimal string `json:"not_minimal,omitempty"`
	// HistoryTxns is the number of transactions of the whole history.
	HistoryTxns int `json:"history_transactions,omitempty"`
}
