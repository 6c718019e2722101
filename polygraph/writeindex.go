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
	slots []writeSlot // ref.txn -1: empty
	mask  uint64
	count int
}

type writeSlot struct {
	v   history.Value
	k   history.Key
	ref writeRef
}

func newWriteIndex(capacity int) *writeIndex {
	size := 16
	for size < 2*capacity {
		size *= 2
	}
	ix := &writeIndex{slots: make([]writeSlot, size), mask: uint64(size - 1)}
	for i := range ix.slots {
		ix.slots[i].ref.txn = -1
	}
	return ix
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
		if sl.ref.txn < 0 {
			return writeRef{}, false
		}
		if sl.k == k && sl.v == v {
			return sl.ref, true
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
		if sl.ref.txn < 0 {
			*sl = writeSlot{v: v, k: k, ref: r}
			ix.count++
			return writeRef{}, false
		}
		if sl.k == k && sl.v == v {
			return sl.ref, true
		}
	}
}

func (ix *writeIndex) grow() {
	old := ix.slots
	*ix = *newWriteIndex(len(old))
	for _, sl := range old {
		if sl.ref.txn >= 0 {
			ix.put(sl.k, sl.v, sl.ref)
		}
	}
}
