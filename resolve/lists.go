package resolve

// This file reads what lists reveal. In a list history (Elle's
// list-append: Kingsbury and Alvaro, "Elle: Inferring Isolation Anomalies
// from Experimental Observations", VLDB 2020, Section 4) a read of [1 2 3]
// shows the version order of its key up to its length: the appends of 1,
// 2 and 3 were installed in that order, first after the initial state, and
// every append not in the list was installed after 3. So the reads of a
// key, if each is a prefix of the longest, fix the order of the writers
// they show, and every other writer comes after them; a stated version
// order (History.Orders) says the same. What they fix becomes known WW
// edges (package polygraph, and saturate for RC, RA and CC), and most list
// histories need no constraint at all.

import (
	"fmt"
	"slices"

	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/progress"
	"github.com/isocheck/isocheck/verdict"
)

// KeyOrder is the known beginning of a key's version order: the
// transactions whose writes of Key were installed first after the initial
// state, in order, each right after the one before; every other writer of
// Key was installed after the last of them.
type KeyOrder struct {
	Key     history.Key
	Writers []int32
	// Values are the values in installation order (a transaction's
	// appends in program order): the longest list read, or the stated
	// order when no read is longer.
	Values []history.Value
	// Op is the read that returned Values, or -1 for the stated order.
	Op int32
}

// listsOf returns the indices into h.ListReads of the lists read by
// transaction t.
func listsOf(h *history.History, t int) (lo, hi int) {
	tx := &h.Txns[t]
	lo, _ = slices.BinarySearchFunc(h.ListReads, tx.OpStart, func(r history.ListRead, op int32) int { return int(r.Op - op) })
	hi = lo
	for hi < len(h.ListReads) && h.ListReads[hi].Op < tx.OpEnd {
		hi++
	}
	return lo, hi
}

// longest is the longest list of a key seen so far, and who read it.
type longest struct {
	values []history.Value
	op     int32 // -1: the stated order
	txn    int32 // -1: the stated order
	set    bool
	// whole says orderOf checks every element, the last too: the list is
	// a stated order, or a rolled-back transaction's read without its own
	// appends, whose last element is no read's value.
	whole bool
}

// orderKeys finds, key by key, the longest list read by an included
// transaction (or stated), reports the reads that are not prefixes of it
// (IncompatibleOrder), checks its elements (ThinAirRead and AbortedRead
// for all but the last, which resolveReads checks; DuplicateElements;
// SplitAppends) and sets p.Orders for the keys without anomalies. A
// stated order is checked like a list (every element, the last too).
func (p *Resolution) orderKeys(m *progress.Meter, writes *writeIndex) error {
	h := p.History
	if len(h.ListReads) == 0 && len(h.Orders) == 0 {
		return nil
	}
	best := make([]longest, h.NumKeys())
	for _, o := range h.Orders {
		if int(o.Key) < 0 || int(o.Key) >= len(best) {
			return &InputError{fmt.Sprintf("a stated version order names key #%d, which the history does not have", o.Key)}
		}
		if best[o.Key].set {
			return &InputError{fmt.Sprintf("two stated version orders of key %s", h.FormatKey(o.Key))}
		}
		best[o.Key] = longest{values: o.Values, op: -1, txn: -1, set: true, whole: true}
		// A stated order that ends inside a transaction's appends says the
		// key held a state that transaction never committed (a read of it
		// is reported by resolveReads, and a longer list may hide it).
		if n := len(o.Values); n > 0 {
			if w, ok := writes.get(o.Key, o.Values[n-1]); ok && p.Installs(w.txn) && !p.finalWrite.has(w.op) {
				p.Anomalies = append(p.Anomalies, Anomaly{Kind: verdict.IntermediateRead, Txn: -1, Op: -1, Writer: w.txn, OtherOp: w.op, Key: o.Key, Value: o.Values[n-1]})
			}
		}
	}
	for t := range h.Txns {
		if err := tick(m, t, false); err != nil {
			return err
		}
		if !p.Included[t] {
			continue
		}
		rolledBack := h.Txns[t].Status == history.RolledBack
		lo, hi := listsOf(h, t)
		for _, lr := range h.ListReads[lo:hi] {
			k := h.Ops[lr.Op].Key
			values, cut := lr.Values, false
			if rolledBack {
				var ok bool
				if values, cut, ok = p.withoutOwnAppends(t, lr); !ok {
					continue
				}
			}
			b := &best[k]
			n := min(len(values), len(b.values))
			if !samePrefix(values[:n], b.values[:n]) {
				p.Anomalies = append(p.Anomalies, Anomaly{Kind: verdict.IncompatibleOrder, Txn: int32(t), Op: lr.Op, Writer: b.txn, OtherOp: b.op, Key: k, Value: lr.Values[len(lr.Values)-1]})
				continue
			}
			if len(values) > len(b.values) || !b.set {
				*b = longest{values: values, op: lr.Op, txn: int32(t), set: true, whole: cut}
			}
		}
	}
	if err := m.Err(); err != nil {
		return err
	}
	bad := make(map[history.Key]bool)
	for _, a := range p.Anomalies {
		if a.Kind == verdict.IncompatibleOrder {
			bad[a.Key] = true
		}
	}
	seen := make([]bool, len(h.Ops))
	runOf := make([]int32, len(h.Txns)) // key+1 of the last run a transaction was found in
	for k := range best {
		b := &best[k]
		if !b.set || len(b.values) == 0 {
			continue
		}
		if k&(progress.Every-1) == 0 {
			if err := m.Err(); err != nil {
				return err
			}
		}
		writers := p.orderOf(history.Key(k), b, writes, seen, runOf)
		if writers != nil && !bad[history.Key(k)] {
			p.Orders = append(p.Orders, KeyOrder{Key: history.Key(k), Writers: writers, Values: b.values, Op: b.op})
		}
	}
	return nil
}

// samePrefix reports whether a and b, of equal length, are equal. Lists
// that extend one another usually share memory (history.Builder makes
// them so), which makes most comparisons O(1).
func samePrefix(a, b []history.Value) bool {
	if len(a) == 0 || &a[0] == &b[0] {
		return true
	}
	return slices.Equal(a, b)
}

// orderOf checks the longest list b of key k and returns its writers in
// order, or nil after recording an anomaly. The anomalies of a stated
// order have Txn and Op -1. In a register history (a stated order, no
// list), every value must be its writer's last write of k.
func (p *Resolution) orderOf(k history.Key, b *longest, writes *writeIndex, seen []bool, runOf []int32) []int32 {
	h := p.History
	anomaly := func(kind verdict.Anomaly, w writeRef, v history.Value) {
		p.Anomalies = append(p.Anomalies, Anomaly{Kind: kind, Txn: b.txn, Op: b.op, Writer: w.txn, OtherOp: w.op, Key: k, Value: v})
	}
	var writers []int32
	cur, prevOp := int32(-1), int32(-1)
	last := len(b.values) - 1
	for i, v := range b.values {
		w, ok := writes.get(k, v)
		switch {
		case !ok:
			if i < last || b.whole { // a read's last element is resolveReads' to report
				anomaly(verdict.ThinAirRead, writeRef{-1, -1}, v)
			}
			return nil
		case !p.Installs(w.txn):
			if i < last || b.whole {
				anomaly(verdict.AbortedRead, w, v)
			}
			return nil
		case seen[w.op]:
			anomaly(verdict.DuplicateElements, w, v)
			return nil
		}
		seen[w.op] = true
		if !h.Lists {
			// A register's versions are its writers' last writes.
			if !p.finalWrite.has(w.op) {
				if i < last { // orderKeys reports the last
					anomaly(verdict.IntermediateRead, w, v)
				}
				return nil
			}
			writers = append(writers, w.txn)
			continue
		}
		if w.txn == cur {
			// The next append of the run: cur's next write of k.
			if w.op < prevOp || p.writesKeyIn(k, prevOp+1, w.op) {
				anomaly(verdict.SplitAppends, w, v)
				return nil
			}
			prevOp = w.op
			continue
		}
		// A new run: the one before must have ended with its
		// transaction's last append of k, and this one start with its
		// transaction's first, which no earlier run may have had.
		if cur >= 0 && !p.finalWrite.has(prevOp) {
			anomaly(verdict.SplitAppends, writeRef{cur, prevOp}, b.values[i-1])
			return nil
		}
		if runOf[w.txn] == int32(k)+1 || p.writesKeyIn(k, h.Txns[w.txn].OpStart, w.op) {
			anomaly(verdict.SplitAppends, w, v)
			return nil
		}
		runOf[w.txn] = int32(k) + 1
		writers = append(writers, w.txn)
		cur, prevOp = w.txn, w.op
	}
	return writers
}

// writesKeyIn reports whether any of operations from up to (not including)
// to writes k.
func (p *Resolution) writesKeyIn(k history.Key, from, to int32) bool {
	for _, op := range p.History.Ops[from:to] {
		if op.Kind == history.Write && op.Key == k {
			return true
		}
	}
	return false
}

// withoutOwnAppends returns list read lr of rolled-back transaction t
// without t's own appends to its key before the read, which must end it,
// whole and in program order; cut says some were removed. Those appends
// were never installed: what precedes them is the state t read. If the
// list does not end with them, it records a SplitAppends and reports
// false.
func (p *Resolution) withoutOwnAppends(t int, lr history.ListRead) (values []history.Value, cut, ok bool) {
	h := p.History
	k := h.Ops[lr.Op].Key
	var own []history.Value
	for _, op := range h.Ops[h.Txns[t].OpStart:lr.Op] {
		if op.Kind == history.Write && op.Key == k {
			own = append(own, op.Value)
		}
	}
	n := len(lr.Values) - len(own)
	if n < 0 || !slices.Equal(lr.Values[n:], own) {
		v := lr.Values[len(lr.Values)-1]
		if n >= 0 {
			for i, o := range own {
				if lr.Values[n+i] != o {
					v = lr.Values[n+i]
					break
				}
			}
		}
		p.Anomalies = append(p.Anomalies, Anomaly{Kind: verdict.SplitAppends, Txn: int32(t), Op: lr.Op, Writer: int32(t), OtherOp: -1, Key: k, Value: v})
		return nil, false, false
	}
	return lr.Values[:n], len(own) > 0, true
}
