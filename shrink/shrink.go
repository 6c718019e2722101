// Package shrink reduces a history that violates an isolation level to a
// minimal counterexample: a sub-history that still violates the level on
// its own, and from which removing any one transaction makes it pass.
//
// A sub-history keeps a subset of the transactions, whole, with their
// sessions, session order, statuses, times, keys, values and names; a read
// stays when a transaction that wrote the value it read stays (it may then
// have read only from those), or when it read the initial value or a
// value nobody wrote, and goes otherwise (it would read from nowhere).
// This is the rule of docs/checking.md, "Minimal counterexamples".
//
// Shrinking is delta debugging by deletion over whole transactions: it
// removes chunks, then single transactions, re-checking each candidate,
// until no single removal keeps the violation. It keeps, besides, every
// writer a kept read may have read from (see Subject.Closed), so that
// the counterexample's violation is the whole history's whichever writer
// the read read from; Subject.Minimality says whether the result is minimal
// by the rule above, and if not, why. Only then does it drop the
// operations the violation does not need, which keeps reports short but
// changes nothing of what minimal means.
package shrink

import (
	"context"
	"fmt"
	"slices"

	"github.com/isocheck/isocheck/check"
	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/progress"
	"github.com/isocheck/isocheck/verdict"
)

// Selection picks a sub-history: the transactions kept (indices into the
// original history, ascending) and, optionally, operations dropped from
// them (indices into History.Ops).
type Selection struct {
	Txns    []int32
	DropOps map[int32]bool
}

// Subject is a history with an index of its writes, from which
// sub-histories are cut.
type Subject struct {
	H *history.History
	// writes indexes the writes of H by key and value.
	writes *Writes
	// stopped, when set, tells Transactions and Operations to stop and
	// return what they have.
	stopped func() bool
	// cut says that the last Minimize on the Subject stopped before it
	// was done (see CutShort).
	cut bool
}

// CutShort reports whether the last Minimize (or MinimizeWith) that
// returned the Subject stopped before it was done, as its context ended:
// the selection it returned, if any, violates the level, but it need not
// be minimal, and one it did not find may exist.
func (s *Subject) CutShort() bool { return s.cut }

// NewSubject indexes h's writes.
func NewSubject(h *history.History) *Subject {
	return &Subject{H: h, writes: NewWrites(h)}
}

// WriterOf returns the transaction that wrote the value read by operation
// i, or -1 (the initial value, or a value nobody wrote); the first, when
// values repeat (see WritersOf).
func (s *Subject) WriterOf(i int32) int32 {
	op := s.H.Ops[i]
	if op.Value == s.H.Init {
		return -1
	}
	if ws := s.writes.Of(op.Key, op.Value); len(ws) > 0 {
		return ws[0].Txn
	}
	return -1
}

// WritersOf returns every transaction that wrote the value read by
// operation i, in history order (the initial state aside).
func (s *Subject) WritersOf(i int32) []int32 {
	op := s.H.Ops[i]
	var out []int32
	for _, w := range s.writes.Of(op.Key, op.Value) {
		if len(out) == 0 || out[len(out)-1] != w.Txn {
			out = append(out, w.Txn)
		}
	}
	return out
}

// Sub builds the sub-history of sel. Its transaction i is sel.Txns[i] of
// the original; it keeps the original's names (IDs), input positions and
// initial value. A read stays when one of the writes of its key and value
// is kept (its transaction kept and its operation not dropped), or when
// it read the initial value or a value no transaction wrote; the
// sub-history then lets it choose among the writes kept only. Otherwise
// it is dropped: the write it saw is gone. A list read is kept when every
// element it holds stays by that rule, and a stated version order
// likewise.
func (s *Subject) Sub(sel Selection) *history.History {
	h := s.H
	keep := make(map[int32]bool, len(sel.Txns))
	for _, t := range sel.Txns {
		keep[t] = true
	}
	b := history.NewBuilder(h.Init, h.Files...)
	b.SetPosIsOffset(h.PosIsOffset)
	kept := func(k history.Key, v history.Value) bool {
		ws := s.writes.Of(k, v)
		if len(ws) == 0 || v == h.Init {
			return true
		}
		for _, w := range ws {
			if keep[w.Txn] && !sel.DropOps[w.Op] {
				return true
			}
		}
		return false
	}
	value := func(v history.Value) history.Value {
		if v >= history.StringBase && int(v-history.StringBase) < len(h.ValueNames) {
			return b.StringValue(h.ValueNames[v-history.StringBase])
		}
		return v
	}
	var ops []history.Op
	var lists [][]history.Value
	for _, t := range sel.Txns {
		tx := h.Txns[t]
		ops, lists = ops[:0], lists[:0]
		for i := tx.OpStart; i < tx.OpEnd; i++ {
			if sel.DropOps[i] {
				continue
			}
			op := h.Ops[i]
			if op.Kind == history.Read && !kept(op.Key, op.Value) {
				continue
			}
			// A list shows every element's writer: keep it whole or not
			// at all.
			var list []history.Value
			if op.Kind == history.Read && h.Lists {
				l := h.ListOf(i)
				if !allKept(l, func(v history.Value) bool { return kept(op.Key, v) }) {
					continue
				}
				for _, v := range l {
					list = append(list, value(v))
				}
			}
			op.Key = b.Key(h.FormatKey(op.Key))
			op.Value = value(op.Value)
			ops = append(ops, op)
			lists = append(lists, list)
		}
		nt := tx
		nt.ID = h.Name(int(t))
		nt.Session = b.Session(h.SessionName(int(tx.Session)))
		if h.Lists {
			b.AddListTxn(nt, ops, lists)
		} else {
			b.AddTxn(nt, ops)
		}
	}
	for _, o := range h.Orders {
		if allKept(o.Values, func(v history.Value) bool { return kept(o.Key, v) }) {
			values := make([]history.Value, len(o.Values))
			for i, v := range o.Values {
				values[i] = value(v)
			}
			b.AddOrder(b.Key(h.FormatKey(o.Key)), values)
		}
	}
	sub := b.History()
	sub.Lists = h.Lists
	return sub
}

// Closed returns sel with the reads of its transactions dropped besides
// that may have read from a write sel does not keep, where the value
// they read has several writers (the initial state among them, for the
// initial value): what stays of a read in Sub of the result may have
// read from every writer the whole history offers it. A sub-history
// closed so violates a level only if the whole history does, whichever
// writers its reads read from; Minimize shrinks closed selections.
func (s *Subject) Closed(sel Selection) Selection {
	h := s.H
	keep := make(map[int32]bool, len(sel.Txns))
	for _, t := range sel.Txns {
		keep[t] = true
	}
	every := func(k history.Key, v history.Value) bool {
		for _, w := range s.writes.Of(k, v) {
			if !keep[w.Txn] || sel.DropOps[w.Op] {
				return false
			}
		}
		return true
	}
	var drop map[int32]bool
	for _, t := range sel.Txns {
		tx := &h.Txns[t]
		for i := tx.OpStart; i < tx.OpEnd; i++ {
			op := &h.Ops[i]
			if op.Kind != history.Read || sel.DropOps[i] {
				continue
			}
			ok := every(op.Key, op.Value)
			if ok && h.Lists {
				ok = allKept(h.ListOf(i), func(v history.Value) bool { return every(op.Key, v) })
			}
			if !ok {
				if drop == nil {
					drop = maps(sel.DropOps)
				}
				drop[i] = true
			}
		}
	}
	if drop == nil {
		return sel
	}
	return Selection{Txns: sel.Txns, DropOps: drop}
}

func allKept(values []history.Value, kept func(history.Value) bool) bool {
	for _, v := range values {
		if !kept(v) {
			return false
		}
	}
	return true
}

// Predicate reports whether a sub-history still shows what shrinking
// keeps: the violation.
type Predicate func(*history.History) bool

// Violates returns the Predicate "h violates l" (by check.Check under ctx; a
// timeout counts as not violating).
func Violates(ctx context.Context, l level.Level) Predicate {
	return func(h *history.History) bool {
		res, err := check.Check(ctx, h, l)
		return err == nil && res.Verdict == verdict.Violated
	}
}

// Transactions shrinks start, whose sub-history, closed (see Closed),
// must satisfy ok, to a subset no single transaction of which can be
// removed while ok still holds of it closed. Transactions listed in
// keepLast are tried last, so that the result stays close to them when
// several counterexamples exist. Dropped operations in start are kept
// dropped; the result is closed.
func (s *Subject) Transactions(start Selection, ok Predicate, keepLast []int32) Selection {
	last := make(map[int32]bool, len(keepLast))
	for _, t := range keepLast {
		last[t] = true
	}
	// Order: others first, then the preferred ones; the selection is
	// re-sorted for building.
	items := make([]int32, 0, len(start.Txns))
	for _, t := range start.Txns {
		if !last[t] {
			items = append(items, t)
		}
	}
	for _, t := range start.Txns {
		if last[t] {
			items = append(items, t)
		}
	}
	test := func(cand []int32) bool {
		sorted := slices.Clone(cand)
		slices.Sort(sorted)
		return ok(s.Sub(s.Closed(Selection{Txns: sorted, DropOps: start.DropOps})))
	}
	items = reduce(items, test, s.stopped)
	slices.Sort(items)
	return s.Closed(Selection{Txns: items, DropOps: start.DropOps})
}

// Operations drops, from the transactions of sel, the operations the
// violation does not need: all of a transaction's operations on one key at
// a time, while ok still holds (dropping a write also drops the reads of
// its value). Keeping or dropping a transaction's operations on a key
// together keeps its read-modify-writes whole, so the dependencies left
// are those the history shows directly. The result, closed (see Closed),
// is 1-minimal in such groups; its transactions are sel's.
func (s *Subject) Operations(sel Selection, ok Predicate) Selection {
	type group struct {
		t int32
		k history.Key
	}
	var groups [][]int32
	index := map[group]int{}
	for _, t := range sel.Txns {
		tx := &s.H.Txns[t]
		for i := tx.OpStart; i < tx.OpEnd; i++ {
			if sel.DropOps[i] {
				continue
			}
			g := group{t, s.H.Ops[i].Key}
			j, seen := index[g]
			if !seen {
				j = len(groups)
				index[g] = j
				groups = append(groups, nil)
			}
			groups[j] = append(groups[j], i)
		}
	}
	units := make([]int32, len(groups))
	for i := range units {
		units[i] = int32(i)
	}
	dropped := func(kept []int32) map[int32]bool {
		d := maps(sel.DropOps)
		keep := make([]bool, len(groups))
		for _, u := range kept {
			keep[u] = true
		}
		for u, ops := range groups {
			if !keep[u] {
				for _, i := range ops {
					d[i] = true
				}
			}
		}
		return d
	}
	units = reduce(units, func(kept []int32) bool {
		return ok(s.Sub(s.Closed(Selection{Txns: sel.Txns, DropOps: dropped(kept)})))
	}, s.stopped)
	return s.Closed(Selection{Txns: sel.Txns, DropOps: dropped(units)})
}

func maps(m map[int32]bool) map[int32]bool {
	out := make(map[int32]bool, len(m))
	for k, v := range m {
		if v {
			out[k] = true
		}
	}
	return out
}

// reduce removes items while test holds of what is left (test must hold
// of items): first in halving chunks, then one at a time until no single
// removal passes, so the result is 1-minimal. Once stopped (if not nil)
// reports true, it returns what is left: test holds of it, but it need
// not be minimal.
func reduce(items []int32, test func([]int32) bool, stopped func() bool) []int32 {
	size := len(items) / 2
	if size < 1 {
		size = 1
	}
	for len(items) > 0 {
		removed := false
		for i := 0; i < len(items); {
			if stopped != nil && stopped() {
				return items
			}
			end := min(i+size, len(items))
			cand := append(slices.Clone(items[:i]), items[end:]...)
			if test(cand) {
				items = cand
				removed = true
			} else {
				i = end
			}
		}
		if size == 1 {
			if !removed {
				break
			}
			continue
		}
		size /= 2
	}
	return items
}

// Kind classifies a violation for Minimize: the kind of the first
// non-cycle anomaly ("ThinAirRead", ...), or "cycle".
func Kind(res *check.Result) string {
	if len(res.Anomalies) > 0 {
		return res.Anomalies[0].Kind.String()
	}
	return "cycle"
}

// sameKind returns the Predicate "violates l with a violation of kind".
func sameKind(ctx context.Context, l level.Level, kind string) Predicate {
	return func(h *history.History) bool {
		res, err := check.Check(ctx, h, l)
		if err != nil || res.Verdict != verdict.Violated {
			return false
		}
		if kind == "cycle" {
			return len(res.Anomalies) == 0
		}
		for _, a := range res.Anomalies {
			if a.Kind.String() == kind {
				return true
			}
		}
		return false
	}
}

// Minimize finds a minimal counterexample to h satisfying l, starting
// from the transactions in seed and the keys in keys (those of the
// violation's evidence). Every sub-history it checks is closed (see
// Closed). It first looks for a violating region: seed, then seed with
// the writers its transactions read of keys, then with all the writers
// they read from, then with every transaction that touches keys, then
// with the session order between them, and last the whole history. It
// then shrinks the region's transactions, whole, to a 1-minimal set (a
// first pass with only the operations on keys, which makes each check
// cheap, gives a smaller start when its result, whole, still violates),
// and last drops the operations the violation does not need (keeping its
// kind, see Kind), for the report: the transactions of the selection
// returned, whole, violate l, and Subject.Minimality says whether any
// one of them can go. ok reports whether h violates l at all.
//
// Minimize runs as the stage "shrink", counting the checks it makes (the
// stages of each check are not reported). When ctx ends, it returns
// promptly the smallest violating selection found so far, or ok false if
// it had found none, and the Subject's CutShort says so: a check that
// the end of ctx stopped counts as passing, so what is left need not be
// minimal.
func Minimize(ctx context.Context, h *history.History, l level.Level, seed []int32, keys []history.Key) (sel Selection, s *Subject, ok bool) {
	return MinimizeWith(ctx, h, l, seed, keys, nil)
}

// MinimizeWith is Minimize that keeps only sub-histories of which keep
// holds, besides violating l: keep, which must imply the violation,
// replaces the checks for it (such as "violates l with the anomaly of the
// same name"). A nil keep is Minimize's: violates l, with a violation of
// the same kind once operations are dropped (see Kind).
func MinimizeWith(ctx context.Context, h *history.History, l level.Level, seed []int32, keys []history.Key, keep Predicate) (sel Selection, s *Subject, ok bool) {
	m := progress.Start(ctx, "shrink", 0, "checks")
	stopped := func() bool { return m.Err() != nil }
	// The checks report to no tracker: the stage is shrinking.
	ctx = progress.WithTracker(ctx, nil)
	s = NewSubject(h)
	s.stopped = stopped
	// Once ctx has ended every check fails, so a selection that looked
	// minimal may not be: whatever is returned after that is cut short.
	defer func() { s.cut = stopped() }()
	counted := func(v Predicate) Predicate {
		return func(h *history.History) bool {
			if m.Add(1) != nil {
				return false
			}
			return v(h)
		}
	}
	violates := counted(Violates(ctx, l))
	if keep != nil {
		violates = counted(keep)
	}
	in := make(map[int32]bool)
	for _, t := range seed {
		if t >= 0 && int(t) < len(h.Txns) {
			in[t] = true
		}
	}
	onKey := make(map[history.Key]bool, len(keys))
	for _, k := range keys {
		onKey[k] = true
	}
	var start Selection
	found := false
	for step := 0; step < 5 && !found && len(in) > 0 && !stopped(); step++ {
		grown := step == 0
		switch step {
		case 1, 2:
			for t := range maps(in) {
				for _, i := range opRange(h, t) {
					if step == 1 && !onKey[h.Ops[i].Key] {
						continue
					}
					if h.Ops[i].Kind != history.Read {
						continue
					}
					for _, w := range s.WritersOf(i) {
						if !in[w] {
							in[w] = true
							grown = true
						}
					}
				}
			}
		case 3:
			// Orders the checker inferred on the evidence's keys rest on
			// the other transactions of those keys.
			for t := range h.Txns {
				if in[int32(t)] || h.Txns[t].Status == history.Aborted {
					continue
				}
				for _, op := range h.OpsOf(t) {
					if onKey[op.Key] {
						in[int32(t)] = true
						grown = true
						break
					}
				}
			}
		case 4:
			// ... and on the session order between them.
			for _, sess := range h.Sessions {
				first, last := -1, -1
				for i, t := range sess {
					if in[t] {
						if first < 0 {
							first = i
						}
						last = i
					}
				}
				for i := first + 1; first >= 0 && i < last; i++ {
					if !in[sess[i]] {
						in[sess[i]] = true
						grown = true
					}
				}
			}
		}
		if !grown {
			continue
		}
		start = s.Closed(region(in))
		found = violates(s.Sub(start))
	}
	if !found && stopped() {
		return Selection{}, s, false
	}
	if !found {
		all := make([]int32, len(h.Txns))
		for i := range all {
			all[i] = int32(i)
		}
		start = Selection{Txns: all}
		if !violates(s.Sub(start)) {
			return Selection{}, s, false
		}
	}
	res, err := check.Check(ctx, s.Sub(start), l)
	if err != nil || res.Verdict != verdict.Violated {
		return start, s, true
	}
	same := counted(sameKind(ctx, l, Kind(res)))
	if keep != nil {
		same = violates
	}
	// Most operations of a large transaction are beside the point: a
	// first pass without those on keys that no other transaction of the
	// region touches (they make no dependency) unless the evidence names
	// them makes every check cheap. Its result is only a start: the
	// transactions are shrunk whole.
	touched := make(map[history.Key]int32)
	for _, t := range start.Txns {
		tx := &h.Txns[t]
		for i := tx.OpStart; i < tx.OpEnd; i++ {
			switch k := h.Ops[i].Key; touched[k] {
			case 0:
				touched[k] = t + 1
			case t + 1, -1:
			default:
				touched[k] = -1 // by several
			}
		}
	}
	drop := make(map[int32]bool)
	for _, t := range start.Txns {
		tx := &h.Txns[t]
		for i := tx.OpStart; i < tx.OpEnd; i++ {
			if k := h.Ops[i].Key; touched[k] != -1 && !onKey[k] {
				drop[i] = true
			}
		}
	}
	whole := start.Txns
	if narrow := s.Closed(Selection{Txns: start.Txns, DropOps: drop}); len(drop) > 0 && same(s.Sub(narrow)) {
		pre := s.Transactions(narrow, violates, seed)
		if len(pre.Txns) < len(whole) && violates(s.Sub(s.Closed(Selection{Txns: pre.Txns}))) {
			whole = pre.Txns
		}
	}
	sel = s.Transactions(Selection{Txns: whole}, violates, seed)
	sel = s.Operations(sel, same)
	return sel, s, true
}

// Minimality says how the transactions of a counterexample, whole, stand
// against the definition of a minimal one (docs/checking.md, "Minimal
// counterexamples").
type Minimality struct {
	// Violates says that the transactions, whole, violate the level,
	// closed (see Closed): whichever writers the whole history offers
	// their reads.
	Violates bool
	// Removable are those of the transactions without any one of which
	// the rest, whole, still violate the level (by Sub's rule), in
	// history order.
	Removable []Removable
}

// Removable is a transaction of a counterexample without which the rest
// still violate the level.
type Removable struct {
	Txn int32
	// Reads are the reads of the other transactions that may have read
	// from Txn as well as from a writer that stays (another transaction,
	// or the initial state): Txn is kept as a writer they may have read
	// from, which a closed counterexample keeps.
	Reads []int32
}

// Minimal reports whether the transactions are a minimal counterexample:
// they violate the level, and without any one of them the rest satisfy
// it.
func (m Minimality) Minimal() bool { return m.Violates && len(m.Removable) == 0 }

// ForChoices reports whether the transactions violate the level and each
// one that could go is kept only as a writer some reads may have read
// from.
func (m Minimality) ForChoices() bool {
	if !m.Violates {
		return false
	}
	for _, r := range m.Removable {
		if len(r.Reads) == 0 {
			return false
		}
	}
	return true
}

// Minimality checks whether txns, transactions of s.H in history order,
// are a minimal counterexample to l: whether, whole and closed, they
// violate l, and which of them can go with the rest, whole, still
// violating l. It makes len(txns)+1 checks under ctx, and returns the
// error of one that fails (the end of ctx among them).
func (s *Subject) Minimality(ctx context.Context, txns []int32, l level.Level) (Minimality, error) {
	var m Minimality
	violates := func(sel Selection) (bool, error) {
		res, err := check.Check(ctx, s.Sub(sel), l)
		if err != nil {
			return false, err
		}
		if res.Verdict == verdict.Unknown {
			return false, fmt.Errorf("checking %d transactions at %v: no verdict", len(sel.Txns), l)
		}
		return res.Verdict == verdict.Violated, nil
	}
	v, err := violates(s.Closed(Selection{Txns: txns}))
	if err != nil || !v {
		return m, err
	}
	m.Violates = true
	for i, t := range txns {
		rest := slices.Delete(slices.Clone(txns), i, i+1)
		v, err := violates(Selection{Txns: rest})
		if err != nil {
			return m, err
		}
		if v {
			m.Removable = append(m.Removable, Removable{Txn: t, Reads: s.readsOf(t, rest)})
		}
	}
	return m, nil
}

// readsOf returns the reads of the transactions rest that may have read
// from w and from another writer: one of rest, or the initial state.
func (s *Subject) readsOf(w int32, rest []int32) []int32 {
	h := s.H
	in := make(map[int32]bool, len(rest))
	for _, t := range rest {
		in[t] = true
	}
	var out []int32
	for _, t := range rest {
		tx := &h.Txns[t]
		for i := tx.OpStart; i < tx.OpEnd; i++ {
			op := &h.Ops[i]
			if op.Kind != history.Read {
				continue
			}
			values := []history.Value{op.Value}
			if h.Lists {
				values = h.ListOf(i)
			}
			for _, v := range values {
				byW, other := false, v == h.Init
				for _, x := range s.writes.Of(op.Key, v) {
					byW = byW || x.Txn == w
					other = other || x.Txn != w && in[x.Txn]
				}
				if byW && other {
					out = append(out, i)
					break
				}
			}
		}
	}
	return out
}

func region(txns map[int32]bool) Selection {
	out := make([]int32, 0, len(txns))
	for t := range txns {
		out = append(out, t)
	}
	slices.Sort(out)
	return Selection{Txns: out}
}

func opRange(h *history.History, t int32) []int32 {
	tx := &h.Txns[t]
	out := make([]int32, 0, tx.OpEnd-tx.OpStart)
	for i := tx.OpStart; i < tx.OpEnd; i++ {
		if h.Ops[i].Kind == history.Read {
			out = append(out, i)
		}
	}
	return out
}
