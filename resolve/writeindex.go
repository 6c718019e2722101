package resolve

import (
	"math/bits"

	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/internal/hugepage"
)

// writeIndex maps (key, value) to the write of that value. It is an
// open-addressing hash table written by hand because it is the hottest
// structure of read resolution (one probe per operation): a Go map
// with a struct key costs several times more per lookup here.
//
// It is one of the largest arrays a check allocates: a slot per write and
// a third more, filled to three quarters and sized to the writes, not to
// a power of two (a 10M-transaction history of 75M writes takes 2.4 GB,
// where half-full power-of-two tables took 6.4 GB). A slot keeps the
// write's operation beside its transaction: finding the operation among
// the transaction's instead, in a 16-byte slot, cost a second cache miss
// per read (50 s of a 10M-transaction check).
//
// It is cut into tables by hash, so that each core can fill one.
//
// A value written to one key by several transactions (values that repeat)
// keeps its first write in the slot and the others, in history order, in
// the table's map of repeats: a history of unique values leaves the maps
// empty and pays for them nothing but a check of their length.
type writeIndex struct {
	tables []writeTable
}

// writeTable is one table of an index.
type writeTable struct {
	// slots hold key, value and writer side by side, so that a probe
	// touches one cache line: the table of a million-transaction history
	// is far larger than the caches, and a lookup is one miss.
	slots []writeSlot
	mem   *hugepage.Array[writeSlot] // the memory of slots
	count int
	// repeats holds, for a (key, value) written more than once, the
	// writes after the first, in history order.
	repeats map[keyValue][]writeRef
	// initWritten says a write of the initial value is in the table: the
	// initial state wrote it first.
	initWritten bool
	// sink keeps the words touched before puts (see writeIndex.touch),
	// so that the loads stay.
	sink int32
}

// keyValue is a value of a key.
type keyValue struct {
	k history.Key
	v history.Value
}

// writeSlot is one entry; the zero slot is empty, so a new table needs no
// pass to mark its slots empty.
type writeSlot struct {
	v    history.Value
	k    history.Key
	txn1 int32 // the writing transaction plus one; 0: empty
	op   int32
}

// newWriteTable returns a table with room for capacity writes.
func newWriteTable(capacity int) *writeTable {
	mem := hugepage.Alloc[writeSlot](max(16, capacity+capacity/3+1))
	return &writeTable{slots: mem.S, mem: mem}
}

// free hands back the memory of the index's tables, the largest array
// of read resolution, as soon as it is done with (see hugepage.Array).
// The index must not be used after.
func (ix *writeIndex) free() {
	for i := range ix.tables {
		tb := &ix.tables[i]
		tb.slots = nil
		if tb.mem != nil {
			tb.mem.Free()
		}
	}
}

// tableOf returns the table of n that holds the write whose hash is h:
// the hash's low half scaled to n (home scales the whole hash, which its
// high bits decide).
func tableOf(h uint64, n int) int {
	return int(uint64(uint32(h)) * uint64(n) >> 32)
}

// get returns the write of v to k (the first, when several wrote it).
func (ix *writeIndex) get(k history.Key, v history.Value) (writeRef, bool) {
	h := hashKV(k, v)
	return ix.tables[tableOf(h, len(ix.tables))].get(h, k, v)
}

// repeated reports whether some value was written to a key more than
// once.
func (ix *writeIndex) repeated() bool {
	for i := range ix.tables {
		if len(ix.tables[i].repeats) > 0 || ix.tables[i].initWritten {
			return true
		}
	}
	return false
}

// all appends to out every write of v to k, in history order.
func (ix *writeIndex) all(k history.Key, v history.Value, out []writeRef) []writeRef {
	h := hashKV(k, v)
	tb := &ix.tables[tableOf(h, len(ix.tables))]
	w, ok := tb.get(h, k, v)
	if !ok {
		return out
	}
	out = append(out, w)
	if len(tb.repeats) > 0 {
		out = append(out, tb.repeats[keyValue{k, v}]...)
	}
	return out
}

// putRepeat records r as a further write of v to k, after the one in the
// table.
func (ix *writeTable) putRepeat(k history.Key, v history.Value, r writeRef) {
	if ix.repeats == nil {
		ix.repeats = make(map[keyValue][]writeRef)
	}
	ix.repeats[keyValue{k, v}] = append(ix.repeats[keyValue{k, v}], r)
}

func hashKV(k history.Key, v history.Value) uint64 {
	h := uint64(v)*0x9E3779B97F4A7C15 ^ uint64(uint32(k))*0xC2B2AE3D27D4EB4F
	h ^= h >> 29
	h *= 0xBF58476D1CE4E5B9
	return h ^ h>>32
}

// home is the first slot a probe for the hash h visits: the hash scaled
// to the table (Lemire's multiply-shift), which needs no power-of-two
// size.
func (ix *writeTable) home(h uint64) int {
	hi, _ := bits.Mul64(h, uint64(len(ix.slots)))
	return int(hi)
}

func (sl *writeSlot) ref() writeRef { return writeRef{txn: sl.txn1 - 1, op: sl.op} }

// get returns the write of v to k, whose hash is h.
func (ix *writeTable) get(h uint64, k history.Key, v history.Value) (writeRef, bool) {
	for i := ix.home(h); ; {
		sl := &ix.slots[i]
		if sl.txn1 == 0 {
			return writeRef{}, false
		}
		if sl.k == k && sl.v == v {
			return sl.ref(), true
		}
		if i++; i == len(ix.slots) {
			i = 0
		}
	}
}

// put records the write r of v to k, whose hash is h, or returns the
// write already there.
func (ix *writeTable) put(h uint64, k history.Key, v history.Value, r writeRef) (writeRef, bool) {
	if 4*(ix.count+1) > 3*len(ix.slots) {
		ix.grow()
	}
	for i := ix.home(h); ; {
		sl := &ix.slots[i]
		if sl.txn1 == 0 {
			*sl = writeSlot{v: v, k: k, txn1: r.txn + 1, op: r.op}
			ix.count++
			return writeRef{}, false
		}
		if sl.k == k && sl.v == v {
			return sl.ref(), true
		}
		if i++; i == len(ix.slots) {
			i = 0
		}
	}
}

func (ix *writeTable) grow() {
	old, oldMem, repeats, init := ix.slots, ix.mem, ix.repeats, ix.initWritten
	*ix = *newWriteTable(2 * ix.count)
	ix.repeats, ix.initWritten = repeats, init
	for i := range old {
		if sl := &old[i]; sl.txn1 != 0 {
			ix.put(hashKV(sl.k, sl.v), sl.k, sl.v, sl.ref())
		}
	}
	oldMem.Free()
}

// touch loads the first slot that a lookup of each hash visits, and
// returns a word of them. It exists for its cache misses: lookups of a
// table far larger than the caches are one miss each, and a loop that
// touches a batch of slots before they are looked up has the misses
// overlap, where the lookups, each behind the branches of the one
// before, mostly wait for them one at a time. The loop must do little
// else: the processor's window of instructions in flight, not the
// memory, limits how many misses overlap. Go has no prefetch instruction;
// loads whose results are kept do the same. (Both the puts of
// indexWrites and the lookups of resolveReads take an eighth less time
// with it, at a million transactions.)
func (ix *writeIndex) touch(hashes []uint64) int32 {
	var sink int32
	for _, h := range hashes {
		tb := &ix.tables[tableOf(h, len(ix.tables))]
		sink ^= tb.slots[tb.home(h)].txn1
	}
	return sink
}
