package polygraph

import (
	"math/bits"

	"github.com/isocheck/isocheck/history"
)

// writeIndex maps (key, value) to the write of that value. It is an
// open-addressing hash table written by hand because it is the hottest
// structure of polygraph construction (one probe per operation): a Go map
// with a struct key costs several times more per lookup here.
//
// Its memory is the largest a check allocates at once, one slot per write
// and a third more: 16 bytes a slot, the table filled to three quarters
// and sized to the writes, not to a power of two (a 10M-transaction
// history of 75M writes takes 1.6 GB, where half-full power-of-two tables
// of 24-byte slots took 6.4 GB).
type writeIndex struct {
	h *history.History
	// slots hold key, value and writer side by side, so that a probe
	// touches one cache line: the table of a million-transaction history
	// is far larger than the caches, and a lookup is one miss.
	slots []writeSlot
	count int
}

// writeSlot is one entry; the zero slot is empty, so a new table needs no
// pass to mark its slots empty. The write's operation is not kept: it is
// found among its transaction's operations, which the lookup of a read
// then touches (a few cache lines, in order).
type writeSlot struct {
	v    history.Value
	k    history.Key
	txn1 int32 // the writing transaction plus one; 0: empty
}

// newWriteIndex returns an index of h's writes with room for capacity
// of them.
func newWriteIndex(h *history.History, capacity int) *writeIndex {
	return &writeIndex{h: h, slots: make([]writeSlot, max(16, capacity+capacity/3+1))}
}

func hashKV(k history.Key, v history.Value) uint64 {
	h := uint64(v)*0x9E3779B97F4A7C15 ^ uint64(uint32(k))*0xC2B2AE3D27D4EB4F
	h ^= h >> 29
	h *= 0xBF58476D1CE4E5B9
	return h ^ h>>32
}

// home is the first slot a probe for (k, v) visits: the hash scaled to
// the table (Lemire's multiply-shift), which needs no power-of-two size.
func (ix *writeIndex) home(k history.Key, v history.Value) int {
	hi, _ := bits.Mul64(hashKV(k, v), uint64(len(ix.slots)))
	return int(hi)
}

// ref returns the write of slot sl: its transaction, and the operation
// of that transaction that writes sl.v to sl.k.
func (ix *writeIndex) ref(sl *writeSlot) writeRef {
	t := sl.txn1 - 1
	tx := &ix.h.Txns[t]
	for i := tx.OpStart; i < tx.OpEnd; i++ {
		if op := &ix.h.Ops[i]; op.Kind == history.Write && op.Key == sl.k && op.Value == sl.v {
			return writeRef{txn: t, op: i}
		}
	}
	panic("polygraph: a write of the index is not its transaction's")
}

// get returns the write of v to k.
func (ix *writeIndex) get(k history.Key, v history.Value) (writeRef, bool) {
	for i := ix.home(k, v); ; {
		sl := &ix.slots[i]
		if sl.txn1 == 0 {
			return writeRef{}, false
		}
		if sl.k == k && sl.v == v {
			return ix.ref(sl), true
		}
		if i++; i == len(ix.slots) {
			i = 0
		}
	}
}

// put records that transaction t writes v to k, or returns the write
// already there.
func (ix *writeIndex) put(k history.Key, v history.Value, t int32) (writeRef, bool) {
	if 4*(ix.count+1) > 3*len(ix.slots) {
		ix.grow()
	}
	for i := ix.home(k, v); ; {
		sl := &ix.slots[i]
		if sl.txn1 == 0 {
			*sl = writeSlot{v: v, k: k, txn1: t + 1}
			ix.count++
			return writeRef{}, false
		}
		if sl.k == k && sl.v == v {
			return ix.ref(sl), true
		}
		if i++; i == len(ix.slots) {
			i = 0
		}
	}
}

func (ix *writeIndex) grow() {
	old := ix.slots
	*ix = *newWriteIndex(ix.h, 2*ix.count)
	for i := range old {
		if sl := &old[i]; sl.txn1 != 0 {
			ix.put(sl.k, sl.v, sl.txn1-1)
		}
	}
}
