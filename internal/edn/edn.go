// Package edn reads EDN, the data notation of Clojure, in which Jepsen and
// its checker Elle write histories (history.edn). It is the one EDN reader
// of isocheck: the lwt package and the format package's Jepsen reader both
// read through it. Marshal and AppendString write EDN (Elle's result
// map, for one), so that what isocheck writes reads back the same here
// and in Clojure.
//
// A Decoder reads one form at a time from a stream, as encoding/json's
// Decoder does: a file of one map per line is a sequence of top-level
// forms, and the elements of one big vector of maps can be read one at a
// time too (OpenSeq, More, Decode, CloseSeq) without holding the vector.
// Every form read has a position (Pos: line and byte offset) for messages.
//
// Values are small Go types:
//
//	nil                        nil
//	true, false                bool
//	integers                   int64; those beyond int64 are BigInt (their decimal text)
//	floats                     float64; 1.5M is Decimal (its text, without M)
//	"strings"                  string
//	\c characters              Char
//	:keywords                  Keyword (the name, without the colon)
//	symbols                    Symbol
//	[vectors]                  []any; []int64 when every element is an int64 integer
//	(lists)                    List
//	#{sets}                    Set
//	{maps}                     Map, the key/value pairs in the order written
//	#tag form                  Tagged (#inst, #uuid, records such as #jepsen.history.Op{...})
//
// Comments (; to the end of the line) and discarded forms (#_ form) are
// skipped; commas are white space.
//
// Limits: a form (a top-level form, or an element of a sequence opened with
// OpenSeq) is at most 64 MiB of text (MaxForm) and nests at most MaxDepth
// collections deep; the Decoder holds one form, so memory does not grow
// with the input, and a longer form is an error, so that no input (such as
// /dev/zero) makes it hold more. The values of a form take at most about 16
// bytes of memory per byte of its text.
//
// # Speed
//
// The hand-written scanner is kept because it is several times faster than
// the well-kept library olympos.io/encoding/edn, the Go EDN reader the
// project compared it with. BenchmarkDecode reads a generated 100 MB
// Jepsen list-append history (458k op maps, one a line) into Go values
// with both; on the 2-core development machine, busy with other work
// (2 runs each; wall time, CPU time):
//
//	this package              1.6 s, 1.5 s CPU     0.39 GB and  6.2M allocations
//	olympos.io/encoding/edn  11-17 s, 11-12 s CPU  4.6 GB and 134M allocations
//
// That is 7 to 8 times less CPU, with 12 times fewer bytes and 22 times
// fewer allocations. olympos also decodes a stream only form by form (it
// cannot stream the elements of a history vector) and bounds neither the
// length of a form nor its nesting.
package edn

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/isocheck/isocheck/internal/textsafe"
)

// MaxForm is the longest form a Decoder reads, in bytes, by default.
const MaxForm = 64 << 20

// MaxDepth is how deep collections and tags may nest, by default.
const MaxDepth = 64

// Keyword is a keyword, :name; the Keyword holds the name without the
// colon (namespaced keywords keep their namespace: "jepsen/op").
type Keyword string

// String returns the keyword as written, with its colon.
func (k Keyword) String() string { return ":" + string(k) }

// Symbol is a symbol other than nil, true and false.
type Symbol string

// BigInt is an integer beyond the range of int64, as its decimal text
// (with a leading '-' when negative, without '+', leading zeros or N).
type BigInt string

// Decimal is an exact decimal number, 1.5M, as its text without the M.
type Decimal string

// Char is a character, \c.
type Char rune

// List is a list, (a b c).
type List []any

// Set is a set, #{a b c}, its elements in the order written.
type Set []any

// Map is a map, its pairs in the order written.
type Map []KV

// KV is a pair of a map.
type KV struct {
	Key, Value any
}

// Get returns the value of the first pair of m whose key equals key (with
// ==, so that keys that are slices or maps never match).
func (m Map) Get(key any) (any, bool) {
	for i := range m {
		if equalKey(m[i].Key, key) {
			return m[i].Value, true
		}
	}
	return nil, false
}

func equalKey(a, b any) (eq bool) {
	switch a.(type) {
	case []any, []int64, List, Set, Map, Tagged:
		return false
	}
	return a == b
}

// Tagged is a tagged element, #tag value: #inst "1985-04-12T23:20:50.52Z"
// is Tagged{"inst", "1985-04-12T23:20:50.52Z"}, and a Clojure record
// #jepsen.history.Op{:type :ok ...} is Tagged{"jepsen.history.Op", Map}.
type Tagged struct {
	Tag   string
	Value any
}

// Seq returns the elements of a vector or a list, and whether v is one
// (a vector of integers, []int64, is copied into an []any).
func Seq(v any) ([]any, bool) {
	switch v := v.(type) {
	case []any:
		return v, true
	case []int64:
		s := make([]any, len(v))
		for i, n := range v {
			s[i] = n
		}
		return s, true
	case List:
		return v, true
	}
	return nil, false
}

// Pos is a position in the input.
type Pos struct {
	Line   int   // from 1
	Offset int64 // in bytes, from 0
}

// SyntaxError is an error in the text of the input, or a form beyond the
// limits.
type SyntaxError struct {
	Pos        // where the error was found
	Msg string // what is wrong
}

// Error says where the error is and what it is, with the control
// characters that Msg quotes from the input escaped (see
// textsafe.Escape): an error names what it found in the input, and may
// be printed to a terminal.
func (e *SyntaxError) Error() string {
	return fmt.Sprintf("line %d (byte offset %d): %s", e.Line, e.Offset, textsafe.Escape(e.Msg))
}

// readChunk is how much the Decoder asks its reader for at a time.
const readChunk = 256 << 10

// Decoder reads EDN forms from a stream.
type Decoder struct {
	r       io.Reader
	buf     []byte
	pos     int   // next byte of buf
	off     int64 // input offset of buf[0]
	line    int   // line of buf[pos]
	eof     bool
	err     error // read error or form too long; sticky
	inForm  bool  // reading a form, which starts at buf[start]
	start   int
	formPos Pos
	closers []byte  // of the sequences opened with OpenSeq
	pending error   // an error More found, for Decode to return
	stack   []any   // elements of the collections being read
	nums    []int64 // elements of the vectors of integers being read
	kws     map[string]any
	kwCache [256]struct {
		name string
		v    any
	}
	ints []any

	maxForm, maxDepth int
}

// NewDecoder returns a Decoder reading from r. It reads ahead of the forms
// it returns.
func NewDecoder(r io.Reader) *Decoder {
	return &Decoder{r: r, line: 1, maxForm: MaxForm, maxDepth: MaxDepth, kws: make(map[string]any)}
}

// NewDecoderBytes returns a Decoder reading data.
func NewDecoderBytes(data []byte) *Decoder {
	d := NewDecoder(nil)
	d.buf = data
	d.eof = true
	return d
}

// SetLimits sets the longest form, in bytes, and the deepest nesting the
// Decoder accepts (MaxForm and MaxDepth by default); 0 keeps a limit.
func (d *Decoder) SetLimits(maxForm, maxDepth int) {
	if maxForm > 0 {
		d.maxForm = maxForm
	}
	if maxDepth > 0 {
		d.maxDepth = maxDepth
	}
}

// Pos returns the position of the start of the form Decode returned last.
func (d *Decoder) Pos() Pos { return d.formPos }

// SetPos sets the position of the next byte to read, for an input that
// starts inside a file: positions and errors count from it.
func (d *Decoder) SetPos(p Pos) {
	d.line = p.Line
	d.off = p.Offset - int64(d.pos)
}

// InputOffset returns the offset in the input of the next byte to read.
func (d *Decoder) InputOffset() int64 { return d.off + int64(d.pos) }

// Line returns the line of the next byte to read.
func (d *Decoder) Line() int { return d.line }

func (d *Decoder) here() Pos { return Pos{Line: d.line, Offset: d.off + int64(d.pos)} }

func (d *Decoder) errorf(format string, args ...any) error {
	return &SyntaxError{Pos: d.here(), Msg: fmt.Sprintf(format, args...)}
}

// fill reads more input into buf and reports whether it did. At the end of
// the input, after a read error, or when the form being read is longer
// than the limit, it returns false, and d.err says which, if any.
func (d *Decoder) fill() bool {
	if d.r == nil || d.eof || d.err != nil {
		return false
	}
	if d.inForm && len(d.buf)-d.start > d.maxForm {
		d.err = d.tooLong()
		return false
	}
	// Drop what is no longer needed: everything before pos, or before the
	// form being read.
	keep := d.pos
	if d.inForm {
		keep = d.start
	}
	if keep > 0 {
		n := copy(d.buf, d.buf[keep:])
		d.buf = d.buf[:n]
		d.off += int64(keep)
		d.pos -= keep
		if d.inForm {
			d.start = 0
		}
	}
	if cap(d.buf)-len(d.buf) < readChunk/2 {
		c := max(2*cap(d.buf), readChunk)
		if d.inForm {
			// No need for more than the longest form and a chunk.
			c = max(min(c, d.maxForm+2*readChunk), len(d.buf)+readChunk)
		}
		nb := make([]byte, len(d.buf), c)
		copy(nb, d.buf)
		d.buf = nb
	}
	for tries := 0; ; tries++ {
		n, err := d.r.Read(d.buf[len(d.buf):cap(d.buf)])
		d.buf = d.buf[:len(d.buf)+n]
		if err == io.EOF {
			d.eof = true
		} else if err != nil {
			d.err = err
		}
		if n > 0 {
			return true
		}
		if err != nil {
			return false
		}
		if tries > 100 {
			d.err = io.ErrNoProgress
			return false
		}
	}
}

func (d *Decoder) tooLong() error {
	return &SyntaxError{Pos: d.formPos, Msg: fmt.Sprintf("an EDN form longer than %d bytes, from byte %d on", d.maxForm, d.formPos.Offset)}
}

// more reports whether a byte is available at buf[pos], reading if need be.
func (d *Decoder) more() bool {
	return d.pos < len(d.buf) || d.fillMore()
}

func (d *Decoder) fillMore() bool {
	for d.pos >= len(d.buf) {
		if !d.fill() {
			return false
		}
	}
	return true
}

// peek1 returns the byte after buf[pos], or 0 at the end of the input.
func (d *Decoder) peek1() byte {
	for d.pos+1 >= len(d.buf) {
		if !d.fill() {
			return 0
		}
	}
	return d.buf[d.pos+1]
}

// delim marks the bytes that end a token.
var delim = func() (t [256]bool) {
	for _, c := range []byte(" \t\r\n\f\v,()[]{}\";") {
		t[c] = true
	}
	return t
}()

// space marks white space (commas included).
var space = func() (t [256]bool) {
	for _, c := range []byte(" \t\r\n\f\v,") {
		t[c] = true
	}
	return t
}()

// skipSpace skips white space and comments and reports whether a byte
// follows.
func (d *Decoder) skipSpace() bool {
	comment := false
	for {
		buf, i := d.buf, d.pos
		for i < len(buf) {
			c := buf[i]
			if comment {
				if c == '\n' {
					comment = false
					d.line++
				}
				i++
				continue
			}
			if !space[c] {
				if c != ';' {
					d.pos = i
					return true
				}
				comment = true
				i++
				continue
			}
			if c == '\n' {
				d.line++
			}
			i++
		}
		d.pos = i
		if !d.fill() {
			return false
		}
	}
}

// skipVoid skips white space, comments and discarded forms (#_ form), and
// reports whether a byte follows.
func (d *Decoder) skipVoid(depth int) (bool, error) {
	// Fast path for what separates most tokens: nothing, or one space,
	// before a character that starts neither a comment nor a discard.
	if i := d.pos; i+1 < len(d.buf) {
		if d.buf[i] == ' ' {
			i++
		}
		if c := d.buf[i]; !space[c] && c != ';' && c != '#' {
			d.pos = i
			return true, nil
		}
	}
	for {
		if !d.skipSpace() {
			return false, d.err
		}
		if d.buf[d.pos] != '#' || d.peek1() != '_' {
			return true, nil
		}
		d.pos += 2
		if _, err := d.next(depth + 1); err != nil {
			return false, err
		}
	}
}

// Decode reads the next form. At the end of the input, or at the closing
// bracket of a sequence opened with OpenSeq, it returns io.EOF. Every other
// error is a *SyntaxError, or the error of the underlying reader.
func (d *Decoder) Decode() (any, error) {
	if err := d.pending; err != nil {
		return nil, err
	}
	ok, err := d.skipVoidTop()
	if err != nil {
		d.pending = err
		return nil, err
	}
	if !ok {
		if len(d.closers) > 0 {
			err := d.errorf("unexpected end of input: missing %q", d.closers[len(d.closers)-1])
			d.pending = err
			return nil, err
		}
		return nil, io.EOF
	}
	if len(d.closers) > 0 && d.buf[d.pos] == d.closers[len(d.closers)-1] {
		return nil, io.EOF
	}
	d.beginForm()
	v, err := d.value(len(d.closers))
	if err == nil {
		err = d.endForm()
	}
	d.inForm = false
	if err != nil {
		if d.err != nil {
			err = d.err
		}
		d.pending = err
		return nil, err
	}
	return v, nil
}

func (d *Decoder) beginForm() {
	d.inForm, d.start = true, d.pos
	d.formPos = d.here()
}

func (d *Decoder) endForm() error {
	if d.pos-d.start > d.maxForm {
		return d.tooLong()
	}
	return nil
}

// skipVoidTop is skipVoid between forms: a discarded form counts as a form
// for the limits.
func (d *Decoder) skipVoidTop() (bool, error) {
	for {
		if !d.skipSpace() {
			return false, d.err
		}
		if d.buf[d.pos] != '#' || d.peek1() != '_' {
			return true, nil
		}
		d.beginForm()
		d.pos += 2
		_, err := d.next(len(d.closers) + 1)
		if err == nil {
			err = d.endForm()
		}
		d.inForm = false
		if err != nil {
			if d.err != nil {
				err = d.err
			}
			return false, err
		}
	}
}

// More reports whether another form follows, before the closing bracket of
// the sequence opened last or the end of the input. An error found on the
// way is returned by the next Decode (More then reports true).
func (d *Decoder) More() bool {
	if d.pending != nil {
		return true
	}
	ok, err := d.skipVoidTop()
	if err != nil {
		d.pending = err
		return true
	}
	if !ok {
		return len(d.closers) > 0 // Decode reports the missing bracket
	}
	return len(d.closers) == 0 || d.buf[d.pos] != d.closers[len(d.closers)-1]
}

// OpenSeq looks at the next form: if it is a vector or a list, OpenSeq
// reads its opening bracket and returns true, and Decode then returns its
// elements one at a time, and io.EOF at its closing bracket, which
// CloseSeq reads. Otherwise OpenSeq reads nothing and returns false (and
// io.EOF at the end of the input).
func (d *Decoder) OpenSeq() (bool, error) {
	if d.pending != nil {
		return false, d.pending
	}
	ok, err := d.skipVoidTop()
	if err != nil {
		d.pending = err
		return false, err
	}
	if !ok {
		return false, io.EOF
	}
	var closer byte
	switch d.buf[d.pos] {
	case '[':
		closer = ']'
	case '(':
		closer = ')'
	default:
		return false, nil
	}
	if len(d.closers) >= d.maxDepth {
		return false, d.errorf("nested deeper than %d", d.maxDepth)
	}
	d.formPos = d.here()
	d.pos++
	d.closers = append(d.closers, closer)
	return true, nil
}

// CloseSeq reads the closing bracket of the sequence opened last with
// OpenSeq; it is an error if another form comes first.
func (d *Decoder) CloseSeq() error {
	if d.pending != nil {
		return d.pending
	}
	if len(d.closers) == 0 {
		return errors.New("edn: CloseSeq without OpenSeq")
	}
	closer := d.closers[len(d.closers)-1]
	ok, err := d.skipVoidTop()
	switch {
	case err != nil:
	case !ok:
		err = d.errorf("unexpected end of input: missing %q", closer)
	case d.buf[d.pos] != closer:
		err = d.errorf("expected %q", closer)
	}
	if err != nil {
		d.pending = err
		return err
	}
	d.pos++
	d.closers = d.closers[:len(d.closers)-1]
	return nil
}

// next skips what comes before a form and reads it.
func (d *Decoder) next(depth int) (any, error) {
	ok, err := d.skipVoid(depth)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, d.errorf("unexpected end of input")
	}
	return d.value(depth)
}

var emptyVector any = []any{}

// value reads the form at buf[pos].
func (d *Decoder) value(depth int) (any, error) {
	if depth >= d.maxDepth {
		return nil, d.errorf("nested deeper than %d", d.maxDepth)
	}
	switch c := d.buf[d.pos]; c {
	case '[':
		return d.vector(depth)
	case '(':
		d.pos++
		items, err := d.seq(')', depth)
		if err != nil {
			return nil, err
		}
		return List(items), nil
	case '{':
		return d.mapForm(depth)
	case '"':
		return d.str()
	case ':':
		d.pos++
		t, err := d.token()
		if err != nil {
			return nil, err
		}
		if len(t) == 0 {
			return nil, d.errorf("empty keyword")
		}
		return d.keyword(t), nil
	case '#':
		return d.dispatch(depth)
	case '\\':
		return d.char()
	case ']', ')', '}':
		return nil, d.errorf("unexpected %q", c)
	}
	t, err := d.token()
	if err != nil {
		return nil, err
	}
	if len(t) == 0 {
		return nil, d.errorf("unexpected %q", d.buf[d.pos])
	}
	c := t[0]
	if c >= '0' && c <= '9' || (c == '-' || c == '+') && len(t) > 1 && t[1] >= '0' && t[1] <= '9' {
		return d.number(t)
	}
	switch string(t) {
	case "nil":
		return nil, nil
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return Symbol(t), nil
}

// keyword returns the Keyword named t, interned: a keyword read often
// (:type, :ok) is allocated once.
func (d *Decoder) keyword(t []byte) any {
	slot := &d.kwCache[(len(t)*31+int(t[0])*7+int(t[len(t)-1]))&(len(d.kwCache)-1)]
	if slot.name == string(t) && slot.v != nil {
		return slot.v
	}
	v, ok := d.kws[string(t)]
	if !ok {
		v = Keyword(t)
		if len(d.kws) < 1<<14 {
			d.kws[string(t)] = v
		}
	}
	slot.name, slot.v = string(v.(Keyword)), v
	return v
}

// vector reads a vector: an []int64 when its elements are all integers
// of int64, else an []any.
func (d *Decoder) vector(depth int) (any, error) {
	d.pos++
	base := len(d.nums)
	for {
		ok, err := d.skipVoid(depth + 1)
		if err != nil || !ok {
			d.nums = d.nums[:base]
			if err == nil {
				if d.err != nil {
					return nil, d.err
				}
				err = d.errorf("unexpected end of input: missing ']'")
			}
			return nil, err
		}
		c := d.buf[d.pos]
		if c == ']' {
			d.pos++
			n := len(d.nums) - base
			if n == 0 {
				return emptyVector, nil
			}
			out := make([]int64, n)
			copy(out, d.nums[base:])
			d.nums = d.nums[:base]
			return out, nil
		}
		if c >= '0' && c <= '9' {
			// Fast path: a short decimal integer.
			buf, i := d.buf, d.pos
			var n int64
			j := i
			for j < len(buf) && j-i < 18 && buf[j] >= '0' && buf[j] <= '9' {
				n = n*10 + int64(buf[j]-'0')
				j++
			}
			if j < len(buf) && delim[buf[j]] {
				d.pos = j
				d.nums = append(d.nums, n)
				continue
			}
		}
		var v any
		if c >= '0' && c <= '9' || c == '-' || c == '+' {
			if depth+1 >= d.maxDepth {
				d.nums = d.nums[:base]
				return nil, d.errorf("nested deeper than %d", d.maxDepth)
			}
			v, err = d.value(depth + 1)
			if err != nil {
				d.nums = d.nums[:base]
				return nil, err
			}
			if n, ok := v.(int64); ok {
				d.nums = append(d.nums, n)
				continue
			}
		}
		// Not all integers: an []any of the elements read so far and the
		// rest.
		sbase := len(d.stack)
		for _, n := range d.nums[base:] {
			d.stack = append(d.stack, d.int(n))
		}
		d.nums = d.nums[:base]
		if v != nil {
			d.stack = append(d.stack, v)
		}
		items, err := d.seqFrom(']', depth, sbase)
		if err != nil {
			return nil, err
		}
		return items, nil
	}
}

// seq reads the elements of a collection up to closer.
func (d *Decoder) seq(closer byte, depth int) ([]any, error) {
	return d.seqFrom(closer, depth, len(d.stack))
}

// seqFrom is seq, the elements read so far on the stack from base on.
func (d *Decoder) seqFrom(closer byte, depth, base int) ([]any, error) {
	if err := d.stackSeq(closer, depth, base); err != nil {
		return nil, err
	}
	n := len(d.stack) - base
	if n == 0 {
		return []any{}, nil
	}
	items := make([]any, n)
	copy(items, d.stack[base:])
	d.truncate(base)
	return items, nil
}

// stackSeq reads the elements of a collection up to closer onto the
// stack, which holds those read so far from base on.
func (d *Decoder) stackSeq(closer byte, depth, base int) error {
	for {
		ok, err := d.skipVoid(depth + 1)
		if err != nil {
			d.truncate(base)
			return err
		}
		if !ok {
			d.truncate(base)
			if d.err != nil {
				return d.err
			}
			return d.errorf("unexpected end of input: missing %q", closer)
		}
		if d.buf[d.pos] == closer {
			d.pos++
			return nil
		}
		v, err := d.value(depth + 1)
		if err != nil {
			d.truncate(base)
			return err
		}
		d.stack = append(d.stack, v)
	}
}

// truncate drops the elements of the stack from base on.
func (d *Decoder) truncate(base int) {
	clear(d.stack[base:])
	d.stack = d.stack[:base]
}

func (d *Decoder) mapForm(depth int) (any, error) {
	line := d.here()
	d.pos++
	base := len(d.stack)
	if err := d.stackSeq('}', depth, base); err != nil {
		return nil, err
	}
	items := d.stack[base:]
	if len(items)%2 != 0 {
		d.truncate(base)
		return nil, &SyntaxError{Pos: line, Msg: "a map needs an even number of forms"}
	}
	m := make(Map, len(items)/2)
	for i := range m {
		m[i] = KV{items[2*i], items[2*i+1]}
	}
	d.truncate(base)
	return m, nil
}

// dispatch reads a form starting with '#': a set, a symbolic value, or a
// tagged element.
func (d *Decoder) dispatch(depth int) (any, error) {
	switch d.peek1() {
	case '{':
		d.pos += 2
		items, err := d.seq('}', depth)
		if err != nil {
			return nil, err
		}
		return Set(items), nil
	case '#':
		d.pos += 2
		t, err := d.token()
		if err != nil {
			return nil, err
		}
		switch string(t) {
		case "Inf":
			return math.Inf(1), nil
		case "-Inf":
			return math.Inf(-1), nil
		case "NaN":
			return math.NaN(), nil
		}
		return nil, d.errorf("unknown symbolic value ##%s", Clip(string(t)))
	case '_':
		// Only where a form is optional (skipVoid); here one is needed.
		d.pos += 2
		if _, err := d.next(depth + 1); err != nil {
			return nil, err
		}
		return d.next(depth)
	}
	d.pos++
	t, err := d.token()
	if err != nil {
		return nil, err
	}
	if len(t) == 0 {
		return nil, d.errorf("# without a tag")
	}
	c := t[0]
	if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
		return nil, d.errorf("bad tag #%s", Clip(string(t)))
	}
	tag := string(t)
	v, err := d.next(depth + 1)
	if err != nil {
		return nil, err
	}
	return Tagged{Tag: tag, Value: v}, nil
}

// token reads the bytes up to the next delimiter. The slice stays valid
// until the end of the form.
func (d *Decoder) token() ([]byte, error) {
	rel := d.pos - d.start // fill may move the form to the start of buf
	for {
		buf, i := d.buf, d.pos
		for i < len(buf) && !delim[buf[i]] {
			i++
		}
		d.pos = i
		if i < len(buf) || !d.fill() {
			break
		}
	}
	if d.err != nil {
		return nil, d.err
	}
	return d.buf[d.start+rel : d.pos], nil
}

// number parses an integer or a float.
func (d *Decoder) number(t []byte) (any, error) {
	// Fast path: a decimal integer of at most 18 digits.
	s := t
	neg := false
	if s[0] == '-' || s[0] == '+' {
		neg = s[0] == '-'
		s = s[1:]
	}
	if len(s) <= 18 {
		var n int64
		i := 0
		for ; i < len(s); i++ {
			c := s[i]
			if c < '0' || c > '9' {
				break
			}
			n = n*10 + int64(c-'0')
		}
		if i == len(s) {
			if neg {
				n = -n
			}
			return d.int(n), nil
		}
	}
	text := string(t)
	if strings.HasSuffix(text, "N") {
		text = text[:len(text)-1]
		if !isDecimal(text) {
			return nil, d.errorf("bad number %s", Quote(string(t)))
		}
	}
	if isDecimal(text) {
		if n, err := strconv.ParseInt(text, 10, 64); err == nil {
			return d.int(n), nil
		}
		return bigInt(text), nil
	}
	if m, ok := strings.CutSuffix(text, "M"); ok {
		if _, err := strconv.ParseFloat(m, 64); err == nil || errors.Is(err, strconv.ErrRange) {
			if isFloat(m) {
				return Decimal(m), nil
			}
		}
		return nil, d.errorf("bad number %s", Quote(string(t)))
	}
	if isFloat(text) {
		f, err := strconv.ParseFloat(text, 64)
		if err == nil || errors.Is(err, strconv.ErrRange) {
			return f, nil
		}
	}
	return nil, d.errorf("bad number %s", Quote(string(t)))
}

func (d *Decoder) int(n int64) any {
	if n >= 0 && n < 4096 {
		if d.ints == nil {
			d.ints = make([]any, 4096)
		}
		v := d.ints[n]
		if v == nil {
			v = n
			d.ints[n] = v
		}
		return v
	}
	return n
}

// isDecimal reports whether s is [+-]digits.
func isDecimal(s string) bool {
	if s != "" && (s[0] == '-' || s[0] == '+') {
		s = s[1:]
	}
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// isFloat reports whether s is [+-]digits[.digits][(e|E)[+-]digits], with
// a fraction or an exponent.
func isFloat(s string) bool {
	if s != "" && (s[0] == '-' || s[0] == '+') {
		s = s[1:]
	}
	digits := func() int {
		i := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		s = s[i:]
		return i
	}
	if digits() == 0 {
		return false
	}
	frac := false
	if s != "" && s[0] == '.' {
		s = s[1:]
		digits()
		frac = true
	}
	if s != "" && (s[0] == 'e' || s[0] == 'E') {
		s = s[1:]
		if s != "" && (s[0] == '-' || s[0] == '+') {
			s = s[1:]
		}
		if digits() == 0 {
			return false
		}
		frac = true
	}
	return frac && s == ""
}

// bigInt returns the canonical text of a decimal integer beyond int64.
func bigInt(s string) BigInt {
	neg := false
	if s[0] == '-' || s[0] == '+' {
		neg = s[0] == '-'
		s = s[1:]
	}
	s = strings.TrimLeft(s, "0")
	if neg {
		s = "-" + s
	}
	return BigInt(s)
}

// str reads a string.
func (d *Decoder) str() (any, error) {
	d.pos++ // the opening quote
	rel := d.pos - d.start
	// Fast path: no escapes.
	for {
		buf, i := d.buf, d.pos
		for i < len(buf) && buf[i] != '"' && buf[i] != '\\' && buf[i] != '\n' {
			i++
		}
		d.pos = i
		if i < len(buf) {
			break
		}
		if !d.fill() {
			if d.err != nil {
				return nil, d.err
			}
			return nil, d.errorf("unterminated string")
		}
	}
	if d.buf[d.pos] == '"' {
		s := string(d.buf[d.start+rel : d.pos])
		d.pos++
		return s, nil
	}
	var b strings.Builder
	b.Write(d.buf[d.start+rel : d.pos])
	for d.more() {
		c := d.buf[d.pos]
		d.pos++
		switch c {
		case '"':
			return b.String(), nil
		case '\n':
			d.line++
			b.WriteByte(c)
		case '\\':
			if !d.more() {
				break
			}
			e := d.buf[d.pos]
			d.pos++
			switch e {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			case 'b':
				b.WriteByte('\b')
			case 'f':
				b.WriteByte('\f')
			case '"', '\\', '/', '\'':
				b.WriteByte(e)
			case 'u':
				r, err := d.hex4()
				if err != nil {
					return nil, err
				}
				b.WriteRune(r)
			default:
				return nil, d.errorf("bad escape \\%c in a string", e)
			}
		default:
			b.WriteByte(c)
		}
	}
	if d.err != nil {
		return nil, d.err
	}
	return nil, d.errorf("unterminated string")
}

func (d *Decoder) hex4() (rune, error) {
	var r rune
	for range 4 {
		if !d.more() {
			return 0, d.errorf("unterminated string")
		}
		c := d.buf[d.pos]
		d.pos++
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, d.errorf("bad \\u escape")
		}
	}
	return r, nil
}

var charNames = map[string]rune{"newline": '\n', "return": '\r', "space": ' ', "tab": '\t', "formfeed": '\f', "backspace": '\b'}

// char reads a character: \c, \newline, \uXXXX.
func (d *Decoder) char() (any, error) {
	d.pos++
	if !d.more() {
		if d.err != nil {
			return nil, d.err
		}
		return nil, d.errorf("unexpected end of input after \\")
	}
	// The first byte is the character even when it is a delimiter.
	rel := d.pos - d.start
	_, size := utf8.DecodeRune(d.buf[d.pos:])
	if d.buf[d.pos] >= utf8.RuneSelf {
		for n := 1; n < utf8.UTFMax && d.pos+n >= len(d.buf); n++ {
			if !d.fill() {
				break
			}
		}
		_, size = utf8.DecodeRune(d.buf[d.pos:])
	}
	d.pos += size
	if _, err := d.token(); err != nil {
		return nil, err
	}
	t := string(d.buf[d.start+rel : d.pos])
	if r, n := utf8.DecodeRuneInString(t); n == len(t) && r != utf8.RuneError {
		return Char(r), nil
	}
	if r, ok := charNames[t]; ok {
		return Char(r), nil
	}
	if len(t) == 5 && t[0] == 'u' {
		if n, err := strconv.ParseUint(t[1:], 16, 32); err == nil {
			return Char(rune(n)), nil
		}
	}
	return nil, d.errorf("bad character \\%s", Clip(t))
}

// clipLen is the length beyond which error messages cut a token.
const clipLen = 40

// Clip returns s, or when it is long its start, "…" and its length, so
// that a huge token makes a short message, with its control characters
// escaped (see textsafe.Escape), so that a message that quotes the input
// prints safely on a terminal. Readers built on the decoder use it in
// their own messages.
func Clip(s string) string {
	if len(s) <= clipLen {
		return textsafe.Escape(s)
	}
	return textsafe.Escape(cut(s)) + "… (" + strconv.Itoa(len(s)) + " bytes)"
}

// Quote is strconv.Quote of Clip(s).
func Quote(s string) string {
	if len(s) <= clipLen {
		return strconv.Quote(s)
	}
	return strconv.Quote(cut(s)) + "… (" + strconv.Itoa(len(s)) + " bytes)"
}

// cut returns the first runes of s, less than clipLen bytes.
func cut(s string) string {
	n := clipLen - utf8.UTFMax
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
