package polygraph

import "github.com/isocheck/isocheck/history"

// writeIndex maps (key, value) to the write of that value. It is an
// open-addressing hash table written by hand because it is the hottest
// structure of polygraph construction (one probe per operation): a Go map
// with a struct key costs several times more per lookup here.
type writeIndex struct {
	// slots hold key, value and write side by side, so that a probe
	// touches one cache line: the table of a million-transaction history
	// is far larger than the caches, and a lookup is one miss.
	slots []writeSlot
	mask  uint64
	count int
}

// writeSlot is one entry; the zero slot is empty, so a new table needs no
// pass to mark its slots empty.
type writeSlot struct {
	v    history.Value
	k    history.Key
	txn1 int32 // the writing transaction plus one; 0: empty
	op   int32
}

func (sl *writeSlot) ref() writeRef { return writeRef{txn: sl.txn1 - 1, op: sl.op} }

func newWriteIndex(capacity int) *writeIndex {
	size := 16
	for size < 2*capacity {
		size *= 2
	}
	return &writeIndex{slots: make([]writeSlot, size), mask: uint64(size - 1)}
}

func hashKV(k history.Key, v history.Value) uint64 {
	h := uint64(v)*0x9E3779B97F4A7C15 ^ uint64(uint32(k))*0xC2B2AE3D27D4EB4F
	h ^= h >> 29
	h *= 0xBF58476D1CE4E5B9
	return h ^ h>>32
}

// get returns the write of v to k.
func (ix *writeIndex) get(k history.Key, v history.Value) (writeRef, bool) {
	for i := hashKV(k, v) & ix.mask; ; i = (i + 1) & ix.mask {
		sl := &ix.slots[i]
		if sl.txn1 == 0 {
			return writeRef{}, false
		}
		if sl.k == k && sl.v == v {
			return sl.ref(), true
		}
	}
}

// put records the write r of v to k, or returns the write already there.
func (ix *writeIndex) put(k history.Key, v history.Value, r writeRef) (writeRef, bool) {
	if 2*(ix.count+1) > len(ix.slots) {
		ix.grow()
	}
	for i := hashKV(k, v) & ix.mask; ; i = (i + 1) & ix.mask {
		sl := &ix.slots[i]
		if sl.txn1 == 0 {
			*sl = writeSlot{v: v, k: k, txn1: r.txn + 1, op: r.op}
			ix.count++
			return writeRef{}, false
		}
		if sl.k == k && sl.v == v {
			return sl.ref(), true
		}
	}
}

func (ix *writeIndex) grow() {
	old := ix.slots
	*ix = *newWriteIndex(len(old))
	for i := range old {
		if sl := &old[i]; sl.txn1 != 0 {
			ix.put(sl.k, sl.v, sl.ref())
		}
	}
}
