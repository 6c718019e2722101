// Package predicate is the WHERE-clause language of SQL histories: it
// parses, prints and evaluates the predicates p: Rows → {0,1} that the
// SELECT(p), DELETE(p) and UPDATE(p, U) events of a history select rows
// with.
//
// The language is a small subset of SQL. Predicates combine with OR,
// AND and NOT (in increasing order of precedence) and parentheses. The
// basic predicates are the comparisons =, <> (or !=), <, <=, > and >=
// between columns and literals, x [NOT] IN (lit, ...),
// x [NOT] BETWEEN lit AND lit, x IS [NOT] NULL, TRUE and FALSE.
// Keywords are case-insensitive. Literals are integers (42, -7),
// decimals (1.5, -0.25, 1e3), 'strings' (with ” for a quote), TRUE,
// FALSE and NULL. Columns are identifiers, possibly qualified (t.col),
// or "double quoted" (with "" for a quote).
//
// Evaluation follows SQL's three-valued logic: a comparison with NULL,
// or between values of incomparable kinds, is UNKNOWN, and a row is
// selected only if the predicate is TRUE on it.
package predicate

import (
	"slices"
	"strings"
)

// Row is a row version: column name -> value. A missing column reads
// as NULL.
type Row map[string]Value

// Expr is a parsed predicate. A nil *Expr is the absent WHERE clause:
// it holds on every row. Build Exprs with Parse, MustParse or KeyEquals.
type Expr struct {
	node  node
	truth bool    // constNode: the constant
	neg   bool    // NOT IN, NOT BETWEEN, IS NOT NULL
	op    cmpOp   // cmpNode: the operator
	x, y  operand // x: the left operand; y: the right operand of a comparison
	list  []Value // inNode: the list; betweenNode: the bounds
	kids  []*Expr // notNode: one; andNode, orNode: two or more, none of the same node
}

type node uint8

const (
	constNode node = iota
	cmpNode
	inNode
	betweenNode
	isNullNode
	notNode
	andNode
	orNode
)

type cmpOp uint8

const (
	eq cmpOp = iota
	ne
	lt
	le
	gt
	ge
)

var cmpOpText = [...]string{"=", "<>", "<", "<=", ">", ">="}

// An operand is a column or a literal.
type operand struct {
	col   string
	isCol bool
	lit   Value
}

func (o operand) value(r Row) Value {
	if o.isCol {
		return r[o.col]
	}
	return o.lit
}

// KeyEquals returns the predicate column = v, which selects the rows
// whose column holds v (none if v is NULL).
func KeyEquals(column string, v Value) *Expr {
	return &Expr{node: cmpNode, op: eq, x: operand{col: column, isCol: true}, y: operand{lit: v}}
}

// truth is a value of three-valued logic, ordered so that AND is min,
// OR is max and NOT is yes minus.
type truth int8

const (
	no truth = iota
	unknown
	yes
)

func of(b bool) truth {
	if b {
		return yes
	}
	return no
}

// Eval reports whether the predicate is TRUE on r; FALSE and UNKNOWN
// do not select r. A nil Expr is TRUE on every row.
func (e *Expr) Eval(r Row) bool {
	return e == nil || e.eval(r) == yes
}

// eval recurses as deep as the Expr, which Parse bounds.
func (e *Expr) eval(r Row) truth {
	switch e.node {
	case cmpNode:
		return compare(e.x.value(r), e.op, e.y.value(r))
	case inNode:
		x, t := e.x.value(r), no
		for _, v := range e.list {
			if t = max(t, compare(x, eq, v)); t == yes {
				break
			}
		}
		return e.negate(t)
	case betweenNode:
		x := e.x.value(r)
		return e.negate(min(compare(x, ge, e.list[0]), compare(x, le, e.list[1])))
	case isNullNode:
		return e.negate(of(e.x.value(r).IsNull()))
	case notNode:
		return yes - e.kids[0].eval(r)
	case andNode:
		t := yes
		for _, k := range e.kids {
			if t = min(t, k.eval(r)); t == no {
				break
			}
		}
		return t
	case orNode:
		t := no
		for _, k := range e.kids {
			if t = max(t, k.eval(r)); t == yes {
				break
			}
		}
		return t
	}
	return of(e.truth)
}

func (e *Expr) negate(t truth) truth {
	if e.neg {
		return yes - t
	}
	return t
}

func compare(a Value, op cmpOp, b Value) truth {
	c, ok := Compare(a, b)
	if !ok {
		return unknown
	}
	switch op {
	case eq:
		return of(c == 0)
	case ne:
		return of(c != 0)
	case lt:
		return of(c < 0)
	case le:
		return of(c <= 0)
	case gt:
		return of(c > 0)
	}
	return of(c >= 0)
}

// String returns the canonical text of e, which Parse reads back to an
// Equal Expr. A nil Expr is "TRUE".
func (e *Expr) String() string {
	if e == nil {
		return "TRUE"
	}
	var b strings.Builder
	e.write(&b)
	return b.String()
}

func (e *Expr) write(b *strings.Builder) {
	switch e.node {
	case constNode:
		b.WriteString(Bool(e.truth).String())
	case cmpNode:
		e.x.write(b)
		b.WriteString(" " + cmpOpText[e.op] + " ")
		e.y.write(b)
	case inNode:
		e.x.write(b)
		b.WriteString(e.not() + " IN (")
		for i, v := range e.list {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(v.String())
		}
		b.WriteString(")")
	case betweenNode:
		e.x.write(b)
		b.WriteString(e.not() + " BETWEEN " + e.list[0].String() + " AND " + e.list[1].String())
	case isNullNode:
		e.x.write(b)
		b.WriteString(" IS" + e.not() + " NULL")
	case notNode:
		b.WriteString("NOT ")
		e.kids[0].writeChild(b, andNode)
	case andNode, orNode:
		sep := " AND "
		if e.node == orNode {
			sep = " OR "
		}
		for i, k := range e.kids {
			if i > 0 {
				b.WriteString(sep)
			}
			k.writeChild(b, e.node)
		}
	}
}

// writeChild writes e, parenthesized if it is an AND or OR that binds
// no tighter than the parent node.
func (e *Expr) writeChild(b *strings.Builder, parent node) {
	if e.node == orNode || e.node == andNode && parent != orNode {
		b.WriteString("(")
		e.write(b)
		b.WriteString(")")
		return
	}
	e.write(b)
}

func (e *Expr) not() string {
	if e.neg {
		return " NOT"
	}
	return ""
}

func (o operand) write(b *strings.Builder) {
	if !o.isCol {
		b.WriteString(o.lit.String())
	} else if isBareColumn(o.col) {
		b.WriteString(o.col)
	} else {
		b.WriteString(`"` + strings.ReplaceAll(o.col, `"`, `""`) + `"`)
	}
}

// isBareColumn reports whether name can be written unquoted: one or
// more identifiers joined by dots, and not a keyword.
func isBareColumn(name string) bool {
	for part := range strings.SplitSeq(name, ".") {
		if part == "" || !isIdentStart(part[0]) {
			return false
		}
		for i := 1; i < len(part); i++ {
			if !isIdentChar(part[i]) {
				return false
			}
		}
	}
	return !keywords[strings.ToUpper(name)]
}

// Columns returns the sorted distinct names of the columns e mentions.
func (e *Expr) Columns() []string {
	var cols []string
	var walk func(*Expr)
	walk = func(e *Expr) {
		for _, o := range [...]operand{e.x, e.y} {
			if o.isCol {
				cols = append(cols, o.col)
			}
		}
		for _, k := range e.kids {
			walk(k)
		}
	}
	if e != nil {
		walk(e)
	}
	slices.Sort(cols)
	return slices.Compact(cols)
}

// Equal reports whether a and b are structurally equal. Two nil Exprs
// are equal.
func Equal(a, b *Expr) bool {
	if a == nil || b == nil {
		return a == b
	}
	if a.node != b.node || a.truth != b.truth || a.neg != b.neg || a.op != b.op ||
		a.x != b.x || a.y != b.y || !slices.Equal(a.list, b.list) || len(a.kids) != len(b.kids) {
		return false
	}
	for i := range a.kids {
		if !Equal(a.kids[i], b.kids[i]) {
			return false
		}
	}
	return true
}
