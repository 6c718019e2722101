package interpret

import "slices"

// Elle's lattice of consistency models and anomalies, by which its result
// map names every model the anomalies found rule out (:not, the weakest
// of them, and :also-not, the others). The relations are those of
// jepsen-io/elle's elle.consistency-model, which cites, model by model,
// Adya ("Weak Consistency: A Generalized Theory and Optimistic
// Implementations for Distributed Transactions", MIT PhD thesis, 1999,
// Chapters 3-4), Bailis et al. ("Highly Available Transactions: Virtues
// and Limitations", VLDB 2014, Figure 2), Cerone, Bernardi and Gotsman
// ("A Framework for Transactional Consistency Models with Atomic
// Visibility", CONCUR 2015) and Daudjee and Salem (strong session SI,
// ICDE 2006). Models go by Elle's friendly names (read-committed, not
// PL-2).

// elleImplies relates each model to the models it implies: a history
// that satisfies a model satisfies each model it implies.
var elleImplies = map[string][]string{
	"strict-serializable":               {"serializable", "snapshot-isolation", "strong-snapshot-isolation", "strong-session-serializable", "linearizable"},
	"strong-session-serializable":       {"serializable", "strong-session-snapshot-isolation"},
	"strong-snapshot-isolation":         {"strong-session-snapshot-isolation", "strong-read-committed"},
	"strong-session-snapshot-isolation": {"snapshot-isolation", "strong-session-read-committed"},
	"strong-read-committed":             {"strong-session-read-committed", "strong-read-uncommitted"},
	"strong-session-read-committed":     {"read-committed", "strong-session-read-uncommitted"},
	"strong-read-uncommitted":           {"strong-session-read-uncommitted"},
	"strong-session-read-uncommitted":   {"read-uncommitted"},
	"serializable":                      {"repeatable-read", "snapshot-isolation", "view-serializable", "update-serializable"},
	"update-serializable":               {"forward-consistent-view"},
	"forward-consistent-view":           {"consistent-view"},
	"consistent-view":                   {"cursor-stability", "monotonic-view"},
	"snapshot-isolation":                {"forward-consistent-view", "monotonic-atomic-view", "monotonic-snapshot-read", "parallel-snapshot-isolation", "prefix"},
	"parallel-snapshot-isolation":       {"causal-cerone", "update-atomic"},
	"prefix":                            {"causal-cerone"},
	"causal-cerone":                     {"read-atomic"},
	"update-atomic":                     {"read-atomic"},
	"read-atomic":                       {"monotonic-atomic-view"},
	"repeatable-read":                   {"cursor-stability", "monotonic-atomic-view"},
	"cursor-stability":                  {"read-committed"},
	"monotonic-atomic-view":             {"read-committed"},
	"monotonic-view":                    {"read-committed"},
	"monotonic-snapshot-read":           {"read-committed"},
	"read-committed":                    {"read-uncommitted"},
}

// elleAnomalyImplies relates each anomaly to the anomalies its presence
// implies (a G0 cycle is a G1c cycle with no reads; a cycle is one with
// session order or real time, trivially; G1 is any of G1a, G1b, G1c; a
// lost update is a write skew on one key).
var elleAnomalyImplies = map[string][]string{
	"G0":                     {"G1c", "G0-process"},
	"G0-process":             {"G1c-process", "G0-realtime"},
	"G0-realtime":            {"G1c-realtime"},
	"G1a":                    {"G1"},
	"G1b":                    {"G1"},
	"G1c":                    {"G1", "G1c-process"},
	"G1c-process":            {"G1c-realtime", "G1-process"},
	"G1c-realtime":           {"G1-realtime"},
	"G1":                     {"G1-process"},
	"G1-process":             {"G1-realtime"},
	"G-single":               {"G-nonadjacent", "G-single-process"},
	"G-single-process":       {"G-nonadjacent-process", "G-single-realtime"},
	"G-single-realtime":      {"G-nonadjacent-realtime"},
	"G-nonadjacent":          {"G2", "G-nonadjacent-process"},
	"G-nonadjacent-process":  {"G2-process", "G-nonadjacent-realtime"},
	"G-nonadjacent-realtime": {"G2-realtime"},
	"G2":                     {"G2-process"},
	"G2-item":                {"G2", "G2-item-process"},
	"G2-item-process":        {"G2-process", "G2-item-realtime"},
	"G2-item-realtime":       {"G2-realtime"},
	"G2-process":             {"G2-realtime"},
	"incompatible-order":     {"G1a"},
	"future-read":            {"G1c"},
	"lost-update":            {"write-skew", "G2-item"},
	"write-skew":             {"G2"},
}

// elleProscribes relates each model to the anomalies it forbids beside
// those of the models it implies, and the cycle-exists types that say
// its check found a cycle without showing it (see elleCycleExists).
var elleProscribes = map[string][]string{
	"read-uncommitted":                  {"G0", "duplicate-elements", "PL-1-cycle-exists"},
	"read-committed":                    {"G1", "PL-2-cycle-exists"},
	"strong-session-read-uncommitted":   {"G0-process"},
	"strong-session-read-committed":     {"G1c-process", "strong-session-PL-2-cycle-exists"},
	"strong-read-uncommitted":           {"G0-realtime"},
	"strong-read-committed":             {"G1c-realtime"},
	"cursor-stability":                  {"G1", "lost-update"},
	"monotonic-view":                    {"G1"},
	"monotonic-snapshot-read":           {"G1"},
	"consistent-view":                   {"G1", "G-single"},
	"repeatable-read":                   {"G1", "G2-item", "lost-update"},
	"update-atomic":                     {"lost-update"},
	"read-atomic":                       {"internal", "G1a", "future-read", "read-atomic-cycle-exists"},
	"causal-cerone":                     {"internal", "G1a", "causal-cerone-cycle-exists"},
	"prefix":                            {"internal", "G1a", "prefix-cycle-exists"},
	"parallel-snapshot-isolation":       {"internal", "G1a"},
	"snapshot-isolation":                {"internal", "G1", "G-nonadjacent", "PL-SI-cycle-exists"},
	"strong-session-snapshot-isolation": {"internal", "G1-process", "G-nonadjacent-process", "strong-session-snapshot-isolation-cycle-exists"},
	"strong-snapshot-isolation":         {"internal", "G1-realtime", "G-nonadjacent-realtime"},
	"serializable":                      {"internal", "G1", "G2", "PL-3-cycle-exists"},
	"strong-session-serializable":       {"G1-process", "G2-process", "strong-session-serializable-cycle-exists"},
	"strict-serializable":               {"G1", "G1c-realtime", "G2-realtime", "PL-SS-cycle-exists"},
}

// elleImpliesAll reports whether model a implies model b (or is b).
func elleImpliesAll(a, b string) bool {
	if a == b {
		return true
	}
	for _, c := range elleImplies[a] {
		if elleImpliesAll(c, b) {
			return true
		}
	}
	return false
}

// elleImpossible returns the models that anomalies of the given types
// rule out: those that forbid one of them or an anomaly they imply.
func elleImpossible(types []string) map[string]bool {
	present := map[string]bool{}
	var visit func(t string)
	visit = func(t string) {
		if present[t] {
			return
		}
		present[t] = true
		for _, u := range elleAnomalyImplies[t] {
			visit(u)
		}
	}
	for _, t := range types {
		visit(t)
	}
	out := map[string]bool{}
	for model, forbidden := range elleProscribes {
		if slices.ContainsFunc(forbidden, func(t string) bool { return present[t] }) {
			out[model] = true
		}
	}
	return out
}

// elleAllModels lists every model of the lattice, sorted.
func elleAllModels() []string {
	set := map[string]bool{}
	for m, weaker := range elleImplies {
		set[m] = true
		for _, w := range weaker {
			set[w] = true
		}
	}
	for m := range elleProscribes {
		set[m] = true
	}
	out := make([]string, 0, len(set))
	for m := range set {
		out = append(out, m)
	}
	slices.Sort(out)
	return out
}

// elleBoundary returns, of the models ruled out and every model that
// implies one, the weakest (Elle's :not) and the others (:also-not),
// sorted, as Elle's consistency-model/boundary does.
func elleBoundary(ruledOut map[string]bool) (not, alsoNot []string) {
	all := map[string]bool{}
	for _, s := range elleAllModels() {
		for r := range ruledOut {
			if elleImpliesAll(s, r) {
				all[s] = true
			}
		}
	}
	for s := range all {
		weakest := true
		for r := range all {
			if r != s && elleImpliesAll(s, r) {
				weakest = false
			}
		}
		if weakest {
			not = append(not, s)
		} else {
			alsoNot = append(alsoNot, s)
		}
	}
	slices.Sort(not)
	slices.Sort(alsoNot)
	return not, alsoNot
}
