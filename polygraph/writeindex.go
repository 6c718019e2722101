package polygraph

import "github.com/isocheck/isocheck/history"

// writeIndex maps (key, value) to the write of that value. It is an
// open-addressing hash table written by hand because it is the hottest
// structure of polygraph construction (one probe per operation): a Go map
// with a struct key costs several times more per lookup here.
type writeIndex struct {
	keys  []history.Key
	vals  []history.Value
	refs  []writeRef // txn -1: empty slot
	mask  uint64
	count int
}

func newWriteIndex(capacity int) *writeIndex {
	size := 16
	for size < 2*capacity {
		size *= 2
	}
	ix := &writeIndex{
		keys: make([]history.Key, size),
		vals: make([]history.Value, size),
		refs: make([]writeRef, size),
		mask: uint64(size - 1),
	}
	for i := range ix.refs {
		ix.refs[i].txn = -1
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
		r := ix.refs[i]
		if r.txn < 0 {
			return writeRef{}, false
		}
		if ix.keys[i] == k && ix.vals[i] == v {
			return r, true
		}
	}
}

// put records the write r of v to k, or returns the write already there.
func (ix *writeIndex) put(k history.Key, v history.Value, r writeRef) (writeRef, bool) {
	if 2*(ix.count+1) > len(ix.refs) {
		ix.grow()
	}
	for i := hashKV(k, v) & ix.mask; ; i = (i + 1) & ix.mask {
		old := ix.refs[i]
		if old.txn < 0 {
			ix.keys[i], ix.vals[i], ix.refs[i] = k, v, r
			ix.count++
			return writeRef{}, false
		}
		if ix.keys[i] == k && ix.vals[i] == v {
			return old, true
		}
	}
}

func (ix *writeIndex) grow() {
	old := *ix
	*ix = *newWriteIndex(len(old.refs))
	for i, r := range old.refs {
		if r.txn >= 0 {
			ix.put(old.keys[i], old.vals[i], r)
		}
	}
}
