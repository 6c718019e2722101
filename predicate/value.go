package predicate

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Kind is the type of a Value.
type Kind uint8

// The kinds of values.
const (
	NullKind   Kind = iota // SQL NULL
	BoolKind               // boolean
	IntKind                // 64-bit signed integer
	FloatKind              // 64-bit floating point number
	StringKind             // string of bytes
)

var kindNames = [...]string{"null", "bool", "int", "float", "string"}

// String returns the lower-case name of k.
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// Value is a column value of a row version: NULL, a boolean, a 64-bit
// integer, a float or a string. The zero Value is NULL.
// Values are comparable with ==, which is true when both the kind and
// the content are the same (so Int(1) != Float(1)).
type Value struct {
	kind Kind
	i    int64 // BoolKind (0 or 1) and IntKind
	f    float64
	s    string
}

// Null returns the NULL value.
func Null() Value { return Value{} }

// Bool returns the boolean value b.
func Bool(b bool) Value {
	v := Value{kind: BoolKind}
	if b {
		v.i = 1
	}
	return v
}

// Int returns the integer value i.
func Int(i int64) Value { return Value{kind: IntKind, i: i} }

// Float returns the floating-point value f. Predicates have no literal
// for NaN and the infinities.
func Float(f float64) Value { return Value{kind: FloatKind, f: f} }

// String returns the string value s.
func String(s string) Value { return Value{kind: StringKind, s: s} }

// Kind returns the kind of v.
func (v Value) Kind() Kind { return v.kind }

// IsNull reports whether v is NULL.
func (v Value) IsNull() bool { return v.kind == NullKind }

// String returns v as an SQL literal: NULL, TRUE, 42, 1.5 or 'it”s'.
// A float always has a decimal point or an exponent, so that it reads
// back as a float.
func (v Value) String() string {
	switch v.kind {
	case BoolKind:
		if v.i != 0 {
			return "TRUE"
		}
		return "FALSE"
	case IntKind:
		return strconv.FormatInt(v.i, 10)
	case FloatKind:
		return formatFloat(v.f)
	case StringKind:
		return "'" + strings.ReplaceAll(v.s, "'", "''") + "'"
	}
	return "NULL"
}

func formatFloat(f float64) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return strconv.FormatFloat(f, 'g', -1, 64) // no literal reads it back
	}
	format := byte('f')
	if a := math.Abs(f); a != 0 && (a < 1e-6 || a >= 1e21) {
		format = 'e'
	}
	s := strconv.FormatFloat(f, format, -1, 64)
	if !strings.ContainsAny(s, ".e") {
		s += ".0"
	}
	return s
}

// JSON returns v as a Go value for encoding/json: nil, bool, int64,
// float64 or string.
func (v Value) JSON() any {
	switch v.kind {
	case BoolKind:
		return v.i != 0
	case IntKind:
		return v.i
	case FloatKind:
		return v.f
	case StringKind:
		return v.s
	}
	return nil
}

// FromJSON converts a decoded JSON value to a Value. It accepts nil,
// bool, float64 (a Float), json.Number (an Int if the text is integral,
// otherwise a Float), string, int and int64. Anything else, such as an
// array or an object, is an error. Decode with json.Decoder.UseNumber to
// keep integers as Ints.
func FromJSON(x any) (Value, error) {
	switch x := x.(type) {
	case nil:
		return Null(), nil
	case bool:
		return Bool(x), nil
	case float64:
		return Float(x), nil
	case json.Number:
		if !strings.ContainsAny(string(x), ".eE") {
			i, err := strconv.ParseInt(string(x), 10, 64)
			if err != nil {
				return Value{}, fmt.Errorf("predicate: bad integer %q", string(x))
			}
			return Int(i), nil
		}
		f, err := x.Float64()
		if err != nil {
			return Value{}, fmt.Errorf("predicate: bad number %q", string(x))
		}
		return Float(f), nil
	case string:
		return String(x), nil
	case int:
		return Int(int64(x)), nil
	case int64:
		return Int(x), nil
	}
	return Value{}, fmt.Errorf("predicate: %T is not a value", x)
}

// Compare compares a and b, returning -1, 0 or +1 as a is less than,
// equal to or greater than b. It reports ok == false, and c == 0, when
// either is NULL or a NaN, or their kinds are incomparable. Ints and
// Floats compare exactly by numeric value, strings bytewise, and false
// is less than true.
func Compare(a, b Value) (c int, ok bool) {
	switch {
	case a.kind == NullKind || b.kind == NullKind:
		return 0, false
	case a.kind == IntKind && b.kind == FloatKind:
		return compareIntFloat(a.i, b.f)
	case a.kind == FloatKind && b.kind == IntKind:
		c, ok := compareIntFloat(b.i, a.f)
		return -c, ok
	case a.kind != b.kind:
		return 0, false
	case a.kind == FloatKind:
		if math.IsNaN(a.f) || math.IsNaN(b.f) {
			return 0, false
		}
		return cmp.Compare(a.f, b.f), true
	case a.kind == StringKind:
		return strings.Compare(a.s, b.s), true
	}
	return cmp.Compare(a.i, b.i), true // BoolKind, IntKind
}

// compareIntFloat compares i and f exactly, without rounding i to a float.
func compareIntFloat(i int64, f float64) (int, bool) {
	switch {
	case math.IsNaN(f):
		return 0, false
	case f >= 0x1p63:
		return -1, true
	case f < -0x1p63:
		return 1, true
	}
	t := math.Trunc(f)
	if c := cmp.Compare(i, int64(t)); c != 0 {
		return c, true
	}
	return cmp.Compare(0, f-t), true
}
