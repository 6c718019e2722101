package predicate

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"
)

func TestValueString(t *testing.T) {
	for _, tc := range []struct {
		v    Value
		want string
	}{
		{Value{}, "NULL"},
		{Null(), "NULL"},
		{Bool(true), "TRUE"},
		{Bool(false), "FALSE"},
		{Int(42), "42"},
		{Int(-7), "-7"},
		{Int(math.MinInt64), "-9223372036854775808"},
		{Float(1.5), "1.5"},
		{Float(-0.25), "-0.25"},
		{Float(1000), "1000.0"},
		{Float(0), "0.0"},
		{Float(math.Copysign(0, -1)), "-0.0"},
		{Float(1e21), "1e+21"},
		{Float(1e-7), "1e-07"},
		{String("it's"), "'it''s'"},
		{String(""), "''"},
	} {
		if got := tc.v.String(); got != tc.want {
			t.Errorf("%#v.String() = %q, want %q", tc.v, got, tc.want)
		}
	}
}

func TestCompare(t *testing.T) {
	nan := Float(math.NaN())
	for _, tc := range []struct {
		a, b Value
		c    int
		ok   bool
	}{
		{Int(1), Int(2), -1, true},
		{Int(2), Int(2), 0, true},
		{Int(1), Float(1), 0, true},
		{Float(1.5), Int(1), 1, true},
		{Int(1), Float(1.5), -1, true},
		{Int(-2), Float(-1.5), -1, true},
		{Int(-1), Float(-1.5), 1, true},
		{Int(math.MaxInt64), Float(0x1p63), -1, true},
		{Int(math.MinInt64), Float(-0x1p63), 0, true},
		{Int(math.MinInt64), Float(-0x1p64), 1, true},
		{Int(1<<53 + 1), Float(1 << 53), 1, true},
		{Float(1 << 53), Int(1<<53 + 1), -1, true},
		{Float(math.Copysign(0, -1)), Int(0), 0, true},
		{Float(math.Copysign(0, -1)), Float(0), 0, true},
		{Float(math.Inf(1)), Int(math.MaxInt64), 1, true},
		{String("a"), String("b"), -1, true},
		{String("b"), String("B"), 1, true},
		{Bool(false), Bool(true), -1, true},
		{Bool(true), Bool(true), 0, true},
		{Null(), Null(), 0, false},
		{Null(), Int(1), 0, false},
		{Int(1), Null(), 0, false},
		{Bool(true), Int(1), 0, false},
		{String("1"), Int(1), 0, false},
		{nan, nan, 0, false},
		{nan, Int(1), 0, false},
		{Int(1), nan, 0, false},
	} {
		if c, ok := Compare(tc.a, tc.b); c != tc.c || ok != tc.ok {
			t.Errorf("Compare(%v, %v) = %d, %v, want %d, %v", tc.a, tc.b, c, ok, tc.c, tc.ok)
		}
	}
}

var jsonValues = []Value{
	Null(), Bool(true), Bool(false), Int(0), Int(-3), Int(math.MaxInt64), Int(math.MinInt64),
	Float(1.5), Float(-1e300), Float(3), String(""), String("it's \"quoted\""),
}

func TestJSONRoundTrip(t *testing.T) {
	for _, v := range jsonValues {
		got, err := FromJSON(v.JSON())
		if err != nil || got != v {
			t.Errorf("FromJSON(%v.JSON()) = %v, %v", v, got, err)
		}
		// Through encoding/json text, numbers keep their value but a
		// whole Float comes back as an Int.
		text, err := json.Marshal(v.JSON())
		if err != nil {
			t.Fatal(err)
		}
		d := json.NewDecoder(bytes.NewReader(text))
		d.UseNumber()
		var x any
		if err := d.Decode(&x); err != nil {
			t.Fatal(err)
		}
		got, err = FromJSON(x)
		if err != nil {
			t.Errorf("FromJSON(%s): %v", text, err)
			continue
		}
		if c, ok := Compare(got, v); got != v && (!ok || c != 0) {
			t.Errorf("FromJSON(decode(%s)) = %v, want %v", text, got, v)
		}
	}
}

func TestFromJSON(t *testing.T) {
	for _, tc := range []struct {
		x    any
		want Value
	}{
		{nil, Null()},
		{true, Bool(true)},
		{2.0, Float(2)},
		{json.Number("12"), Int(12)},
		{json.Number("-12"), Int(-12)},
		{json.Number("1.25"), Float(1.25)},
		{json.Number("1e3"), Float(1000)},
		{"s", String("s")},
		{7, Int(7)},
		{int64(-7), Int(-7)},
	} {
		if got, err := FromJSON(tc.x); err != nil || got != tc.want {
			t.Errorf("FromJSON(%#v) = %v, %v, want %v", tc.x, got, err, tc.want)
		}
	}
	for _, x := range []any{
		[]any{1.0}, map[string]any{}, int32(1), uint64(1), json.Number("99999999999999999999"),
		json.Number("1x"), json.Number(""), json.Number("1e999"),
	} {
		if v, err := FromJSON(x); err == nil {
			t.Errorf("FromJSON(%#v) = %v, want error", x, v)
		}
	}
}
