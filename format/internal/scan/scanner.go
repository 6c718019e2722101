package scan

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

// ScanLines calls parse on each line of lr that is not blank, with its
// line number, until the input ends (it returns nil) or parse or the line
// reader fails (it returns their error).
func ScanLines(lr *LineReader, parse func(line []byte, lineNo int) error) error {
	for {
		line, err := lr.NextContent()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if err := parse(line, lr.Line); err != nil {
			return err
		}
	}
}

// AtLine returns err, the error of scanning line lineNo of the input
// name: a *syntaxError becomes an *Error "name:line: column c: msg";
// other errors are returned as they are.
func AtLine(name string, lineNo int, err error) error {
	if se, ok := err.(*SyntaxError); ok {
		return LineError(name, lineNo, "column %d: %s", se.Col, se.Msg)
	}
	return err
}

// SyntaxError is an error at a column of the line being scanned.
type SyntaxError struct {
	Col int
	Msg string
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("column %d: %s", e.Col, e.Msg) }

// Scanner scans JSON tokens in one line.
type Scanner struct {
	S   []byte
	I   int
	Buf []byte // decoded strings with escapes
}

// TokKind is the kind of a JSON value.
type TokKind uint8

const (
	TokString TokKind = iota
	TokInt
	TokNull
	tokBool
	tokArray
	tokObject
	// tokBigInt is an integer from 2^63 to 2^64-1, given as its decimal
	// text.
	TokBigInt
)

func (k TokKind) String() string {
	switch k {
	case TokString:
		return "a string"
	case TokInt:
		return "an integer"
	case TokNull:
		return "null"
	case tokBool:
		return "a boolean"
	case tokArray:
		return "an array"
	case tokObject:
		return "an object"
	case TokBigInt:
		return "an integer above 2^63-1"
	}
	return "?"
}

func (p *Scanner) Ws() {
	for p.I < len(p.S) && IsSpace(p.S[p.I]) {
		p.I++
	}
}

func (p *Scanner) Peek() byte {
	if p.I < len(p.S) {
		return p.S[p.I]
	}
	return 0
}

func (p *Scanner) Eat(c byte) bool {
	if p.I < len(p.S) && p.S[p.I] == c {
		p.I++
		return true
	}
	return false
}

func (p *Scanner) Errorf(format string, args ...any) error {
	return &SyntaxError{p.I + 1, fmt.Sprintf(format, args...)}
}

// Describe describes the text at the scanner's position for a message.
func (p *Scanner) Describe() string {
	if p.I >= len(p.S) {
		return "end of line"
	}
	return Snippet(p.S[p.I:])
}

// Scalar scans a JSON value. For strings it returns the decoded bytes, valid
// until the next call; for integers the number, or for integers beyond
// int64 (tokBigInt, up to 2^64-1) their text. Arrays, objects and booleans are reported
// by kind and not consumed.
func (p *Scanner) Scalar() (kind TokKind, s []byte, n int64, err error) {
	switch c := p.Peek(); {
	case c == '"':
		s, err = p.Str()
		return TokString, s, 0, err
	case c == '-' || c >= '0' && c <= '9':
		start := p.I
		n, err = p.Integer()
		if err == ErrBigInt {
			return TokBigInt, p.S[start:p.I], 0, nil
		}
		return TokInt, nil, n, err
	case c == 'n':
		if p.Literal("null") {
			return TokNull, nil, 0, nil
		}
	case c == 't':
		if p.Literal("true") {
			p.I -= 4
			return tokBool, nil, 0, nil
		}
	case c == 'f':
		if p.Literal("false") {
			p.I -= 5
			return tokBool, nil, 0, nil
		}
	case c == '[':
		return tokArray, nil, 0, nil
	case c == '{':
		return tokObject, nil, 0, nil
	}
	return 0, nil, 0, p.Errorf("expected a JSON value, got %s", p.Describe())
}

func (p *Scanner) Literal(lit string) bool {
	if len(p.S)-p.I >= len(lit) && string(p.S[p.I:p.I+len(lit)]) == lit {
		p.I += len(lit)
		return true
	}
	return false
}

// ErrBigInt is the error of integer for an integer from 2^63 to 2^64-1.
var ErrBigInt = errors.New("integer above 2^63-1")

// Integer scans a JSON number that must be an integer from -2^63 to
// 2^64-1. Above 2^63-1 it returns errBigInt, having scanned the number.
func (p *Scanner) Integer() (int64, error) {
	start := p.I
	neg := p.Eat('-')
	digits := p.I
	var u uint64
	overflow := false
	end := p.I
	for end < len(p.S) && p.S[end] >= '0' && p.S[end] <= '9' {
		end++
	}
	if end-p.I <= 19 {
		// No 19 digits overflow: no check per digit (the check took
		// a third of the time of scanning integers, measured).
		for ; p.I < end; p.I++ {
			u = u*10 + uint64(p.S[p.I]-'0')
		}
	}
	for ; p.I < end; p.I++ {
		d := uint64(p.S[p.I] - '0')
		if u > (math.MaxUint64-d)/10 {
			overflow = true
		} else {
			u = u*10 + d
		}
	}
	if p.I == digits {
		p.I = start
		return 0, p.Errorf("expected a number, got %s", p.Describe())
	}
	if p.S[digits] == '0' && p.I-digits > 1 {
		p.I = start
		return 0, p.Errorf("invalid number %s: leading zero", p.NumberText(start))
	}
	if c := p.Peek(); c == '.' || c == 'e' || c == 'E' {
		text := p.NumberText(start)
		p.I = start
		return 0, p.Errorf("%s is not an integer", text)
	}
	switch {
	case overflow, neg && u > 1<<63:
		text := Cut(string(p.S[start:p.I]))
		p.I = start
		return 0, p.Errorf("number %s out of range (integers must fit 64 bits, from -2^63 to 2^64-1; write others as strings)", text)
	case !neg && u > math.MaxInt64:
		return 0, ErrBigInt
	case neg:
		return int64(-u), nil // -u wraps to MinInt64 for u == 1<<63
	}
	return int64(u), nil
}

// NumberText returns the number starting at start, with any fraction and
// exponent, cut for a message.
func (p *Scanner) NumberText(start int) string {
	j := start
	for j < len(p.S) && (p.S[j] >= '0' && p.S[j] <= '9' || p.S[j] == '-' || p.S[j] == '+' || p.S[j] == '.' || p.S[j] == 'e' || p.S[j] == 'E') {
		j++
	}
	return Cut(string(p.S[start:j]))
}

// Str scans a JSON string and returns its decoded bytes, which are valid
// until the next call.
func (p *Scanner) Str() ([]byte, error) {
	start := p.I
	if !p.Eat('"') {
		return nil, p.Errorf("expected a string, got %s", p.Describe())
	}
	begin := p.I
	ascii := true
	for p.I < len(p.S) {
		c := p.S[p.I]
		switch {
		case c == '"':
			s := p.S[begin:p.I]
			p.I++
			if !ascii && !utf8.Valid(s) {
				p.I = start
				return nil, p.Errorf("string is not valid UTF-8")
			}
			return s, nil
		case c == '\\':
			return p.escapedStr(start, begin)
		case c < 0x20:
			return nil, p.Errorf("control character %#02x in string (escape it)", c)
		case c >= utf8.RuneSelf:
			ascii = false
		}
		p.I++
	}
	p.I = start
	return nil, p.Errorf("unterminated string")
}

// escapedStr finishes scanning a string that holds escapes.
func (p *Scanner) escapedStr(start, begin int) ([]byte, error) {
	p.Buf = append(p.Buf[:0], p.S[begin:p.I]...)
	for p.I < len(p.S) {
		c := p.S[p.I]
		switch {
		case c == '"':
			p.I++
			if !utf8.Valid(p.Buf) {
				p.I = start
				return nil, p.Errorf("string is not valid UTF-8")
			}
			return p.Buf, nil
		case c < 0x20:
			return nil, p.Errorf("control character %#02x in string (escape it)", c)
		case c != '\\':
			p.Buf = append(p.Buf, c)
			p.I++
			continue
		}
		if p.I+1 >= len(p.S) {
			break
		}
		esc := p.S[p.I+1]
		p.I += 2
		switch esc {
		case '"', '\\', '/':
			p.Buf = append(p.Buf, esc)
		case 'b':
			p.Buf = append(p.Buf, '\b')
		case 'f':
			p.Buf = append(p.Buf, '\f')
		case 'n':
			p.Buf = append(p.Buf, '\n')
		case 'r':
			p.Buf = append(p.Buf, '\r')
		case 't':
			p.Buf = append(p.Buf, '\t')
		case 'u':
			r, ok := p.hex4()
			if !ok {
				p.I -= 2
				return nil, p.Errorf("invalid \\u escape in string")
			}
			if r >= 0xD800 && r < 0xDC00 {
				// A high surrogate: combine with a following low one.
				save := p.I
				if p.I+1 < len(p.S) && p.S[p.I] == '\\' && p.S[p.I+1] == 'u' {
					p.I += 2
					if r2, ok := p.hex4(); ok && r2 >= 0xDC00 && r2 < 0xE000 {
						r = (r-0xD800)<<10 + (r2 - 0xDC00) + 0x10000
					} else {
						p.I = save
						r = utf8.RuneError
					}
				} else {
					r = utf8.RuneError
				}
			} else if r >= 0xDC00 && r < 0xE000 {
				r = utf8.RuneError
			}
			p.Buf = utf8.AppendRune(p.Buf, r)
		default:
			p.I -= 2
			return nil, p.Errorf("invalid escape \\%c in string", esc)
		}
	}
	p.I = start
	return nil, p.Errorf("unterminated string")
}

func (p *Scanner) hex4() (rune, bool) {
	if len(p.S)-p.I < 4 {
		return 0, false
	}
	var r rune
	for _, c := range p.S[p.I : p.I+4] {
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
	p.I += 4
	return r, true
}

// SkipValue skips a JSON value, loosely checked, and reports whether it
// was whole.
func (p *Scanner) SkipValue() bool {
	depth := 0
	for {
		p.Ws()
		if p.I >= len(p.S) {
			return false
		}
		switch c := p.S[p.I]; {
		case c == '"':
			if _, err := p.Str(); err != nil {
				return false
			}
		case c == '{' || c == '[':
			depth++
			p.I++
			continue
		case c == '}' || c == ']':
			if depth == 0 {
				return false
			}
			depth--
			p.I++
		case c == ',' || c == ':':
			if depth == 0 {
				return false
			}
			p.I++
			continue
		default:
			start := p.I
			for p.I < len(p.S) && (p.S[p.I] == '-' || p.S[p.I] == '+' || p.S[p.I] == '.' ||
				p.S[p.I] >= '0' && p.S[p.I] <= '9' || p.S[p.I] >= 'a' && p.S[p.I] <= 'z' || p.S[p.I] >= 'A' && p.S[p.I] <= 'Z') {
				p.I++
			}
			if p.I == start {
				return false
			}
		}
		if depth == 0 {
			return true
		}
	}
}
