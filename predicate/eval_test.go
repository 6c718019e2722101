package predicate

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestEval(t *testing.T) {
	row := Row{"a": Int(1), "b": Null(), "s": String("x"), "f": Float(1), "t": Bool(true), "t.c": Int(5), "q r": Int(6)}
	for _, tc := range []struct {
		src  string
		want bool
	}{
		{"TRUE", true},
		{"FALSE", false},
		{"a = 1", true},
		{"a = f", true},
		{"a <> 1.5", true},
		{"a < 1.5", true},
		{"1 = 1", true},
		{"a = s", false}, // incomparable: UNKNOWN
		{"NOT a = s", false},
		{"a <> s", false},
		{"b = 1", false}, // NULL: UNKNOWN
		{"NOT b = 1", false},
		{"b <> 1", false},
		{"b = b", false},
		{"missing = missing", false},
		{"NULL = NULL", false},
		{"b IS NULL", true},
		{"missing IS NULL", true},
		{"a IS NULL", false},
		{"a IS NOT NULL", true},
		{"NOT b IS NULL", false},
		{"a IN (1, NULL)", true},
		{"a IN (2, NULL)", false}, // UNKNOWN
		{"NOT a IN (2, NULL)", false},
		{"a NOT IN (2, NULL)", false},
		{"a NOT IN (2, 3)", true},
		{"a IN ('1', 1.0)", true},
		{"b IN (1)", false},
		{"b NOT IN (1)", false},
		{"a BETWEEN 0 AND 1", true},
		{"a BETWEEN 1.5 AND 0", false},
		{"a NOT BETWEEN 1.5 AND 0", true},
		{"a BETWEEN NULL AND 5", false}, // UNKNOWN
		{"a NOT BETWEEN NULL AND 5", false},
		{"a NOT BETWEEN NULL AND 0", true}, // NOT (UNKNOWN AND FALSE)
		{"b = 1 OR a = 1", true},
		{"b = 1 OR a = 2", false},
		{"NOT (b = 1 OR a = 2)", false},
		{"b = 1 AND a = 2", false},
		{"NOT (b = 1 AND a = 2)", true},
		{"NOT (b = 1 AND a = 1)", false},
		{"a = 2 AND b = 1 OR a = 1", true}, // AND binds tighter
		{"a = 1 OR a = 2 AND b = 1", true},
		{"(a = 1 OR a = 2) AND b = 1", false},
		{"NOT a = 2 AND a = 1", true},
		{"t = TRUE", true},
		{"t > FALSE", true},
		{"t = 1", false},
		{"s < 'y'", true},
		{"s = 'X'", false},
		{"t.c = 5", true},
		{`"t.c" = 5`, true},
		{`"q r" = 6`, true},
	} {
		if got := MustParse(tc.src).Eval(row); got != tc.want {
			t.Errorf("%s: Eval = %v, want %v", tc.src, got, tc.want)
		}
	}
	if !(*Expr)(nil).Eval(row) || !(*Expr)(nil).Eval(nil) {
		t.Error("nil Expr does not hold")
	}
	if !KeyEquals("k", String("v")).Eval(Row{"k": String("v")}) || KeyEquals("k", Null()).Eval(Row{}) {
		t.Error("KeyEquals evaluates wrongly")
	}
}

// The reference below spells three-valued logic out as tables and
// compares values through JSON and math/big, sharing nothing with Eval.

type tri string

const (
	tT tri = "T"
	tF tri = "F"
	tU tri = "U"
)

var (
	refNot = map[tri]tri{tT: tF, tF: tT, tU: tU}
	refAnd = map[[2]tri]tri{
		{tT, tT}: tT, {tT, tF}: tF, {tT, tU}: tU,
		{tF, tT}: tF, {tF, tF}: tF, {tF, tU}: tF,
		{tU, tT}: tU, {tU, tF}: tF, {tU, tU}: tU,
	}
)

func refOr(a, b tri) tri { return refNot[refAnd[[2]tri{refNot[a], refNot[b]}]] }

// refCmp compares two values' JSON forms; ok is false if incomparable.
func refCmp(a, b any) (int, bool) {
	num := func(x any) (*big.Float, bool) {
		switch x := x.(type) {
		case int64:
			return new(big.Float).SetInt64(x), true
		case float64:
			return new(big.Float).SetFloat64(x), true
		}
		return nil, false
	}
	if x, ok := num(a); ok {
		if y, ok := num(b); ok {
			return x.Cmp(y), true
		}
		return 0, false
	}
	switch x := a.(type) {
	case string:
		if y, ok := b.(string); ok {
			return strings.Compare(x, y), true
		}
	case bool:
		if y, ok := b.(bool); ok {
			switch {
			case x == y:
				return 0, true
			case y:
				return -1, true
			}
			return 1, true
		}
	}
	return 0, false
}

func refOp(a Value, op string, b Value) tri {
	c, ok := refCmp(a.JSON(), b.JSON())
	if !ok {
		return tU
	}
	holds := map[string]bool{"=": c == 0, "<>": c != 0, "!=": c != 0, "<": c < 0, "<=": c <= 0, ">": c > 0, ">=": c >= 0}[op]
	if holds {
		return tT
	}
	return tF
}

// spelled is a literal or column with one of its spellings.
type spelled struct {
	text string
	v    Value  // the literal, if col == ""
	col  string // the column name
}

var (
	refLiterals = []spelled{
		{"NULL", Null(), ""}, {"null", Null(), ""},
		{"TRUE", Bool(true), ""}, {"true", Bool(true), ""}, {"False", Bool(false), ""},
		{"0", Int(0), ""}, {"1", Int(1), ""}, {"-1", Int(-1), ""}, {"2", Int(2), ""}, {"002", Int(2), ""},
		{"9223372036854775807", Int(math.MaxInt64), ""}, {"-9223372036854775808", Int(math.MinInt64), ""},
		{"9007199254740993", Int(1<<53 + 1), ""}, {"9007199254740992.0", Float(1 << 53), ""},
		{"9223372036854775808.0", Float(0x1p63), ""}, {"2.0", Float(2), ""}, {"2e0", Float(2), ""},
		{"0.5", Float(0.5), ""}, {"5E-1", Float(0.5), ""}, {"-0.0", Float(math.Copysign(0, -1)), ""},
		{"1.5", Float(1.5), ""},
		{"'a'", String("a"), ""}, {"'b'", String("b"), ""}, {"''", String(""), ""}, {"'it''s'", String("it's"), ""},
		{"'1'", String("1"), ""},
	}
	refColumns = []spelled{
		{"a", Value{}, "a"}, {"b", Value{}, "b"}, {"t.c", Value{}, "t.c"}, {`"t.c"`, Value{}, "t.c"},
		{`"x y"`, Value{}, "x y"}, {`"q"""`, Value{}, `q"`}, {"missing", Value{}, "missing"},
	}
	refOps = []string{"=", "<>", "!=", "<", "<=", ">", ">="}
)

func pick[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }

func randOperand(r *rand.Rand) spelled {
	if r.IntN(2) == 0 {
		return pick(r, refColumns)
	}
	return pick(r, refLiterals)
}

func (s spelled) value(row Row) Value {
	if s.col != "" {
		return row[s.col]
	}
	return s.v
}

// randExpr returns the source of a random predicate and its reference
// evaluation.
func randExpr(r *rand.Rand, depth int) (string, func(Row) tri) {
	kw := func(s string) string { // random keyword case
		if r.IntN(3) == 0 {
			return strings.ToLower(s)
		}
		return s
	}
	if depth > 0 && r.IntN(3) > 0 {
		switch r.IntN(4) {
		case 0:
			src, f := randExpr(r, depth-1)
			return kw("NOT") + " (" + src + ")", func(row Row) tri { return refNot[f(row)] }
		case 1:
			src, f := randExpr(r, depth-1)
			return "(" + src + ")", f
		}
		op := kw(pick(r, []string{"AND", "OR"}))
		srcs, fs := []string{}, []func(Row) tri{}
		for range 2 + r.IntN(3) {
			src, f := randExpr(r, depth-1)
			srcs, fs = append(srcs, "("+src+")"), append(fs, f)
		}
		return strings.Join(srcs, " "+op+" "), func(row Row) tri {
			t := fs[0](row)
			for _, f := range fs[1:] {
				if strings.EqualFold(op, "AND") {
					t = refAnd[[2]tri{t, f(row)}]
				} else {
					t = refOr(t, f(row))
				}
			}
			return t
		}
	}
	x := randOperand(r)
	not := ""
	if r.IntN(2) == 0 {
		not = " " + kw("NOT")
	}
	negate := func(t tri) tri {
		if not != "" {
			return refNot[t]
		}
		return t
	}
	switch r.IntN(6) {
	case 0:
		b := pick(r, []bool{true, false})
		src := map[bool]string{true: "TRUE", false: "FALSE"}[b]
		return kw(src), func(Row) tri { return map[bool]tri{true: tT, false: tF}[b] }
	case 1:
		var list []spelled
		var texts []string
		for range 1 + r.IntN(3) {
			l := pick(r, refLiterals)
			list, texts = append(list, l), append(texts, l.text)
		}
		return x.text + not + " " + kw("IN") + " (" + strings.Join(texts, ", ") + ")", func(row Row) tri {
			t := tF
			for _, l := range list {
				t = refOr(t, refOp(x.value(row), "=", l.v))
			}
			return negate(t)
		}
	case 2:
		lo, hi := pick(r, refLiterals), pick(r, refLiterals)
		return x.text + not + " " + kw("BETWEEN") + " " + lo.text + " " + kw("AND") + " " + hi.text, func(row Row) tri {
			return negate(refAnd[[2]tri{refOp(lo.v, "<=", x.value(row)), refOp(x.value(row), "<=", hi.v)}])
		}
	case 3:
		return x.text + " " + kw("IS") + not + " " + kw("NULL"), func(row Row) tri {
			if x.value(row).IsNull() {
				return negate(tT)
			}
			return negate(tF)
		}
	}
	op, y := pick(r, refOps), randOperand(r)
	return x.text + op + y.text, func(row Row) tri { return refOp(x.value(row), op, y.value(row)) }
}

func randRow(r *rand.Rand) Row {
	row := Row{}
	for _, c := range refColumns {
		if r.IntN(5) > 0 {
			row[c.col] = pick(r, refLiterals).v
		}
	}
	return row
}

func TestEvalRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	rows := make([]Row, 50)
	for i := range rows {
		rows[i] = randRow(r)
	}
	const n = 5000
	for i := range n {
		src, ref := randExpr(r, 4)
		e, err := Parse(src)
		if err != nil {
			t.Fatalf("Parse(%q): %v", src, err)
		}
		e2, err := Parse(e.String())
		if err != nil || !Equal(e, e2) {
			t.Fatalf("%q: String %q does not read back: %v", src, e.String(), err)
		}
		for _, row := range rows[:10+i%40] {
			want := ref(row) == tT
			if got := e.Eval(row); got != want {
				t.Fatalf("%s on %v: Eval = %v, want %v", src, fmt.Sprint(row), got, want)
			}
			if got := e2.Eval(row); got != want {
				t.Fatalf("%s on %v: Eval after round trip = %v, want %v", e.String(), fmt.Sprint(row), got, want)
			}
		}
	}
}
