package interpret

import (
	"slices"

	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/polygraph"
	"github.com/isocheck/isocheck/verdict"
)

// specificity lists the names of cycles from the most specific to the
// most general: a conflict or a core (several cycles) takes the most
// specific of its cycles' names.
var specificity = []verdict.Anomaly{
	verdict.LostUpdate, verdict.WriteSkew, verdict.LongFork, verdict.FracturedRead,
	verdict.SessionGuaranteeViolation, verdict.NonMonotonicRead, verdict.CausalityViolation,
	verdict.RealTimeViolation, verdict.G0, verdict.G1c, verdict.GSingle, verdict.GNonadjacent,
	verdict.G2Item, verdict.PrefixViolation, verdict.G2,
}

// moreSpecific returns the more specific of two names; "" counts as the
// least specific.
func moreSpecific(a, b verdict.Anomaly) verdict.Anomaly {
	ra, rb := slices.Index(specificity, a), slices.Index(specificity, b)
	switch {
	case ra < 0:
		return b
	case rb < 0:
		return a
	case rb < ra:
		return b
	}
	return a
}

// Name names a cycle that shows a violation of l, when every level weaker
// than l is kept: the most specific name of its shape, after Adya's
// phenomena and the usual names of anomalies, that l forbids and no
// weaker level does (verdict.Weakest is l), or l's generic name
// (verdict.Generic) when none of them fits. A name a weaker level forbids
// would be false there: that level, which the history keeps, would have
// ruled the anomaly out, so the cycle rests on what l alone requires (an
// order of writes l's rule derived, real time at SSER). The cycle's
// edges follow each other; paths through time nodes are fine.
//
// A report names the evidence of the weakest level the history breaks
// (see check.Options.WeakestBroken) with Name at that level.
func Name(cycle []polygraph.Edge, l level.Level) verdict.Anomaly {
	for _, n := range shapeNames(cycle) {
		if n.Weakest() == l {
			return n
		}
	}
	return verdict.Generic(l)
}

// ShapeName names a cycle by its shape alone: the most specific name of
// its shape that l forbids, or l's generic name. Weaker levels may forbid
// it too: it is the name of a cycle listed among several anomalies (see
// Every), whose example is checked at the weakest level that forbids it.
func ShapeName(cycle []polygraph.Edge, l level.Level) verdict.Anomaly {
	for _, n := range shapeNames(cycle) {
		if verdict.Forbids(l, n) {
			return n
		}
	}
	return verdict.Generic(l)
}

// shapeNames returns the names a cycle's shape fits, the most specific
// first.
func shapeNames(cycle []polygraph.Edge) []verdict.Anomaly {
	var ww, wr, rw, rt int
	nodes := map[int32]bool{}
	rwKeys := map[history.Key]bool{}
	rwAt := -1
	for i, e := range cycle {
		nodes[e.From] = true
		switch e.Kind {
		case verdict.WW:
			ww++
		case verdict.WR:
			wr++
		case verdict.RW:
			rw++
			rwKeys[e.Key] = true
			rwAt = i
		case verdict.RT:
			rt++
		}
	}
	switch {
	case len(cycle) == 0:
		return nil
	case rt > 0:
		return []verdict.Anomaly{verdict.RealTimeViolation}
	case rw == 0 && wr == 0:
		return []verdict.Anomaly{verdict.G0, verdict.G1c}
	case rw == 0:
		// Information flowed in a circle: through reads, overwrites and
		// session order (a transaction read a write its own session made
		// later is the smallest case), with no anti-dependency, so no
		// transaction missed a write: it is G1c (Adya), Elle's G1c-process
		// when session order closes it.
		return []verdict.Anomaly{verdict.G1c}
	case rw == 1:
		// The path from the anti-dependency's target back to its source.
		var back []verdict.EdgeKind
		for i := 1; i < len(cycle); i++ {
			back = append(back, cycle[(rwAt+i)%len(cycle)].Kind)
		}
		return oneRWNames(cycle, back, len(nodes), ww)
	case rw == 2 && len(nodes) == 2 && len(rwKeys) == 2:
		return []verdict.Anomaly{verdict.WriteSkew, verdict.G2Item, verdict.G2}
	case rw >= 2 && !adjacentRW(cycle):
		if rw == 2 && len(nodes) == 4 && ww == 0 {
			return []verdict.Anomaly{verdict.LongFork, verdict.GNonadjacent, verdict.G2}
		}
		return []verdict.Anomaly{verdict.GNonadjacent, verdict.G2}
	}
	return []verdict.Anomaly{verdict.G2Item, verdict.G2}
}

// oneRWNames names a cycle with one anti-dependency R -RW-> W, given the
// kinds of the path from W back to R.
//
// Without overwrites on the way back, W's write was visible to R: R's
// session made it (read-your-writes, which every level from RA forbids),
// R read it (a fractured read, which RA forbids; at RC, whose checker
// shows only a read of W's that came before R's read of the older
// version, a non-monotonic read), or it reached R by a longer path of
// reads and session order (a causality violation, which CC forbids; RA
// allows it, since its axiom looks at one read or one session step only:
// Biswas and Enea, "On the Complexity of Checking Transactional
// Consistency", OOPSLA 2019, Section 2.2). The monotonic-reads guarantee
// (W -WR-> X -SO-> R) is such a longer path.
func oneRWNames(cycle []polygraph.Edge, back []verdict.EdgeKind, nodes, ww int) []verdict.Anomaly {
	if ww > 0 {
		if nodes == 2 && len(cycle) == 2 && cycle[0].Key == cycle[1].Key {
			return []verdict.Anomaly{verdict.LostUpdate, verdict.GSingle}
		}
		return []verdict.Anomaly{verdict.GSingle}
	}
	allSO := true
	wrs := 0
	for _, k := range back {
		switch k {
		case verdict.WR:
			allSO = false
			wrs++
		case verdict.SO:
		default:
			allSO = false
		}
	}
	switch {
	case allSO:
		return []verdict.Anomaly{verdict.SessionGuaranteeViolation, verdict.CausalityViolation, verdict.GSingle}
	case len(back) == 1 && wrs == 1:
		return []verdict.Anomaly{verdict.FracturedRead, verdict.NonMonotonicRead, verdict.GSingle}
	}
	return []verdict.Anomaly{verdict.CausalityViolation, verdict.GSingle}
}

func adjacentRW(cycle []polygraph.Edge) bool {
	for i, e := range cycle {
		if e.Kind == verdict.RW && cycle[(i+1)%len(cycle)].Kind == verdict.RW {
			return true
		}
	}
	return false
}
