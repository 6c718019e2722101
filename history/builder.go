package history

import (
	"slices"
	"strconv"
	"unsafe"

	"github.com/isocheck/isocheck/internal/hugepage"
)

// A Builder assembles a History. Readers call Session, Key and Value to
// intern names, then AddTxn once per transaction in input order; a
// transaction's session order is the order of AddTxn calls for its session.
type Builder struct {
	h History
	// keys interns the keys whose names are not the canonical decimal
	// form of an int64; the others are interned by number: dense[n] is
	// key n plus one (0 for none) for 0 <= n < len(dense), intKeys holds
	// the rest. A dense table is several times faster than a map when a
	// history has hundreds of thousands of keys (measured on dbcop and
	// JSONL inputs of 777k keys, see format's benchmarks).
	keys     map[string]Key
	dense    []Key
	intKeys  map[int64]Key
	names    []byte // the tail of the chunk that holds the names of integer keys
	keyHint  int    // the number of keys expected (GrowKeys)
	sessions map[string]int32
	intSess  map[int64]int32
	strVals  map[string]Value
	longest  [][]Value // per key, the longest list read so far
}

// NewBuilder returns a Builder for a history whose initial transaction
// writes init to every key, read from the named files.
func NewBuilder(init Value, files ...string) *Builder {
	return &Builder{
		h:        History{Init: init, Files: files},
		keys:     make(map[string]Key),
		sessions: make(map[string]int32),
		intSess:  make(map[int64]int32),
		strVals:  make(map[string]Value),
	}
}

// SetPosIsOffset says positions are byte offsets rather than line numbers.
func (b *Builder) SetPosIsOffset(v bool) { b.h.PosIsOffset = v }

// AddFile adds an input file name and returns its index for Txn.File.
func (b *Builder) AddFile(name string) int32 {
	b.h.Files = append(b.h.Files, name)
	return int32(len(b.h.Files) - 1)
}

// Key interns a key given by name.
func (b *Builder) Key(name string) Key {
	if n, ok := canonicalInt(name); ok {
		return b.intKey(n, name)
	}
	if k, ok := b.keys[name]; ok {
		return k
	}
	k := Key(len(b.h.KeyNames))
	b.keys[name] = k
	b.h.KeyNames = append(b.h.KeyNames, name)
	return k
}

// canonicalInt returns the int64 whose canonical decimal form (no '+', no
// leading zeros, no "-0") is s, if there is one.
func canonicalInt(s string) (int64, bool) {
	if len(s) == 0 || len(s) > 20 {
		return 0, false
	}
	d := s
	if d[0] == '-' {
		d = d[1:]
	}
	if len(d) == 0 || (d[0] == '0' && len(s) > 1) {
		return 0, false // "", "-", leading zeros, "-0"
	}
	for i := 0; i < len(d); i++ {
		if d[i] < '0' || d[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
}

// IntKey interns a key given by number; IntKey(5) and Key("5") are the same key.
func (b *Builder) IntKey(n int64) Key {
	if uint64(n) < uint64(len(b.dense)) {
		if k := b.dense[n]; k != 0 {
			return k - 1
		}
	}
	return b.intKey(n, "")
}

// IntKeys sets keys[i] to IntKey(ns[i]) for each i, in order. It is
// faster than calling IntKey for each when there are many keys: their
// lookups in the dense table, most of which miss the processor's caches,
// overlap (measured: a third less time interning uniformly random keys).
func (b *Builder) IntKeys(ns []int64, keys []Key) {
	keys = keys[:len(ns)]
	d := b.dense
	for i, n := range ns {
		var k Key
		if uint64(n) < uint64(len(d)) {
			k = d[n]
		}
		keys[i] = k
	}
	for i, n := range ns {
		if keys[i] != 0 {
			keys[i]--
			continue
		}
		keys[i] = b.intKey(n, "")
	}
}

// intKey is IntKey with the key's name, if the caller has it.
func (b *Builder) intKey(n int64, name string) Key {
	if uint64(n) < uint64(len(b.dense)) {
		if k := b.dense[n]; k != 0 {
			return k - 1
		}
	} else if k, ok := b.intKeys[n]; ok {
		return k
	}
	if name == "" {
		name = b.intName(n)
	}
	k := Key(len(b.h.KeyNames))
	b.h.KeyNames = append(b.h.KeyNames, name)
	if n >= 0 && b.growDense(n) {
		b.dense[n] = k + 1
		return k
	}
	if b.intKeys == nil {
		b.intKeys = make(map[int64]Key)
	}
	b.intKeys[n] = k
	return k
}

// minDense is the size up to which the dense table grows regardless of the
// number of keys.
const minDense = 1 << 16

// growDense makes the dense table hold n if that keeps it at most 8 entries
// per key plus minDense, so that hostile key numbers cannot make it large,
// and reports whether it holds n. Keys of intKeys that the grown table
// holds move into it.
func (b *Builder) growDense(n int64) bool {
	if n < int64(len(b.dense)) {
		return true
	}
	// The size doubles, so that growing costs O(1) a key.
	limit := int64(8*max(len(b.h.KeyNames), b.keyHint) + minDense)
	if n >= limit {
		return false
	}
	size := int64(max(len(b.dense), 1024))
	for size <= n {
		size *= 2
	}
	if size > limit {
		return false
	}
	d := make([]Key, size)
	copy(d, b.dense)
	b.dense = d
	for m, k := range b.intKeys {
		if m >= 0 && m < size {
			d[m] = k + 1
			delete(b.intKeys, m)
		}
	}
	return true
}

// intName returns the decimal form of n. The names share chunks of memory
// rather than being allocated one by one, which halves the cost of a new
// key (measured) and gives the garbage collector fewer objects.
func (b *Builder) intName(n int64) string {
	if cap(b.names)-len(b.names) < 20 {
		b.names = make([]byte, 0, 16<<10)
	}
	start := len(b.names)
	b.names = strconv.AppendInt(b.names, n, 10)
	name := b.names[start:]
	// The bytes are never written again: b.names only grows past them.
	return unsafe.String(&name[0], len(name))
}

// Session interns a session given by name.
func (b *Builder) Session(name string) int32 {
	if s, ok := b.sessions[name]; ok {
		return s
	}
	s := int32(len(b.h.Sessions))
	b.sessions[name] = s
	b.h.Sessions = append(b.h.Sessions, nil)
	b.h.SessionNames = append(b.h.SessionNames, name)
	return s
}

// IntSession interns a session given by number; IntSession(2) and
// Session("2") are the same session.
func (b *Builder) IntSession(n int64) int32 {
	if s, ok := b.intSess[n]; ok {
		return s
	}
	s := b.Session(strconv.FormatInt(n, 10))
	b.intSess[n] = s
	return s
}

// StringValue interns a string value.
func (b *Builder) StringValue(s string) Value {
	if v, ok := b.strVals[s]; ok {
		return v
	}
	v := StringBase + Value(len(b.h.ValueNames))
	b.strVals[s] = v
	b.h.ValueNames = append(b.h.ValueNames, s)
	return v
}

// Grow makes room for txns more transactions and ops more operations, so
// that reading a large input does not copy them over and over. Readers
// call it with an estimate from the input's size.
//
// The new room is allocated with make rather than slices.Grow: memory fresh
// from the operating system needs no clearing, so that the pages are only
// touched as the reader fills them (clearing 400 MB up front takes a
// quarter of a second, during which the reader cannot notice a deadline).
func (b *Builder) Grow(txns, ops int) {
	b.h.Txns = grow(b.h.Txns, txns)
	b.h.Ops = grow(b.h.Ops, ops)
}

func grow[E any](s []E, n int) []E {
	if n <= 0 || cap(s)-len(s) >= n {
		return s
	}
	t := make([]E, len(s), len(s)+n)
	// The room is filled in order, page after page: a large history's
	// operations fault in gigabytes, which huge pages make 512 times
	// fewer faults.
	hugepage.Advise(t)
	copy(t, s)
	return t
}

// GrowKeys makes room for n more keys: readers call it with an estimate
// of the number of keys, which must be bounded by the input's size (the
// room is allocated).
func (b *Builder) GrowKeys(n int) {
	b.h.KeyNames = grow(b.h.KeyNames, n)
	b.keyHint = max(b.keyHint, len(b.h.KeyNames)+n)
}

// NumTxns is the number of transactions added so far.
func (b *Builder) NumTxns() int { return len(b.h.Txns) }

// AddTxn appends a transaction with the given operations (copied) and
// returns its index. t.OpStart and t.OpEnd are set by AddTxn.
func (b *Builder) AddTxn(t Txn, ops []Op) int {
	t.OpStart = int32(len(b.h.Ops))
	b.h.Ops = append(b.h.Ops, ops...)
	t.OpEnd = int32(len(b.h.Ops))
	i := len(b.h.Txns)
	b.h.Txns = append(b.h.Txns, t)
	b.h.Sessions[t.Session] = append(b.h.Sessions[t.Session], int32(i))
	return i
}

// AddListTxn is AddTxn for a history of lists (History.Lists): writes
// append, and lists[i] is the list read by ops[i], first appended first
// (nil or empty for an empty list; ignored for writes). AddListTxn sets
// each read's Value to its list's last element, or to Init for an empty
// list. The lists are copied: a list that extends or repeats the longest
// list of its key read so far shares that list's memory, so that the reads
// of a key take about as much memory as its longest list.
func (b *Builder) AddListTxn(t Txn, ops []Op, lists [][]Value) int {
	b.h.Lists = true
	first := int32(len(b.h.Ops))
	for i := range ops {
		if ops[i].Kind != Read {
			continue
		}
		var l []Value
		if i < len(lists) {
			l = lists[i]
		}
		if len(l) == 0 {
			ops[i].Value = b.h.Init
			continue
		}
		ops[i].Value = l[len(l)-1]
		b.h.ListReads = append(b.h.ListReads, ListRead{Op: first + int32(i), Values: b.internList(ops[i].Key, l)})
	}
	return b.AddTxn(t, ops)
}

// internList returns a copy of l, a list of key k, sharing memory with
// the longest list of k when one is a prefix of the other.
func (b *Builder) internList(k Key, l []Value) []Value {
	if int(k) >= len(b.longest) {
		b.longest = append(b.longest, make([][]Value, int(k)+1-len(b.longest))...)
	}
	long := b.longest[k]
	n := min(len(l), len(long))
	if !slices.Equal(long[:n], l[:n]) {
		return slices.Clone(l) // incompatible with the longest: its own copy
	}
	if len(l) > len(long) {
		// Appending may move long, but what earlier reads hold stays valid.
		long = append(long, l[n:]...)
		b.longest[k] = long
	}
	return long[:len(l):len(l)]
}

// AddOrder records the version order of a key that the input states
// (History.Orders). values is copied.
func (b *Builder) AddOrder(k Key, values []Value) {
	b.h.Orders = append(b.h.Orders, VersionOrder{Key: k, Values: slices.Clone(values)})
}

// AddFault appends an event of the nemesis.
func (b *Builder) AddFault(f Fault) { b.h.Faults = append(b.h.Faults, f) }

// History returns the history built so far. The Builder must not be used
// afterwards.
func (b *Builder) History() *History {
	h := b.h
	b.h = History{}
	// Readers make room for the keys the input's size allows, often
	// several times what it holds (tens of megabytes in a large history):
	// a copy of the exact size frees the rest for the stages after. (The
	// operations' spare room is smaller, and copying them doubled the
	// reading's peak memory.)
	if spare := cap(h.KeyNames) - len(h.KeyNames); spare > 1<<16 && spare > len(h.KeyNames) {
		h.KeyNames = slices.Clip(slices.Clone(h.KeyNames))
	}
	return &h
}
