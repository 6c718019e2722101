package histgen

import (
	"math/rand/v2"
	"slices"

	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/verdict"
)

// faults are the anomalies inside one transaction that Inject makes, the
// kind no simulated store produces. Injected into a committed transaction,
// every one but NonRepeatableRead makes the history violate every level
// from read committed up; NonRepeatableRead violates read atomic and
// above. Every fault applies to list histories too, where it changes
// whole lists (see injectList); DuplicateElements, IncompatibleOrder and
// SplitAppends apply to list histories only. Each fault's meaning is its
// anomaly's (see package verdict).
var faults = []verdict.Anomaly{
	verdict.ThinAirRead, verdict.AbortedRead, verdict.FutureRead, verdict.NotMyOwnWrite,
	verdict.NotMyLastWrite, verdict.IntermediateRead, verdict.NonRepeatableRead,
	verdict.DuplicateElements, verdict.IncompatibleOrder, verdict.SplitAppends,
}

// Faults returns the anomalies Inject makes.
func Faults() []verdict.Anomaly { return slices.Clone(faults) }

// ListsOnly reports whether Inject makes fault f in list histories only.
func ListsOnly(f verdict.Anomaly) bool {
	return f == verdict.DuplicateElements || f == verdict.IncompatibleOrder || f == verdict.SplitAppends
}

// Inject returns a copy of h in which a committed transaction, chosen at
// random, shows fault f, one of Faults. It changes reads where it can and otherwise adds
// operations to that transaction (new writes get values no transaction
// writes to their key); AbortedRead may mark another transaction aborted
// and IntermediateRead may add writes to another transaction. It reports
// false, and returns h, when h has no committed transaction or no other
// transaction the fault needs, or f is for lists and h is not a list
// history. h must have at least one key and unique values per key. In a
// list history the faults change lists (see injectList).
func Inject(rng *rand.Rand, h *history.History, f verdict.Anomaly) (*history.History, bool) {
	in := newInjector(h)
	var committed []int
	for t := range h.Txns {
		if h.Txns[t].Status == history.Committed {
			committed = append(committed, t)
		}
	}
	if len(committed) == 0 || h.NumKeys() == 0 {
		return h, false
	}
	r := committed[rng.IntN(len(committed))]
	if h.Lists {
		if !in.injectList(rng, r, f) {
			return h, false
		}
	} else if ListsOnly(f) || !in.inject(rng, r, f) {
		return h, false
	}
	return in.build(), true
}

// invisible reports whether the writes of a transaction of status s took
// no effect: it aborted or rolled back.
func invisible(s history.Status) bool { return s == history.Aborted || s == history.RolledBack }

// injector holds a mutable copy of a history's transactions.
type injector struct {
	h      *history.History
	ops    [][]history.Op
	status []history.Status
	maxVal map[history.Key]history.Value // largest value written per key
	// lists, for a list history, holds per transaction the list each
	// operation read (nil for appends).
	lists [][][]history.Value
}

func newInjector(h *history.History) *injector {
	in := &injector{
		h:      h,
		ops:    make([][]history.Op, len(h.Txns)),
		status: make([]history.Status, len(h.Txns)),
		maxVal: make(map[history.Key]history.Value),
	}
	if h.Lists {
		in.lists = make([][][]history.Value, len(h.Txns))
	}
	for t := range h.Txns {
		in.ops[t] = append([]history.Op(nil), h.OpsOf(t)...)
		in.status[t] = h.Txns[t].Status
		if h.Lists {
			in.lists[t] = make([][]history.Value, len(in.ops[t]))
			for i := range in.ops[t] {
				in.lists[t][i] = slices.Clone(h.ListOf(h.Txns[t].OpStart + int32(i)))
			}
		}
		for _, op := range in.ops[t] {
			if m, ok := in.maxVal[op.Key]; op.Kind == history.Write && (!ok || op.Value > m) {
				in.maxVal[op.Key] = op.Value
			}
		}
	}
	return in
}

// fresh returns a value no transaction writes to k, nor the initial value.
func (in *injector) fresh(k history.Key) history.Value {
	v, ok := in.maxVal[k]
	if !ok || v < 0 {
		v = 0
	}
	if in.h.Init != history.Null && in.h.Init > v {
		v = in.h.Init
	}
	v++
	in.maxVal[k] = v
	return v
}

// externalReads returns the indices of t's reads of keys it has not
// written before them.
func (in *injector) externalReads(t int) []int {
	var idx []int
	written := make(map[history.Key]bool)
	for i, op := range in.ops[t] {
		if op.Kind == history.Write {
			written[op.Key] = true
		} else if !written[op.Key] {
			idx = append(idx, i)
		}
	}
	return idx
}

// internalReads returns the indices of t's reads of keys it wrote before,
// with the number of its writes of the key before the read.
func (in *injector) internalReads(t int) (idx, writes []int) {
	n := make(map[history.Key]int)
	for i, op := range in.ops[t] {
		if op.Kind == history.Write {
			n[op.Key]++
		} else if n[op.Key] > 0 {
			idx = append(idx, i)
			writes = append(writes, n[op.Key])
		}
	}
	return idx, writes
}

// finals returns the final write of k of every transaction but not that
// did not abort.
func (in *injector) finals(k history.Key, not int) []history.Value {
	var vals []history.Value
	for t := range in.ops {
		if t == not || invisible(in.status[t]) {
			continue
		}
		for _, w := range finalWrites(in.ops[t]) {
			if w.Key == k {
				vals = append(vals, w.Value)
			}
		}
	}
	return vals
}

// writes reports whether t writes k.
func (in *injector) writes(t int, k history.Key) bool {
	for _, op := range in.ops[t] {
		if op.Kind == history.Write && op.Key == k {
			return true
		}
	}
	return false
}

// readAs makes one external read of k in r return v: an existing one if r
// has one, else a new first operation.
func (in *injector) readAs(rng *rand.Rand, r int, k history.Key, v history.Value) {
	var cands []int
	for _, i := range in.externalReads(r) {
		if in.ops[r][i].Key == k {
			cands = append(cands, i)
		}
	}
	if len(cands) > 0 {
		in.ops[r][cands[rng.IntN(len(cands))]].Value = v
		return
	}
	in.insert(r, 0, history.Op{Kind: history.Read, Key: k, Value: v})
}

func (in *injector) insert(t, at int, ops ...history.Op) {
	in.ops[t] = append(in.ops[t][:at], append(ops, in.ops[t][at:]...)...)
	if in.lists != nil {
		in.lists[t] = append(in.lists[t][:at], append(make([][]history.Value, len(ops)), in.lists[t][at:]...)...)
	}
}

func (in *injector) appendOps(t int, ops ...history.Op) { in.insert(t, len(in.ops[t]), ops...) }

// unwrittenKey returns a random key r does not write, or any key if it
// writes them all.
func (in *injector) unwrittenKey(rng *rand.Rand, r int) history.Key {
	var ks []history.Key
	for k := range in.h.NumKeys() {
		if !in.writes(r, history.Key(k)) {
			ks = append(ks, history.Key(k))
		}
	}
	if len(ks) == 0 {
		return history.Key(rng.IntN(in.h.NumKeys()))
	}
	return ks[rng.IntN(len(ks))]
}

// others returns the transactions other than r that satisfy ok.
func (in *injector) others(r int, ok func(t int) bool) []int {
	var ts []int
	for t := range in.ops {
		if t != r && ok(t) {
			ts = append(ts, t)
		}
	}
	return ts
}

func (in *injector) inject(rng *rand.Rand, r int, f verdict.Anomaly) bool {
	rd := func(k history.Key, v history.Value) history.Op {
		return history.Op{Kind: history.Read, Key: k, Value: v}
	}
	wr := func(k history.Key, v history.Value) history.Op {
		return history.Op{Kind: history.Write, Key: k, Value: v}
	}
	switch f {
	case verdict.ThinAirRead:
		if ext := in.externalReads(r); len(ext) > 0 {
			i := ext[rng.IntN(len(ext))]
			in.ops[r][i].Value = in.fresh(in.ops[r][i].Key)
		} else {
			k := history.Key(rng.IntN(in.h.NumKeys()))
			in.insert(r, 0, rd(k, in.fresh(k)))
		}

	case verdict.AbortedRead:
		hasWrite := func(t int) bool { return len(finalWrites(in.ops[t])) > 0 }
		ws := in.others(r, func(t int) bool { return invisible(in.status[t]) && hasWrite(t) })
		if len(ws) == 0 {
			ws = in.others(r, hasWrite)
			if len(ws) == 0 {
				return false
			}
		}
		w := ws[rng.IntN(len(ws))]
		in.status[w] = history.Aborted
		fw := finalWrites(in.ops[w])
		pick := fw[rng.IntN(len(fw))]
		in.readAs(rng, r, pick.Key, pick.Value)

	case verdict.FutureRead:
		var k history.Key
		if ext := in.externalReads(r); len(ext) > 0 {
			k = in.ops[r][ext[rng.IntN(len(ext))]].Key
		} else {
			k = in.unwrittenKey(rng, r)
		}
		v := in.fresh(k)
		in.readAs(rng, r, k, v)
		in.appendOps(r, wr(k, v))

	case verdict.NotMyOwnWrite:
		if idx, _ := in.internalReads(r); len(idx) > 0 {
			i := idx[rng.IntN(len(idx))]
			k := in.ops[r][i].Key
			in.ops[r][i].Value = pickValue(rng, in.h.Init, in.finals(k, r))
		} else {
			k := in.unwrittenKey(rng, r)
			in.appendOps(r, wr(k, in.fresh(k)), rd(k, pickValue(rng, in.h.Init, in.finals(k, r))))
		}

	case verdict.NotMyLastWrite:
		idx, n := in.internalReads(r)
		var twice []int
		for j, i := range idx {
			if n[j] >= 2 {
				twice = append(twice, i)
			}
		}
		if len(twice) > 0 {
			i := twice[rng.IntN(len(twice))]
			k := in.ops[r][i].Key
			var earlier []history.Value
			for _, op := range in.ops[r][:i] {
				if op.Kind == history.Write && op.Key == k {
					earlier = append(earlier, op.Value)
				}
			}
			// Any own write of k before i but the last one.
			in.ops[r][i].Value = earlier[rng.IntN(len(earlier)-1)]
		} else {
			k := in.unwrittenKey(rng, r)
			a, b := in.fresh(k), in.fresh(k)
			in.appendOps(r, wr(k, a), wr(k, b), rd(k, a))
		}

	case verdict.IntermediateRead:
		type iw struct {
			t int
			k history.Key
			v history.Value
		}
		var cands []iw
		for _, t := range in.others(r, func(t int) bool { return !invisible(in.status[t]) }) {
			last := make(map[history.Key]history.Value)
			for _, w := range finalWrites(in.ops[t]) {
				last[w.Key] = w.Value
			}
			for _, op := range in.ops[t] {
				if op.Kind == history.Write && op.Value != last[op.Key] {
					cands = append(cands, iw{t, op.Key, op.Value})
				}
			}
		}
		if len(cands) == 0 {
			ws := in.others(r, func(t int) bool { return !invisible(in.status[t]) })
			if len(ws) == 0 {
				return false
			}
			w := ws[rng.IntN(len(ws))]
			// Overwrite a write of w just before its final write of the key,
			// or write a new key twice at its end.
			if fw := finalWrites(in.ops[w]); len(fw) > 0 {
				pick := fw[rng.IntN(len(fw))]
				at := 0
				for i, op := range in.ops[w] {
					if op.Kind == history.Write && op.Key == pick.Key {
						at = i
					}
				}
				v := in.fresh(pick.Key)
				in.insert(w, at, wr(pick.Key, v))
				cands = append(cands, iw{w, pick.Key, v})
			} else {
				k := history.Key(rng.IntN(in.h.NumKeys()))
				a, b := in.fresh(k), in.fresh(k)
				in.appendOps(w, wr(k, a), wr(k, b))
				cands = append(cands, iw{w, k, a})
			}
		}
		c := cands[rng.IntN(len(cands))]
		in.readAs(rng, r, c.k, c.v)

	case verdict.NonRepeatableRead:
		ext := in.externalReads(r)
		if len(ext) > 0 {
			i := ext[rng.IntN(len(ext))]
			first := in.ops[r][i]
			in.insert(r, i+1, rd(first.Key, in.otherValue(rng, r, first.Key, first.Value)))
		} else {
			k := in.unwrittenKey(rng, r)
			in.insert(r, 0, rd(k, in.h.Init), rd(k, in.otherValue(rng, r, k, in.h.Init)))
		}

	default:
		return false
	}
	return true
}

// otherValue returns a value of k other than v that r may read: the
// initial value or another transaction's final write, or, when there is
// none, a fresh value.
func (in *injector) otherValue(rng *rand.Rand, r int, k history.Key, v history.Value) history.Value {
	var cands []history.Value
	for _, c := range append(in.finals(k, r), in.h.Init) {
		if c != v {
			cands = append(cands, c)
		}
	}
	if len(cands) == 0 {
		return in.fresh(k)
	}
	return cands[rng.IntN(len(cands))]
}

// pickValue returns init or one of vals at random.
func pickValue(rng *rand.Rand, init history.Value, vals []history.Value) history.Value {
	i := rng.IntN(len(vals) + 1)
	if i == len(vals) {
		return init
	}
	return vals[i]
}

// build returns the mutated history.
func (in *injector) build() *history.History {
	h := in.h
	out := &history.History{
		Txns:         make([]history.Txn, len(h.Txns)),
		Sessions:     make([][]int32, len(h.Sessions)),
		SessionNames: h.SessionNames,
		KeyNames:     h.KeyNames,
		Init:         h.Init,
		Files:        h.Files,
		PosIsOffset:  h.PosIsOffset,
		ValueNames:   h.ValueNames,
		Lists:        h.Lists,
	}
	for _, o := range h.Orders {
		out.Orders = append(out.Orders, history.VersionOrder{Key: o.Key, Values: slices.Clone(o.Values)})
	}
	for s, txns := range h.Sessions {
		out.Sessions[s] = append([]int32(nil), txns...)
	}
	for t := range h.Txns {
		tx := h.Txns[t]
		tx.Status = in.status[t]
		tx.OpStart = int32(len(out.Ops))
		out.Ops = append(out.Ops, in.ops[t]...)
		tx.OpEnd = int32(len(out.Ops))
		if in.lists != nil {
			for i, l := range in.lists[t] {
				op := &out.Ops[int(tx.OpStart)+i]
				if op.Kind != history.Read {
					continue
				}
				op.Value = h.Init
				if len(l) > 0 {
					op.Value = l[len(l)-1]
					out.ListReads = append(out.ListReads, history.ListRead{Op: tx.OpStart + int32(i), Values: slices.Clone(l)})
				}
			}
		}
		out.Txns[t] = tx
	}
	return out
}
