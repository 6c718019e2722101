// Package anomaly is the one vocabulary of the anomalies isocheck reports,
// shared by every vertical (key-value and SQL histories, explorations of
// programs): each anomaly's name, Adya's class of it, a sentence saying
// what it means, and the isolation levels that forbid it.
//
// A report at level L names only anomalies L forbids (Forbids), so that a
// developer never reads that a level was broken by something it allows.
// The table of forbidden anomalies is the one docs/checking.md prints.
package anomaly

import "github.com/isocheck/isocheck/level"

// Names of the anomalies read alone shows (each read checked by itself).
const (
	ThinAirRead       = "ThinAirRead"
	AbortedRead       = "AbortedRead"
	FutureRead        = "FutureRead"
	NotMyOwnWrite     = "NotMyOwnWrite"
	NotMyLastWrite    = "NotMyLastWrite"
	IntermediateRead  = "IntermediateRead"
	NonRepeatableRead = "NonRepeatableRead"
	IncompatibleOrder = "IncompatibleOrder"
	DuplicateElements = "DuplicateElements"
	SplitAppends      = "SplitAppends"
	// PredicateMismatch and Phantom are reads of SQL histories: a row
	// returned that the WHERE clause rejects, and a row not returned
	// although the clause selects every version of it the read could have
	// seen.
	PredicateMismatch = "PredicateMismatch"
	Phantom           = "Phantom"
)

// Names of the anomalies a cycle of dependencies shows, by its shape, after
// Adya's phenomena and the usual names; each level's generic name (see
// Generic) names a cycle no more specific name fits.
const (
	LostUpdate                = "LostUpdate"
	WriteSkew                 = "WriteSkew"
	LongFork                  = "LongFork"
	CausalityViolation        = "CausalityViolation"
	FracturedRead             = "FracturedRead"
	SessionGuaranteeViolation = "SessionGuaranteeViolation"
	NonMonotonicRead          = "NonMonotonicRead"
	RealTimeViolation         = "RealTimeViolation"
	PrefixViolation           = "PrefixViolation"
	G0                        = "G0"
	G1c                       = "G1c"
	GSingle                   = "G-single"
	GNonadjacent              = "G-nonadjacent"
	G2Item                    = "G2-item"
	G2                        = "G2"
)

// info is what the vocabulary knows of one anomaly.
type info struct {
	// weakest is the weakest level that forbids the anomaly: every level
	// that implies it forbids it too.
	weakest level.Level
	// class is Adya's phenomenon, or "".
	class string
	// description says what the anomaly means, for a developer who has
	// not read the papers.
	description string
}

// table holds every name. Adya's classes are from Adya, Liskov and
// O'Neil, "Generalized Isolation Level Definitions" (ICDE 2000); the
// levels are those of package level (Biswas and Enea, "On the Complexity
// of Checking Transactional Consistency", OOPSLA 2019, Figure 2).
var table = map[string]info{
	ThinAirRead:       {level.RC, "", "thin-air read: a read returned a value no transaction wrote"},
	AbortedRead:       {level.RC, "G1a", "aborted read (G1a): a read returned a value written by a transaction that aborted"},
	FutureRead:        {level.RC, "", "future read: a transaction read a value that it only writes later"},
	NotMyOwnWrite:     {level.RC, "", "not my own write: after writing a key, a transaction read someone else's value of it"},
	NotMyLastWrite:    {level.RC, "", "not my last write: after writing a key twice, a transaction read its first value"},
	IntermediateRead:  {level.RC, "G1b", "intermediate read (G1b): a read returned a value its writer overwrote before committing"},
	NonRepeatableRead: {level.RA, "", "non-repeatable read: two reads of a key in one transaction, with no write between them, returned different values"},
	IncompatibleOrder: {level.RC, "", "incompatible order: two reads of a list, neither a prefix of the other, saw its appends in orders no single order of the appends explains (Elle's incompatible-order)"},
	DuplicateElements: {level.RC, "", "duplicate elements: a read of a list holds an element twice, though each element was appended once (Elle's duplicate-elements)"},
	PredicateMismatch: {level.RC, "", "predicate mismatch: a read returned a row version its WHERE clause rejects"},
	Phantom:           {level.RC, "", "phantom: a read did not return a row although its WHERE clause selects every version of it the read could have seen"},
	SplitAppends:      {level.RC, "", "split appends: a read of a list shows a transaction's appends to it other than as one run in program order (another transaction's append among them, one missing, or two swapped), so the list never held the state the transaction committed"},

	G0:                        {level.RC, "G0", "G0 (write cycle): transactions overwrote each other's writes in a cycle"},
	G1c:                       {level.RC, "G1c", "G1c (circular information flow): transactions saw each other's effects in a cycle (by reading each other's writes, overwriting them, or following each other in a session), so each came before the other"},
	NonMonotonicRead:          {level.RC, "G-single", "non-monotonic read: a transaction saw another's write, then read a version that other transaction had already overwritten: its reads went back in commit order"},
	FracturedRead:             {level.RA, "G-single", "fractured read (read skew, G-single): a transaction saw some of another transaction's writes but not all of them"},
	SessionGuaranteeViolation: {level.RA, "G-single", "session guarantee violation (read-your-writes): a transaction missed a write its own session had already made"},
	CausalityViolation:        {level.CC, "G-single", "causality violation: a transaction saw the effect of a write but missed a write that causally preceded it (by session order or by what was read), such as a write its session had seen before (monotonic reads)"},
	LongFork:                  {level.PC, "G2", "long fork: two independent writes were seen in opposite orders: one reader saw the first but not the second, another the second but not the first"},
	PrefixViolation:           {level.PC, "", "prefix violation: a transaction saw a state that is not a prefix of any one order of the transactions"},
	LostUpdate:                {level.SI, "G-single", "lost update: two transactions read the same version of a key and both wrote a new one, so whichever committed second overwrote an update it never saw"},
	GSingle:                   {level.SI, "G-single", "G-single (read skew): a cycle of dependencies with exactly one anti-dependency: a transaction missed a write that, by the other dependencies, it must have seen"},
	GNonadjacent:              {level.SI, "", "G-nonadjacent: a cycle of dependencies in which no two anti-dependencies follow each other, which snapshot isolation forbids"},
	WriteSkew:                 {level.SER, "G2-item", "write skew (G2-item): two transactions each read a key the other then overwrote; each decided on a snapshot the other changed, and no serial order explains both"},
	G2Item:                    {level.SER, "G2-item", "G2-item: a cycle with several anti-dependencies, which serializability forbids"},
	G2:                        {level.SER, "G2", "G2: a cycle of dependencies that no order of the transactions can follow"},
	RealTimeViolation:         {level.SSER, "", "real-time violation: a transaction that started after another had ended was ordered before it, or missed its writes"},
}

// Known reports whether name is in the vocabulary.
func Known(name string) bool { _, ok := table[name]; return ok }

// Describe returns a sentence saying what the named anomaly is, or "".
func Describe(name string) string { return table[name].description }

// Class returns Adya's class of the named anomaly (G0, G1a, G1b, G1c,
// G-single, G2-item, G2), or "".
func Class(name string) string { return table[name].class }

// Weakest returns the weakest level that forbids the named anomaly, or 0
// for a name not in the vocabulary.
func Weakest(name string) level.Level { return table[name].weakest }

// Forbids reports whether level l forbids the named anomaly: whether a
// history that shows it cannot satisfy l.
func Forbids(l level.Level, name string) bool {
	w := table[name].weakest
	return w != 0 && l.Implies(w)
}

// Generic returns the name of a violation of l that no more specific
// name fits: the cycle every level's checker may find whatever its shape.
// l forbids it and no weaker level does (Weakest(Generic(l)) is l).
func Generic(l level.Level) string {
	switch l {
	case level.SSER:
		return RealTimeViolation
	case level.SER:
		return G2
	case level.SI:
		return GNonadjacent
	case level.PC:
		return PrefixViolation
	case level.CC:
		return CausalityViolation
	case level.RA:
		return FracturedRead
	}
	return NonMonotonicRead
}

// Names lists every name of the vocabulary, those that the weakest levels
// forbid first.
func Names() []string {
	var out []string
	levels := level.All()
	for i := len(levels) - 1; i >= 0; i-- {
		for _, n := range order {
			if table[n].weakest == levels[i] {
				out = append(out, n)
			}
		}
	}
	return out
}

// order is the order Names lists the anomalies forbidden at one level in.
var order = []string{
	ThinAirRead, AbortedRead, IntermediateRead, FutureRead, NotMyOwnWrite, NotMyLastWrite,
	IncompatibleOrder, DuplicateElements, SplitAppends, PredicateMismatch, Phantom, G0, G1c, NonMonotonicRead,
	NonRepeatableRead, FracturedRead, SessionGuaranteeViolation, CausalityViolation,
	LongFork, PrefixViolation, LostUpdate, GSingle, GNonadjacent, WriteSkew, G2Item, G2,
	RealTimeViolation,
}
