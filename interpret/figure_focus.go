package interpret

import (
	"fmt"
	"slices"

	"github.com/isocheck/isocheck/draw"
	"github.com/isocheck/isocheck/verdict"
)

// tooLargeToDraw reports whether a picture of steps would pass the bounds
// draw gives graphs (draw.MaxNodes, draw.MaxEdges).
func tooLargeToDraw(steps []Step) bool {
	return len(ends(steps)) > draw.MaxNodes || len(steps) > draw.MaxEdges
}

// focus is what a picture of a large non-cycle anomaly of lists draws
// (see focusedReads).
type focus struct {
	steps []Step
	notes []string
	// reads are the last reads of the keys whose last reads part, each
	// with the first element past the prefix they share: the picture
	// draws their transactions and marks those elements.
	reads []focusRead
}

type focusRead struct{ txn, op, from int }

// focusedReads returns the dependencies to draw of a non-cycle anomaly of
// lists too large to draw whole (an incompatible order seen through
// lists of hundreds of appends): the WR dependencies of the last reads of
// each key (those no other read of the key extends) from the writers of
// the elements past the prefix those reads share, where the lists part;
// the appends of that prefix, the same in every one of them, explain
// nothing. A read of a write that did not commit keeps its dependency
// wherever it lies. It returns nil when no key has two last reads that
// part, or when the picture would still be too large to draw; else the
// dependencies, the last reads, and notes that say what the picture
// leaves out.
func (a *Anomaly) focusedReads() *focus {
	type read struct {
		txn, op int
		list    []Value
	}
	byKey := map[verdict.ID][]read{}
	var keys []verdict.ID
	for ti, t := range a.Txns {
		for oi, op := range t.Ops {
			if op.Kind != "r" || op.Value.Kind() != KindList {
				continue
			}
			if _, ok := byKey[op.Key]; !ok {
				keys = append(keys, op.Key)
			}
			byKey[op.Key] = append(byKey[op.Key], read{ti, oi, op.Value.List()})
		}
	}
	// last[key] holds the reads of key that no other read extends, and
	// shared[key] the length of the prefix they share, for the keys whose
	// last reads part.
	last := map[verdict.ID]map[[2]int]bool{}
	shared := map[verdict.ID]int{}
	f := &focus{}
	for _, key := range keys {
		reads := byKey[key]
		var lastReads []read
		for _, r := range reads {
			if !slices.ContainsFunc(reads, func(o read) bool { return len(o.list) > len(r.list) && hasPrefix(o.list, r.list) }) {
				lastReads = append(lastReads, r)
			}
		}
		n := len(lastReads[0].list)
		parted := false
		for _, r := range lastReads[1:] {
			n = min(n, commonPrefix(lastReads[0].list, r.list))
			parted = parted || !slices.EqualFunc(r.list, lastReads[0].list, sameValue)
		}
		if !parted {
			continue
		}
		last[key] = map[[2]int]bool{}
		for _, r := range lastReads {
			last[key][[2]int{r.txn, r.op}] = true
			f.reads = append(f.reads, focusRead{r.txn, r.op, 0})
		}
		shared[key] = n
		for i := len(f.reads) - len(lastReads); i < len(f.reads); i++ {
			f.reads[i].from = n
		}
		if n > 0 {
			prefix := lastReads[0].list[:n]
			hold := "both its last reads hold"
			if len(lastReads) > 2 {
				hold = fmt.Sprintf("all %d of its last reads hold", len(lastReads))
			}
			f.notes = append(f.notes, fmt.Sprintf("left out of the picture: the %d %s to %s that %s in the same order (%s), and the reads of %s that saw no more than those",
				n, pick(n, "append", "appends"), keyWord(key), hold, elided(prefix), keyWord(key)))
		}
	}
	if len(last) == 0 {
		return nil
	}
	var out []Step
	seen := map[string]bool{}
	for _, s := range a.Edges {
		if k := stepKey(s); !seen[k] {
			seen[k] = true
			out = append(out, s)
		}
	}
	out = append(out, a.readSteps(out, func(reader, op, elem int, writer *TxnInfo) bool {
		key := a.Txns[reader].Ops[op].Key
		isLast, focused := last[key]
		return !focused || writer.Status != "committed" || isLast[[2]int{reader, op}] && elem >= shared[key]
	})...)
	if tooLargeToDraw(out) {
		return nil
	}
	f.steps = out
	return f
}

// hasPrefix reports whether list begins with prefix.
func hasPrefix(list, prefix []Value) bool {
	return len(prefix) <= len(list) && slices.EqualFunc(list[:len(prefix)], prefix, sameValue)
}

// commonPrefix returns the length of the prefix x and y share.
func commonPrefix(x, y []Value) int {
	n := 0
	for n < len(x) && n < len(y) && sameValue(x[n], y[n]) {
		n++
	}
	return n
}

// elided writes a list of values, its middle left out when it is long.
func elided(vs []Value) string {
	if len(vs) <= 6 {
		return fmt.Sprint(vs)
	}
	return fmt.Sprintf("[%v %v %v … %v %v]", vs[0], vs[1], vs[2], vs[len(vs)-2], vs[len(vs)-1])
}
