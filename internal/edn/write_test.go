package edn

import (
	"math"
	"reflect"
	"strings"
	"testing"
)

func TestMarshal(t *testing.T) {
	tests := []struct {
		v    any
		want string
	}{
		{nil, "nil"},
		{true, "true"},
		{int64(-7), "-7"},
		{7, "7"},
		{BigInt("18446744073709551615"), "18446744073709551615"},
		{1.5, "1.5"},
		{2.0, "2.0"},
		{1e100, "1e+100"},
		{math.Inf(-1), "##-Inf"},
		{Decimal("1.5"), "1.5M"},
		{"a\"b\\c\nd\te\r\x01\x7fé", `"a\"b\\c\nd\te\r\u0001\u007fé"`},
		{"bad \xff utf-8", `"bad \ufffd utf-8"`},
		{Char('x'), `\x`},
		{Char('\n'), `\newline`},
		{Char(0), `\u0000`},
		{Keyword("valid?"), ":valid?"},
		{Keyword("value'"), ":value'"},
		{Keyword("jepsen/op"), ":jepsen/op"},
		{Symbol("..."), "..."},
		{Symbol("-"), "-"},
		{[]any{Keyword("r"), "x", nil}, `[:r "x" nil]`},
		{[]int64{1, 2}, "[1 2]"},
		{[]any{}, "[]"},
		{List{int64(1), List{}}, "(1 ())"},
		{Set{Keyword("read-committed"), Keyword("serializable")}, "#{:read-committed :serializable}"},
		{Map{{Keyword("valid?"), false}, {Keyword("not"), Set{}}}, "{:valid? false, :not #{}}"},
		{Map{}, "{}"},
		{Tagged{"inst", "1985-04-12T23:20:50.52Z"}, `#inst "1985-04-12T23:20:50.52Z"`},
	}
	for _, tt := range tests {
		b, err := Marshal(tt.v)
		if err != nil {
			t.Errorf("Marshal(%#v): %v", tt.v, err)
			continue
		}
		if string(b) != tt.want {
			t.Errorf("Marshal(%#v) = %s, want %s", tt.v, b, tt.want)
		}
	}
}

// TestMarshalRoundTrip checks that Decode reads what Marshal writes back
// as the value written.
func TestMarshalRoundTrip(t *testing.T) {
	vs := []any{
		nil, true, int64(math.MinInt64), BigInt("-99999999999999999999"), 0.25, Decimal("3.0"),
		"", "quote \" backslash \\ newline \n tab \t cr \r nul \x00 del \x7f bell \a é 世界 😀",
		Char('a'), Char(' '), Char('\u00e9'), Char(1),
		Keyword("G-single-item-realtime"), Keyword("PL-SI-cycle-exists"), Keyword("a.b/c"),
		Symbol("foo"), Symbol("+x"),
		[]any{Keyword("append"), int64(3), []int64{1, 2}},
		List{"a", Set{int64(1)}},
		Map{{Keyword("anomalies"), Map{{Keyword("G0"), []any{Map{{Keyword("type"), Keyword("ww")}}}}}}},
		Tagged{"jepsen.history.Op", Map{{Keyword("index"), int64(1)}}},
	}
	for _, v := range vs {
		b, err := Marshal(v)
		if err != nil {
			t.Errorf("Marshal(%#v): %v", v, err)
			continue
		}
		d := NewDecoderBytes(b)
		got, err := d.Decode()
		if err != nil {
			t.Errorf("Decode(%s): %v", b, err)
			continue
		}
		if !reflect.DeepEqual(got, v) {
			t.Errorf("Decode(Marshal(%#v)) = %#v (text %s)", v, got, b)
		}
		if d.More() {
			t.Errorf("%s: more than one form", b)
		}
	}
}

func TestMarshalErrors(t *testing.T) {
	tests := []struct {
		v   any
		msg string
	}{
		{Keyword(""), "cannot be written as a keyword"},
		{Keyword("1a"), "cannot be written as a keyword"},
		{Keyword("a b"), "cannot be written as a keyword"},
		{Keyword("a,b"), "cannot be written as a keyword"},
		{Keyword("a/"), "cannot be written as a keyword"},
		{Symbol("nil"), "cannot be written as a symbol"},
		{Symbol("-1"), "cannot be written as a symbol"},
		{BigInt("12a"), "is not an integer"},
		{Decimal("x"), "is not a number"},
		{Tagged{"1x", nil}, "cannot be written as a tag"},
		{[]any{map[string]int{}}, "cannot write a value of type map[string]int"},
		{uint8(1), "cannot write a value of type uint8"},
	}
	for _, tt := range tests {
		_, err := Marshal(tt.v)
		if err == nil || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("Marshal(%#v): got %v, want an error containing %q", tt.v, err, tt.msg)
		}
	}
	deep := any(nil)
	for range MaxDepth + 2 {
		deep = []any{deep}
	}
	if _, err := Marshal(deep); err == nil {
		t.Errorf("Marshal of a value nested %d deep: no error", MaxDepth+2)
	}
}

func TestWritesAsKeyword(t *testing.T) {
	tests := []struct {
		s    string
		want bool
	}{
		{":ok", true},
		{":valid?", true},
		{":jepsen/op", true},
		{":a.b/c", true},
		{":G-single-item-realtime", true},
		{":<=>", true},
		{":a:b", true},
		{":a#b", true},
		{"", false},
		{":", false},
		{"ok", false},
		{"::ok", false},
		{":1a", false},
		{":-a", false},
		{":a b", false},
		{":a,b", false},
		{":a/", false},
		{":a:", false},
		{":a::b", false},
		{":value'", false}, // Clojure reads it; the EDN specification does not
		{":é", false},
	}
	for _, tt := range tests {
		if got := WritesAsKeyword(tt.s); got != tt.want {
			t.Errorf("WritesAsKeyword(%q) = %v, want %v", tt.s, got, tt.want)
		}
	}
}

func TestAppendName(t *testing.T) {
	tests := []struct {
		s, want string
	}{
		{":ok", ":ok"},
		{":a/", `":a/"`},
		{":value'", `":value'"`},
		{"x", `"x"`},
		{"", `""`},
		{"a\"b\n\xff", `"a\"b\n\ufffd"`},
	}
	for _, tt := range tests {
		if got := string(AppendName([]byte("<"), tt.s)); got != "<"+tt.want {
			t.Errorf("AppendName(%q) = %s, want <%s", tt.s, got, tt.want)
		}
	}
}

// TestAppendNameRoundTrip checks that what AppendName writes decodes as a
// keyword or a string that names s again.
func TestAppendNameRoundTrip(t *testing.T) {
	for _, s := range []string{":ok", ":jepsen/op", ":a/", "plain", "", ":", "quote \" and \\", "\t\x00\x7f", "世界"} {
		b := AppendName(nil, s)
		v, err := NewDecoderBytes(b).Decode()
		if err != nil {
			t.Errorf("Decode(%s): %v", b, err)
			continue
		}
		var got string
		switch v := v.(type) {
		case Keyword:
			got = ":" + string(v)
		case string:
			got = v
		default:
			t.Errorf("Decode(%s) = %#v, want a keyword or a string", b, v)
			continue
		}
		if got != s {
			t.Errorf("Decode(AppendName(%q)) names %q", s, got)
		}
	}
}
