package format

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/internal/progress"
)

// The native JSONL format holds one transaction per line:
//
//	{"session": 0, "id": "t7", "status": "committed", "ops": [["r","x",null],["w","x",5]], "start": 120, "end": 135}
//
// The reader below is a hand-written scanner for exactly this shape: it is
// several times faster than encoding/json and allocates only for new names.

// maxNativeInt bounds the integer values of the native format: |v| must be
// below it, so that integers never collide with interned strings
// (history.StringBase) or history.Null.
const maxNativeInt = 1 << 62

// maxOps is the most operations a history can hold (Txn.OpStart is an int32).
const maxOps = math.MaxInt32

type jsonlReader struct {
	b    *history.Builder
	name string
	keys map[string]history.Key
	vals map[string]history.Value
	sess map[string]int32
	ops  []history.Op
	nops int
	sc   scanner
	// ids maps the transaction ids given in the input to their lines;
	// defaults lists, in increasing order, the lines of the transactions
	// without one, whose id is their line number.
	ids      map[string]int
	defaults []int
}

// readJSONL reads a JSONL history; size, when not -1, is the input's size
// in bytes, from which it estimates how much to allocate.
func readJSONL(m *progress.Meter, lr *lineReader, size int64) (*history.History, error) {
	r := &jsonlReader{
		b:    history.NewBuilder(history.Null, lr.name),
		name: lr.name,
		keys: make(map[string]history.Key),
		vals: make(map[string]history.Value),
		sess: make(map[string]int32),
		ids:  make(map[string]int),
	}
	if size > 0 {
		// Typical lines spend ~16-20 bytes an operation and ~250 a
		// transaction: room for that costs about the input's size.
		r.b.Grow(int(size/256), int(size/16))
	}
	for {
		line, err := lr.nextContent()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if err := r.parseLine(line, lr.line); err != nil {
			return nil, err
		}
	}
	if err := m.Err(); err != nil {
		return nil, err
	}
	return r.b.History(), nil
}

// Field bits of a JSONL transaction.
const (
	fSession = 1 << iota
	fID
	fStatus
	fOps
	fStart
	fEnd
)

func fieldBit(name []byte) int {
	switch string(name) {
	case "session":
		return fSession
	case "id":
		return fID
	case "status":
		return fStatus
	case "ops":
		return fOps
	case "start":
		return fStart
	case "end":
		return fEnd
	}
	return 0
}

// parseLine parses one transaction and adds it to the history.
func (r *jsonlReader) parseLine(line []byte, lineNo int) error {
	p := &r.sc
	p.s, p.i = line, 0
	if err := r.parseTxn(lineNo); err != nil {
		if se, ok := err.(*syntaxError); ok {
			return lineError(r.name, lineNo, "column %d: %s", se.col, se.msg)
		}
		return err
	}
	return nil
}

func (r *jsonlReader) parseTxn(lineNo int) error {
	p := &r.sc
	t := history.Txn{Status: history.Committed, Start: history.NoTime, End: history.NoTime, Pos: int64(lineNo)}
	idSet := false
	r.ops = r.ops[:0]
	p.ws()
	if !p.eat('{') {
		return p.errorf("expected a JSON object {\"session\": ..., \"ops\": [...]}, got %s", p.describe())
	}
	seen := 0
	p.ws()
	if !p.eat('}') {
		for {
			p.ws()
			if p.peek() != '"' {
				return p.errorf("expected a field name, got %s", p.describe())
			}
			nameCol := p.i + 1
			name, err := p.str()
			if err != nil {
				return err
			}
			bit := fieldBit(name)
			if bit == 0 {
				return &syntaxError{nameCol, fmt.Sprintf("unknown field %s (want session, id, status, ops, start or end)", snippet(name))}
			}
			if seen&bit != 0 {
				return &syntaxError{nameCol, fmt.Sprintf("duplicate field %s", snippet(name))}
			}
			seen |= bit
			p.ws()
			if !p.eat(':') {
				return p.errorf("expected ':' after field name, got %s", p.describe())
			}
			p.ws()
			if err := r.parseField(bit, &t, &idSet); err != nil {
				return err
			}
			p.ws()
			if p.eat(',') {
				continue
			}
			if p.eat('}') {
				break
			}
			return p.errorf("expected ',' or '}' after a field value, got %s", p.describe())
		}
	}
	p.ws()
	if p.i < len(p.s) {
		return p.errorf("unexpected %s after the transaction object (one transaction per line)", p.describe())
	}
	if seen&fSession == 0 {
		return lineError(r.name, lineNo, "missing field \"session\"")
	}
	if seen&fOps == 0 {
		return lineError(r.name, lineNo, "missing field \"ops\"")
	}
	if t.Start != history.NoTime && t.End != history.NoTime && t.End < t.Start {
		return lineError(r.name, lineNo, "end %d is before start %d", t.End, t.Start)
	}
	if err := r.checkID(&t, idSet, lineNo); err != nil {
		return err
	}
	if len(r.ops) > maxOps-r.nops {
		return lineError(r.name, lineNo, "too many operations (the limit is %d)", maxOps)
	}
	r.nops += len(r.ops)
	r.b.AddTxn(t, r.ops)
	return nil
}

// checkID gives t its default id (its line) if it has none, and checks
// that no other transaction has its id. An empty id means none, as it does
// in History.Name; transactions without an id are exempt.
func (r *jsonlReader) checkID(t *history.Txn, idSet bool, lineNo int) error {
	if !idSet {
		t.ID = strconv.Itoa(lineNo)
		if other, ok := r.ids[t.ID]; ok {
			return lineError(r.name, lineNo, "transaction id %s (by default, the line number) is also the id of the transaction at %s:%d", quote(t.ID), r.name, other)
		}
		r.defaults = append(r.defaults, lineNo)
		return nil
	}
	if t.ID == "" {
		return nil
	}
	if other, ok := r.ids[t.ID]; ok {
		return lineError(r.name, lineNo, "duplicate transaction id %s: the transaction at %s:%d has it too", quote(t.ID), r.name, other)
	}
	if n, ok := canonicalNonNeg(t.ID); ok && n < int64(lineNo) {
		if _, found := slices.BinarySearch(r.defaults, int(n)); found {
			return lineError(r.name, lineNo, "transaction id %s is also the id (by default, the line number) of the transaction at %s:%d", quote(t.ID), r.name, n)
		}
	}
	r.ids[t.ID] = lineNo
	return nil
}

func (r *jsonlReader) parseField(bit int, t *history.Txn, idSet *bool) error {
	p := &r.sc
	col := p.i + 1
	switch bit {
	case fSession:
		kind, s, n, err := p.scalar()
		if err != nil {
			return err
		}
		switch kind {
		case tokInt:
			t.Session = r.b.IntSession(n)
		case tokString:
			sess, ok := r.sess[string(s)]
			if !ok {
				sess = r.b.Session(string(s))
				r.sess[string(s)] = sess
			}
			t.Session = sess
		default:
			return &syntaxError{col, "\"session\" must be an integer or a string, got " + kind.String()}
		}
	case fID:
		kind, s, n, err := p.scalar()
		if err != nil {
			return err
		}
		switch kind {
		case tokInt:
			t.ID, *idSet = strconv.FormatInt(n, 10), true
		case tokString:
			t.ID, *idSet = string(s), true
		case tokNull:
		default:
			return &syntaxError{col, "\"id\" must be a string or an integer, got " + kind.String()}
		}
	case fStatus:
		kind, s, _, err := p.scalar()
		if err != nil {
			return err
		}
		if kind != tokString {
			return &syntaxError{col, "\"status\" must be a string, got " + kind.String()}
		}
		switch string(s) {
		case "committed":
			t.Status = history.Committed
		case "aborted":
			t.Status = history.Aborted
		case "unknown":
			t.Status = history.Unknown
		default:
			return &syntaxError{col, fmt.Sprintf("unknown status %s (want committed, aborted or unknown)", snippet(s))}
		}
	case fStart, fEnd:
		field := "start"
		if bit == fEnd {
			field = "end"
		}
		kind, _, n, err := p.scalar()
		if err != nil {
			return err
		}
		switch kind {
		case tokInt:
			if n == history.NoTime {
				return &syntaxError{col, fmt.Sprintf("%q %d out of range", field, n)}
			}
			if bit == fStart {
				t.Start = n
			} else {
				t.End = n
			}
		case tokNull:
		default:
			return &syntaxError{col, fmt.Sprintf("%q must be an integer, got %s", field, kind)}
		}
	case fOps:
		return r.parseOps()
	}
	return nil
}

func (r *jsonlReader) parseOps() error {
	p := &r.sc
	if !p.eat('[') {
		return p.errorf("\"ops\" must be an array of [kind, key, value] operations, got %s", p.describe())
	}
	p.ws()
	if p.eat(']') {
		return nil
	}
	for i := 0; ; i++ {
		p.ws()
		if err := r.parseOp(i); err != nil {
			return err
		}
		p.ws()
		if p.eat(',') {
			continue
		}
		if p.eat(']') {
			return nil
		}
		return p.errorf("expected ',' or ']' after ops[%d], got %s", i, p.describe())
	}
}

func (r *jsonlReader) parseOp(i int) error {
	p := &r.sc
	if !p.eat('[') {
		return p.errorf("ops[%d] must be an array [kind, key, value], got %s", i, p.describe())
	}
	var op history.Op
	// Kind.
	p.ws()
	col := p.i + 1
	if p.peek() == ']' {
		return p.errorf("ops[%d] is empty: want [kind, key, value]", i)
	}
	kind, s, _, err := p.scalar()
	if err != nil {
		return err
	}
	switch {
	case kind == tokString && len(s) == 1 && s[0] == 'r':
		op.Kind = history.Read
	case kind == tokString && len(s) == 1 && s[0] == 'w':
		op.Kind = history.Write
	case kind == tokString:
		return &syntaxError{col, fmt.Sprintf("ops[%d]: unknown operation %s (want \"r\" or \"w\")", i, snippet(s))}
	default:
		return &syntaxError{col, fmt.Sprintf("ops[%d]: operation must be \"r\" or \"w\", got %s", i, kind)}
	}
	if err := r.opSep(i, 1); err != nil {
		return err
	}
	// Key.
	col = p.i + 1
	kind, s, n, err := p.scalar()
	if err != nil {
		return err
	}
	switch kind {
	case tokInt:
		op.Key = r.b.IntKey(n)
	case tokString:
		k, ok := r.keys[string(s)]
		if !ok {
			k = r.b.Key(string(s))
			r.keys[string(s)] = k
		}
		op.Key = k
	default:
		return &syntaxError{col, fmt.Sprintf("ops[%d]: key must be a string or an integer, got %s", i, kind)}
	}
	if err := r.opSep(i, 2); err != nil {
		return err
	}
	// Value.
	col = p.i + 1
	kind, s, n, err = p.scalar()
	if err != nil {
		return err
	}
	switch kind {
	case tokInt:
		if n >= maxNativeInt || n <= -maxNativeInt {
			return &syntaxError{col, fmt.Sprintf("ops[%d]: value %d out of range: integers must be between -(2^62-1) and 2^62-1; write larger values as strings", i, n)}
		}
		op.Value = history.Value(n)
	case tokString:
		v, ok := r.vals[string(s)]
		if !ok {
			v = r.b.StringValue(string(s))
			r.vals[string(s)] = v
		}
		op.Value = v
	case tokNull:
		if op.Kind == history.Write {
			return &syntaxError{col, fmt.Sprintf("ops[%d]: a write cannot write null", i)}
		}
		op.Value = history.Null
	default:
		return &syntaxError{col, fmt.Sprintf("ops[%d]: value must be an integer, a string or null, got %s", i, kind)}
	}
	p.ws()
	if p.eat(']') {
		r.ops = append(r.ops, op)
		return nil
	}
	if p.peek() == ',' {
		return p.errorf("ops[%d] has more than 3 elements: want [kind, key, value]", i)
	}
	return p.errorf("expected ']' after ops[%d], got %s", i, p.describe())
}

// opSep consumes the ',' after element n of op i.
func (r *jsonlReader) opSep(i, n int) error {
	p := &r.sc
	p.ws()
	if p.eat(',') {
		p.ws()
		return nil
	}
	if p.peek() == ']' {
		return p.errorf("ops[%d] has %d element%s: want [kind, key, value]", i, n, plural(n))
	}
	return p.errorf("expected ',' in ops[%d], got %s", i, p.describe())
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
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
// until the next call; for integers the number. Arrays, objects and booleans
// are reported by kind and not consumed.
func (p *scanner) scalar() (kind tokKind, s []byte, n int64, err error) {
	switch c := p.peek(); {
	case c == '"':
		s, err = p.str()
		return tokString, s, 0, err
	case c == '-' || c >= '0' && c <= '9':
		n, err = p.integer()
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

// integer scans a JSON number that must be an integer in int64 range.
func (p *scanner) integer() (int64, error) {
	start := p.i
	neg := p.eat('-')
	digits := p.i
	var u uint64
	overflow := false
	for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
		d := uint64(p.s[p.i] - '0')
		if u > (math.MaxUint64-d)/10 {
			overflow = true
		} else {
			u = u*10 + d
		}
		p.i++
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
	case overflow, !neg && u > math.MaxInt64, neg && u > 1<<63:
		text := cut(string(p.s[start:p.i]))
		p.i = start
		return 0, p.errorf("number %s out of range (not a 64-bit integer)", text)
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

// writeJSONL writes h in the native format.
func writeJSONL(w *bufio.Writer, h *history.History) error {
	sessions := make([][]byte, len(h.Sessions))
	for s := range sessions {
		name := h.SessionName(s)
		enc, err := appendJSONName(nil, name)
		if err != nil {
			return fmt.Errorf("session %d: %w", s, err)
		}
		sessions[s] = enc
	}
	keys := make([][]byte, len(h.KeyNames))
	for k, name := range h.KeyNames {
		enc, err := appendJSONName(nil, name)
		if err != nil {
			return fmt.Errorf("key %d: %w", k, err)
		}
		keys[k] = enc
	}
	for i, name := range h.ValueNames {
		if !utf8.ValidString(name) {
			return fmt.Errorf("value %d: %s is not valid UTF-8", i, quote(name))
		}
	}
	var line []byte
	for t := range h.Txns {
		tx := &h.Txns[t]
		if int(tx.Session) >= len(sessions) || tx.Session < 0 {
			return fmt.Errorf("transaction %s: session %d out of range", cut(h.Name(t)), tx.Session)
		}
		if !utf8.ValidString(tx.ID) {
			return fmt.Errorf("transaction %d: id %s is not valid UTF-8", t, quote(tx.ID))
		}
		line = append(line[:0], `{"session":`...)
		line = append(line, sessions[tx.Session]...)
		line = append(line, `,"id":`...)
		line = appendJSONString(line, tx.ID)
		switch tx.Status {
		case history.Committed:
		case history.Aborted, history.Unknown:
			line = append(line, `,"status":"`...)
			line = append(line, tx.Status.String()...)
			line = append(line, '"')
		default:
			return fmt.Errorf("transaction %s: invalid status %v", cut(h.Name(t)), tx.Status)
		}
		line = append(line, `,"ops":[`...)
		for j, op := range h.OpsOf(t) {
			if j > 0 {
				line = append(line, ',')
			}
			if op.Kind == history.Write {
				line = append(line, `["w",`...)
			} else {
				line = append(line, `["r",`...)
			}
			if op.Key < 0 || int(op.Key) >= len(keys) {
				return fmt.Errorf("transaction %s: key %d out of range", cut(h.Name(t)), op.Key)
			}
			line = append(line, keys[op.Key]...)
			line = append(line, ',')
			v := op.Value
			if h.Init != history.Null && v == h.Init {
				if op.Kind == history.Write {
					return fmt.Errorf("transaction %s writes the initial value %s to key %s, which JSONL cannot represent", cut(h.Name(t)), cut(h.FormatValue(v)), cut(h.FormatKey(op.Key)))
				}
				v = history.Null
			}
			switch {
			case v == history.Null:
				if op.Kind == history.Write {
					return fmt.Errorf("transaction %s writes null to key %s", cut(h.Name(t)), cut(h.FormatKey(op.Key)))
				}
				line = append(line, "null"...)
			case v >= history.StringBase && int64(v-history.StringBase) < int64(len(h.ValueNames)):
				line = appendJSONString(line, h.ValueNames[v-history.StringBase])
			case v < maxNativeInt && v > -maxNativeInt:
				line = strconv.AppendInt(line, int64(v), 10)
			default:
				return fmt.Errorf("transaction %s: value %d out of the range of JSONL integers (|v| < 2^62)", cut(h.Name(t)), int64(v))
			}
			line = append(line, ']')
		}
		line = append(line, ']')
		if tx.Start != history.NoTime {
			line = append(line, `,"start":`...)
			line = strconv.AppendInt(line, tx.Start, 10)
		}
		if tx.End != history.NoTime {
			line = append(line, `,"end":`...)
			line = strconv.AppendInt(line, tx.End, 10)
		}
		line = append(line, "}\n"...)
		if _, err := w.Write(line); err != nil {
			return err
		}
	}
	return nil
}

// appendJSONName appends a session or key name: as an integer if it is the
// canonical decimal form of one, as a string otherwise.
func appendJSONName(b []byte, name string) ([]byte, error) {
	if n, err := strconv.ParseInt(name, 10, 64); err == nil && strconv.FormatInt(n, 10) == name {
		return strconv.AppendInt(b, n, 10), nil
	}
	if !utf8.ValidString(name) {
		return nil, fmt.Errorf("name %s is not valid UTF-8", quote(name))
	}
	return appendJSONString(b, name), nil
}

// appendJSONString appends s, valid UTF-8, as a JSON string.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		b = append(b, s[start:i]...)
		switch c {
		case '"', '\\':
			b = append(b, '\\', c)
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		default:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
		}
		start = i + 1
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
