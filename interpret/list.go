package interpret

import (
	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/shrink"
	"github.com/isocheck/isocheck/verdict"
)

// Histories of lists (history.History.Lists, Elle's list-append): a
// write appends its value to its key's list, and a read returns the whole
// list. Reports show them so: an append as append(x, 3) (Op.Kind
// "append"), a read with its whole list, r(x, [1 2 3]) (Op.Value a list,
// a JSON array), and the reasons speak of appends and lists.

// opOf returns operation i of h as a report shows it.
func opOf(h *history.History, i int32) Op {
	op := h.Ops[i]
	o := Op{Kind: op.Kind.String(), Key: verdict.ID(h.FormatKey(op.Key)), Value: valueOf(h, op.Value)}
	if h.Lists {
		if op.Kind == history.Write {
			o.Kind = "append"
		} else {
			o.Value = listOf(h, h.ListOf(i))
		}
	}
	return o
}

// listSource finds the lists of a report's history: the history itself,
// or, for a counterexample cut from a history of lists by a selection
// (whose sub-history may not carry the lists), the original history's
// operations behind the counterexample's.
type listSource struct {
	h *history.History // the report's history
	// orig and origOp, when set, map an operation of h to the
	// original's.
	orig   *history.History
	origOp []int32
}

// newListSource returns the lists of h, a sub-history of orig cut by sel
// (orig and sel nil: h itself), or nil when neither holds lists.
func newListSource(h, orig *history.History, sel *shrink.Selection) *listSource {
	switch {
	case h.Lists:
		return &listSource{h: h}
	case orig == nil || sel == nil || !orig.Lists:
		return nil
	}
	s := &listSource{h: h, orig: orig, origOp: make([]int32, len(h.Ops))}
	for t := range h.Txns {
		ot := orig.Txns[sel.Txns[t]]
		j := ot.OpStart
		tx := &h.Txns[t]
		for i := tx.OpStart; i < tx.OpEnd; i++ {
			s.origOp[i] = -1
			op := h.Ops[i]
			// The counterexample keeps its operations in program order,
			// a subsequence of the original's.
			for ; j < ot.OpEnd; j++ {
				o := orig.Ops[j]
				if o.Kind == op.Kind && orig.FormatKey(o.Key) == h.FormatKey(op.Key) && orig.FormatValue(o.Value) == h.FormatValue(op.Value) {
					s.origOp[i] = j
					j++
					break
				}
			}
		}
	}
	return s
}

// op returns operation i of the report's history as the report shows it.
func (s *listSource) op(i int32) Op {
	if s.orig != nil {
		if j := s.origOp[i]; j >= 0 {
			return opOf(s.orig, j)
		}
		o := opOf(s.h, i)
		if o.Kind == "w" {
			o.Kind = "append"
		}
		return o
	}
	return opOf(s.h, i)
}

// firstRead returns the list transaction t first read of key, if its
// first operation on key is a read.
func (s *listSource) firstRead(t int32, key history.Key) (Value, bool) {
	h := s.h
	if t < 0 || int(t) >= len(h.Txns) {
		return Value{}, false
	}
	tx := &h.Txns[t]
	for i := tx.OpStart; i < tx.OpEnd; i++ {
		if h.Ops[i].Key != key {
			continue
		}
		if h.Ops[i].Kind != history.Read {
			return Value{}, false
		}
		o := s.op(i)
		if o.Value.Kind() != KindList {
			return Value{}, false
		}
		return o.Value, true
	}
	return Value{}, false
}
