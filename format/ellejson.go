package format

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strconv"

	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/internal/progress"
)

// elle-cli's JSON form of Jepsen histories: one event object a line, or
// one JSON array of them.
//
//	{"type": "ok", "f": "txn", "value": [["append", 3, 2], ["r", 3, [1, 2]]], "process": 0, "time": 9, "index": 8}
//
// Objects are read with encoding/json, one at a time, into the events of
// jepsen.go; strings stand for keywords ("r", "append", "ok"), and keys
// and values that are strings are strings.

// errElementTooLong is the error of a JSON value longer than maxLineLen.
var errElementTooLong = errors.New("element too long")

// lineCounter reads through to r, noting where the lines end, and refuses
// to read more than max bytes past base, the start of the value being
// decoded.
type lineCounter struct {
	r    io.Reader
	n    int64   // bytes read
	nl   []int64 // offsets of the newlines read but not yet passed by line
	line int     // newlines before nl[0]
	base int64
	max  int64
}

func (c *lineCounter) Read(p []byte) (int, error) {
	if room := c.base + c.max + 1 - c.n; int64(len(p)) > room {
		if room <= 0 {
			return 0, errElementTooLong
		}
		p = p[:room]
	}
	n, err := c.r.Read(p)
	for i := 0; i < n; {
		j := bytes.IndexByte(p[i:n], '\n')
		if j < 0 {
			break
		}
		c.nl = append(c.nl, c.n+int64(i+j))
		i += j + 1
	}
	c.n += int64(n)
	return n, err
}

// lineAt returns the line of the byte at offset off; offsets must not
// decrease from call to call.
func (c *lineCounter) lineAt(off int64) int {
	i := 0
	for i < len(c.nl) && c.nl[i] < off {
		i++
	}
	c.line += i
	c.nl = c.nl[i:]
	if cap(c.nl) > 1024 && len(c.nl) < cap(c.nl)/4 {
		c.nl = append([]int64(nil), c.nl...)
	}
	return c.line + 1
}

// startLine returns the line where the next value of d starts, past white
// space and a comma.
func startLine(d *json.Decoder, c *lineCounter) int {
	off := d.InputOffset()
	if rest, ok := d.Buffered().(io.ByteReader); ok {
		for {
			b, err := rest.ReadByte()
			if err != nil || b != ' ' && b != '\t' && b != '\r' && b != '\n' && b != ',' {
				break
			}
			off++
		}
	}
	return c.lineAt(off)
}

// readElleJSON reads elle-cli's JSON form of a Jepsen history.
func readElleJSON(m *progress.Meter, br *bufio.Reader, name string, size int64) (*history.History, *Info, error) {
	r := newJepsenReader(name)
	if size > 0 {
		r.b.Grow(int(size/400), int(size/100))
	}
	// Skip a byte order mark and look at the first byte.
	if head, _ := br.Peek(3); bytes.HasPrefix(head, []byte{0xEF, 0xBB, 0xBF}) {
		br.Discard(3)
	}
	c := &lineCounter{r: br, max: maxLineLen}
	d := json.NewDecoder(c)
	d.UseNumber()
	jerr := func(err error, line int) error {
		if errors.Is(err, errElementTooLong) {
			return r.errorf(line, "a JSON value longer than %d bytes", maxLineLen)
		}
		if progress.Stopped(err) {
			return err
		}
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return r.errorf(c.lineAt(se.Offset-1), "bad JSON: %v", err)
		}
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return r.errorf(line, "bad JSON: %v", err)
		}
		if err == io.ErrUnexpectedEOF || err == io.EOF {
			return r.errorf(line, "bad JSON: unexpected end of input")
		}
		return &Error{File: name, Offset: -1, Msg: "read error: " + err.Error(), Err: err}
	}
	inArray := false
	line := startLine(d, c)
	if b, err := peekNonSpace(br); err == nil && b == '[' {
		if _, err := d.Token(); err != nil {
			return nil, nil, jerr(err, line)
		}
		inArray = true
	}
	for {
		if inArray && !d.More() {
			break
		}
		c.base = d.InputOffset()
		line = startLine(d, c)
		var ev *elleEvent
		if err := d.Decode(&ev); err != nil {
			if err == io.EOF && !inArray {
				break
			}
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			var te *json.UnmarshalTypeError
			if errors.As(err, &te) {
				return nil, nil, r.errorf(line, "an event must be a JSON object like {\"type\": \"invoke\", \"f\": \"txn\", \"value\": [...], \"process\": 0}, not a JSON %s", te.Value)
			}
			return nil, nil, jerr(err, line)
		}
		if ev == nil {
			return nil, nil, r.errorf(line, "an event must be a JSON object, not null")
		}
		if err := r.jsonEvent(ev, line); err != nil {
			return nil, nil, err
		}
	}
	if inArray {
		if _, err := d.Token(); err != nil {
			return nil, nil, jerr(err, line)
		}
		c.base = d.InputOffset()
		if _, err := d.Token(); err != io.EOF {
			if err != nil {
				return nil, nil, jerr(err, startLine(d, c))
			}
			return nil, nil, r.errorf(startLine(d, c), "unexpected data after the history array")
		}
	}
	if err := m.Err(); err != nil {
		return nil, nil, err
	}
	h, err := r.finish()
	if err != nil {
		return nil, nil, err
	}
	return h, &Info{Format: ElleJSON, SkippedOps: r.skipped}, nil
}

// peekNonSpace returns the first byte of br that is not white space,
// without reading it (past white space).
func peekNonSpace(br *bufio.Reader) (byte, error) {
	for i := 1; ; i++ {
		b, err := br.Peek(i)
		if len(b) < i {
			return 0, err
		}
		if c := b[i-1]; !isSpace(c) {
			return c, nil
		}
		if i == br.Size() {
			return 0, io.EOF
		}
	}
}

// elleEvent holds the fields of an event as they were written; the others
// are skipped.
type elleEvent struct {
	Process json.RawMessage `json:"process"`
	Type    json.RawMessage `json:"type"`
	F       json.RawMessage `json:"f"`
	Value   json.RawMessage `json:"value"`
	Time    json.RawMessage `json:"time"`
	Index   json.RawMessage `json:"index"`
}

// jsonEvent reads an event from a JSON object.
func (r *jepsenReader) jsonEvent(ev *elleEvent, line int) error {
	e := eventFields{ev: jepsenEvent{line: line}}
	for _, f := range [...]struct {
		name string
		raw  json.RawMessage
	}{{"process", ev.Process}, {"type", ev.Type}, {"f", ev.F}, {"value", ev.Value}, {"time", ev.Time}, {"index", ev.Index}} {
		if f.raw == nil {
			continue
		}
		v, _ := jsonValue(f.raw)
		if err := e.field(r, f.name, v); err != nil {
			return err
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
			return string(b[1:i]), b[i+1:]
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
			v, b = jsonValue(b)
			if n, ok := v.(int64); ok && allInts {
				ints = append(ints, n)
			} else {
				if allInts {
					allInts = false
					items = make([]any, 0, len(ints)+1)
					for _, n := range ints {
						items = append(items, n)
					}
				}
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
	if n, err := strconv.ParseInt(string(b[:i]), 10, 64); err == nil {
		return n, b[i:]
	}
	return json.Number(b[:i]), b[i:]
}

func skipJSONSpace(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t' || b[0] == '\r' || b[0] == '\n') {
		b = b[1:]
	}
	return b
}

// writeElleJSON writes h in elle-cli's JSON form (see writeJepsen).
func writeElleJSON(w *bufio.Writer, h *history.History) error {
	return writeJepsen(w, h, true)
}

// writeEDN writes h as a Jepsen EDN history (see writeJepsen).
func writeEDN(w *bufio.Writer, h *history.History) error {
	return writeJepsen(w, h, false)
}
