package interpret

import (
	"fmt"
	"slices"
	"strings"

	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/shrink"
	"github.com/isocheck/isocheck/verdict"
)

// Shrunk reports whether Txns is a counterexample shrunk from the history
// (minimal or not) rather than the checker's evidence as found.
func (a *Anomaly) Shrunk() bool { return a.Minimal || a.NotMinimal != "" }

// indices returns the history indices of a's transactions, ascending.
func (a *Anomaly) indices() []int32 {
	out := make([]int32, len(a.Txns))
	for i, t := range a.Txns {
		out[i] = int32(t.Index)
	}
	slices.Sort(out)
	return out
}

// setMinimality records in an, whose Txns are a counterexample cut from
// h, what m says of them at level l: Minimal, or NotMinimal with the
// reason, in the report's names; and, last of its notes, the one that
// says how many of h's transactions are left out and whether the rest is
// minimal (see hasShrunkNote).
func setMinimality(an *Anomaly, h *history.History, m shrink.Minimality, l string) {
	an.Minimal = m.Minimal()
	an.NotMinimal = ""
	if !an.Minimal {
		an.NotMinimal = notMinimal(an, h, m, l)
	}
	if n := shrunkNote(an, len(h.Txns), m.Violates, l); n != "" {
		an.Notes = append(an.Notes, n)
	}
}

// hasShrunkNote reports whether setMinimality gave an, a counterexample
// cut from a history of historyTxns transactions, a note.
func hasShrunkNote(an *Anomaly, historyTxns int) bool {
	return an.Shrunk() && (len(an.Txns) < historyTxns || !an.Minimal) && len(an.Notes) > 0
}

// notMinimal says why a counterexample that m does not call minimal is
// not: "T1 is kept as a writer T3's read of status may have read from
// (without it, the rest still violate RC)".
func notMinimal(an *Anomaly, h *history.History, m shrink.Minimality, l string) string {
	if !m.Violates {
		return fmt.Sprintf("they violate %s only with their reads reading from them, not from the other transactions that wrote the same values", l)
	}
	name := func(t int32) string {
		for _, x := range an.Txns {
			if x.Index == int(t) {
				return x.Name
			}
		}
		return h.Name(int(t))
	}
	reader := func(op int32) int32 {
		for _, x := range an.Txns {
			if tx := &h.Txns[x.Index]; tx.OpStart <= op && op < tx.OpEnd {
				return int32(x.Index)
			}
		}
		return -1
	}
	// Group the transactions by the reads that keep them.
	var keys []string
	groups := map[string][]string{}
	for _, r := range m.Removable {
		reads := make([]string, len(r.Reads))
		for i, op := range r.Reads {
			reads[i] = fmt.Sprintf("%s's read of %s", name(reader(op)), keyWord(verdict.ID(h.FormatKey(h.Ops[op].Key))))
		}
		k := strings.Join(reads, " and ")
		if _, ok := groups[k]; !ok {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], name(r.Txn))
	}
	parts := make([]string, len(keys))
	for i, k := range keys {
		names := groups[k]
		txns, without := names[0], "it"
		switch n := len(names); {
		case n == 2:
			txns, without = names[0]+" and "+names[1], "either"
		case n > 2:
			txns, without = strings.Join(names[:n-1], ", ")+" and "+names[n-1], "any one of them"
		}
		switch {
		case k == "":
			parts[i] = fmt.Sprintf("without %s the rest still violate %s", strings.Replace(txns, " and ", " or ", 1), l)
		case len(names) == 1:
			parts[i] = fmt.Sprintf("%s is kept as a writer %s may have read from, though without %s the rest still violate %s", txns, k, without, l)
		default:
			parts[i] = fmt.Sprintf("%s are kept as writers %s may have read from, though without %s the rest still violate %s", txns, k, without, l)
		}
	}
	return strings.Join(parts, "; ")
}

// shrunkNote says of a shrunk counterexample how many of the history's
// historyTxns transactions it leaves out and whether it is minimal, or
// returns "" for a minimal one that leaves none out. violates says that
// its transactions violate l on their own whichever writers their reads
// read from.
func shrunkNote(an *Anomaly, historyTxns int, violates bool, l string) string {
	var b strings.Builder
	if removed := historyTxns - len(an.Txns); removed > 0 {
		are := "are"
		if removed == 1 {
			are = "is"
		}
		fmt.Fprintf(&b, "%d of the history's %d transactions %s left out: ", removed, historyTxns, are)
	} else if an.Minimal {
		return ""
	}
	switch {
	case an.Minimal:
		fmt.Fprintf(&b, "the %d shown violate %s on their own, and without any one of them the rest would not", len(an.Txns), l)
	case violates:
		fmt.Fprintf(&b, "the %d shown violate %s on their own, but are not a minimal counterexample: %s", len(an.Txns), l, an.NotMinimal)
	default:
		fmt.Fprintf(&b, "the %d shown are not a minimal counterexample: %s", len(an.Txns), an.NotMinimal)
	}
	return b.String()
}
