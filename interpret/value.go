package interpret

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/internal/edn"
	"github.com/isocheck/isocheck/verdict"
)

// isInt reports whether s is the canonical decimal form of an int64.
func isInt(s string) bool {
	n, err := strconv.ParseInt(s, 10, 64)
	return err == nil && strconv.FormatInt(n, 10) == s
}

// A ValueKind says what a Value holds.
type ValueKind uint8

// The kinds of values.
const (
	KindNone   ValueKind = iota // no value: the zero Value
	KindNull                    // null: what a read returns when it saw no write
	KindInt                     // an integer
	KindString                  // a string
	KindList                    // a list of values: what a read of a list returned
)

// A Value is a value read or written, as the input wrote it: an integer,
// a string or null (or a list, see ListValue). It marshals as that JSON
// value; the zero Value, which stands for no value, is left out of JSON
// objects (omitzero).
type Value struct {
	kind ValueKind
	n    int64
	// s is the string, or the decimal form of an integer of 2^62 or more
	// in magnitude (which may not fit an int64, see bigIntValue).
	s    string
	list []Value
}

// bigIntValue returns the Value of the integer whose decimal form is
// name, when it is one a history keeps as a named value (see
// history.Value: 2^62 or more in magnitude, from -2^63 to 2^64-1): the
// format readers name such integers by their decimal form, and the
// report shows them as the integers the input wrote.
func bigIntValue(name string) (Value, bool) {
	if n, err := strconv.ParseInt(name, 10, 64); err == nil {
		if strconv.FormatInt(n, 10) == name && (n >= 1<<62 || n <= -(1<<62)) {
			return Value{kind: KindInt, n: n, s: name}, true
		}
		return Value{}, false
	}
	u, err := strconv.ParseUint(name, 10, 64)
	if err == nil && strconv.FormatUint(u, 10) == name {
		return Value{kind: KindInt, s: name}, true
	}
	return Value{}, false
}

// IntValue returns a Value for an integer.
func IntValue(n int64) Value { return Value{kind: KindInt, n: n} }

// StringValue returns a Value for a string.
func StringValue(s string) Value { return Value{kind: KindString, s: s} }

// NullValue returns the null Value.
func NullValue() Value { return Value{kind: KindNull} }

// ListValue returns a Value for a list (of a list history, see
// history.History.Lists): the elements, first appended first.
func ListValue(elems []Value) Value {
	if elems == nil {
		elems = []Value{}
	}
	return Value{kind: KindList, list: elems}
}

// listOf returns h's list of elements vs as a list Value.
func listOf(h *history.History, vs []history.Value) Value {
	elems := make([]Value, len(vs))
	for i, v := range vs {
		elems[i] = valueOf(h, v)
	}
	return ListValue(elems)
}

// valueOf returns h's value v as a Value.
func valueOf(h *history.History, v history.Value) Value {
	switch {
	case v == history.Null:
		return NullValue()
	case v >= history.StringBase && int(v-history.StringBase) < len(h.ValueNames):
		name := h.ValueNames[v-history.StringBase]
		if b, ok := bigIntValue(name); ok {
			return b
		}
		return StringValue(name)
	}
	return IntValue(int64(v))
}

// Kind returns the kind of v.
func (v Value) Kind() ValueKind { return v.kind }

// Any returns v as an int64 (a json.Number for an integer beyond it), a
// string, a []any of the elements of a list, or nil (for null and no
// value).
func (v Value) Any() any {
	switch v.kind {
	case KindInt:
		if v.s != "" && strconv.FormatInt(v.n, 10) != v.s {
			return json.Number(v.s)
		}
		return v.n
	case KindString:
		return v.s
	case KindList:
		out := make([]any, len(v.list))
		for i, e := range v.list {
			out[i] = e.Any()
		}
		return out
	}
	return nil
}

// List returns the elements of a list Value (nil for other kinds).
func (v Value) List() []Value { return v.list }

// IsZero reports whether v holds no value.
func (v Value) IsZero() bool { return v.kind == KindNone }

// String formats v as the text reports write it: 7, "yes" (quoted), null,
// [1 2 3] for a list (as EDN writes it), or ? for no value. A string that
// is an EDN keyword, colon included (the EDN readers keep keyword values
// so, and the EDN writer writes such strings back as keywords), is
// written bare: :ok.
func (v Value) String() string {
	switch v.kind {
	case KindList:
		elems := make([]string, len(v.list))
		for i, e := range v.list {
			elems[i] = e.String()
		}
		return "[" + strings.Join(elems, " ") + "]"
	case KindNull:
		return "null"
	case KindInt:
		if v.s != "" {
			return v.s
		}
		return strconv.FormatInt(v.n, 10)
	case KindString:
		if keywordName(v.s) {
			return v.s
		}
		return strconv.Quote(v.s)
	}
	return "?"
}

// MarshalJSON writes v as a JSON number, string, array (a list) or null
// (also for no value, which omitzero leaves out).
func (v Value) MarshalJSON() ([]byte, error) {
	switch v.kind {
	case KindList:
		return json.Marshal(v.list)
	case KindInt:
		if v.s != "" {
			return []byte(v.s), nil
		}
		return strconv.AppendInt(nil, v.n, 10), nil
	case KindString:
		return json.Marshal(v.s)
	}
	return []byte("null"), nil
}

// UnmarshalJSON reads a JSON integer, string, array (a list) or null.
func (v *Value) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case string(b) == "null":
		*v = NullValue()
	case len(b) > 0 && b[0] == '[':
		var elems []Value
		if err := json.Unmarshal(b, &elems); err != nil {
			return err
		}
		*v = ListValue(elems)
	case len(b) > 0 && b[0] == '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*v = StringValue(s)
	default:
		if big, ok := bigIntValue(string(b)); ok {
			*v = big
			return nil
		}
		n, err := strconv.ParseInt(string(b), 10, 64)
		if err != nil {
			return fmt.Errorf("interpret: value %s is neither an integer, a string nor null", b)
		}
		*v = IntValue(n)
	}
	return nil
}

// An Op is one operation of a transaction.
type Op struct {
	// Kind is "r" (read) or "w" (write); in a history of lists
	// (history.History.Lists), "r" (a read of the whole list) or
	// "append", Elle's name.
	Kind string     `json:"kind"`
	Key  verdict.ID `json:"key"`
	// Value is the value read or written; a read that saw no write
	// (in formats that say so) read null. A read of a list holds the
	// whole list, an array in JSON.
	Value Value `json:"value"`
}

// String formats o as the text reports write it: r(x,1) and w(x,2), or in
// a history of lists append(x, 3) and r(x, [1 2 3]).
func (o Op) String() string {
	if o.Kind == "append" || o.Value.kind == KindList {
		return fmt.Sprintf("%s(%s, %s)", o.Kind, o.Key, o.Value)
	}
	return fmt.Sprintf("%s(%s,%s)", o.Kind, o.Key, o.Value)
}

// keywordName reports whether s is an EDN keyword, colon included, as
// EDN writes one (see edn.WritesAsKeyword).
func keywordName(s string) bool { return edn.WritesAsKeyword(s) }
