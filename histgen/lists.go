package histgen

import (
	"math/rand/v2"
	"slices"

	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/verdict"
)

// block is a transaction's appends to a key, in program order.
type block struct {
	txn  int
	vals []history.Value
}

// readListsRandomly draws every read of the list history h as Random
// does: per key, two random orders of the blocks of the transactions that
// did not abort; each read takes the first order (mostly) or the second,
// cut after a random number of the blocks of the other transactions,
// followed by the reader's own appends to the key before the read.
func readListsRandomly(rng *rand.Rand, h *history.History) *history.History {
	in := newInjector(h)
	perms := make([][2][]block, h.NumKeys())
	for k := range perms {
		bs := in.blocks(history.Key(k), -1)
		for j := range 2 {
			p := slices.Clone(bs)
			rng.Shuffle(len(p), func(a, b int) { p[a], p[b] = p[b], p[a] })
			perms[k][j] = p
		}
	}
	for t := range in.ops {
		for i, op := range in.ops[t] {
			if op.Kind != history.Read {
				continue
			}
			perm := perms[op.Key][0]
			if rng.IntN(4) == 0 {
				perm = perms[op.Key][1]
			}
			var others []block
			for _, b := range perm {
				if b.txn != t {
					others = append(others, b)
				}
			}
			var l []history.Value
			for _, b := range others[:rng.IntN(len(others)+1)] {
				l = append(l, b.vals...)
			}
			in.lists[t][i] = append(l, in.ownAppends(t, i, op.Key)...)
		}
	}
	return in.build()
}

// stateOrders states, with probability p per key of the list history h,
// the key's version order: a prefix of its committed list global[k] that
// ends after some writer's appends. With probability bad, the stated
// order is wrong instead: the last two runs of writers swapped, cut
// inside the last run, or one element left out.
func stateOrders(rng *rand.Rand, h *history.History, global [][]history.Value, p, bad float64) *history.History {
	writer := make(map[[2]int64]int)
	for t := range h.Txns {
		for _, op := range h.OpsOf(t) {
			if op.Kind == history.Write {
				writer[[2]int64{int64(op.Key), int64(op.Value)}] = t
			}
		}
	}
	for k, l := range global {
		if len(l) == 0 || rng.Float64() >= p {
			continue
		}
		var cuts []int // the ends of the writers' runs
		for i := range l {
			if i+1 == len(l) || writer[[2]int64{int64(k), int64(l[i])}] != writer[[2]int64{int64(k), int64(l[i+1])}] {
				cuts = append(cuts, i+1)
			}
		}
		c := rng.IntN(len(cuts))
		vals := slices.Clone(l[:cuts[c]])
		if rng.Float64() < bad {
			start := 0 // of the last run
			if c > 0 {
				start = cuts[c-1]
			}
			switch {
			case c > 0 && rng.IntN(3) == 0:
				prev := 0
				if c > 1 {
					prev = cuts[c-2]
				}
				vals = concat(vals[:prev], vals[start:], vals[prev:start])
			case len(vals)-start >= 2 && rng.IntN(2) == 0:
				vals = vals[:start+1+rng.IntN(len(vals)-start-1)]
			default:
				i := rng.IntN(len(vals))
				vals = slices.Delete(vals, i, i+1)
			}
		}
		h.Orders = append(h.Orders, history.VersionOrder{Key: history.Key(k), Values: vals})
	}
	return h
}

// blocks returns the blocks of k of the transactions other than not that
// did not abort, in history order.
func (in *injector) blocks(k history.Key, not int) []block {
	var bs []block
	for t := range in.ops {
		if t == not || invisible(in.status[t]) {
			continue
		}
		var vals []history.Value
		for _, op := range in.ops[t] {
			if op.Kind == history.Write && op.Key == k {
				vals = append(vals, op.Value)
			}
		}
		if len(vals) > 0 {
			bs = append(bs, block{t, vals})
		}
	}
	return bs
}

// ownAppends returns t's appends to k before its operation i.
func (in *injector) ownAppends(t, i int, k history.Key) []history.Value {
	var vals []history.Value
	for _, op := range in.ops[t][:i] {
		if op.Kind == history.Write && op.Key == k {
			vals = append(vals, op.Value)
		}
	}
	return vals
}

// writerOf returns the transaction that appends v to k, or -1.
func (in *injector) writerOf(k history.Key, v history.Value) int {
	for t := range in.ops {
		for _, op := range in.ops[t] {
			if op.Kind == history.Write && op.Key == k && op.Value == v {
				return t
			}
		}
	}
	return -1
}

// runs splits the list l of k into its writers' runs.
func (in *injector) runs(k history.Key, l []history.Value) [][]history.Value {
	var rs [][]history.Value
	for i := 0; i < len(l); {
		w, j := in.writerOf(k, l[i]), i+1
		for j < len(l) && in.writerOf(k, l[j]) == w {
			j++
		}
		rs = append(rs, l[i:j])
		i = j
	}
	return rs
}

// readListWith makes one external read of k in r return f(its list): an
// existing one if r has one, else a new first operation, given f(nil).
func (in *injector) readListWith(rng *rand.Rand, r int, k history.Key, f func(old []history.Value) []history.Value) {
	var cands []int
	for _, i := range in.externalReads(r) {
		if in.ops[r][i].Key == k {
			cands = append(cands, i)
		}
	}
	if len(cands) > 0 {
		i := cands[rng.IntN(len(cands))]
		in.lists[r][i] = f(slices.Clone(in.lists[r][i]))
		return
	}
	in.insert(r, 0, history.Op{Kind: history.Read, Key: k})
	in.lists[r][0] = f(nil)
}

// concat returns the concatenation of the lists.
func concat(ls ...[]history.Value) []history.Value {
	var out []history.Value
	for _, l := range ls {
		out = append(out, l...)
	}
	return out
}

// injectList is inject for list histories. A read's list is changed as a
// whole: ThinAirRead puts a fresh element in it; AbortedRead ends it with
// an aborted transaction's appends; FutureRead ends it with an append the
// transaction makes later; NotMyOwnWrite drops the own appends from a
// read after them; NotMyLastWrite drops the last one; IntermediateRead
// reads another transaction's appends to a key without their last;
// NonRepeatableRead reads a key again, right after, and gets another
// list; DuplicateElements, IncompatibleOrder and SplitAppends are as
// their names say.
func (in *injector) injectList(rng *rand.Rand, r int, f verdict.Anomaly) bool {
	wr := func(k history.Key, v history.Value) history.Op {
		return history.Op{Kind: history.Write, Key: k, Value: v}
	}
	rd := func(k history.Key) history.Op { return history.Op{Kind: history.Read, Key: k} }
	randomKey := func() history.Key { return history.Key(rng.IntN(in.h.NumKeys())) }
	switch f {
	case verdict.ThinAirRead:
		k := randomKey()
		if ext := in.externalReads(r); len(ext) > 0 {
			k = in.ops[r][ext[rng.IntN(len(ext))]].Key
		}
		v := in.fresh(k)
		in.readListWith(rng, r, k, func(l []history.Value) []history.Value {
			return slices.Insert(l, rng.IntN(len(l)+1), v)
		})

	case verdict.AbortedRead:
		hasWrite := func(t int) bool { return len(finalWrites(in.ops[t])) > 0 }
		ws := in.others(r, func(t int) bool { return invisible(in.status[t]) && hasWrite(t) })
		if len(ws) == 0 {
			if ws = in.others(r, hasWrite); len(ws) == 0 {
				return false
			}
		}
		w := ws[rng.IntN(len(ws))]
		in.status[w] = history.Aborted
		fw := finalWrites(in.ops[w])
		k := fw[rng.IntN(len(fw))].Key
		b := in.ownAppends(w, len(in.ops[w]), k)
		in.readListWith(rng, r, k, func(l []history.Value) []history.Value {
			l = slices.DeleteFunc(l, func(v history.Value) bool { return slices.Contains(b, v) })
			return append(l, b...)
		})

	case verdict.FutureRead:
		k := in.unwrittenKey(rng, r)
		if ext := in.externalReads(r); len(ext) > 0 {
			k = in.ops[r][ext[rng.IntN(len(ext))]].Key
		}
		v := in.fresh(k)
		in.readListWith(rng, r, k, func(l []history.Value) []history.Value { return append(l, v) })
		in.appendOps(r, wr(k, v))

	case verdict.NotMyOwnWrite:
		if idx, _ := in.internalReads(r); len(idx) > 0 {
			i := idx[rng.IntN(len(idx))]
			own := in.ownAppends(r, i, in.ops[r][i].Key)
			in.lists[r][i] = slices.DeleteFunc(in.lists[r][i], func(v history.Value) bool { return slices.Contains(own, v) })
		} else {
			k := in.unwrittenKey(rng, r)
			var l []history.Value
			if bs := in.blocks(k, r); len(bs) > 0 {
				l = bs[rng.IntN(len(bs))].vals
			}
			in.appendOps(r, wr(k, in.fresh(k)), rd(k))
			in.lists[r][len(in.ops[r])-1] = slices.Clone(l)
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
			own := in.ownAppends(r, i, in.ops[r][i].Key)
			l := in.lists[r][i]
			in.lists[r][i] = slices.DeleteFunc(l, func(v history.Value) bool { return v == own[len(own)-1] })
		} else {
			k := in.unwrittenKey(rng, r)
			a, b := in.fresh(k), in.fresh(k)
			in.appendOps(r, wr(k, a), wr(k, b), rd(k))
			in.lists[r][len(in.ops[r])-1] = []history.Value{a}
		}

	case verdict.IntermediateRead, verdict.SplitAppends:
		ws := in.others(r, func(t int) bool { return !invisible(in.status[t]) })
		if len(ws) == 0 {
			return false
		}
		// A transaction with two appends to a key, made so if needed: a
		// fresh append before its first one to the key, or two to a key.
		type txnKey struct {
			t int
			k history.Key
		}
		var w int
		var k history.Key
		var cands []txnKey
		for _, t := range ws {
			for _, fw := range finalWrites(in.ops[t]) {
				if b := in.ownAppends(t, len(in.ops[t]), fw.Key); len(b) >= 2 {
					cands = append(cands, txnKey{t, fw.Key})
				}
			}
		}
		if len(cands) > 0 {
			c := cands[rng.IntN(len(cands))]
			w, k = c.t, c.k
		} else {
			w = ws[rng.IntN(len(ws))]
			if fw := finalWrites(in.ops[w]); len(fw) > 0 {
				k = fw[rng.IntN(len(fw))].Key
				at := slices.IndexFunc(in.ops[w], func(op history.Op) bool { return op.Kind == history.Write && op.Key == k })
				in.insert(w, at, wr(k, in.fresh(k)))
			} else {
				k = randomKey()
				in.appendOps(w, wr(k, in.fresh(k)), wr(k, in.fresh(k)))
			}
		}
		b := in.ownAppends(w, len(in.ops[w]), k)
		l := b[:len(b)-1] // IntermediateRead: all but the last
		if f == verdict.SplitAppends {
			l = b[1:] // the first missing
			var elems []history.Value
			for _, ob := range in.blocks(k, w) {
				if ob.txn != r {
					elems = append(elems, ob.vals...)
				}
			}
			if len(elems) > 0 {
				l = concat(b[:1], elems[rng.IntN(len(elems)):][:1], b[1:])
			}
		}
		in.readListWith(rng, r, k, func([]history.Value) []history.Value { return slices.Clone(l) })

	case verdict.NonRepeatableRead:
		ext := in.externalReads(r)
		var i int
		var k history.Key
		if len(ext) > 0 {
			i = ext[rng.IntN(len(ext))]
			k = in.ops[r][i].Key
		} else {
			k = in.unwrittenKey(rng, r)
			in.insert(r, 0, rd(k))
		}
		first := in.lists[r][i]
		// Another list of k: one read elsewhere, the empty one, a block,
		// or, when all are first, first with a fresh element.
		cands := [][]history.Value{nil}
		for t := range in.ops {
			for j, op := range in.ops[t] {
				if op.Kind == history.Read && op.Key == k {
					cands = append(cands, in.lists[t][j])
				}
			}
		}
		for _, b := range in.blocks(k, r) {
			cands = append(cands, b.vals)
		}
		cands = slices.DeleteFunc(cands, func(l []history.Value) bool { return slices.Equal(l, first) })
		second := append(slices.Clone(first), in.fresh(k))
		if len(cands) > 0 {
			second = slices.Clone(cands[rng.IntN(len(cands))])
		}
		in.insert(r, i+1, rd(k))
		in.lists[r][i+1] = second

	case verdict.DuplicateElements:
		var nonEmpty []int
		for _, i := range in.externalReads(r) {
			if len(in.lists[r][i]) > 0 {
				nonEmpty = append(nonEmpty, i)
			}
		}
		if len(nonEmpty) > 0 {
			i := nonEmpty[rng.IntN(len(nonEmpty))]
			l := in.lists[r][i]
			in.lists[r][i] = slices.Insert(l, rng.IntN(len(l)+1), l[rng.IntN(len(l))])
			break
		}
		k := randomKey()
		bs := in.blocks(k, r)
		if len(bs) == 0 {
			return false
		}
		b := bs[rng.IntN(len(bs))].vals
		in.readListWith(rng, r, k, func([]history.Value) []history.Value { return concat(b, b[len(b)-1:]) })

	case verdict.IncompatibleOrder:
		// A list another committed transaction read, with its last two
		// runs swapped.
		type src struct {
			k history.Key
			l []history.Value
		}
		var srcs []src
		for t := range in.ops {
			if t == r || in.status[t] != history.Committed {
				continue
			}
			for j, op := range in.ops[t] {
				if op.Kind == history.Read && len(in.runs(op.Key, in.lists[t][j])) >= 2 {
					srcs = append(srcs, src{op.Key, in.lists[t][j]})
				}
			}
		}
		if len(srcs) > 0 {
			s := srcs[rng.IntN(len(srcs))]
			rs := in.runs(s.k, s.l)
			n := len(rs)
			l := concat(append(rs[:n-2:n-2], rs[n-1], rs[n-2])...)
			in.readListWith(rng, r, s.k, func([]history.Value) []history.Value { return l })
			break
		}
		// Else two reads of a key in both orders of two blocks.
		var bs []block
		var k history.Key
		for _, i := range rng.Perm(in.h.NumKeys()) {
			if k, bs = history.Key(i), in.blocks(history.Key(i), r); len(bs) >= 2 {
				break
			}
		}
		if len(bs) < 2 {
			return false
		}
		p := rng.Perm(len(bs))
		a, b := bs[p[0]].vals, bs[p[1]].vals
		in.insert(r, 0, rd(k), rd(k))
		in.lists[r][0], in.lists[r][1] = concat(a, b), concat(b, a)

	default:
		return false
	}
	return true
}
