package interpret

import (
	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/polygraph"
)

// Names of the anomalies a cycle can show, from the most specific to the
// most general. Non-cycle anomalies are named by polygraph.AnomalyKind.
const (
	LostUpdate                = "LostUpdate"
	WriteSkew                 = "WriteSkew"
	LongFork                  = "LongFork"
	CausalityViolation        = "CausalityViolation"
	FracturedRead             = "FracturedRead"
	SessionGuaranteeViolation = "SessionGuaranteeViolation"
	RealTimeViolation         = "RealTimeViolation"
	G0                        = "G0"
	G1c                       = "G1c"
	GSingle                   = "G-single"
	G2Item                    = "G2-item"
	G2                        = "G2"
)

// specificity ranks names: a conflict (two cycles) takes the name of its
// more specific cycle.
var specificity = map[string]int{
	LostUpdate: 1, WriteSkew: 2, LongFork: 3, FracturedRead: 4, SessionGuaranteeViolation: 5,
	CausalityViolation: 6, RealTimeViolation: 7, G0: 8, G1c: 9, GSingle: 10, G2Item: 11, G2: 12,
}

// moreSpecific returns the more specific of two names.
func moreSpecific(a, b string) string {
	ra, oka := specificity[a]
	rb, okb := specificity[b]
	if !oka || okb && rb < ra {
		return b
	}
	return a
}

// classOf gives Adya's class of each name (Adya, Liskov and O'Neil,
// "Generalized isolation level definitions", 2000), and G1a/G1b for the
// non-cycle anomalies that are those phenomena.
var classOf = map[string]string{
	LostUpdate:                    "G-single",
	WriteSkew:                     "G2-item",
	LongFork:                      "G2",
	CausalityViolation:            "G-single",
	FracturedRead:                 "G-single",
	SessionGuaranteeViolation:     "G-single",
	G0:                            "G0",
	G1c:                           "G1c",
	GSingle:                       "G-single",
	G2Item:                        "G2-item",
	G2:                            "G2",
	"AbortedRead":                 "G1a",
	"IntermediateRead":            "G1b",
	polygraph.LostUpdate.String(): "G-single",
}

// descriptions say what each anomaly means, for a developer who has not
// read the papers.
var descriptions = map[string]string{
	LostUpdate:                "lost update: two transactions read the same version of a key and both wrote a new one, so whichever committed second overwrote an update it never saw",
	WriteSkew:                 "write skew (G2-item): two transactions each read a key the other then overwrote; each decided on a snapshot the other changed, and no serial order explains both",
	LongFork:                  "long fork: two independent writes were seen in opposite orders: one reader saw the first but not the second, another the second but not the first",
	CausalityViolation:        "causality violation: a transaction saw the effect of a write but missed a write that causally preceded it (by session order or by what was read)",
	FracturedRead:             "fractured read (read skew, G-single): a transaction saw some of another transaction's writes but not all of them",
	SessionGuaranteeViolation: "session guarantee violation: a transaction missed a write its own session had already made or seen (read-your-writes or monotonic reads)",
	RealTimeViolation:         "real-time violation: a transaction that started after another had ended was ordered before it, or missed its writes",
	G0:                        "G0 (write cycle): transactions overwrote each other's writes in a cycle",
	G1c:                       "G1c (circular information flow): transactions saw each other's effects in a cycle (by reading each other's writes, overwriting them, or following each other in a session), so each came before the other",
	GSingle:                   "G-single (read skew): a cycle of dependencies with exactly one anti-dependency: a transaction missed a write that, by the other dependencies, it must have seen",
	G2Item:                    "G2-item: a cycle with several anti-dependencies, which serializability forbids",
	G2:                        "G2: a cycle of dependencies that no order of the transactions can follow",
	"ThinAirRead":             "thin-air read: a read returned a value no transaction wrote",
	"AbortedRead":             "aborted read (G1a): a read returned a value written by a transaction that aborted",
	"FutureRead":              "future read: a transaction read a value that it only writes later",
	"NotMyOwnWrite":           "not my own write: after writing a key, a transaction read someone else's value of it",
	"NotMyLastWrite":          "not my last write: after writing a key twice, a transaction read its first value",
	"IntermediateRead":        "intermediate read (G1b): a read returned a value its writer overwrote before committing",
	"NonRepeatableRead":       "non-repeatable read: two reads of a key in one transaction, with no write between them, returned different values",
	"IncompatibleOrder":       "incompatible order: two reads of a list, neither a prefix of the other, saw its appends in orders no single order of the appends explains (Elle's incompatible-order)",
	"DuplicateElements":       "duplicate elements: a read of a list holds an element twice, though each element was appended once (Elle's duplicate-elements)",
	"SplitAppends":            "split appends: a read of a list shows a transaction's appends to it other than as one run in program order (another transaction's append among them, one missing, or two swapped), so the list never held the state the transaction committed",
}

// Describe returns a sentence saying what the named anomaly is, or "".
func Describe(name string) string { return descriptions[name] }

// Class returns Adya's class of the named anomaly (G0, G1a, G1b, G1c,
// G-single, G2-item, G2), or "".
func Class(name string) string { return classOf[name] }

// Name names a cycle by its shape, after Adya's phenomena and the usual
// names of SI anomalies; where several fit, the most specific. The cycle's
// edges follow each other; paths through time nodes are fine.
func Name(cycle []polygraph.Edge) string {
	var ww, wr, rw, rt int
	nodes := map[int32]bool{}
	rwKeys := map[history.Key]bool{}
	rwAt := -1
	for i, e := range cycle {
		nodes[e.From] = true
		switch e.Kind {
		case polygraph.WW:
			ww++
		case polygraph.WR:
			wr++
		case polygraph.RW:
			rw++
			rwKeys[e.Key] = true
			rwAt = i
		case polygraph.RT:
			rt++
		}
	}
	switch {
	case len(cycle) == 0:
		return G2
	case rt > 0:
		return RealTimeViolation
	case rw == 0 && wr == 0:
		return G0
	case rw == 0:
		// Information flowed in a circle: through reads, overwrites and
		// session order (a transaction read a write its own session made
		// later is the smallest case), with no anti-dependency, so no
		// transaction missed a write: it is G1c (Adya), Elle's G1c-process
		// when session order closes it.
		return G1c
	case rw == 1:
		// The path from the anti-dependency's target back to its source.
		var back []polygraph.EdgeKind
		for i := 1; i < len(cycle); i++ {
			back = append(back, cycle[(rwAt+i)%len(cycle)].Kind)
		}
		return nameOneRW(cycle, back, len(nodes), ww)
	case rw == 2 && len(nodes) == 2 && len(rwKeys) == 2:
		return WriteSkew
	case rw >= 2 && !adjacentRW(cycle):
		if rw == 2 && len(nodes) == 4 && ww == 0 {
			return LongFork
		}
		return G2
	}
	return G2Item
}

// nameOneRW names a cycle with one anti-dependency R -RW-> W, given the
// kinds of the path from W back to R.
func nameOneRW(cycle []polygraph.Edge, back []polygraph.EdgeKind, nodes, ww int) string {
	if ww > 0 {
		if nodes == 2 && len(cycle) == 2 && cycle[0].Key == cycle[1].Key {
			return LostUpdate
		}
		return GSingle
	}
	// Only WR and SO edges lead back: W's write was visible to R.
	allSO, wrThenSO := true, true
	seenSO := false
	wrs := 0
	for _, k := range back {
		switch k {
		case polygraph.SO:
			seenSO = true
		case polygraph.WR:
			allSO = false
			wrs++
			if seenSO {
				wrThenSO = false
			}
		}
	}
	switch {
	case allSO:
		return SessionGuaranteeViolation // read-your-writes
	case wrs == 1 && seenSO && wrThenSO:
		return SessionGuaranteeViolation // monotonic reads
	case nodes == 2 && wrs == 1 && !seenSO:
		return FracturedRead
	}
	return CausalityViolation
}

func adjacentRW(cycle []polygraph.Edge) bool {
	for i, e := range cycle {
		if e.Kind == polygraph.RW && cycle[(i+1)%len(cycle)].Kind == polygraph.RW {
			return true
		}
	}
	return false
}
