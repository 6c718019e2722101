package predicate

import (
	"errors"
	"slices"
	"testing"
)

func FuzzParse(f *testing.F) {
	for _, src := range []string{
		"a = 1", "a <> 'it''s' AND NOT (b IS NULL OR c IN (1, 2.5, NULL))",
		"x NOT BETWEEN -1 AND 1e3 OR t.c != TRUE", `"q ""x""" >= FALSE`, "TRUE", "NOT NOT (false)",
		"a=-0.0", "a IN (1,2,3) AND (b = c OR d < 1.5E-7)", "((a = 1)) OR a = 9223372036854775807",
		"", "(", "a = 'x", "NULL IS NOT NULL",
	} {
		f.Add(src)
	}
	rows := []Row{{}}
	for _, v := range []Value{Int(1), Float(1), String("a"), Bool(true), Int(-7), Float(2.5)} {
		rows = append(rows, Row{"": v})
	}
	f.Fuzz(func(t *testing.T, src string) {
		e, err := Parse(src)
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) || se.Offset < 0 || se.Offset > len(src) {
				t.Fatalf("Parse(%q): bad error %v", src, err)
			}
			return
		}
		s := e.String()
		e2, err := Parse(s)
		if err != nil {
			t.Fatalf("Parse(%q).String() = %q does not parse: %v", src, s, err)
		}
		if !Equal(e, e2) || e2.String() != s || !slices.Equal(e.Columns(), e2.Columns()) {
			t.Fatalf("Parse(%q) does not round trip through %q: %q", src, s, e2.String())
		}
		for _, r := range rows {
			// Put the row's value, and some other values, in the columns.
			row := Row{}
			for i, c := range e.Columns() {
				if v, ok := r[""]; ok {
					row[c] = v
				}
				if i%3 == 1 {
					row[c] = Int(int64(i))
				}
			}
			if e.Eval(row) != e2.Eval(row) {
				t.Fatalf("%q and %q disagree on %v", src, s, row)
			}
		}
	})
}
