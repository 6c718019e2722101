package format

import (
	"errors"
	"fmt"
	"io"
	"math"
	"unicode/utf8"
)

// The scanner of JSON lines, which the readers of native JSONL and SQL
// histories share, and the loop that drives them over the lines of an
// input. The scanner reads the tokens of one line and reports an error at
// their column as a *syntaxError, which atLine turns into an *Error that
// gives the file, the line and the column.

// scanLines calls parse on each line of lr that is not blank, with its
// line number, until the input ends (it returns nil) or parse or the line
// reader fails (it returns their error).
func scanLines(lr *lineReader, parse func(line []byte, lineNo int) error) error {
	for {
		line, err := lr.nextContent()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if err := parse(line, lr.line); err != nil {
			return err
		}
	}
}

// atLine returns err, the error of scanning line lineNo of the input
// name: a *syntaxError becomes an *Error "name:line: column c: msg";
// other errors are returned as they are.
func atLine(name string, lineNo int, err error) error {
	if se, ok := err.(*syntaxError); ok {
		return lineError(name, lineNo, "column %d: %s", se.col, se.msg)
	}
	return err
}

// syntaxError is an error at a column of the line being scanned.
type syntaxError struct {
	col int
	msg string
}

func (e *syntaxError) Error() string { return fmt.Sprintf("column %d: %s", e.col, e.msg) }

// scanner scans JSON tokens in one line.
type scanner struct {
	s   []byte
	i   int
	buf []byte // decoded strings with escapes
}

// tokKind is the kind of a JSON value.
type tokKind uint8

const (
	tokString tokKind = iota
	tokInt
	tokNull
	tokBool
	tokArray
	tokObject
	// tokBigInt is an integer from 2^63 to 2^64-1, given as its decimal
	// text.
	tokBigInt
)

func (k tokKind) String() string {
	switch k {
	case tokString:
		return "a string"
	case tokInt:
		return "an integer"
	case tokNull:
		return "null"
	case tokBool:
		return "a boolean"
	case tokArray:
		return "an array"
	case tokObject:
		return "an object"
	case tokBigInt:
		return "an integer above 2^63-1"
	}
	return "?"
}

func (p *scanner) ws() {
	for p.i < len(p.s) && isSpace(p.s[p.i]) {
		p.i++
	}
}

func (p *scanner) peek() byte {
	if p.i < len(p.s) {
		return p.s[p.i]
	}
	return 0
}

func (p *scanner) eat(c byte) bool {
	if p.i < len(p.s) && p.s[p.i] == c {
		p.i++
		return true
	}
	return false
}

func (p *scanner) errorf(format string, args ...any) error {
	return &syntaxError{p.i + 1, fmt.Sprintf(format, args...)}
}

// describe describes the text at the scanner's position for a message.
func (p *scanner) describe() string {
	if p.i >= len(p.s) {
		return "end of line"
	}
	return snippet(p.s[p.i:])
}

// scalar scans a JSON value. For strings it returns the decoded bytes, valid
// until the next call; for integers the number, or for integers beyond
// int64 (tokBigInt, up to 2^64-1) their text. Arrays, objects and booleans are reported
// by kind and not consumed.
func (p *scanner) scalar() (kind tokKind, s []byte, n int64, err error) {
	switch c := p.peek(); {
	case c == '"':
		s, err = p.str()
		return tokString, s, 0, err
	case c == '-' || c >= '0' && c <= '9':
		start := p.i
		n, err = p.integer()
		if err == errBigInt {
			return tokBigInt, p.s[start:p.i], 0, nil
		}
		return tokInt, nil, n, err
	case c == 'n':
		if p.literal("null") {
			return tokNull, nil, 0, nil
		}
	case c == 't':
		if p.literal("true") {
			p.i -= 4
			return tokBool, nil, 0, nil
		}
	case c == 'f':
		if p.literal("false") {
			p.i -= 5
			return tokBool, nil, 0, nil
		}
	case c == '[':
		return tokArray, nil, 0, nil
	case c == '{':
		return tokObject, nil, 0, nil
	}
	return 0, nil, 0, p.errorf("expected a JSON value, got %s", p.describe())
}

func (p *scanner) literal(lit string) bool {
	if len(p.s)-p.i >= len(lit) && string(p.s[p.i:p.i+len(lit)]) == lit {
		p.i += len(lit)
		return true
	}
	return false
}

// errBigInt is the error of integer for an integer from 2^63 to 2^64-1.
var errBigInt = errors.New("integer above 2^63-1")

// integer scans a JSON number that must be an integer from -2^63 to
// 2^64-1. Above 2^63-1 it returns errBigInt, having scanned the number.
func (p *scanner) integer() (int64, error) {
	start := p.i
	neg := p.eat('-')
	digits := p.i
	var u uint64
	overflow := false
	end := p.i
	for end < len(p.s) && p.s[end] >= '0' && p.s[end] <= '9' {
		end++
	}
	if end-p.i <= 19 {
		// No 19 digits overflow: no check per digit (the check took
		// a third of the time of scanning integers, measured).
		for ; p.i < end; p.i++ {
			u = u*10 + uint64(p.s[p.i]-'0')
		}
	}
	for ; p.i < end; p.i++ {
		d := uint64(p.s[p.i] - '0')
		if u > (math.MaxUint64-d)/10 {
			overflow = true
		} else {
			u = u*10 + d
		}
	}
	if p.i == digits {
		p.i = start
		return 0, p.errorf("expected a number, got %s", p.describe())
	}
	if p.s[digits] == '0' && p.i-digits > 1 {
		p.i = start
		return 0, p.errorf("invalid number %s: leading zero", p.numberText(start))
	}
	if c := p.peek(); c == '.' || c == 'e' || c == 'E' {
		text := p.numberText(start)
		p.i = start
		return 0, p.errorf("%s is not an integer", text)
	}
	switch {
	case overflow, neg && u > 1<<63:
		text := cut(string(p.s[start:p.i]))
		p.i = start
		return 0, p.errorf("number %s out of range (integers must fit 64 bits, from -2^63 to 2^64-1; write others as strings)", text)
	case !neg && u > math.MaxInt64:
		return 0, errBigInt
	case neg:
		return int64(-u), nil // -u wraps to MinInt64 for u == 1<<63
	}
	return int64(u), nil
}

// numberText returns the number starting at start, with any fraction and
// exponent, cut for a message.
func (p *scanner) numberText(start int) string {
	j := start
	for j < len(p.s) && (p.s[j] >= '0' && p.s[j] <= '9' || p.s[j] == '-' || p.s[j] == '+' || p.s[j] == '.' || p.s[j] == 'e' || p.s[j] == 'E') {
		j++
	}
	return cut(string(p.s[start:j]))
}

// str scans a JSON string and returns its decoded bytes, which are valid
// until the next call.
func (p *scanner) str() ([]byte, error) {
	start := p.i
	if !p.eat('"') {
		return nil, p.errorf("expected a string, got %s", p.describe())
	}
	begin := p.i
	ascii := true
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == '"':
			s := p.s[begin:p.i]
			p.i++
			if !ascii && !utf8.Valid(s) {
				p.i = start
				return nil, p.errorf("string is not valid UTF-8")
			}
			return s, nil
		case c == '\\':
			return p.escapedStr(start, begin)
		case c < 0x20:
			return nil, p.errorf("control character %#02x in string (escape it)", c)
		case c >= utf8.RuneSelf:
			ascii = false
		}
		p.i++
	}
	p.i = start
	return nil, p.errorf("unterminated string")
}

// escapedStr finishes scanning a string that holds escapes.
func (p *scanner) escapedStr(start, begin int) ([]byte, error) {
	p.buf = append(p.buf[:0], p.s[begin:p.i]...)
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == '"':
			p.i++
			if !utf8.Valid(p.buf) {
				p.i = start
				return nil, p.errorf("string is not valid UTF-8")
			}
			return p.buf, nil
		case c < 0x20:
			return nil, p.errorf("control character %#02x in string (escape it)", c)
		case c != '\\':
			p.buf = append(p.buf, c)
			p.i++
			continue
		}
		if p.i+1 >= len(p.s) {
			break
		}
		esc := p.s[p.i+1]
		p.i += 2
		switch esc {
		case '"', '\\', '/':
			p.buf = append(p.buf, esc)
		case 'b':
			p.buf = append(p.buf, '\b')
		case 'f':
			p.buf = append(p.buf, '\f')
		case 'n':
			p.buf = append(p.buf, '\n')
		case 'r':
			p.buf = append(p.buf, '\r')
		case 't':
			p.buf = append(p.buf, '\t')
		case 'u':
			r, ok := p.hex4()
			if !ok {
				p.i -= 2
				return nil, p.errorf("invalid \\u escape in string")
			}
			if r >= 0xD800 && r < 0xDC00 {
				// A high surrogate: combine with a following low one.
				save := p.i
				if p.i+1 < len(p.s) && p.s[p.i] == '\\' && p.s[p.i+1] == 'u' {
					p.i += 2
					if r2, ok := p.hex4(); ok && r2 >= 0xDC00 && r2 < 0xE000 {
						r = (r-0xD800)<<10 + (r2 - 0xDC00) + 0x10000
					} else {
						p.i = save
						r = utf8.RuneError
					}
				} else {
					r = utf8.RuneError
				}
			} else if r >= 0xDC00 && r < 0xE000 {
				r = utf8.RuneError
			}
			p.buf = utf8.AppendRune(p.buf, r)
		default:
			p.i -= 2
			return nil, p.errorf("invalid escape \\%c in string", esc)
		}
	}
	p.i = start
	return nil, p.errorf("unterminated string")
}

func (p *scanner) hex4() (rune, bool) {
	if len(p.s)-p.i < 4 {
		return 0, false
	}
	var r rune
	for _, c := range p.s[p.i : p.i+4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	p.i += 4
	return r, true
}

// skipValue skips a JSON value, loosely checked, and reports whether it
// was whole.
func (p *scanner) skipValue() bool {
	depth := 0
	for {
		p.ws()
		if p.i >= len(p.s) {
			return false
		}
		switch c := p.s[p.i]; {
		case c == '"':
			if _, err := p.str(); err != nil {
				return false
			}
		case c == '{' || c == '[':
			depth++
			p.i++
			continue
		case c == '}' || c == ']':
			if depth == 0 {
				return false
			}
			depth--
			p.i++
		case c == ',' || c == ':':
			if depth == 0 {
				return false
			}
			p.i++
			continue
		default:
			start := p.i
			for p.i < len(p.s) && (p.s[p.i] == '-' || p.s[p.i] == '+' || p.s[p.i] == '.' ||
				p.s[p.i] >= '0' && p.s[p.i] <= '9' || p.s[p.i] >= 'a' && p.s[p.i] <= 'z' || p.s[p.i] >= 'A' && p.s[p.i] <= 'Z') {
				p.i++
			}
			if p.i == start {
				return false
			}
		}
		if depth == 0 {
			return true
		}
	}
}
