package verdict

import (
	"fmt"

	"github.com/isocheck/isocheck/level"
)

// Anomaly names one anomaly of the vocabulary: what a violation showed.
// Every vertical reports in these names, and this file holds their one
// table: each name, Adya's class of it, a sentence saying what it means,
// and the weakest level that forbids it.
//
// A report at level L names only anomalies L forbids (Forbids), so that a
// developer never reads that a level was broken by something it allows.
// The table of forbidden anomalies is the one docs/checking.md prints.
//
// The zero Anomaly names nothing. In text and JSON an Anomaly is its name.
type Anomaly uint8

// The anomalies read alone shows (each read checked by itself).
const (
	_ Anomaly = iota
	// ThinAirRead: a read returned a value nobody wrote.
	ThinAirRead
	// AbortedRead: a read returned a value written by an aborted
	// transaction (Adya's G1a).
	AbortedRead
	// FutureRead: a read returned a value its own transaction writes
	// later.
	FutureRead
	// NotMyOwnWrite: after writing a key, a transaction read another
	// transaction's value of it.
	NotMyOwnWrite
	// NotMyLastWrite: after writing a key twice, a transaction read its
	// first value.
	NotMyLastWrite
	// IntermediateRead: a read returned a value its writer overwrote in
	// the same transaction (Adya's G1b).
	IntermediateRead
	// NonRepeatableRead: two reads of a key in one transaction, with no
	// write between them, returned different values.
	NonRepeatableRead
	// IncompatibleOrder: two reads of a list, neither a prefix of the
	// other (Elle's incompatible-order).
	IncompatibleOrder
	// DuplicateElements: a read of a list holds one element twice.
	DuplicateElements
	// SplitAppends: a read of a list shows a transaction's appends to it
	// other than as one run, whole and in program order.
	SplitAppends
	// PredicateMismatch: a read of a SQL history returned a row its WHERE
	// clause rejects.
	PredicateMismatch
	// Phantom: a read of a SQL history did not return a row although its
	// WHERE clause selects every version of it the read could have seen.
	Phantom

	// The anomalies a cycle of dependencies shows, by its shape, after
	// Adya's phenomena and the usual names; each level's generic name (see
	// Generic) names a cycle no more specific name fits.

	// LostUpdate: two transactions read a key from the same write and both
	// wrote it (MTC's Divergence).
	LostUpdate
	// WriteSkew: two transactions each read a key the other overwrote.
	WriteSkew
	// LongFork: two independent writes seen in opposite orders.
	LongFork
	// CausalityViolation: a write seen without a write that causally
	// preceded it.
	CausalityViolation
	// FracturedRead: some but not all of a transaction's writes seen.
	FracturedRead
	// SessionGuaranteeViolation: a transaction missed its own session's
	// earlier write.
	SessionGuaranteeViolation
	// NonMonotonicRead: reads went back in commit order.
	NonMonotonicRead
	// RealTimeViolation: an order against real time.
	RealTimeViolation
	// PrefixViolation: a state that is no prefix of one order.
	PrefixViolation
	// G0: a cycle of write-write dependencies.
	G0
	// G1c: a cycle of write-write and write-read dependencies.
	G1c
	// GSingle: a cycle with exactly one anti-dependency (Adya's G-single).
	GSingle
	// GNonadjacent: a cycle with no two adjacent anti-dependencies.
	GNonadjacent
	// G2Item: a cycle with several anti-dependencies on items.
	G2Item
	// G2: a cycle no order of the transactions can follow.
	G2

	numAnomalies
)

// info is what the vocabulary knows of one anomaly.
type info struct {
	name string
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
var table = [numAnomalies]info{
	ThinAirRead:       {"ThinAirRead", level.RC, "", "thin-air read: a read returned a value no transaction wrote"},
	AbortedRead:       {"AbortedRead", level.RC, "G1a", "aborted read (G1a): a read returned a value written by a transaction that aborted"},
	FutureRead:        {"FutureRead", level.RC, "", "future read: a transaction read a value that it only writes later"},
	NotMyOwnWrite:     {"NotMyOwnWrite", level.RC, "", "not my own write: after writing a key, a transaction read someone else's value of it"},
	NotMyLastWrite:    {"NotMyLastWrite", level.RC, "", "not my last write: after writing a key twice, a transaction read its first value"},
	IntermediateRead:  {"IntermediateRead", level.RC, "G1b", "intermediate read (G1b): a read returned a value its writer overwrote before committing"},
	NonRepeatableRead: {"NonRepeatableRead", level.RA, "", "non-repeatable read: two reads of a key in one transaction, with no write between them, returned different values"},
	IncompatibleOrder: {"IncompatibleOrder", level.RC, "", "incompatible order: two reads of a list, neither a prefix of the other, saw its appends in orders no single order of the appends explains (Elle's incompatible-order)"},
	DuplicateElements: {"DuplicateElements", level.RC, "", "duplicate elements: a read of a list holds an element twice, though each element was appended once (Elle's duplicate-elements)"},
	PredicateMismatch: {"PredicateMismatch", level.RC, "", "predicate mismatch: a read returned a row version its WHERE clause rejects"},
	Phantom:           {"Phantom", level.RC, "", "phantom: a read did not return a row although its WHERE clause selects every version of it the read could have seen"},
	SplitAppends:      {"SplitAppends", level.RC, "", "split appends: a read of a list shows a transaction's appends to it other than as one run in program order (another transaction's append among them, one missing, or two swapped), so the list never held the state the transaction committed"},

	G0:                        {"G0", level.RC, "G0", "G0 (write cycle): transactions overwrote each other's writes in a cycle"},
	G1c:                       {"G1c", level.RC, "G1c", "G1c (circular information flow): transactions saw each other's effects in a cycle (by reading each other's writes, overwriting them, or following each other in a session), so each came before the other"},
	NonMonotonicRead:          {"NonMonotonicRead", level.RC, "G-single", "non-monotonic read: a transaction saw another's write, then read a version that other transaction had already overwritten: its reads went back in commit order"},
	FracturedRead:             {"FracturedRead", level.RA, "G-single", "fractured read (read skew, G-single): a transaction saw some of another transaction's writes but not all of them"},
	SessionGuaranteeViolation: {"SessionGuaranteeViolation", level.RA, "G-single", "session guarantee violation (read-your-writes): a transaction missed a write its own session had already made"},
	CausalityViolation:        {"CausalityViolation", level.CC, "G-single", "causality violation: a transaction saw the effect of a write but missed a write that causally preceded it (by session order or by what was read), such as a write its session had seen before (monotonic reads)"},
	LongFork:                  {"LongFork", level.PC, "G2", "long fork: two independent writes were seen in opposite orders: one reader saw the first but not the second, another the second but not the first"},
	PrefixViolation:           {"PrefixViolation", level.PC, "", "prefix violation: a transaction saw a state that is not a prefix of any one order of the transactions"},
	LostUpdate:                {"LostUpdate", level.SI, "G-single", "lost update: two transactions read the same version of a key and both wrote a new one, so whichever committed second overwrote an update it never saw"},
	GSingle:                   {"G-single", level.SI, "G-single", "G-single (read skew): a cycle of dependencies with exactly one anti-dependency: a transaction missed a write that, by the other dependencies, it must have seen"},
	GNonadjacent:              {"G-nonadjacent", level.SI, "", "G-nonadjacent: a cycle of dependencies in which no two anti-dependencies follow each other, which snapshot isolation forbids"},
	WriteSkew:                 {"WriteSkew", level.SER, "G2-item", "write skew (G2-item): two transactions each read a key the other then overwrote; each decided on a snapshot the other changed, and no serial order explains both"},
	G2Item:                    {"G2-item", level.SER, "G2-item", "G2-item: a cycle with several anti-dependencies, which serializability forbids"},
	G2:                        {"G2", level.SER, "G2", "G2: a cycle of dependencies that no order of the transactions can follow"},
	RealTimeViolation:         {"RealTimeViolation", level.SSER, "", "real-time violation: a transaction that started after another had ended was ordered before it, or missed its writes"},
}

// String returns the anomaly's name, such as "G-single" or "LostUpdate".
func (a Anomaly) String() string {
	if a > 0 && a < numAnomalies {
		return table[a].name
	}
	return fmt.Sprintf("Anomaly(%d)", uint8(a))
}

// ParseAnomaly returns the anomaly named name, and whether the vocabulary
// has one.
func ParseAnomaly(name string) (Anomaly, bool) {
	for a := Anomaly(1); a < numAnomalies; a++ {
		if table[a].name == name {
			return a, true
		}
	}
	return 0, false
}

// MarshalText writes the anomaly's name.
func (a Anomaly) MarshalText() ([]byte, error) {
	if a == 0 || a >= numAnomalies {
		return nil, fmt.Errorf("verdict: no anomaly %d", uint8(a))
	}
	return []byte(table[a].name), nil
}

// UnmarshalText reads an anomaly's name.
func (a *Anomaly) UnmarshalText(b []byte) error {
	x, ok := ParseAnomaly(string(b))
	if !ok {
		return fmt.Errorf("verdict: no anomaly is named %q", b)
	}
	*a = x
	return nil
}

// Describe returns a sentence saying what the anomaly is, or "".
func (a Anomaly) Describe() string { return a.info().description }

// Class returns Adya's class of the anomaly (G0, G1a, G1b, G1c, G-single,
// G2-item, G2), or "".
func (a Anomaly) Class() string { return a.info().class }

// Weakest returns the weakest level that forbids the anomaly, or 0 for
// the zero Anomaly.
func (a Anomaly) Weakest() level.Level { return a.info().weakest }

func (a Anomaly) info() info {
	if a < numAnomalies {
		return table[a]
	}
	return info{}
}

// Forbids reports whether level l forbids anomaly a: whether a history
// that shows it cannot satisfy l.
func Forbids(l level.Level, a Anomaly) bool {
	w := a.Weakest()
	return w != 0 && l.Implies(w)
}

// Generic returns the name of a violation of l that no more specific
// name fits: the cycle every level's checker may find whatever its shape.
// l forbids it and no weaker level does (Generic(l).Weakest() is l).
func Generic(l level.Level) Anomaly {
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

// Anomalies lists every anomaly of the vocabulary, those that the weakest
// levels forbid first.
func Anomalies() []Anomaly {
	var out []Anomaly
	levels := level.All()
	for i := len(levels) - 1; i >= 0; i-- {
		for _, a := range order {
			if a.Weakest() == levels[i] {
				out = append(out, a)
			}
		}
	}
	return out
}

// order is the order Anomalies lists the anomalies forbidden at one level
// in.
var order = []Anomaly{
	ThinAirRead, AbortedRead, IntermediateRead, FutureRead, NotMyOwnWrite, NotMyLastWrite,
	IncompatibleOrder, DuplicateElements, SplitAppends, PredicateMismatch, Phantom, G0, G1c, NonMonotonicRead,
	NonRepeatableRead, FracturedRead, SessionGuaranteeViolation, CausalityViolation,
	LongFork, PrefixViolation, LostUpdate, GSingle, GNonadjacent, WriteSkew, G2Item, G2,
	RealTimeViolation,
}
