package lwt

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strconv"

	"github.com/isocheck/isocheck/internal/edn"
	"github.com/isocheck/isocheck/internal/progress"
)

// Reading histories.
//
// Both formats carry Jepsen's event model: an :invoke event by a process,
// then that process's completion (:ok, :fail or :info); an invocation never
// completed is :info. :f is :read, :write or :cas; :value is the value read
// (on the completion), written, or [old new] for :cas. Jepsen's
// "independent" form, [key value] (for :cas [key [old new]]), names the
// register. Events of non-integer processes (:nemesis) are skipped. Real
// time is read from :time, :index or the position of the event in the file
// as the package comment says ("Real time").
//
//	EDN:   {:type :invoke, :f :cas, :value [3 4], :time 9, :process 2}
//	JSONL: {"process":2,"type":"invoke","f":"cas","value":[3,4],"time":9}
//
// JSONL lines may also carry "key" instead of the [key value] form.
//
// The readers take their input as a stream, one event (an EDN form at top
// level or in the history vector, or a JSONL line) at a time, so their
// memory grows with the events, not with the bytes read; an event longer
// than MaxForm is an error giving its line and byte offset. Error messages
// cut long tokens short.

// vkind is the kind of a parsed value.
type vkind uint8

const (
	vNil vkind = iota
	vInt
	vKeyword
	vString
	vSymbol
	vBool
	vVec // vector, list or set
	vMap // items alternate key, value
	vOther
)

// val is a parsed EDN or JSON value.
type val struct {
	line  int // where it starts
	kind  vkind
	i     int64
	s     string
	items []val
}

func (v *val) describe() string {
	switch v.kind {
	case vNil:
		return "nil"
	case vInt:
		return strconv.FormatInt(v.i, 10)
	case vKeyword:
		return ":" + edn.Clip(v.s)
	case vString:
		return edn.Quote(v.s)
	case vSymbol:
		return edn.Clip(v.s)
	case vBool:
		return strconv.FormatBool(v.i != 0)
	case vVec:
		return fmt.Sprintf("a vector of %d", len(v.items))
	case vMap:
		return "a map"
	case vOther:
		if v.s != "" {
			return edn.Clip(v.s)
		}
	}
	return "an unsupported value"
}

// event is one line of a history.
type event struct {
	process  int
	typ      string // invoke, ok, fail, info
	f        string
	value    val
	key      *val // JSONL "key"
	time     int64
	hasTime  bool
	index    int64
	hasIndex bool
	line     int
}

// LineError is an input error at a line.
type LineError struct {
	File string
	Line int
	Msg  string
}

func (e *LineError) Error() string {
	f := e.File
	if f == "" {
		f = "<input>"
	}
	return fmt.Sprintf("%s:%d: %s", f, e.Line, e.Msg)
}

// MaxForm is the longest EDN form (an event, or any form at top level) and
// the longest JSONL line the readers accept, in bytes. Longer ones are an
// input error: they are not events, and reading them would take memory
// without bound (as reading /dev/zero would).
const MaxForm = 64 << 20

// readChunk is how much a reader asks for at a time.
const readChunk = 64 << 10

// ReadFile reads a history from a file in either format (see ReadHistory).
func ReadFile(path string) ([]Op, error) {
	return ReadFileContext(context.Background(), path)
}

// ReadFileContext is ReadFile that reports its progress (in bytes) on a
// progress.Meter of ctx and stops when ctx ends; the error then satisfies
// progress.Stopped. The file is read as a stream, so memory does not grow
// with its size beyond the events it holds.
func ReadFileContext(ctx context.Context, path string) ([]Op, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var size int64
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
		size = fi.Size()
	}
	m := progress.Start(ctx, "reading", size, "bytes")
	return readHistory(progress.Reader(m, f), path)
}

// ReadHistory reads a history in Jepsen EDN or native JSONL, telling them
// apart by the first event: JSONL objects start with `{"`. name is used in
// errors. r is read as a stream (see MaxForm).
func ReadHistory(r io.Reader, name string) ([]Op, error) {
	return ReadHistoryContext(context.Background(), r, name)
}

// ReadHistoryContext is ReadHistory that reports its progress on a
// progress.Meter of ctx and stops when ctx ends (see ReadFileContext).
func ReadHistoryContext(ctx context.Context, r io.Reader, name string) ([]Op, error) {
	m := progress.Start(ctx, "reading", 0, "bytes")
	return readHistory(progress.Reader(m, r), name)
}

func readHistory(r io.Reader, name string) ([]Op, error) {
	br := bufio.NewReaderSize(r, readChunk)
	// Skip blank space, then look at the first event.
	line, off := 1, int64(0)
	for {
		c, err := br.ReadByte()
		if err == io.EOF {
			return assemble(nil, name)
		}
		if err != nil {
			return nil, readError(name, err)
		}
		if !isSpace(c) {
			br.UnreadByte()
			break
		}
		if c == '\n' {
			line++
		}
		off++
	}
	head, _ := br.Peek(256)
	if isJSONL(head) {
		return readJSONL(br, name, line, off)
	}
	d := edn.NewDecoder(br)
	d.SetPos(edn.Pos{Line: line, Offset: off})
	return readEDN(d, name)
}

func readError(name string, err error) error {
	return fmt.Errorf("%s: %w", name, err)
}

// isSpace reports whether c is blank space before the first event.
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == ','
}

// isJSONL reports whether t, the start of a history after blank space, is
// a JSON object.
func isJSONL(t []byte) bool {
	return len(t) >= 2 && t[0] == '{' && bytes.HasPrefix(bytes.TrimLeft(t[1:], " \t\r\n"), []byte{'"'})
}

// ReadBytes is ReadHistory on a byte slice.
func ReadBytes(data []byte, name string) ([]Op, error) {
	t := bytes.TrimLeft(data, " \t\r\n,")
	if isJSONL(t) {
		skip := data[:len(data)-len(t)]
		br := bufio.NewReaderSize(bytes.NewReader(t), readChunk)
		return readJSONL(br, name, 1+bytes.Count(skip, []byte{'\n'}), int64(len(skip)))
	}
	return ReadEDN(data, name)
}

// ReadEDN reads a Jepsen history: EDN maps, one per event, either at top
// level or inside one vector or list.
func ReadEDN(data []byte, name string) ([]Op, error) {
	return readEDN(edn.NewDecoderBytes(data), name)
}

// readEDN reads the events of a history, one top-level form (or one element
// of a top-level vector or list) at a time.
func readEDN(d *edn.Decoder, name string) ([]Op, error) {
	var evs []event
	add := func(x any, line int) error {
		v := fromEDN(x, line)
		if v.kind != vMap {
			return &LineError{name, line, "an event must be a map, not " + v.describe()}
		}
		e, skip, err := eventFromMap(v, line, name)
		if err != nil || skip {
			return err
		}
		evs = append(evs, e)
		return nil
	}
	inVec, err := d.OpenSeq()
	if err != nil && err != io.EOF {
		return nil, ednError(name, err)
	}
	for {
		x, err := d.Decode()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, ednError(name, err)
		}
		if err := add(x, d.Pos().Line); err != nil {
			return nil, err
		}
	}
	if inVec {
		if err := d.CloseSeq(); err != nil {
			return nil, ednError(name, err)
		}
		if _, err := d.Decode(); err != io.EOF {
			if err != nil {
				return nil, ednError(name, err)
			}
			return nil, &LineError{name, d.Pos().Line, "unexpected data after the history vector"}
		}
	}
	return assemble(evs, name)
}

// ednError is the error of the EDN reader: a LineError for errors in the
// text, else the read error.
func ednError(name string, err error) error {
	var se *edn.SyntaxError
	if errors.As(err, &se) {
		return &LineError{name, se.Line, se.Msg}
	}
	return readError(name, err)
}

// fromEDN converts a value of the EDN reader; every part of it gets line.
// Tags are dropped (#jepsen.history.Op{...} is its map).
func fromEDN(x any, line int) val {
	switch x := x.(type) {
	case nil:
		return val{line: line, kind: vNil}
	case bool:
		if x {
			return val{line: line, kind: vBool, i: 1}
		}
		return val{line: line, kind: vBool}
	case int64:
		return val{line: line, kind: vInt, i: x}
	case edn.BigInt:
		return val{line: line, kind: vOther, s: string(x)}
	case float64:
		return val{line: line, kind: vOther, s: strconv.FormatFloat(x, 'g', -1, 64)}
	case edn.Decimal:
		return val{line: line, kind: vOther, s: string(x) + "M"}
	case string:
		return val{line: line, kind: vString, s: x}
	case edn.Keyword:
		return val{line: line, kind: vKeyword, s: string(x)}
	case edn.Symbol:
		return val{line: line, kind: vSymbol, s: string(x)}
	case edn.Char:
		return val{line: line, kind: vOther, s: "\\" + string(rune(x))}
	case edn.Tagged:
		return fromEDN(x.Value, line)
	case edn.Map:
		items := make([]val, 0, 2*len(x))
		for _, kv := range x {
			items = append(items, fromEDN(kv.Key, line), fromEDN(kv.Value, line))
		}
		return val{line: line, kind: vMap, items: items}
	}
	var elems []any
	switch x := x.(type) {
	case []int64:
		items := make([]val, len(x))
		for i, n := range x {
			items[i] = val{line: line, kind: vInt, i: n}
		}
		return val{line: line, kind: vVec, items: items}
	case []any:
		elems = x
	case edn.List:
		elems = x
	case edn.Set:
		elems = x
	default:
		return val{line: line, kind: vOther}
	}
	items := make([]val, len(elems))
	for i := range elems {
		items[i] = fromEDN(elems[i], line)
	}
	return val{line: line, kind: vVec, items: items}
}

// eventFromMap reads the fields of an event map. skip is true for events
// of non-client processes.
func eventFromMap(m val, line int, file string) (e event, skip bool, err error) {
	e.line = line
	seenProc := false
	for j := 0; j+1 < len(m.items); j += 2 {
		k, v := &m.items[j], &m.items[j+1]
		if (k.kind == vKeyword || k.kind == vString) && k.s == "process" && v.kind != vInt {
			return e, true, nil // :nemesis and friends, whatever else they say
		}
	}
	for j := 0; j+1 < len(m.items); j += 2 {
		k, v := &m.items[j], m.items[j+1]
		if k.kind != vKeyword && k.kind != vString {
			continue
		}
		switch k.s {
		case "process":
			if v.kind != vInt {
				return e, true, nil // :nemesis and friends
			}
			if v.i < 0 || v.i > 1<<40 {
				return e, false, &LineError{file, line, "process out of range"}
			}
			e.process, seenProc = int(v.i), true
		case "type":
			if v.kind != vKeyword && v.kind != vString {
				return e, false, &LineError{file, line, ":type must be a keyword, not " + v.describe()}
			}
			e.typ = v.s
		case "f":
			if v.kind != vKeyword && v.kind != vString {
				return e, false, &LineError{file, line, ":f must be a keyword, not " + v.describe()}
			}
			e.f = v.s
		case "value":
			e.value = v
		case "key":
			kv := v
			e.key = &kv
		case "time":
			if v.kind != vInt {
				return e, false, &LineError{file, line, ":time must be an integer, not " + v.describe()}
			}
			e.time, e.hasTime = v.i, true
		case "index":
			if v.kind != vInt {
				return e, false, &LineError{file, line, ":index must be an integer, not " + v.describe()}
			}
			e.index, e.hasIndex = v.i, true
		}
	}
	if !seenProc {
		return e, false, &LineError{file, line, "event without :process"}
	}
	switch e.typ {
	case "invoke", "ok", "fail", "info":
	case "":
		return e, false, &LineError{file, line, "event without :type"}
	default:
		return e, false, &LineError{file, line, fmt.Sprintf("unknown :type %s (want invoke, ok, fail or info)", edn.Quote(e.typ))}
	}
	switch e.f {
	case "read", "write", "cas":
	case "":
		return e, false, &LineError{file, line, "event without :f"}
	default:
		return e, false, &LineError{file, line, fmt.Sprintf("unsupported :f %s (want read, write or cas)", edn.Quote(e.f))}
	}
	return e, false, nil
}

// clock says which times an event uses (see the package comment, "Real
// time").
type clock uint8

const (
	clockPosition clock = iota // the position of the event in the file
	clockTime                  // :time
	clockIndex                 // :index
)

// chooseClock picks the clock of evs: :time when every event has one and
// every completion comes no earlier than its invocation; otherwise :index
// when every event has one (and it orders completions after invocations);
// the position in the file when no event has :time nor every one :index.
// Otherwise real time is unknown, and the error says where.
func chooseClock(evs []event, file string) (clock, error) {
	allTime, allIndex := true, true
	var noTime, withTime *event
	for j := range evs {
		e := &evs[j]
		if e.hasTime {
			if withTime == nil {
				withTime = e
			}
		} else if noTime == nil {
			noTime = e
			allTime = false
		}
		allIndex = allIndex && e.hasIndex
	}
	var timeErr error
	switch {
	case allTime:
		inv, comp := backwards(evs, func(e *event) int64 { return e.time })
		if inv == nil {
			return clockTime, nil
		}
		timeErr = &LineError{file, comp.line, fmt.Sprintf("the completion's :time %d is before its invocation's :time %d at line %d, so :time is not a clock that real time can be read from", comp.time, inv.time, inv.line)}
	case withTime != nil:
		timeErr = &LineError{file, noTime.line, fmt.Sprintf("event without :time, though others have one (line %d); real time needs :time on every event, or else :index on every event", withTime.line)}
	}
	if allIndex {
		inv, comp := backwards(evs, func(e *event) int64 { return e.index })
		if inv == nil {
			return clockIndex, nil
		}
		if timeErr == nil {
			return 0, &LineError{file, comp.line, fmt.Sprintf("the completion's :index %d is before its invocation's :index %d at line %d", comp.index, inv.index, inv.line)}
		}
	}
	if timeErr != nil {
		return 0, timeErr
	}
	return clockPosition, nil
}

// backwards returns the first completion, in file order, whose time t is
// before its invocation's, and that invocation; nil when there is none.
func backwards(evs []event, t func(*event) int64) (inv, comp *event) {
	open := map[int]*event{}
	for j := range evs {
		e := &evs[j]
		if e.typ == "invoke" {
			open[e.process] = e
			continue
		}
		if i, ok := open[e.process]; ok {
			delete(open, e.process)
			if t(e) < t(i) {
				return i, e
			}
		}
	}
	return nil, nil
}

// assemble pairs invocations with completions and decodes the values.
func assemble(evs []event, file string) ([]Op, error) {
	clk, err := chooseClock(evs, file)
	if err != nil {
		return nil, err
	}
	var ops []Op
	pending := map[int]int{} // process -> index into ops
	invokes := map[int]*event{}
	for j := range evs {
		e := &evs[j]
		t := int64(j)
		switch clk {
		case clockTime:
			t = e.time
		case clockIndex:
			t = e.index
		}
		if e.typ == "invoke" {
			if k, busy := pending[e.process]; busy {
				return nil, &LineError{file, e.line, fmt.Sprintf("process %d invoked again before its invocation at line %d completed", e.process, ops[k].Line)}
			}
			o := Op{Process: e.process, Call: t, Return: Never, Outcome: Info, Line: e.line}
			switch e.f {
			case "read":
				o.Kind = Read
			case "write":
				o.Kind = Write
			case "cas":
				o.Kind = CAS
			}
			pending[e.process] = len(ops)
			invokes[e.process] = e
			ops = append(ops, o)
			continue
		}
		k, busy := pending[e.process]
		if !busy {
			return nil, &LineError{file, e.line, fmt.Sprintf("process %d completes an operation it did not invoke", e.process)}
		}
		inv := invokes[e.process]
		delete(pending, e.process)
		delete(invokes, e.process)
		if inv.f != e.f {
			return nil, &LineError{file, e.line, fmt.Sprintf("completion :f %s does not match the invocation's :f %s at line %d", e.f, inv.f, inv.line)}
		}
		o := &ops[k]
		o.RetLine = e.line
		switch e.typ {
		case "ok":
			o.Outcome, o.Return = Ok, t
		case "fail":
			o.Outcome, o.Return = Fail, t
		case "info":
			o.Outcome, o.Return = Info, Never
		}
		if err := decodeValues(o, inv, e, file); err != nil {
			return nil, err
		}
	}
	for p, k := range pending {
		if err := decodeValues(&ops[k], invokes[p], nil, file); err != nil {
			return nil, err
		}
	}
	return ops, nil
}

// decodeValues fills o's key and values from its invocation and completion
// (nil when it never completed).
func decodeValues(o *Op, inv, comp *event, file string) error {
	bad := func(e *event, format string, args ...any) error {
		return &LineError{file, e.line, fmt.Sprintf(format, args...)}
	}
	// The register, from "key" or the independent [key value] form.
	var key *val
	iv := inv.value
	if inv.key != nil {
		key = inv.key
	}
	independent := false
	switch o.Kind {
	case Read:
		independent = isPair(&iv) || (iv.kind == vNil && comp != nil && isPair(&comp.value) && comp.key == nil && inv.key == nil)
	case Write:
		independent = iv.kind == vVec
	case CAS:
		independent = isPair(&iv) && iv.items[1].kind == vVec
	}
	if independent {
		if !isPair(&iv) && !(o.Kind == Read && iv.kind == vNil) {
			return bad(inv, ":value of an independent %s must be [key value], not %s", o.Kind, iv.describe())
		}
		switch {
		case isPair(&iv):
			k := iv.items[0]
			key = &k
			iv = iv.items[1]
		case comp != nil && isPair(&comp.value): // a read invoked with nil
			k := comp.value.items[0]
			key = &k
		}
	}
	if key != nil {
		s, err := keyString(key)
		if err != nil {
			return bad(inv, "%v", err)
		}
		o.Key = s
	}
	var err error
	switch o.Kind {
	case Read:
		if comp == nil || o.Outcome != Ok {
			return nil
		}
		cv := comp.value
		if independent {
			if !isPair(&cv) {
				return bad(comp, ":value of an independent read must be [key value], not %s", cv.describe())
			}
			if ks, err := keyString(&cv.items[0]); err != nil || ks != o.Key {
				return bad(comp, "the read completes on key %s, invoked on %s", cv.items[0].describe(), edn.Quote(o.Key))
			}
			cv = cv.items[1]
		}
		o.Value, err = scalar(&cv)
		if err != nil {
			return bad(comp, "read value: %v", err)
		}
	case Write:
		o.Value, err = scalar(&iv)
		if err != nil {
			return bad(inv, "write value: %v", err)
		}
	case CAS:
		if !isPair(&iv) {
			return bad(inv, ":value of a cas must be [old new], not %s", iv.describe())
		}
		if o.Old, err = scalar(&iv.items[0]); err == nil {
			o.New, err = scalar(&iv.items[1])
		}
		if err != nil {
			return bad(inv, "cas value: %v", err)
		}
	}
	return nil
}

func isPair(v *val) bool { return v.kind == vVec && len(v.items) == 2 }

func scalar(v *val) (int64, error) {
	switch v.kind {
	case vNil:
		return Nil, nil
	case vInt:
		if v.i == Nil {
			return 0, fmt.Errorf("%d is reserved for nil", v.i)
		}
		return v.i, nil
	}
	return 0, fmt.Errorf("want an integer or nil, not %s", v.describe())
}

func keyString(v *val) (string, error) {
	switch v.kind {
	case vInt:
		return strconv.FormatInt(v.i, 10), nil
	case vString, vKeyword, vSymbol:
		return v.s, nil
	}
	return "", fmt.Errorf("a key must be an integer, string or keyword, not %s", v.describe())
}

// ReadJSONL reads the native form: one JSON event per line, blank lines
// ignored.
func ReadJSONL(data []byte, name string) ([]Op, error) {
	return readJSONL(bufio.NewReaderSize(bytes.NewReader(data), readChunk), name, 1, 0)
}

// readJSONL reads JSONL from br, whose first line is line number line at
// byte offset off.
func readJSONL(br *bufio.Reader, name string, line int, off int64) ([]Op, error) {
	lr := &lineReader{br: br, name: name, line: line - 1, off: off, max: MaxForm}
	return lr.readJSONL()
}

func (lr *lineReader) readJSONL() ([]Op, error) {
	name := lr.name
	var evs []event
	for {
		b, err := lr.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		line := lr.line
		b = bytes.TrimSpace(b)
		if len(b) == 0 {
			continue
		}
		d := json.NewDecoder(bytes.NewReader(b))
		d.UseNumber()
		var raw any
		if err := d.Decode(&raw); err != nil {
			return nil, &LineError{name, line, "bad JSON: " + err.Error()}
		}
		if d.More() {
			return nil, &LineError{name, line, "more than one JSON value on the line"}
		}
		v, err := fromJSON(raw, 0)
		if err != nil {
			return nil, &LineError{name, line, err.Error()}
		}
		if v.kind != vMap {
			return nil, &LineError{name, line, "an event must be a JSON object"}
		}
		e, skip, err := eventFromMap(v, line, name)
		if err != nil {
			return nil, err
		}
		if !skip {
			evs = append(evs, e)
		}
	}
	return assemble(evs, name)
}

// lineReader reads lines of at most max bytes.
type lineReader struct {
	br   *bufio.Reader
	name string
	line int   // the line last returned
	off  int64 // the input offset of the next line
	max  int
	long []byte // a line longer than br's buffer
}

// next returns the next line, valid until the following call, or io.EOF.
func (lr *lineReader) next() ([]byte, error) {
	lr.long = lr.long[:0]
	for {
		s, err := lr.br.ReadSlice('\n')
		n := len(lr.long) + len(s)
		if err == nil {
			n-- // the '\n'
		}
		if n > lr.max {
			return nil, &LineError{lr.name, lr.line + 1, fmt.Sprintf("a line longer than %d bytes, from byte %d on", lr.max, lr.off)}
		}
		if err == bufio.ErrBufferFull {
			lr.long = append(lr.long, s...)
			continue
		}
		if len(lr.long) > 0 {
			lr.long = append(lr.long, s...)
			s = lr.long
		}
		if err == io.EOF && len(s) == 0 {
			return nil, io.EOF
		}
		if err != nil && err != io.EOF {
			return nil, readError(lr.name, err)
		}
		lr.line++
		lr.off += int64(len(s))
		return bytes.TrimSuffix(s, []byte{'\n'}), nil
	}
}

// maxDepth bounds the nesting of JSON values, as the EDN reader bounds
// that of EDN values.
const maxDepth = edn.MaxDepth

func fromJSON(x any, depth int) (val, error) {
	if depth > maxDepth {
		return val{}, fmt.Errorf("nested deeper than %d", maxDepth)
	}
	switch x := x.(type) {
	case nil:
		return val{kind: vNil}, nil
	case bool:
		if x {
			return val{kind: vBool, i: 1}, nil
		}
		return val{kind: vBool}, nil
	case json.Number:
		i, err := strconv.ParseInt(string(x), 10, 64)
		if err != nil {
			return val{kind: vOther, s: string(x)}, nil
		}
		return val{kind: vInt, i: i}, nil
	case string:
		return val{kind: vString, s: x}, nil
	case []any:
		items := make([]val, len(x))
		for j := range x {
			v, err := fromJSON(x[j], depth+1)
			if err != nil {
				return val{}, err
			}
			items[j] = v
		}
		return val{kind: vVec, items: items}, nil
	case map[string]any:
		items := make([]val, 0, 2*len(x))
		for _, k := range slices.Sorted(maps.Keys(x)) { // errors in a fixed order
			v, err := fromJSON(x[k], depth+1)
			if err != nil {
				return val{}, err
			}
			items = append(items, val{kind: vString, s: k}, v)
		}
		return val{kind: vMap, items: items}, nil
	}
	return val{kind: vOther}, nil
}

// timelineEvent is an operation's invocation, or its completion (ret).
type timelineEvent struct {
	t   int64
	ret bool
	op  int
}

// timeline returns the invocations and completions of ops in time order;
// Info operations have no completion.
func timeline(ops []Op) []timelineEvent {
	evs := make([]timelineEvent, 0, 2*len(ops))
	for i := range ops {
		evs = append(evs, timelineEvent{ops[i].Call, false, i})
		if ops[i].Outcome != Info {
			evs = append(evs, timelineEvent{ops[i].Return, true, i})
		}
	}
	sortEvents(evs, func(e timelineEvent) (int64, bool) { return e.t, e.ret })
	return evs
}

// WriteJSONL writes ops as native JSONL events in time order: each
// operation's invocation and, unless it is Info, its completion (an Info
// operation is left pending, which readers take as :info).
func WriteJSONL(w io.Writer, ops []Op) error {
	evs := timeline(ops)
	bw := bufio.NewWriter(w)
	for _, e := range evs {
		o := &ops[e.op]
		typ, value := "invoke", ""
		switch o.Kind {
		case Read:
			value = "null"
			if e.ret {
				value = jsonValue(o.Value)
			}
		case Write:
			value = jsonValue(o.Value)
		case CAS:
			value = "[" + jsonValue(o.Old) + "," + jsonValue(o.New) + "]"
		}
		if e.ret {
			typ = o.Outcome.String()
		}
		key := ""
		if o.Key != "" {
			key = `"key":` + strconv.Quote(o.Key) + ","
		}
		fmt.Fprintf(bw, `{"process":%d,"type":%q,"f":%q,%s"value":%s,"time":%d}`+"\n", o.Process, typ, o.Kind.String(), key, value, e.t)
	}
	return bw.Flush()
}

// WriteEDN writes ops as a Jepsen history, one event map per line, in time
// order; keyed operations use the independent [key value] form.
func WriteEDN(w io.Writer, ops []Op) error {
	evs := timeline(ops)
	bw := bufio.NewWriter(w)
	for _, e := range evs {
		o := &ops[e.op]
		var value string
		switch o.Kind {
		case Read:
			value = "nil"
			if e.ret {
				value = ednValue(o.Value)
			}
		case Write:
			value = ednValue(o.Value)
		case CAS:
			value = "[" + ednValue(o.Old) + " " + ednValue(o.New) + "]"
		}
		if o.Key != "" {
			value = "[" + strconv.Quote(o.Key) + " " + value + "]"
		}
		typ := "invoke"
		if e.ret {
			typ = o.Outcome.String()
		}
		fmt.Fprintf(bw, "{:type :%s, :f :%s, :value %s, :time %d, :process %d}\n", typ, o.Kind, value, e.t, o.Process)
	}
	return bw.Flush()
}

func jsonValue(v int64) string {
	if v == Nil {
		return "null"
	}
	return strconv.FormatInt(v, 10)
}

func ednValue(v int64) string {
	if v == Nil {
		return "nil"
	}
	return strconv.FormatInt(v, 10)
}

// sortEvents sorts by time, invocations before completions at one instant
// (touching intervals stay concurrent when read back).
func sortEvents[E any](evs []E, key func(E) (int64, bool)) {
	slices.SortStableFunc(evs, func(a, b E) int {
		ta, ra := key(a)
		tb, rb := key(b)
		switch {
		case ta != tb:
			return cmp.Compare(ta, tb)
		case ra == rb:
			return 0
		case !ra:
			return -1
		}
		return 1
	})
}
