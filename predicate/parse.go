package predicate

import (
	"fmt"
	"strconv"
	"strings"
)

// Limits against hostile input.
const (
	maxLen   = 64 << 10 // bytes of source
	maxDepth = 200      // nested parentheses and NOTs
)

var keywords = map[string]bool{
	"AND": true, "OR": true, "NOT": true, "IN": true, "BETWEEN": true,
	"IS": true, "NULL": true, "TRUE": true, "FALSE": true,
}

// A SyntaxError reports a predicate that Parse cannot read.
type SyntaxError struct {
	Offset int    // byte offset in the source
	Msg    string // what is wrong there
}

// Error returns the message with its offset.
func (e *SyntaxError) Error() string {
	return fmt.Sprintf("predicate: at byte %d: %s", e.Offset, e.Msg)
}

// Parse parses a predicate. Its errors are *SyntaxError. Sources longer
// than 64 KiB, or nesting parentheses and NOTs deeper than 200, are
// rejected. There is no text for the absent WHERE clause; it is the nil
// *Expr.
func Parse(src string) (e *Expr, err error) {
	if len(src) > maxLen {
		return nil, &SyntaxError{maxLen, "predicate longer than 64 KiB"}
	}
	defer func() {
		if r := recover(); r != nil {
			se, ok := r.(*SyntaxError)
			if !ok {
				panic(r)
			}
			e, err = nil, se
		}
	}()
	p := &parser{src: src}
	p.next()
	e = p.parseOr()
	if p.tok.kind != eofTok {
		p.fail(p.tok.off, "unexpected "+p.describe())
	}
	return e, nil
}

// MustParse is like Parse but panics if src does not parse.
func MustParse(src string) *Expr {
	e, err := Parse(src)
	if err != nil {
		panic(err)
	}
	return e
}

type tokKind uint8

const (
	eofTok     tokKind = iota
	columnTok          // text is the column name
	keywordTok         // text is the upper-case keyword
	literalTok         // val is the number or string
	opTok              // op is the comparison operator
	lparenTok
	rparenTok
	commaTok
)

type token struct {
	kind tokKind
	off  int
	text string
	val  Value
	op   cmpOp
}

type parser struct {
	src   string
	pos   int   // end of tok
	tok   token // the current token
	depth int
}

// fail aborts the parse; Parse recovers the error.
func (p *parser) fail(off int, msg string) {
	panic(&SyntaxError{off, msg})
}

// describe describes the current token for an error message.
func (p *parser) describe() string {
	if p.tok.kind == eofTok {
		return "end of input"
	}
	text := p.src[p.tok.off:p.pos]
	if len(text) > 20 {
		text = text[:20] + "..."
	}
	return strconv.Quote(text)
}

func (p *parser) parseOr() *Expr  { return p.parseChain(orNode, "OR", p.parseAnd) }
func (p *parser) parseAnd() *Expr { return p.parseChain(andNode, "AND", p.parseNot) }

// parseChain parses sub {kw sub} into one n-ary node n, absorbing any
// parenthesized sub-expression of the same node.
func (p *parser) parseChain(n node, kw string, sub func() *Expr) *Expr {
	x := sub()
	if !p.is(kw) {
		return x
	}
	e := &Expr{node: n}
	e.absorb(x)
	for p.is(kw) {
		p.next()
		e.absorb(sub())
	}
	return e
}

func (e *Expr) absorb(k *Expr) {
	if k.node == e.node {
		e.kids = append(e.kids, k.kids...)
	} else {
		e.kids = append(e.kids, k)
	}
}

func (p *parser) parseNot() *Expr {
	if !p.is("NOT") {
		return p.parsePrimary()
	}
	p.enter()
	p.next()
	x := p.parseNot()
	p.depth--
	return &Expr{node: notNode, kids: []*Expr{x}}
}

func (p *parser) enter() {
	if p.depth++; p.depth > maxDepth {
		p.fail(p.tok.off, fmt.Sprintf("nesting deeper than %d", maxDepth))
	}
}

func (p *parser) parsePrimary() *Expr {
	if p.tok.kind == lparenTok {
		p.enter()
		p.next()
		x := p.parseOr()
		p.expect(rparenTok, "')'")
		p.depth--
		return x
	}
	bare := p.is("TRUE") || p.is("FALSE")
	x := p.operand()
	switch {
	case p.tok.kind == opTok:
		op := p.tok.op
		p.next()
		return &Expr{node: cmpNode, op: op, x: x, y: p.operand()}
	case p.is("IS"):
		p.next()
		neg := p.accept("NOT")
		if !p.is("NULL") {
			p.fail(p.tok.off, "expected NULL, found "+p.describe())
		}
		p.next()
		return &Expr{node: isNullNode, neg: neg, x: x}
	case p.is("NOT") || p.is("IN") || p.is("BETWEEN"):
		neg := p.accept("NOT")
		switch {
		case p.accept("IN"):
			p.expect(lparenTok, "'('")
			e := &Expr{node: inNode, neg: neg, x: x, list: []Value{p.literal()}}
			for p.tok.kind == commaTok {
				p.next()
				e.list = append(e.list, p.literal())
			}
			p.expect(rparenTok, "',' or ')'")
			return e
		case p.accept("BETWEEN"):
			lo := p.literal()
			if !p.accept("AND") {
				p.fail(p.tok.off, "expected AND, found "+p.describe())
			}
			return &Expr{node: betweenNode, neg: neg, x: x, list: []Value{lo, p.literal()}}
		}
		p.fail(p.tok.off, "expected IN or BETWEEN, found "+p.describe())
	case bare:
		return &Expr{node: constNode, truth: x.lit == Bool(true)}
	}
	p.fail(p.tok.off, "expected comparison operator, IN, BETWEEN or IS, found "+p.describe())
	return nil
}

func (p *parser) operand() operand {
	if p.tok.kind == columnTok {
		o := operand{col: p.tok.text, isCol: true}
		p.next()
		return o
	}
	if v, ok := p.value(); ok {
		return operand{lit: v}
	}
	p.fail(p.tok.off, "expected predicate, column or literal, found "+p.describe())
	return operand{}
}

func (p *parser) literal() Value {
	v, ok := p.value()
	if !ok {
		p.fail(p.tok.off, "expected literal, found "+p.describe())
	}
	return v
}

// value consumes the current token if it is a literal.
func (p *parser) value() (Value, bool) {
	var v Value
	switch {
	case p.tok.kind == literalTok:
		v = p.tok.val
	case p.is("TRUE"):
		v = Bool(true)
	case p.is("FALSE"):
		v = Bool(false)
	case p.is("NULL"):
		v = Null()
	default:
		return Value{}, false
	}
	p.next()
	return v, true
}

func (p *parser) is(kw string) bool {
	return p.tok.kind == keywordTok && p.tok.text == kw
}

func (p *parser) accept(kw string) bool {
	if p.is(kw) {
		p.next()
		return true
	}
	return false
}

func (p *parser) expect(k tokKind, what string) {
	if p.tok.kind != k {
		p.fail(p.tok.off, "expected "+what+", found "+p.describe())
	}
	p.next()
}

// next reads the next token into p.tok.
func (p *parser) next() {
	src := p.src
	for p.pos < len(src) && strings.IndexByte(" \t\n\r\f\v", src[p.pos]) >= 0 {
		p.pos++
	}
	start := p.pos
	p.tok = token{off: start}
	if start == len(src) {
		return
	}
	c := src[start]
	switch {
	case isIdentStart(c):
		p.lexWord()
	case isDigit(c) || c == '-' && start+1 < len(src) && isDigit(src[start+1]):
		p.lexNumber()
	case c == '\'':
		p.tok.kind = literalTok
		p.tok.val = String(p.lexQuoted('\'', "string"))
	case c == '"':
		p.tok.kind = columnTok
		p.tok.text = p.lexQuoted('"', "quoted identifier")
	case c == '(' || c == ')' || c == ',':
		p.tok.kind = [...]tokKind{lparenTok, rparenTok, commaTok}[strings.IndexByte("(),", c)]
		p.pos++
	default:
		for _, o := range ops {
			if strings.HasPrefix(src[start:], o.text) {
				p.tok.kind, p.tok.op = opTok, o.op
				p.pos += len(o.text)
				return
			}
		}
		p.fail(start, fmt.Sprintf("unexpected character %q", src[start:start+1]))
	}
}

// ops are the comparison operators, longest first.
var ops = [...]struct {
	text string
	op   cmpOp
}{{"<>", ne}, {"!=", ne}, {"<=", le}, {">=", ge}, {"=", eq}, {"<", lt}, {">", gt}}

// lexWord reads a keyword or a bare, possibly qualified, column name.
func (p *parser) lexWord() {
	src, start := p.src, p.pos
	for {
		p.pos++
		for p.pos < len(src) && isIdentChar(src[p.pos]) {
			p.pos++
		}
		if p.pos+1 >= len(src) || src[p.pos] != '.' || !isIdentStart(src[p.pos+1]) {
			break
		}
		p.pos++
	}
	text := src[start:p.pos]
	if kw := strings.ToUpper(text); keywords[kw] {
		p.tok.kind, p.tok.text = keywordTok, kw
		return
	}
	p.tok.kind, p.tok.text = columnTok, text
}

// lexNumber reads an integer or a decimal: -?digits(.digits)?([eE][+-]?digits)?
func (p *parser) lexNumber() {
	src, start := p.src, p.pos
	digits := func() {
		for p.pos < len(src) && isDigit(src[p.pos]) {
			p.pos++
		}
	}
	if src[p.pos] == '-' {
		p.pos++
	}
	digits()
	isFloat := false
	if p.pos < len(src) && src[p.pos] == '.' {
		if p.pos+1 == len(src) || !isDigit(src[p.pos+1]) {
			p.fail(p.pos, "expected digit after decimal point")
		}
		p.pos++
		digits()
		isFloat = true
	}
	if p.pos < len(src) && (src[p.pos] == 'e' || src[p.pos] == 'E') {
		i := p.pos + 1
		if i < len(src) && (src[i] == '+' || src[i] == '-') {
			i++
		}
		if i == len(src) || !isDigit(src[i]) {
			p.fail(p.pos, "malformed exponent")
		}
		p.pos = i
		digits()
		isFloat = true
	}
	if p.pos < len(src) && (isIdentChar(src[p.pos]) || src[p.pos] == '.') {
		p.fail(p.pos, "malformed number")
	}
	text := src[start:p.pos]
	p.tok.kind = literalTok
	if isFloat {
		f, err := strconv.ParseFloat(text, 64)
		if err != nil {
			p.fail(start, "number out of range")
		}
		p.tok.val = Float(f)
	} else {
		i, err := strconv.ParseInt(text, 10, 64)
		if err != nil {
			p.fail(start, "integer out of range")
		}
		p.tok.val = Int(i)
	}
}

// lexQuoted reads text quoted by q, in which a doubled q stands for q.
func (p *parser) lexQuoted(q byte, what string) string {
	src, start := p.src, p.pos
	var b strings.Builder
	p.pos++
	for {
		i := strings.IndexByte(src[p.pos:], q)
		if i < 0 {
			p.fail(start, "unterminated "+what)
		}
		b.WriteString(src[p.pos : p.pos+i])
		p.pos += i + 1
		if p.pos == len(src) || src[p.pos] != q {
			return b.String()
		}
		b.WriteByte(q)
		p.pos++
	}
}

func isDigit(c byte) bool      { return '0' <= c && c <= '9' }
func isIdentStart(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_' }
func isIdentChar(c byte) bool  { return isIdentStart(c) || isDigit(c) }
