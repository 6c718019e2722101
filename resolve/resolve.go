// Package resolve resolves the reads of a history, which is its one job:
// for each read, the write it read from, or the candidate writers when
// values repeat (a Choice), and the anomalies a read alone shows, which no
// order of transactions explains (Wei, Xiao, Yang, Liu, Yin, Chen and Pan,
// "Boosting End-to-End Database Isolation Checking via Mini-Transactions"
// (MTC, ICDE 2025), Table I): thin-air, aborted, future and intermediate
// reads, reads that miss the transaction's own (or last) write,
// non-repeatable reads, and the anomalies of list reads (incompatible
// orders, duplicate elements, split appends). Lists and stated version
// orders also reveal the known beginnings of version orders (KeyOrder).
//
// Every level's check starts from a Resolution: package polygraph builds
// the dependencies of SER, SI and SSER from it, package saturate those of
// RC, RA and CC.
package resolve

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/internal/hugepage"
	"github.com/isocheck/isocheck/progress"
	"github.com/isocheck/isocheck/verdict"
)

// Resolution is a history whose reads are resolved: which transactions
// count as committed, which write every read saw, and the anomalies found
// on the way. Every level's check starts from it.
type Resolution struct {
	History *history.History
	// Included marks the transactions the check considers: the
	// committed and rolled-back ones, and the unknown ones some included
	// transaction read from. All of them are in session order and have
	// their reads checked; the writes of the rolled-back ones took no
	// effect (see Installs).
	Included []bool
	// Reads lists the external reads of the included transactions, in
	// history order.
	Reads []ExternalRead
	// Anomalies are the reads no order of transactions explains (and
	// NonRepeatableReads, which only the weakest level allows).
	Anomalies []Anomaly
	// Orders are the known beginnings of version orders that list reads
	// and stated orders reveal, by key, for the keys whose lists show no
	// anomaly (see lists.go).
	Orders []KeyOrder

	// Choices are the reads that may have read from several writers, in
	// a history whose values repeat (see Choice and Choose). The reads
	// above leave them out: a check of the level must choose their
	// writers first.
	Choices []Choice

	finalWrite opSet // the operations that install a version (see IsFinalWrite)
	// installs is Installs of each transaction, once include is done: a
	// read's lookup then touches one byte, not the writer's Txn too.
	installs []bool
	// writes is the index of writes, kept for Choose when values repeat.
	writes *writeIndex
	// repeats is set when values repeat; picks holds the writers Choose
	// fixed, by read operation.
	repeats *repeats
	picks   map[int32]int32
	// narrowed says picks fix some reads only, and the others stay
	// Choices (see Narrow).
	narrowed bool
	// released says Release dropped the reads.
	released bool
}

// ErrReleased is the error of a check of a Resolution whose reads were
// released (see Release): resolve the history again.
var ErrReleased = errors.New("resolve: the reads of this resolution were released; resolve the history again")

// Release drops Reads, the largest array of a resolution (20 bytes a
// read), for its one owner once it has taken what it needs from them:
// the polygraph of a history of tens of millions of reads holds them as
// its own edges (polygraph.Options.ReleaseReads), and without Release
// both would stay in memory while it is checked. A released Resolution
// cannot be checked again: every check of it fails with ErrReleased
// (see Released).
func (r *Resolution) Release() {
	r.Reads, r.released = nil, true
}

// Released reports whether Release dropped the reads of r.
func (r *Resolution) Released() bool { return r.released }

// Resolve resolves the reads of h. Input errors (a value written twice to
// one key of a list history, a write of the initial value there) are
// returned as *InputError. A value written to one key more than once
// makes the reads of it Choices when several writers remain possible.
// It runs as two stages, "index writes" and "resolve reads", each counting
// transactions; when ctx ends first it returns the reason
// (context.Cause).
func Resolve(ctx context.Context, h *history.History) (*Resolution, error) {
	return resolve(ctx, h, nil, nil)
}

// resolve is Resolve with the index of writes when it is known already,
// and with the writers of some reads fixed (see Choose).
func resolve(ctx context.Context, h *history.History, writes *writeIndex, picks map[int32]int32) (res *Resolution, err error) {
	var m *progress.Meter
	if writes == nil {
		// The index of writes, as large as the reads, is handed back
		// as soon as it is done with, unless the resolution keeps it
		// (values repeat): before the polygraph's large arrays come.
		defer func() {
			if writes != nil && (res == nil || res.writes != writes) {
				writes.free()
			}
		}()
		m = progress.Start(ctx, "index writes", int64(len(h.Txns)), "transactions")
		if err := m.Err(); err != nil {
			return nil, err
		}
		if writes, err = indexWrites(m, h); err != nil {
			return nil, err
		}
	}
	stage := "resolve reads"
	if picks != nil {
		stage = "resolve chosen reads"
	}
	m = progress.Start(ctx, stage, int64(len(h.Txns)), "transactions")
	r := &Resolution{History: h, Included: make([]bool, len(h.Txns)), writes: writes, picks: picks}
	if writes.repeated() {
		r.repeats = newRepeats(h)
	}
	if r.finalWrite, err = finalWrites(m, h); err != nil {
		return nil, err
	}
	if err := r.include(m, writes); err != nil {
		return nil, err
	}
	if r.Reads, err = r.resolveReads(m, writes, r.finalWrite); err != nil {
		return nil, err
	}
	if err := r.orderKeys(m, writes); err != nil {
		return nil, err
	}
	if r.repeats != nil && picks == nil {
		r.Choices = r.findChoices()
	}
	if r.repeats == nil {
		r.writes = nil
	}
	return r, nil
}

// tick reports m's error every progress.Every transactions: t is the
// index of the transaction about to be visited. With add set, the
// transactions count as done on m; a pass that only prepares a stage's
// main one leaves the count alone.
func tick(m *progress.Meter, t int, add bool) error {
	if t&(progress.Every-1) != 0 || t == 0 {
		return nil
	}
	if add {
		return m.Add(progress.Every)
	}
	return m.Err()
}

// IsFinalWrite reports whether operation op installs a version: it is its
// transaction's last write of its key, and its transaction did not roll
// back.
func (r *Resolution) IsFinalWrite(op int32) bool { return r.finalWrite.has(op) }

// Installs reports whether the writes of transaction t took effect: t is
// included and did not roll back. Nobody may read the writes of another.
func (r *Resolution) Installs(t int32) bool {
	if r.installs != nil {
		return r.installs[t]
	}
	return r.Included[t] && r.History.Txns[t].Status != history.RolledBack
}

// InputError is a history that breaks the rules of the input (such as two
// writes of one value to one key), so no verdict can be given.
type InputError struct{ Msg string }

func (e *InputError) Error() string { return e.Msg }

// writeRef locates a write: its transaction and the operation's index in
// History.Ops.
type writeRef struct{ txn, op int32 }

// indexWrites maps every (key, value) written, by any transaction, to its
// write. Two writes of one value to one key, or a write of the initial
// value, are input errors: the first in the history's order is reported.
//
// A large history's writes are indexed on every core: the index is cut
// into one table per worker by hash, each worker puts the writes that
// fall in its own (the inserts are cache misses, which the cores
// overlap).
func indexWrites(m *progress.Meter, h *history.History) (*writeIndex, error) {
	workers := 1
	if len(h.Ops) >= minParallelResolve {
		workers = runtime.GOMAXPROCS(0)
	}
	return indexWritesBy(m, h, workers)
}

// indexWritesBy is indexWrites by workers workers.
func indexWritesBy(m *progress.Meter, h *history.History, workers int) (*writeIndex, error) {
	counts := make([]int, workers)
	for i := range h.Ops {
		if op := &h.Ops[i]; op.Kind == history.Write {
			counts[tableOf(hashKV(op.Key, op.Value), workers)]++
		}
	}
	ix := &writeIndex{tables: make([]writeTable, workers)}
	// A list's elements and a stated version order name their writers by
	// value: there, values must be unique.
	unique, uniqueWhy := h.Lists || len(h.Orders) > 0, "list history"
	if !h.Lists {
		uniqueWhy = "history that states version orders"
	}
	errs := make([]error, workers)
	errOp := make([]int32, workers) // the operation each error is about
	put := func(w int) {
		tb := newWriteTable(counts[w])
		defer func() { ix.tables[w] = *tb }()
		// A batch of writes is put after the slots each will probe
		// first were touched (see writeIndex.touch), in history order.
		type pending struct {
			hash uint64
			t, i int32
		}
		var batch [touchBatch]pending
		n := 0
		var sink int32
		flush := func() bool {
			// The touches first, in a loop of their own, so that their
			// cache misses overlap.
			for _, p := range batch[:n] {
				sink ^= tb.slots[tb.home(p.hash)].txn1
			}
			for _, p := range batch[:n] {
				op := &h.Ops[p.i]
				ref := writeRef{p.t, p.i}
				tb.initWritten = tb.initWritten || op.Value == h.Init
				prev, dup := tb.put(p.hash, op.Key, op.Value, ref)
				if !dup {
					continue
				}
				if unique {
					t := int(p.t)
					errs[w], errOp[w] = &InputError{fmt.Sprintf("%s: transaction %s writes %s=%s, which transaction %s (%s) also writes: written values must be unique per key in a %s",
						h.Where(t), h.Name(t), h.FormatKey(op.Key), h.FormatValue(op.Value), h.Name(int(prev.txn)), h.Where(int(prev.txn)), uniqueWhy)}, p.i
					return false
				}
				tb.putRepeat(op.Key, op.Value, ref)
			}
			n = 0
			return true
		}
		defer func() { tb.sink = sink }()
		for t := range h.Txns {
			// Every worker goes through every transaction: the first
			// counts them.
			if err := tick(m, t, w == 0); err != nil {
				errs[w], errOp[w] = err, -1
				return
			}
			tx := &h.Txns[t]
			for i := tx.OpStart; i < tx.OpEnd; i++ {
				op := &h.Ops[i]
				if op.Kind != history.Write {
					continue
				}
				if w == 0 && op.Value == h.Init && unique {
					if flush() { // the writes before may break a rule first
						errs[w], errOp[w] = &InputError{fmt.Sprintf("%s: transaction %s writes %s=%s, the initial value: reads of it would be ambiguous in a %s",
							h.Where(t), h.Name(t), h.FormatKey(op.Key), h.FormatValue(op.Value), uniqueWhy)}, i
					}
					return
				}
				hash := hashKV(op.Key, op.Value)
				if tableOf(hash, workers) != w {
					continue
				}
				batch[n] = pending{hash, int32(t), i}
				if n++; n == len(batch) && !flush() {
					return
				}
			}
		}
		flush()
	}
	if workers == 1 {
		put(0)
	} else {
		var wg sync.WaitGroup
		for w := range workers {
			wg.Go(func() { put(w) })
		}
		wg.Wait()
	}
	// The error one worker would have met first: the earliest operation
	// (a stop, at -1, before any).
	first := -1
	for w, err := range errs {
		if err != nil && (first < 0 || errOp[w] < errOp[first]) {
			first = w
		}
	}
	if first >= 0 {
		return nil, errs[first]
	}
	return ix, nil
}

// include marks the committed and rolled-back transactions, and then the
// unknown ones that an included transaction read from: a read proves its
// writer committed.
// The other unknown transactions are left out: leaving out a transaction
// nobody read from removes constraints and never adds one, so if any choice
// of unknown transactions passes, this one does.
func (p *Resolution) include(m *progress.Meter, writes *writeIndex) error {
	if err := p.includeReadFrom(m, writes); err != nil {
		return err
	}
	p.installs = make([]bool, len(p.Included))
	for t, in := range p.Included {
		p.installs[t] = in && p.History.Txns[t].Status != history.RolledBack
	}
	return nil
}

// includeReadFrom is include but for installs.
func (p *Resolution) includeReadFrom(m *progress.Meter, writes *writeIndex) error {
	h := p.History
	var work []int32
	unknown := false
	for t := range h.Txns {
		if err := tick(m, t, false); err != nil {
			return err
		}
		switch h.Txns[t].Status {
		case history.Committed, history.RolledBack:
			p.Included[t] = true
			work = append(work, int32(t))
		case history.Unknown:
			unknown = true
		}
	}
	if !unknown {
		return nil // no read can pull in a transaction of unknown outcome
	}
	pull := func(k history.Key, v history.Value) {
		w, ok := writes.get(k, v)
		if ok && !p.Included[w.txn] && h.Txns[w.txn].Status == history.Unknown {
			p.Included[w.txn] = true
			work = append(work, w.txn)
		}
	}
	var ws []writeRef
	var cands []int32
	// A stated version order says its writes were installed.
	for _, o := range h.Orders {
		for _, v := range o.Values {
			pull(o.Key, v)
		}
	}
	for visited := 1; len(work) > 0; visited++ {
		if err := tick(m, visited, false); err != nil {
			return err
		}
		t := work[len(work)-1]
		work = work[:len(work)-1]
		if p.repeats != nil {
			// A read pulls in its writer when it has only one, or was
			// picked.
			externalReads(h, int(t), func(i int32) {
				var src source
				src, ws, cands = p.sourceOf(t, i, ws, cands)
				if w := src.writer; w >= 0 && int(w) < len(h.Txns) && !p.Included[w] && h.Txns[w].Status == history.Unknown {
					p.Included[w] = true
					work = append(work, w)
				}
			})
		} else {
			for _, op := range h.OpsOf(int(t)) {
				if op.Kind == history.Read {
					pull(op.Key, op.Value)
				}
			}
		}
		// Every element of a list was installed.
		lo, hi := listsOf(h, int(t))
		for _, lr := range h.ListReads[lo:hi] {
			k := h.Ops[lr.Op].Key
			for _, v := range lr.Values {
				pull(k, v)
			}
		}
	}
	return nil
}

// finalWrites marks the operations that install a version: their
// transaction's last write of their key, in a transaction that did not
// roll back. A large history's transactions are cut into one range per
// core.
func finalWrites(m *progress.Meter, h *history.History) (opSet, error) {
	workers := 1
	if len(h.Ops) >= minParallelResolve {
		workers = runtime.GOMAXPROCS(0)
	}
	return finalWritesBy(m, h, workers)
}

// finalWritesBy is finalWrites by workers workers.
func finalWritesBy(m *progress.Meter, h *history.History, workers int) (opSet, error) {
	final := newOpSet(len(h.Ops))
	parts := cutByOps(h, workers)
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() { errs[w] = final.markFinal(m, h, parts[w], parts[w+1]) })
	}
	wg.Wait()
	return final, errors.Join(errs...)
}

// markFinal adds to s the final writes of transactions lo up to hi. The
// words of s that hold the first and the last of their operations may
// hold another range's too, and are written atomically.
func (s opSet) markFinal(m *progress.Meter, h *history.History, lo, hi int) error {
	if lo == hi {
		return nil
	}
	edgeLo, edgeHi := h.Txns[lo].OpStart>>6, (h.Txns[hi-1].OpEnd-1)>>6
	var seen map[history.Key]bool
	var short [16]history.Key // the keys a short transaction wrote later
	for t := lo; t < hi; t++ {
		if err := tick(m, t, false); err != nil {
			return err
		}
		tx := &h.Txns[t]
		if tx.Status == history.RolledBack {
			continue
		}
		long := tx.OpEnd-tx.OpStart > int32(len(short))
		if long {
			if seen == nil {
				seen = make(map[history.Key]bool)
			}
			clear(seen)
		}
		n := 0
		// Backwards: a write is final when no later write of its key
		// was seen.
		for i := tx.OpEnd - 1; i >= tx.OpStart; i-- {
			op := &h.Ops[i]
			if op.Kind != history.Write {
				continue
			}
			if long {
				if seen[op.Key] {
					continue
				}
				seen[op.Key] = true
			} else {
				if slices.Contains(short[:n], op.Key) {
					continue
				}
				short[n] = op.Key
				n++
			}
			if w := i >> 6; w == edgeLo || w == edgeHi {
				atomic.OrUint64(&s[w], 1<<(i&63))
			} else {
				s.add(i)
			}
		}
	}
	return nil
}

// cutByOps cuts the transactions of h into parts ranges of about as many
// operations each: range i is parts[i] up to parts[i+1].
func cutByOps(h *history.History, parts int) []int {
	cuts := []int{0}
	for w := 1; w < parts; w++ {
		cut := len(h.Ops) * w / parts
		cuts = append(cuts, sort.Search(len(h.Txns), func(t int) bool { return int(h.Txns[t].OpStart) >= cut }))
	}
	return append(cuts, len(h.Txns))
}

// opSet is a set of operations, a bit each: a history's final writes
// take an eighth of the bytes a flag each took.
type opSet []uint64

func newOpSet(n int) opSet { return make(opSet, (n+63)/64) }

func (s opSet) has(op int32) bool { return s[op>>6]&(1<<(op&63)) != 0 }
func (s opSet) add(op int32)      { s[op>>6] |= 1 << (op & 63) }

// ExternalRead is a read of a key its transaction had not written yet:
// Reader read Key from Writer (len(History.Txns), the initial transaction,
// for the initial value).
type ExternalRead struct {
	Op     int32 // index in History.Ops
	Key    history.Key
	Writer int32
	Reader int32
	// RMW says Reader later writes Key, and its writes took effect (only
	// on its first read of Key).
	RMW bool
	// Repeat says Reader read Key before; where the value differs from
	// that of the previous read, a NonRepeatableRead is reported too.
	Repeat bool
}

// resolveReads finds the writer of every read of the included transactions,
// records the anomalies, and returns the external reads. It counts the
// transactions done on m.
func (p *Resolution) resolveReads(m *progress.Meter, writes *writeIndex, final opSet) ([]ExternalRead, error) {
	workers := 1
	if len(p.History.Ops) >= minParallelResolve {
		workers = runtime.GOMAXPROCS(0)
	}
	return p.resolveReadsBy(m, writes, final, workers)
}

// resolveReadsBy is resolveReads by workers workers, each on a share of
// the transactions (cut by operations): the lookups of the writes are
// cache misses that other cores overlap. Their reads and anomalies
// join in transaction order, as one worker would have found them.
func (p *Resolution) resolveReadsBy(m *progress.Meter, writes *writeIndex, final opSet, workers int) ([]ExternalRead, error) {
	parts := cutByOps(p.History, workers)
	// Most reads are external: one array with room for every read of
	// the included transactions, each worker's share its own window,
	// rather than lists that grow and are then joined (a copy of
	// gigabytes, and as much memory again, on ten million transactions).
	rs := make([]readResolver, len(parts)-1)
	room := make([]int, len(rs)+1)
	var wg sync.WaitGroup
	for i := range rs {
		wg.Go(func() { room[i+1] = p.readsIn(parts[i], parts[i+1]) })
	}
	wg.Wait()
	for i := range rs {
		room[i+1] += room[i]
	}
	all := hugepage.Make[ExternalRead](room[len(rs)])
	for i := range rs {
		rs[i] = readResolver{p: p, writes: writes, final: final, index: make(map[history.Key]int),
			reads: all[room[i]:room[i]:room[i+1]]}
		wg.Go(func() { rs[i].err = rs[i].run(m, parts[i], parts[i+1]) })
	}
	wg.Wait()
	n := 0
	for i := range rs {
		if rs[i].err != nil {
			return nil, rs[i].err
		}
		// Down to the end of the share before, in place.
		n += copy(all[n:room[i+1]], rs[i].reads)
		p.Anomalies = append(p.Anomalies, rs[i].anomalies...)
		rs[i].reads = nil
	}
	return all[:n:n], nil
}

// readsIn counts the reads of the included transactions lo up to hi.
func (p *Resolution) readsIn(lo, hi int) int {
	n := 0
	for t := lo; t < hi; t++ {
		if p.Included[t] {
			for _, op := range p.History.OpsOf(t) {
				if op.Kind == history.Read {
					n++
				}
			}
		}
	}
	return n
}

// minParallelResolve is the number of operations from which
// resolveReads and indexWrites use every core.
const minParallelResolve = 1 << 20

// readResolver resolves the reads of a range of transactions.
type readResolver struct {
	p         *Resolution
	writes    *writeIndex
	final     opSet
	reads     []ExternalRead
	anomalies []Anomaly
	index     map[history.Key]int
	err       error
	// ws and cands are scratch for the reads of histories whose values
	// repeat.
	ws    []writeRef
	cands []int32
	// hashes is touchReads' scratch, and sink keeps the words it
	// loaded, so that the loads stay.
	hashes []uint64
	sink   int32
}

// keyState is what a transaction did to a key so far.
type keyState struct {
	key       history.Key
	readOp    int32 // first external read, -1 if none
	readIndex int32 // index into the resolver's reads
	wrote     bool
	lastWrite history.Value
	lastRead  history.Value // value of the latest external read
}

// run resolves the reads of transactions lo to hi.
func (r *readResolver) run(m *progress.Meter, lo, hi int) error {
	p, h, writes, final := r.p, r.p.History, r.writes, r.final
	reads := r.reads // room for every read of lo up to hi (resolveReadsBy)
	anomaly := func(kind verdict.Anomaly, t int, op int32, w writeRef) {
		v := h.Ops[op]
		r.anomalies = append(r.anomalies, Anomaly{Kind: kind, Txn: int32(t), Op: op, Writer: w.txn, OtherOp: w.op, Key: v.Key, Value: v.Value})
	}
	// Transactions are usually short: find a key's state by a linear scan,
	// and through a map only in long transactions.
	var states []keyState
	index := r.index
	touched := lo // the transactions before touched had their reads' slots touched
	for t := lo; t < hi; t++ {
		if err := tick(m, t, true); err != nil {
			return err
		}
		if t == touched && p.repeats == nil {
			touched = r.touchReads(t, hi)
		}
		if !p.Included[t] {
			continue
		}
		tx := &h.Txns[t]
		installs := tx.Status != history.RolledBack
		states = states[:0]
		long := tx.OpEnd-tx.OpStart > 16
		if long {
			clear(index)
		}
		for i := tx.OpStart; i < tx.OpEnd; i++ {
			op := h.Ops[i]
			j := -1
			if long {
				if k, ok := index[op.Key]; ok {
					j = k
				}
			} else {
				for k := range states {
					if states[k].key == op.Key {
						j = k
						break
					}
				}
			}
			if j < 0 {
				j = len(states)
				// Set in place, not appended: the profile put a
				// sixth of the stage on copying one built aside.
				if j < cap(states) {
					states = states[:j+1]
				} else {
					states = append(states, keyState{})
				}
				states[j] = keyState{key: op.Key, readOp: -1}
				if long {
					index[op.Key] = j
				}
			}
			st := &states[j]
			if op.Kind == history.Write {
				st.wrote = true
				st.lastWrite = op.Value
				if st.readOp >= 0 && installs {
					reads[st.readIndex].RMW = true
				}
				continue
			}
			if st.wrote {
				if op.Value == st.lastWrite {
					continue
				}
				w, ok := writes.get(op.Key, op.Value)
				if !ok {
					w = writeRef{-1, -1}
				}
				switch {
				case ok && int(w.txn) == t && w.op > i:
					anomaly(verdict.FutureRead, t, i, w)
				case ok && int(w.txn) == t:
					anomaly(verdict.NotMyLastWrite, t, i, w)
				default:
					anomaly(verdict.NotMyOwnWrite, t, i, w)
				}
				continue
			}
			repeat := st.readOp >= 0
			if repeat && op.Value != st.lastRead {
				st.lastRead = op.Value
				r.anomalies = append(r.anomalies, Anomaly{Kind: verdict.NonRepeatableRead, Txn: int32(t), Op: i, Writer: -1, OtherOp: st.readOp, Key: op.Key, Value: op.Value})
			}
			writer := int32(len(h.Txns))
			if p.repeats != nil {
				var src source
				src, r.ws, r.cands = p.sourceOf(int32(t), i, r.ws, r.cands)
				switch {
				case src.many:
					continue // a Choice: left out until its writer is picked
				case src.writer < 0:
					anomaly(src.kind, t, i, src.bad)
					continue
				}
				writer = src.writer
			} else if op.Value != h.Init {
				w, ok := writes.get(op.Key, op.Value)
				switch {
				case !ok:
					anomaly(verdict.ThinAirRead, t, i, writeRef{-1, -1})
					continue
				case int(w.txn) == t:
					anomaly(verdict.FutureRead, t, i, w)
					continue
				case !p.Installs(w.txn):
					anomaly(verdict.AbortedRead, t, i, w)
					continue
				case !final.has(w.op):
					anomaly(verdict.IntermediateRead, t, i, w)
					continue
				}
				writer = w.txn
			}
			if !repeat {
				st.readOp, st.lastRead, st.readIndex = i, op.Value, int32(len(reads))
			}
			reads = append(reads, ExternalRead{Op: i, Key: op.Key, Writer: writer, Reader: int32(t), Repeat: repeat})
		}
	}
	r.reads = reads
	return nil
}

// touchBatch is the number of reads whose slots in the index of writes
// readResolver.run touches before it looks them up (see writeIndex.touch).
const touchBatch = 32

// touchReads touches the slots of about touchBatch reads of the
// transactions from t on (up to hi), and returns the transaction it
// stopped before.
func (r *readResolver) touchReads(t, hi int) int {
	h := r.p.History
	hashes := r.hashes[:0]
	for ; t < hi && len(hashes) < touchBatch; t++ {
		tx := &h.Txns[t]
		for i := tx.OpStart; i < tx.OpEnd; i++ {
			if op := &h.Ops[i]; op.Kind == history.Read && op.Value != h.Init {
				hashes = append(hashes, hashKV(op.Key, op.Value))
			}
		}
	}
	// The touches in a loop of their own, so that their misses overlap.
	r.sink ^= r.writes.touch(hashes)
	r.hashes = hashes
	return t
}
