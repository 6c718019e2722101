package online

import (
	"github.com/isocheck/isocheck/history"
)

// settled returns h without the reads whose value no transaction of h
// wrote: their writer is not seen yet (it may complete later, or it was
// left out of the part of the input h was read from). It also reports
// whether some key was written the same value twice, when a read's writer
// can be one of several.
//
// Leaving out reads, and transactions, only takes constraints away: a
// level's axioms say, of the transactions and reads there are, which
// orders must hold. A history that breaks a level without them breaks it
// with them, provided each read kept has the same writers in the whole
// history as in h, which holds when every value is written once per key.
// A read of a list is kept when every element has a writer in h.
func settled(h *history.History) (*history.History, bool) {
	type kv struct {
		k history.Key
		v history.Value
	}
	written := make(map[kv]struct{}, len(h.Ops)/2)
	repeated := false
	for _, op := range h.Ops {
		if op.Kind != history.Write {
			continue
		}
		if _, ok := written[kv{op.Key, op.Value}]; ok {
			repeated = true
		}
		written[kv{op.Key, op.Value}] = struct{}{}
	}
	seen := func(k history.Key, v history.Value) bool {
		if v == h.Init {
			return true
		}
		_, ok := written[kv{k, v}]
		return ok
	}
	keep := func(i int32) bool {
		op := h.Ops[i]
		if op.Kind != history.Read {
			return true
		}
		if !h.Lists {
			return seen(op.Key, op.Value)
		}
		for _, v := range h.ListOf(i) {
			if !seen(op.Key, v) {
				return false
			}
		}
		return true
	}
	drop := 0
	for i := range h.Ops {
		if !keep(int32(i)) {
			drop++
		}
	}
	if drop == 0 {
		return h, repeated
	}
	out := *h
	out.Txns = make([]history.Txn, len(h.Txns))
	out.Ops = make([]history.Op, 0, len(h.Ops)-drop)
	out.ListReads = nil
	for t := range h.Txns {
		tx := h.Txns[t]
		start := int32(len(out.Ops))
		for i := tx.OpStart; i < tx.OpEnd; i++ {
			if !keep(i) {
				continue
			}
			if h.Lists && h.Ops[i].Kind == history.Read {
				if l := h.ListOf(i); len(l) > 0 {
					out.ListReads = append(out.ListReads, history.ListRead{Op: int32(len(out.Ops)), Values: l})
				}
			}
			out.Ops = append(out.Ops, h.Ops[i])
		}
		tx.OpStart, tx.OpEnd = start, int32(len(out.Ops))
		out.Txns[t] = tx
	}
	// A stated order of values not all written here says more than h
	// knows: leave it out.
	out.Orders = nil
	for _, o := range h.Orders {
		all := true
		for _, v := range o.Values {
			all = all && seen(o.Key, v)
		}
		if all {
			out.Orders = append(out.Orders, o)
		}
	}
	return &out, repeated
}
