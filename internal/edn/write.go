package edn

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Marshal returns the EDN text of v, on one line, as Clojure's pr-str
// writes it: elements separated by spaces, the pairs of a map by ", ".
// v is made of the types that Decode returns (see the package
// documentation), and int; Decode reads the text back as v (an []any of
// int64 integers as []int64, an int as int64).
//
// Marshal returns an error for a value of another type, a Keyword or a
// Symbol that does not read back as itself (see ValidKeyword), a Tagged
// value whose tag is not a symbol, a BigInt that is not an integer and a
// Decimal that is not a number with a fraction or an exponent (as Decode
// returns them).
func Marshal(v any) ([]byte, error) {
	return Append(nil, v)
}

// Append appends the EDN text of v to b, as Marshal writes it.
func Append(b []byte, v any) ([]byte, error) {
	return appendValue(b, v, 0)
}

func appendValue(b []byte, v any, depth int) ([]byte, error) {
	if depth > MaxDepth {
		return b, fmt.Errorf("edn: cannot write a value nested deeper than %d", MaxDepth)
	}
	var err error
	switch v := v.(type) {
	case nil:
		return append(b, "nil"...), nil
	case bool:
		return strconv.AppendBool(b, v), nil
	case int:
		return strconv.AppendInt(b, int64(v), 10), nil
	case int64:
		return strconv.AppendInt(b, v, 10), nil
	case BigInt:
		if !isDecimal(string(v)) {
			return b, fmt.Errorf("edn: BigInt %s is not an integer", Quote(string(v)))
		}
		return append(b, v...), nil
	case float64:
		return appendFloat(b, v), nil
	case Decimal:
		if !isFloat(string(v)) {
			return b, fmt.Errorf("edn: Decimal %s is not a number with a fraction or an exponent", Quote(string(v)))
		}
		return append(append(b, v...), 'M'), nil
	case string:
		return AppendString(b, v), nil
	case Char:
		return appendChar(b, v), nil
	case Keyword:
		if !ValidKeyword(string(v)) {
			return b, fmt.Errorf("edn: %s cannot be written as a keyword", Quote(string(v)))
		}
		return append(append(b, ':'), v...), nil
	case Symbol:
		if !validSymbol(string(v)) {
			return b, fmt.Errorf("edn: %s cannot be written as a symbol", Quote(string(v)))
		}
		return append(b, v...), nil
	case []any:
		return appendSeq(b, '[', ']', v, depth)
	case []int64:
		b = append(b, '[')
		for i, n := range v {
			if i > 0 {
				b = append(b, ' ')
			}
			b = strconv.AppendInt(b, n, 10)
		}
		return append(b, ']'), nil
	case List:
		return appendSeq(b, '(', ')', v, depth)
	case Set:
		return appendSeq(append(b, '#'), '{', '}', v, depth)
	case Map:
		b = append(b, '{')
		for i, kv := range v {
			if i > 0 {
				b = append(b, ", "...)
			}
			if b, err = appendValue(b, kv.Key, depth+1); err != nil {
				return b, err
			}
			b = append(b, ' ')
			if b, err = appendValue(b, kv.Value, depth+1); err != nil {
				return b, err
			}
		}
		return append(b, '}'), nil
	case Tagged:
		if v.Tag == "" || !(v.Tag[0] >= 'a' && v.Tag[0] <= 'z' || v.Tag[0] >= 'A' && v.Tag[0] <= 'Z') || !validSymbol(v.Tag) {
			return b, fmt.Errorf("edn: %s cannot be written as a tag", Quote(v.Tag))
		}
		b = append(append(append(b, '#'), v.Tag...), ' ')
		return appendValue(b, v.Value, depth+1)
	}
	return b, fmt.Errorf("edn: cannot write a value of type %T", v)
}

func appendSeq(b []byte, open, close byte, items []any, depth int) ([]byte, error) {
	b = append(b, open)
	for i, x := range items {
		if i > 0 {
			b = append(b, ' ')
		}
		var err error
		if b, err = appendValue(b, x, depth+1); err != nil {
			return b, err
		}
	}
	return append(b, close), nil
}

// appendFloat appends f so that it reads back as a float: with a decimal
// point or an exponent, or as ##Inf, ##-Inf or ##NaN.
func appendFloat(b []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		return append(b, "##NaN"...)
	case math.IsInf(f, 1):
		return append(b, "##Inf"...)
	case math.IsInf(f, -1):
		return append(b, "##-Inf"...)
	}
	n := len(b)
	b = strconv.AppendFloat(b, f, 'g', -1, 64)
	if !strings.ContainsAny(string(b[n:]), ".e") {
		b = append(b, ".0"...)
	}
	return b
}

// AppendString appends s to b as an EDN string: in double quotes, with
// '"' and '\' escaped, newline, return and tab as \n, \r and \t, the other
// control characters (and DEL) as \uXXXX, and the rest as it is. EDN text
// is UTF-8: each byte of s that is not part of a valid UTF-8 sequence is
// written as \ufffd, the replacement character, as encoding/json does.
// It is the one writer of EDN strings of isocheck; what it writes, Decode
// and Clojure's readers read back as s (when s is valid UTF-8).
func AppendString(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\r':
				b = append(b, '\\', 'r')
			case c == '\t':
				b = append(b, '\\', 't')
			case c < 0x20 || c == 0x7f:
				b = appendU(b, rune(c))
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = appendU(b, utf8.RuneError)
		} else {
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}

// appendU appends \uXXXX for r, which must be below U+10000.
func appendU(b []byte, r rune) []byte {
	const hex = "0123456789abcdef"
	return append(b, '\\', 'u', hex[r>>12&15], hex[r>>8&15], hex[r>>4&15], hex[r&15])
}

// charNamesOut are the characters written by name.
var charNamesOut = map[Char]string{'\n': "newline", '\r': "return", ' ': "space", '\t': "tab", '\f': "formfeed", '\b': "backspace"}

func appendChar(b []byte, c Char) []byte {
	if name, ok := charNamesOut[c]; ok {
		return append(append(b, '\\'), name...)
	}
	if !utf8.ValidRune(rune(c)) {
		c = utf8.RuneError
	}
	if c < 0x20 || c == 0x7f || c >= 0x80 && c < 0xa0 {
		return appendU(b, rune(c)) // the character \uXXXX
	}
	return utf8.AppendRune(append(b, '\\'), rune(c))
}

// ValidKeyword reports whether :name is a keyword that reads back as
// Keyword(name), here and in Clojure: name starts with a letter or one of
// * ! _ ? < > =, and goes on with letters, digits and * + ! - _ ? < > = .
// / : # ' (Elle's :value' has one). A namespace (jepsen/op) is allowed.
func ValidKeyword(name string) bool {
	if name == "" || !symbolStart(name[0]) {
		return false
	}
	for i := 1; i < len(name); i++ {
		if !symbolRest(name[i]) {
			return false
		}
	}
	return !strings.HasSuffix(name, "/") && !strings.HasSuffix(name, ":") && !strings.Contains(name, "::")
}

// WritesAsKeyword reports whether s, a keyword's name with its colon as
// isocheck's readers keep keywords (":ok"), is written as that keyword
// rather than as a string: it is ":" and a ValidKeyword name without a
// quote ('), which Clojure reads but the EDN specification does not list
// among a symbol's characters. Writers of names (AppendName, and the
// writers of reports) use it, so that what they write reads back as the
// same name in any EDN reader.
func WritesAsKeyword(s string) bool {
	return len(s) > 1 && s[0] == ':' && !strings.Contains(s, "'") && ValidKeyword(s[1:])
}

// AppendName appends a name to b: bare when it is a keyword that
// WritesAsKeyword, else as an EDN string (AppendString).
func AppendName(b []byte, s string) []byte {
	if WritesAsKeyword(s) {
		return append(b, s...)
	}
	return AppendString(b, s)
}

// validSymbol reports whether s is a symbol that reads back as Symbol(s):
// as a keyword name, or a sign or a dot followed by a non-digit; never
// nil, true or false.
func validSymbol(s string) bool {
	switch s {
	case "nil", "true", "false", "":
		return false
	case "+", "-", ".", "/":
		return true
	}
	if s[0] == '+' || s[0] == '-' || s[0] == '.' {
		if len(s) > 1 && s[1] >= '0' && s[1] <= '9' {
			return false
		}
		return ValidKeyword("a" + s[1:])
	}
	return ValidKeyword(s)
}

func symbolStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || strings.IndexByte("*!_?<>=", c) >= 0
}

func symbolRest(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("*+!-_?<>=./:#'", c) >= 0
}
