package jepsen

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strconv"

	"github.com/isocheck/isocheck/format/internal/scan"
	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/progress"
)

// elle-cli's JSON form of Jepsen histories: one event object a line, or
// one JSON array of them.
//
//	{"type": "ok", "f": "txn", "value": [["append", 3, 2], ["r", 3, [1, 2]]], "process": 0, "time": 9, "index": 8}
//
// Each object is cut from the stream (at most scan.MaxLineLen bytes), checked
// with encoding/json's json.Valid, and read by a small parser into the
// events of jepsen.go; strings stand for keywords ("r", "append", "ok"),
// and keys and values that are strings are strings. Fields other than
// type, f, value, process, time, index and key are skipped. This is about 1.8
// times as fast as decoding the objects into maps with encoding/json.

// jsonSplitter cuts a stream of JSON values (or the elements of one
// array) into single values, counting lines, without parsing them.
type jsonSplitter struct {
	br   *bufio.Reader
	name string
	line int    // line of the next byte
	elem []byte // the value read last
}

// peek returns the bytes buffered, reading more if there are none.
func (s *jsonSplitter) peek() ([]byte, error) {
	n := s.br.Buffered()
	if n == 0 {
		n = 1
	}
	return s.br.Peek(n)
}

func (s *jsonSplitter) readError(err error) error {
	if progress.Stopped(err) {
		return err
	}
	return &scan.Error{File: s.name, Line: s.line, Msg: "read error: " + err.Error(), Err: err}
}

// skipSpace skips white space and returns the next byte, or io.EOF.
func (s *jsonSplitter) skipSpace() (byte, error) {
	for {
		b, err := s.peek()
		if len(b) == 0 {
			if err == io.EOF {
				return 0, io.EOF
			}
			return 0, s.readError(err)
		}
		i := 0
		for i < len(b) && scan.IsSpace(b[i]) {
			if b[i] == '\n' {
				s.line++
			}
			i++
		}
		s.br.Discard(i)
		if i < len(b) {
			return b[i], nil
		}
	}
}

// value reads the object or array that starts at the next byte into
// s.elem, up to its closing bracket.
func (s *jsonSplitter) value() error {
	s.elem = s.elem[:0]
	depth, inStr, esc := 0, false, false
	for {
		b, err := s.peek()
		if len(b) == 0 {
			if err == io.EOF {
				return scan.LineError(s.name, s.line, "bad JSON: unexpected end of input")
			}
			return s.readError(err)
		}
		i, done := 0, false
		for ; i < len(b) && !done; i++ {
			c := b[i]
			if c == '\n' {
				s.line++
			}
			if inStr {
				switch {
				case esc:
					esc = false
				case c == '\\':
					esc = true
				case c == '"':
					inStr = false
				}
				continue
			}
			switch c {
			case '"':
				inStr = true
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				done = depth == 0
			}
		}
		if len(s.elem)+i > scan.MaxLineLen {
			return scan.LineError(s.name, s.line, "a JSON value longer than %d bytes", scan.MaxLineLen)
		}
		s.elem = append(s.elem, b[:i]...)
		s.br.Discard(i)
		if done {
			return nil
		}
	}
}

// jsonKind names the JSON value that starts with c.
func jsonKind(c byte) string {
	switch c {
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 'n':
		return "null"
	case 't', 'f':
		return "a boolean"
	}
	return "a number"
}

// ReadElleJSON reads elle-cli's JSON form of a Jepsen history: a stream of
// event objects (one a line), or one array of them. Each value is cut from
// the stream, checked by encoding/json, and read by a small parser.
func ReadElleJSON(m *progress.Meter, br *bufio.Reader, name string, size int64) (*history.History, Stats, error) {
	r := newJepsenReader(name)
	if size > 0 {
		r.b.Grow(int(size/400), int(size/100))
		r.grow(size / 400)
	}
	if err := r.readElleJSON(m, br); err != nil {
		return nil, Stats{}, err
	}
	h, err := r.finish()
	if err != nil {
		return nil, Stats{}, err
	}
	return h, r.stats(), nil
}

// readElleJSON reads the events of an elle-cli JSON history into r.
func (r *jepsenReader) readElleJSON(m *progress.Meter, br *bufio.Reader) error {
	name := r.name
	if head, _ := br.Peek(3); bytes.HasPrefix(head, []byte{0xEF, 0xBB, 0xBF}) {
		br.Discard(3)
	}
	s := &jsonSplitter{br: br, name: name, line: 1}
	c, err := s.skipSpace()
	if err == io.EOF {
		return nil
	}
	if err != nil {
		return err
	}
	inArray := c == '['
	if inArray {
		br.Discard(1)
	}
	for first := true; ; first = false {
		c, err := s.skipSpace()
		if err == io.EOF {
			if inArray {
				return scan.LineError(name, s.line, "bad JSON: unexpected end of input: missing ']'")
			}
			break
		}
		if err != nil {
			return err
		}
		if inArray {
			if c == ']' {
				br.Discard(1)
				if _, err := s.skipSpace(); err != io.EOF {
					if err != nil {
						return err
					}
					return scan.LineError(name, s.line, "unexpected data after the history array")
				}
				break
			}
			if !first {
				if c != ',' {
					return scan.LineError(name, s.line, "bad JSON: expected ',' or ']' after an event, not %q", c)
				}
				br.Discard(1)
				if c, err = s.skipSpace(); err != nil {
					if err == io.EOF {
						return scan.LineError(name, s.line, "bad JSON: unexpected end of input: missing ']'")
					}
					return err
				}
			}
		}
		line := s.line
		if c != '{' {
			return scan.LineError(name, line, "an event must be a JSON object like {\"type\": \"invoke\", \"f\": \"txn\", \"value\": [...], \"process\": 0}, not %s", jsonKind(c))
		}
		if err := s.value(); err != nil {
			return err
		}
		if !json.Valid(s.elem) {
			var x any
			err := json.Unmarshal(s.elem, &x)
			var se *json.SyntaxError
			if errors.As(err, &se) {
				off := min(max(se.Offset-1, 0), int64(len(s.elem)))
				return scan.LineError(name, line+bytes.Count(s.elem[:off], []byte{'\n'}), "bad JSON: %v", err)
			}
			return scan.LineError(name, line, "bad JSON: %v", err)
		}
		if err := r.jsonEvent(s.elem, line); err != nil {
			return err
		}
	}
	return m.Err()
}

// jsonEvent reads an event from a JSON object, valid JSON.
func (r *jepsenReader) jsonEvent(obj []byte, line int) error {
	var fields [7]any
	var seen [7]bool
	names := [7]string{"process", "type", "f", "value", "time", "index", "key"}
	b := skipJSONSpace(obj[1:])
	for len(b) > 0 && b[0] != '}' {
		var name, v any
		name, b = jsonValue(b)
		b = skipJSONSpace(b)
		b = b[1:] // ':'
		v, b = jsonValue(b)
		for i, n := range names {
			if name == n {
				fields[i], seen[i] = v, true
			}
		}
		b = skipJSONSpace(b)
		if len(b) > 0 && b[0] == ',' {
			b = skipJSONSpace(b[1:])
		}
	}
	e := eventFields{ev: jepsenEvent{line: line}}
	for i, n := range names {
		if seen[i] {
			if err := e.field(r, n, fields[i]); err != nil {
				return err
			}
		}
	}
	return e.done(r)
}

// jsonValue reads the JSON value at the start of b, which is valid JSON
// (encoding/json checked it), into the values of the EDN reader: nil,
// bool, int64, json.Number (integers beyond int64 and other numbers),
// string, []int64 (arrays of integers of int64), []any; objects are
// map[string]any, empty (no event field holds one). It returns the rest
// of b.
func jsonValue(b []byte) (any, []byte) {
	b = skipJSONSpace(b)
	if len(b) == 0 {
		return nil, b
	}
	switch c := b[0]; {
	case c == 'n':
		return nil, b[4:]
	case c == 't':
		return true, b[4:]
	case c == 'f':
		return false, b[5:]
	case c == '"':
		i := 1
		for i < len(b) && b[i] != '"' && b[i] != '\\' {
			i++
		}
		if i < len(b) && b[i] == '"' {
			return jsonName(b[1:i]), b[i+1:]
		}
		// Escapes: find the end, and let encoding/json unquote.
		for i < len(b) && b[i] != '"' {
			if b[i] == '\\' {
				i++
			}
			i++
		}
		var str string
		json.Unmarshal(b[:min(i+1, len(b))], &str)
		return str, b[min(i+1, len(b)):]
	case c == '[':
		b = skipJSONSpace(b[1:])
		if len(b) > 0 && b[0] == ']' {
			return []any{}, b[1:]
		}
		var ints []int64
		var items []any
		allInts := true
		for len(b) > 0 {
			var v any
			if n, rest, ok := jsonSmallInt(b); ok && allInts {
				if ints == nil {
					ints = make([]int64, 0, 1+bytes.Count(b[:bytes.IndexByte(b, ']')+1], []byte{','}))
				}
				ints = append(ints, n)
				b = rest
			} else if v, b = jsonValue(b); allInts {
				if n, ok := v.(int64); ok {
					ints = append(ints, n)
				} else {
					allInts = false
					items = make([]any, 0, len(ints)+1)
					for _, n := range ints {
						items = append(items, n)
					}
					items = append(items, v)
				}
			} else {
				items = append(items, v)
			}
			b = skipJSONSpace(b)
			if len(b) == 0 || b[0] == ']' {
				break
			}
			b = b[1:] // ','
		}
		if len(b) > 0 {
			b = b[1:]
		}
		if allInts {
			return ints, b
		}
		return items, b
	case c == '{':
		// Skip it.
		b = skipJSONSpace(b[1:])
		for len(b) > 0 && b[0] != '}' {
			_, b = jsonValue(b) // the name
			b = skipJSONSpace(b)
			if len(b) > 0 {
				b = b[1:] // ':'
			}
			_, b = jsonValue(b)
			b = skipJSONSpace(b)
			if len(b) > 0 && b[0] == ',' {
				b = skipJSONSpace(b[1:])
			}
		}
		if len(b) > 0 {
			b = b[1:]
		}
		return map[string]any{}, b
	}
	// A number.
	i := 0
	for i < len(b) && (b[i] >= '0' && b[i] <= '9' || b[i] == '-' || b[i] == '+' || b[i] == '.' || b[i] == 'e' || b[i] == 'E') {
		i++
	}
	if n, rest, ok := jsonSmallInt(b); ok {
		return n, rest
	}
	if n, err := strconv.ParseInt(string(b[:i]), 10, 64); err == nil {
		return n, b[i:]
	}
	return json.Number(b[:i]), b[i:]
}

// jsonSmallInt reads a non-negative integer of at most 18 digits at the
// start of b, followed by ',' or ']'.
func jsonSmallInt(b []byte) (int64, []byte, bool) {
	var n int64
	i := 0
	for i < len(b) && i < 18 && b[i] >= '0' && b[i] <= '9' {
		n = n*10 + int64(b[i]-'0')
		i++
	}
	if i == 0 || i == len(b) || (b[i] != ',' && b[i] != ']') || (b[0] == '0' && i > 1) {
		return 0, b, false
	}
	return n, b[i:], true
}

// jsonName returns the string s, without allocating for the names of
// Jepsen's events.
func jsonName(s []byte) string {
	switch string(s) {
	case "r":
		return "r"
	case "w":
		return "w"
	case "append":
		return "append"
	case "txn":
		return "txn"
	case "invoke":
		return "invoke"
	case "ok":
		return "ok"
	case "fail":
		return "fail"
	case "info":
		return "info"
	case "type":
		return "type"
	case "f":
		return "f"
	case "value":
		return "value"
	case "process":
		return "process"
	case "time":
		return "time"
	case "index":
		return "index"
	}
	return string(s)
}

func skipJSONSpace(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t' || b[0] == '\r' || b[0] == '\n') {
		b = b[1:]
	}
	return b
}

// WriteElleJSON writes h in elle-cli's JSON form (see writeJepsen).
func WriteElleJSON(w *bufio.Writer, h *history.History) error {
	return writeJepsen(w, h, true)
}

// WriteEDN writes h as a Jepsen EDN history (see writeJepsen).
func WriteEDN(w *bufio.Writer, h *history.History) error {
	return writeJepsen(w, h, false)
}
