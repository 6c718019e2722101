package scan

import (
	"math"
	"strconv"
	"strings"

	"github.com/isocheck/isocheck/history"
)

// The integers of the text and binary formats are 64-bit, signed (text) or
// unsigned (dbcop, Cobra), or either (JSONL). The
// integer values of a History lie strictly between -2^62 and 2^62 (see
// MaxNativeInt). Readers and writers map them as follows, so that every
// integer round-trips through every format that can hold it:
//
//   - A value u of a binary format is the integer int64(u) when that is a
//     native integer: u below 2^62, or (for u64) above 2^64-2^62, the two's
//     complement of a negative integer. Any other u (from 2^62 to
//     2^64-2^62) is the named value whose name is u in decimal.
//   - Likewise an integer v of a text format (PolySI text, JSONL) is
//     itself when |v| < 2^62, and otherwise the named value whose name is
//     v in decimal, the same value as the JSONL string of those digits.
//     JSONL integers go from -2^63 to 2^64-1, so that a named value of any
//     format fits; the JSONL writer writes named values in that range (see
//     bigIntName) back as integers.
//   - A key u is the integer key u when u fits an int64, and otherwise the
//     named key u in decimal; either way its name is u in decimal.

// BigIntName reports whether name is the canonical decimal form of an
// integer v that JSONL reads as a named value: 2^62 <= |v|, from -2^63 to
// 2^64-1.
func BigIntName(name string) bool {
	digits := strings.TrimPrefix(name, "-")
	if digits == "" || digits[0] == '0' || len(digits) > 20 {
		return false // "", "-", "0", "-0", leading zeros, too long
	}
	for i := 0; i < len(digits); i++ {
		if digits[i] < '0' || digits[i] > '9' {
			return false
		}
	}
	u, err := strconv.ParseUint(digits, 10, 64)
	if err != nil || u < MaxNativeInt {
		return false
	}
	return len(digits) == len(name) || u <= 1<<63
}

// UintValue returns the value of the 64-bit integer u.
func UintValue(b *history.Builder, u uint64) history.Value {
	if v := int64(u); v < MaxNativeInt && v > -MaxNativeInt {
		return history.Value(v)
	}
	return b.StringValue(strconv.FormatUint(u, 10))
}

// UintKey returns the key of the 64-bit integer u.
func UintKey(b *history.Builder, u uint64) history.Key {
	if u <= math.MaxInt64 {
		return b.IntKey(int64(u))
	}
	return b.Key(strconv.FormatUint(u, 10))
}

// ValueBits returns the 64-bit integer of value v, the inverse of uintValue,
// or false if v is null or a string that is not one.
func ValueBits(h *history.History, v history.Value) (uint64, bool) {
	if v == history.Null {
		return 0, false
	}
	if v >= history.StringBase && int64(v-history.StringBase) < int64(len(h.ValueNames)) {
		name := h.ValueNames[v-history.StringBase]
		u, err := strconv.ParseUint(name, 10, 64)
		if err != nil || strconv.FormatUint(u, 10) != name {
			return 0, false
		}
		if v := int64(u); v < MaxNativeInt && v > -MaxNativeInt {
			return 0, false // a string such as "5", distinct from the integer 5
		}
		return u, true
	}
	return uint64(int64(v)), true
}

// keyBits returns the 64-bit integer a key named name stands for: its
// canonical decimal form.
func keyBits(name string) (uint64, bool) {
	u, err := strconv.ParseUint(name, 10, 64)
	if err != nil || strconv.FormatUint(u, 10) != name {
		return 0, false
	}
	return u, true
}

// IntegerKeys returns the integer of each key of h in a format whose keys
// are the integers from 0 to limit: a key named by one of them (in canonical
// decimal form) is that integer; the others, in order, are the smallest
// integers no key is named by.
func IntegerKeys(h *history.History, limit uint64) []uint64 {
	keys := make([]uint64, len(h.KeyNames))
	used := make(map[uint64]bool, len(h.KeyNames))
	var others []int
	for k, name := range h.KeyNames {
		if u, ok := keyBits(name); ok && u <= limit {
			keys[k] = u
			used[u] = true
		} else {
			others = append(others, k)
		}
	}
	next := uint64(0)
	for _, k := range others {
		for used[next] {
			next++
		}
		keys[k] = next
		next++
	}
	return keys
}

// IntValues maps the values of a history to the integers from 0 to limit of
// a format whose initial value is 0 (text, dbcop). The rule, per key:
//
//   - the history's initial value (null for JSONL) is 0;
//   - a value that is an integer from 1 to limit (see valueBits), or 0 when
//     0 is the initial value, is that integer;
//   - every other value (a string, an integer out of range, 0 when the
//     initial value is not 0) is, in order of first appearance, the
//     smallest positive integer that no operation on the key has.
//
// The mapping is one-to-one on each key and keeps the initial state, so
// the history checks the same at every level.
type IntValues struct {
	h       *history.History
	renamed map[history.Key]map[history.Value]uint64
}

func NewIntValues(h *history.History, limit uint64) *IntValues {
	iv := &IntValues{h: h}
	keep := func(v history.Value) (uint64, bool) {
		if v == h.Init {
			return 0, true
		}
		u, ok := ValueBits(h, v)
		return u, ok && u <= limit && u != 0
	}
	for _, op := range h.Ops {
		if _, ok := keep(op.Value); !ok {
			if iv.renamed == nil {
				iv.renamed = make(map[history.Key]map[history.Value]uint64)
			}
			iv.renamed[op.Key] = nil
		}
	}
	if iv.renamed == nil {
		return iv
	}
	used := make(map[history.Key]map[uint64]bool, len(iv.renamed))
	for k := range iv.renamed {
		iv.renamed[k] = make(map[history.Value]uint64)
		used[k] = make(map[uint64]bool)
	}
	for _, op := range h.Ops {
		if u := used[op.Key]; u != nil {
			if bits, ok := keep(op.Value); ok {
				u[bits] = true
			}
		}
	}
	next := make(map[history.Key]uint64, len(iv.renamed))
	for _, op := range h.Ops {
		m := iv.renamed[op.Key]
		if m == nil {
			continue
		}
		if _, ok := keep(op.Value); ok {
			continue
		}
		if _, ok := m[op.Value]; ok {
			continue
		}
		n := max(next[op.Key], 1)
		for used[op.Key][n] {
			n++
		}
		m[op.Value] = n
		next[op.Key] = n + 1
	}
	return iv
}

// Bits returns the integer of op's value.
func (iv *IntValues) Bits(op history.Op) uint64 {
	if op.Value == iv.h.Init {
		return 0
	}
	if m := iv.renamed[op.Key]; m != nil {
		if u, ok := m[op.Value]; ok {
			return u
		}
	}
	u, _ := ValueBits(iv.h, op.Value)
	return u
}
