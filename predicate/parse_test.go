package predicate

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestParseErrors(t *testing.T) {
	deepParens := strings.Repeat("(", maxDepth+1) + "a = 1" + strings.Repeat(")", maxDepth+1)
	deepNots := strings.Repeat("NOT ", maxDepth+1) + "a = 1"
	for _, tc := range []struct {
		src    string
		offset int
		msg    string
	}{
		{"", 0, "expected predicate"},
		{"   ", 3, "end of input"},
		{"a", 1, "expected comparison operator"},
		{"a =", 3, "expected predicate, column or literal"},
		{"a = 1 AND", 9, "end of input"},
		{"a = 1 OR OR b = 1", 9, `found "OR"`},
		{"(a = 1", 6, "expected ')'"},
		{"a = 1)", 5, `unexpected ")"`},
		{"a = 1 b = 2", 6, `unexpected "b"`},
		{"a IN ()", 6, "expected literal"},
		{"a IN (b)", 6, "expected literal"},
		{"a IN (1 2)", 8, "expected ',' or ')'"},
		{"a IN 1", 5, "expected '('"},
		{"a BETWEEN 1 OR 2", 12, "expected AND"},
		{"a BETWEEN b AND 2", 10, "expected literal"},
		{"a NOT = 1", 6, "expected IN or BETWEEN"},
		{"a IS 1", 5, "expected NULL"},
		{"NULL", 4, "expected comparison operator"},
		{"1", 1, "expected comparison operator"},
		{"NOT", 3, "end of input"},
		{"'abc", 0, "unterminated string"},
		{"a = 'it''s", 4, "unterminated string"},
		{`"ab = 1`, 0, "unterminated quoted identifier"},
		{"a = 1.", 5, "expected digit after decimal point"},
		{"a = 1.x", 5, "expected digit after decimal point"},
		{"a = 1e", 5, "malformed exponent"},
		{"a = 1e+", 5, "malformed exponent"},
		{"a = 1x", 5, "malformed number"},
		{"a = 1.5.5", 7, "malformed number"},
		{"a = 99999999999999999999", 4, "integer out of range"},
		{"a = -9223372036854775809", 4, "integer out of range"},
		{"a = 1e999", 4, "number out of range"},
		{"a # 1", 2, `unexpected character "#"`},
		{"a ! 1", 2, `unexpected character "!"`},
		{"a = - 1", 4, `unexpected character "-"`},
		{"t. = 1", 1, `unexpected character "."`},
		{"a = 1 AND \xff", 10, `unexpected character "\xff"`},
		{deepParens, maxDepth, "nesting deeper than 200"},
		{deepNots, 4 * maxDepth, "nesting deeper than 200"},
		{"a = 1" + strings.Repeat(" ", maxLen), maxLen, "longer than 64 KiB"},
	} {
		e, err := Parse(tc.src)
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("Parse(%.40q) = %v, %v, want a *SyntaxError", tc.src, e, err)
			continue
		}
		if se.Offset != tc.offset || !strings.Contains(se.Msg, tc.msg) {
			t.Errorf("Parse(%.40q): %v, want offset %d and %q", tc.src, err, tc.offset, tc.msg)
		}
	}
}

func TestParseLimitsAccepted(t *testing.T) {
	for _, src := range []string{
		strings.Repeat("(", maxDepth) + "a = 1" + strings.Repeat(")", maxDepth),
		strings.Repeat("NOT ", maxDepth) + "a = 1",
		"a = 1" + strings.Repeat(" ", maxLen-5),
		strings.Repeat("a = 1 AND ", maxLen/10-1) + "TRUE",
	} {
		e, err := Parse(src)
		if err != nil {
			t.Errorf("Parse(%.40q...): %v", src, err)
			continue
		}
		if e2, err := Parse(e.String()); err != nil || !Equal(e, e2) {
			t.Errorf("round trip of %.40q...: %v", src, err)
		}
	}
}

func TestRoundTrip(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"a=1", "a = 1"},
		{"a!=1", "a <> 1"},
		{"a<>-1", "a <> -1"},
		{"a<=1 or a>=2 or a<3 or a>4", "a <= 1 OR a >= 2 OR a < 3 OR a > 4"},
		{"A = 1 and b <> 'x' OR NOT c IS NULL", "A = 1 AND b <> 'x' OR NOT c IS NULL"},
		{"(a = 1 OR b = 2) AND c = 3", "(a = 1 OR b = 2) AND c = 3"},
		{"a = 1 OR (b = 2 AND c = 3)", "a = 1 OR b = 2 AND c = 3"},
		{"((a = 1) AND (b = 2)) AND (c = 3 AND d = 4)", "a = 1 AND b = 2 AND c = 3 AND d = 4"},
		{"a = 1 OR (b = 2 OR c = 3)", "a = 1 OR b = 2 OR c = 3"},
		{"NOT (a = 1 AND b = 2)", "NOT (a = 1 AND b = 2)"},
		{"NOT (a = 1 OR b = 2)", "NOT (a = 1 OR b = 2)"},
		{"NOT (a = 1)", "NOT a = 1"},
		{"not not a = 1", "NOT NOT a = 1"},
		{"NOT a BETWEEN 1 AND 2 AND b = 1", "NOT a BETWEEN 1 AND 2 AND b = 1"},
		{"x between 1 and 2.5 and y not in (1, 'a', null, true)", "x BETWEEN 1 AND 2.5 AND y NOT IN (1, 'a', NULL, TRUE)"},
		{"x not between 'a' and 'b'", "x NOT BETWEEN 'a' AND 'b'"},
		{"a is not null", "a IS NOT NULL"},
		{`"select" = t.col`, `select = t.col`},
		{`"and.x" = "t.c"`, `and.x = t.c`},
		{`"AND" = "Null" OR "In" = 1`, `"AND" = "Null" OR "In" = 1`},
		{`and_1 = "A b"`, `and_1 = "A b"`},
		{`"weird ""col""" >= 1.5`, `"weird ""col""" >= 1.5`},
		{`"" = 1`, `"" = 1`},
		{`"1a" = "a1"`, `"1a" = a1`},
		{"a = 1e3", "a = 1000.0"},
		{"a = 1E21", "a = 1e+21"},
		{"a = 007", "a = 7"},
		{"a = -0.0", "a = -0.0"},
		{"true", "TRUE"},
		{"(False)", "FALSE"},
		{"TRUE AND a = 1", "TRUE AND a = 1"},
		{"TRUE = a", "TRUE = a"},
		{"NULL IS NULL", "NULL IS NULL"},
		{"1 < 2", "1 < 2"},
		{"a = 'it''s'", "a = 'it''s'"},
		{"a = a", "a = a"},
		{" \t\na\r\n=\f1\v", "a = 1"},
	} {
		e, err := Parse(tc.src)
		if err != nil {
			t.Errorf("Parse(%q): %v", tc.src, err)
			continue
		}
		if got := e.String(); got != tc.want {
			t.Errorf("Parse(%q).String() = %q, want %q", tc.src, got, tc.want)
		}
		e2, err := Parse(e.String())
		if err != nil || !Equal(e, e2) {
			t.Errorf("Parse(%q) does not read back: %v", e.String(), err)
		}
	}
}

func TestEqual(t *testing.T) {
	if !Equal(nil, nil) || Equal(nil, MustParse("TRUE")) || Equal(MustParse("TRUE"), nil) {
		t.Error("Equal mishandles nil")
	}
	distinct := []string{
		"a = 1", "a = 1.0", "a <> 1", "b = 1", "1 = a", "a IN (1)", "a NOT IN (1)", "a IN (1, 2)",
		"a IN (2, 1)", "a BETWEEN 1 AND 2", "a NOT BETWEEN 1 AND 2", "a IS NULL", "a IS NOT NULL",
		"TRUE", "FALSE", "NOT a = 1", "NOT NOT a = 1", "a = 1 AND b = 1", "b = 1 AND a = 1",
		"a = 1 OR b = 1", "a = '1'", "a = TRUE", "a = NULL",
	}
	for i, x := range distinct {
		for j, y := range distinct {
			if got := Equal(MustParse(x), MustParse(y)); got != (i == j) {
				t.Errorf("Equal(%q, %q) = %v", x, y, got)
			}
		}
	}
	if !Equal(KeyEquals("k", Int(3)), MustParse("k = 3")) {
		t.Error("KeyEquals(k, 3) is not k = 3")
	}
	if got := KeyEquals("key col", String("x")).String(); got != `"key col" = 'x'` {
		t.Errorf("KeyEquals String = %q", got)
	}
}

func TestColumns(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want []string
	}{
		{"TRUE", nil},
		{"1 = 1", nil},
		{"b = 1 AND a = b OR NOT (c IN (1) AND t.x IS NULL) OR 1 < d", []string{"a", "b", "c", "d", "t.x"}},
		{`"a b" BETWEEN 1 AND 2 AND a = 1`, []string{"a", "a b"}},
	} {
		if got := MustParse(tc.src).Columns(); !slices.Equal(got, tc.want) {
			t.Errorf("Columns(%q) = %q, want %q", tc.src, got, tc.want)
		}
	}
	if got := (*Expr)(nil).Columns(); len(got) != 0 {
		t.Errorf("nil Columns = %q", got)
	}
}

func TestMustParsePanics(t *testing.T) {
	defer func() {
		if _, ok := recover().(*SyntaxError); !ok {
			t.Error("MustParse did not panic with a *SyntaxError")
		}
	}()
	MustParse("a =")
}
