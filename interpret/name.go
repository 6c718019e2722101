package interpret

import (
	"slices"

	"github.com/isocheck/isocheck/anomaly"
	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/polygraph"
)

// specificity lists the names of cycles from the most specific to the
// most general: a conflict or a core (several cycles) takes the most
// specific of its cycles' names.
var specificity = []string{
	anomaly.LostUpdate, anomaly.WriteSkew, anomaly.LongFork, anomaly.FracturedRead,
	anomaly.SessionGuaranteeViolation, anomaly.NonMonotonicRead, anomaly.CausalityViolation,
	anomaly.RealTimeViolation, anomaly.G0, anomaly.G1c, anomaly.GSingle, anomaly.GNonadjacent,
	anomaly.G2Item, anomaly.PrefixViolation, anomaly.G2,
}

// moreSpecific returns the more specific of two names; "" counts as the
// least specific.
func moreSpecific(a, b string) string {
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
// weaker level does (anomaly.Weakest is l), or l's generic name
// (anomaly.Generic) when none of them fits. A name a weaker level forbids
// would be false there: that level, which the history keeps, would have
// ruled the anomaly out, so the cycle rests on what l alone requires (an
// order of writes l's rule derived, real time at SSER). The cycle's
// edges follow each other; paths through time nodes are fine.
//
// A report names the evidence of the weakest level the history breaks
// (see check.Options.WeakestBroken) with Name at that level.
func Name(cycle []polygraph.Edge, l level.Level) string {
	for _, n := range shapeNames(cycle) {
		if anomaly.Weakest(n) == l {
			return n
		}
	}
	return anomaly.Generic(l)
}

// ShapeName names a cycle by its shape alone: the most specific name of
// its shape that l forbids, or l's generic name. Weaker levels may forbid
// it too: it is the name of a cycle listed among several anomalies (see
// Every), whose example is checked at the weakest level that forbids it.
func ShapeName(cycle []polygraph.Edge, l level.Level) string {
	for _, n := range shapeNames(cycle) {
		if anomaly.Forbids(l, n) {
			return n
		}
	}
	return anomaly.Generic(l)
}

// shapeNames returns the names a cycle's shape fits, the most specific
// first.
func shapeNames(cycle []polygraph.Edge) []string {
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
		return nil
	case rt > 0:
		return []string{anomaly.RealTimeViolation}
	case rw == 0 && wr == 0:
		return []string{anomaly.G0, anomaly.G1c}
	case rw == 0:
		// Information flowed in a circle: through reads, overwrites and
		// session order (a transaction read a write its own session made
		// later is the smallest case), with no anti-dependency, so no
		// transaction missed a write: it is G1c (Adya), Elle's G1c-process
		// when session order closes it.
		return []string{anomaly.G1c}
	case rw == 1:
		// The path from the anti-dependency's target back to its source.
		var back []polygraph.EdgeKind
		for i := 1; i < len(cycle); i++ {
			back = append(back, cycle[(rwAt+i)%len(cycle)].Kind)
		}
		return oneRWNames(cycle, back, len(nodes), ww)
	case rw == 2 && len(nodes) == 2 && len(rwKeys) == 2:
		return []string{anomaly.WriteSkew, anomaly.G2Item, anomaly.G2}
	case rw >= 2 && !adjacentRW(cycle):
		if rw == 2 && len(nodes) == 4 && ww == 0 {
			return []string{anomaly.LongFork, anomaly.GNonadjacent, anomaly.G2}
		}
		return []string{anomaly.GNonadjacent, anomaly.G2}
	}
	return []string{anomaly.G2Item, anomaly.G2}
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
func oneRWNames(cycle []polygraph.Edge, back []polygraph.EdgeKind, nodes, ww int) []string {
	if ww > 0 {
		if nodes == 2 && len(cycle) == 2 && cycle[0].Key == cycle[1].Key {
			return []string{anomaly.LostUpdate, anomaly.GSingle}
		}
		return []string{anomaly.GSingle}
	}
	allSO := true
	wrs := 0
	for _, k := range back {
		switch k {
		case polygraph.WR:
			allSO = false
			wrs++
		case polygraph.SO:
		default:
			allSO = false
		}
	}
	switch {
	case allSO:
		return []string{anomaly.SessionGuaranteeViolation, anomaly.CausalityViolation, anomaly.GSingle}
	case len(back) == 1 && wrs == 1:
		return []string{anomaly.FracturedRead, anomaly.NonMonotonicRead, anomaly.GSingle}
	}
	return []string{anomaly.CausalityViolation, anomaly.GSingle}
}

func adjacentRW(cycle []polygraph.Edge) bool {
	for i, e := range cycle {
		if e.Kind == polygraph.RW && cycle[(i+1)%len(cycle)].Kind == polygraph.RW {
			return true
		}
	}
	return false
}
