package format

import (
	"math"
	"strconv"

	"github.com/isocheck/isocheck/history"
)

// The integers of the text and binary formats are 64-bit, signed (text) or
// unsigned (dbcop, Cobra); the native format's integers, and the integer
// values of a History, lie strictly between -2^62 and 2^62 (see
// maxNativeInt). Readers and writers map them as follows, so that every
// integer round-trips through every format that can hold it:
//
//   - A value u is the integer int64(u) when that is a native integer: u
//     below 2^62, or (for u64) above 2^64-2^62, the two's complement of a
//     negative integer. Any other u (from 2^62 to 2^64-2^62) is the named
//     value (as a string in JSONL) whose name is u in decimal.
//   - A key u is the integer key u when u fits an int64, and otherwise the
//     named key u in decimal; either way its name is u in decimal.

// uintValue returns the value of the 64-bit integer u.
func uintValue(b *history.Builder, u uint64) history.Value {
	if v := int64(u); v < maxNativeInt && v > -maxNativeInt {
		return history.Value(v)
	}
	return b.StringValue(strconv.FormatUint(u, 10))
}

// uintKey returns the key of the 64-bit integer u.
func uintKey(b *history.Builder, u uint64) history.Key {
	if u <= math.MaxInt64 {
		return b.IntKey(int64(u))
	}
	return b.Key(strconv.FormatUint(u, 10))
}

// valueBits returns the 64-bit integer of value v, the inverse of uintValue,
// or false if v is null or a string that is not one.
func valueBits(h *history.History, v history.Value) (uint64, bool) {
	if v == history.Null {
		return 0, false
	}
	if v >= history.StringBase && int64(v-history.StringBase) < int64(len(h.ValueNames)) {
		name := h.ValueNames[v-history.StringBase]
		u, err := strconv.ParseUint(name, 10, 64)
		if err != nil || strconv.FormatUint(u, 10) != name {
			return 0, false
		}
		if v := int64(u); v < maxNativeInt && v > -maxNativeInt {
			return 0, false // a string such as "5", distinct from the integer 5
		}
		return u, true
	}
	return uint64(int64(v)), true
}

// keyBits returns the 64-bit integer a key named name stands for: its
// canonical decimal form, at most math.MaxInt64 unless unsigned.
func keyBits(name string, unsigned bool) (uint64, bool) {
	u, err := strconv.ParseUint(name, 10, 64)
	if err != nil || strconv.FormatUint(u, 10) != name || !unsigned && u > math.MaxInt64 {
		return 0, false
	}
	return u, true
}

// intValues maps the values of a history to the integers of a format
// whose initial value is 0 (text, dbcop). The rule, per key k:
//
//   - the history's initial value (null for JSONL) is 0;
//   - when the initial value is not 0 and k has value 0 (read or written),
//     that 0 is renamed to the smallest positive integer no operation on k
//     has;
//   - every other value is its own integer (see valueBits).
//
// The mapping is one-to-one on each key and keeps the initial state, so
// the history checks the same at every level.
type intValues struct {
	h    *history.History
	zero map[history.Key]uint64 // what 0 is renamed to, per key
}

func newIntValues(h *history.History) *intValues {
	iv := &intValues{h: h}
	if h.Init == 0 {
		return iv
	}
	var used map[history.Key]map[uint64]bool
	for _, op := range h.Ops {
		if op.Value == 0 {
			if used == nil {
				used = make(map[history.Key]map[uint64]bool)
			}
			used[op.Key] = make(map[uint64]bool)
		}
	}
	if used == nil {
		return iv
	}
	for _, op := range h.Ops {
		if u := used[op.Key]; u != nil && op.Value != h.Init {
			if bits, ok := valueBits(h, op.Value); ok {
				u[bits] = true
			}
		}
	}
	iv.zero = make(map[history.Key]uint64, len(used))
	for k, u := range used {
		z := uint64(1)
		for u[z] {
			z++
		}
		iv.zero[k] = z
	}
	return iv
}

// bits returns the integer of op's value, or false if it has none.
func (iv *intValues) bits(op history.Op) (uint64, bool) {
	switch {
	case iv.h.Init == 0:
	case op.Value == iv.h.Init:
		return 0, true
	case op.Value == 0:
		return iv.zero[op.Key], true
	}
	return valueBits(iv.h, op.Value)
}
