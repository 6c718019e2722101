package jsonl

import (
	"bufio"
	"fmt"
	"runtime"
	"slices"
	"strconv"

	"github.com/isocheck/isocheck/format/internal/scan"
	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/progress"
)

// The native JSONL format holds one transaction per line:
//
//	{"session": 0, "id": "t7", "status": "committed", "ops": [["r","x",null],["w","x",5]], "start": 120, "end": 135}
//
// session is required (an integer or a string: 1 and "1" are the same);
// id names the transaction (by default its line; "" and null: no id) and
// must be unique; status is committed (the default), aborted or unknown;
// ops is required, each ["r", key, value], ["w", key, value], or in a
// history of lists ["append", key, value] and ["r", key, [v1, ...]];
// start and end are optional times, end not before start. A line
// {"key": k, "order": [v1, ...]} states the version order of k instead
// (history.VersionOrder). Unknown fields are errors.
//
// The reader below is a hand-written scanner for exactly this shape: it is
// several times faster than encoding/json and allocates only for new names.

type jsonlReader struct {
	b    *history.Builder
	name string
	keys map[string]history.Key
	vals map[string]history.Value
	sess map[string]int32
	ops  []history.Op
	nops int
	sc   scan.Scanner
	// ids maps the transaction ids given in the input to their lines;
	// defaults lists, in increasing order, the lines of the transactions
	// without one, whose id is their line number.
	ids      map[string]int
	defaults []int

	// lists[i] is the list read by ops[i] (a list history's reads), as
	// bounds into listBuf; isList[i] says ops[i] read a list.
	lists       [][2]int
	listBuf     []history.Value
	listScratch [][]history.Value
	// The kind of history, from the first line that shows it: listLine is
	// the first line that appends or reads a list (listWhat says which),
	// regLine the first that writes with "w" or reads a single value.
	listLine, regLine int
	listWhat, regWhat string
	// Stated version orders: orderLines maps a key to the line of its
	// order; orderKey and orderVals hold the order of the line being read.
	orderLines   map[history.Key]int
	orders       []jsonlOrder
	orderKey     history.Key
	orderKeyName string
	// The fault of the line being read (see addFault).
	faultTime int64
	faultWhat string
	orderVals []history.Value
	line      int // the line being read
	// The integer keys of a transaction and their keys, for IntKeys.
	intKeys []int64
	keyBuf  []history.Key
}

// jsonlOrder is a stated version order and its line.
type jsonlOrder struct {
	line   int
	key    history.Key
	values []history.Value
}

// Read reads a JSONL history named name from br; size, when not -1, is
// the input's size in bytes, from which it estimates how much to
// allocate. line and offset count the lines and bytes of the input read
// before br (0 from its start), so that errors name the input's lines.
func Read(m *progress.Meter, br *bufio.Reader, name string, size int64, line int, offset int64) (*history.History, error) {
	return readJSONLWith(m, scan.NewLineReaderAt(br, name, line, offset), size, defaultParallel)
}

// readJSONLWith is Read reading in parallel as cfg says.
func readJSONLWith(m *progress.Meter, lr *scan.LineReader, size int64, cfg parallelConfig) (*history.History, error) {
	r := &jsonlReader{
		b:         history.NewBuilder(history.Null, lr.Name),
		name:      lr.Name,
		keys:      make(map[string]history.Key),
		vals:      make(map[string]history.Value),
		sess:      make(map[string]int32),
		ids:       make(map[string]int),
		faultTime: history.NoTime,
	}
	if size > 0 {
		// Typical lines spend ~16-20 bytes an operation and ~250 a
		// transaction: room for that costs about the input's size.
		r.b.Grow(int(size/256), int(size/16))
		// Up to a quarter of the operations may have keys of their own
		// (777k keys in 1.5M operations of uniform keys): room for them
		// saves growing the key names, a tenth of the reading (measured).
		r.b.GrowKeys(int(size / 64))
	}
	if size >= cfg.MinSize && !lr.Pending && (runtime.GOMAXPROCS(0) > 1 || cfg.Workers > 0) {
		if err := r.readParallel(lr, cfg); err != nil {
			return nil, err
		}
	} else {
		if err := scan.ScanLines(lr, r.parseLine); err != nil {
			return nil, err
		}
	}
	if err := m.Err(); err != nil {
		return nil, err
	}
	h := r.b.History()
	if err := r.checkOrders(h); err != nil {
		return nil, err
	}
	return h, nil
}

// checkOrders checks that the values of each stated order are written to
// its key.
func (r *jsonlReader) checkOrders(h *history.History) error {
	if len(r.orders) == 0 {
		return nil
	}
	type kv struct {
		k history.Key
		v history.Value
	}
	need := make(map[kv]bool)
	for _, o := range r.orders {
		for _, v := range o.values {
			need[kv{o.key, v}] = false
		}
	}
	for _, op := range h.Ops {
		if op.Kind != history.Write {
			continue
		}
		if _, ok := need[kv{op.Key, op.Value}]; ok {
			need[kv{op.Key, op.Value}] = true
		}
	}
	for _, o := range r.orders {
		for _, v := range o.values {
			if !need[kv{o.key, v}] {
				return scan.LineError(r.name, o.line, "the order of key %s names value %s, which no transaction writes to it", scan.Cut(h.FormatKey(o.key)), scan.Cut(h.FormatValue(v)))
			}
		}
	}
	return nil
}

// Field bits of a JSONL transaction.
const (
	fSession = 1 << iota
	fID
	fStatus
	fOps
	fStart
	fEnd
	fKey
	fOrder
	fNemesis
	fTime
)

// faultFields are the fields of a line of the nemesis.
const faultFields = fNemesis | fTime

// txnFields are the fields of a transaction line; an order line has fKey
// and fOrder only.
const txnFields = fSession | fID | fStatus | fOps | fStart | fEnd

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
	case "key":
		return fKey
	case "order":
		return fOrder
	case "nemesis":
		return fNemesis
	case "time":
		return fTime
	}
	return 0
}

// parseLine parses one transaction and adds it to the history.
func (r *jsonlReader) parseLine(line []byte, lineNo int) error {
	r.sc.S, r.sc.I = line, 0
	return scan.AtLine(r.name, lineNo, r.parseTxn(lineNo))
}

func (r *jsonlReader) parseTxn(lineNo int) error {
	p := &r.sc
	t := history.Txn{Status: history.Committed, Start: history.NoTime, End: history.NoTime, Pos: int64(lineNo)}
	idSet := false
	r.ops = r.ops[:0]
	r.lists = r.lists[:0]
	r.listBuf = r.listBuf[:0]
	r.line = lineNo
	p.Ws()
	if !p.Eat('{') {
		return p.Errorf("expected a JSON object {\"session\": ..., \"ops\": [...]}, got %s", p.Describe())
	}
	seen := 0
	p.Ws()
	if !p.Eat('}') {
		for {
			p.Ws()
			if p.Peek() != '"' {
				return p.Errorf("expected a field name, got %s", p.Describe())
			}
			nameCol := p.I + 1
			name, err := p.Str()
			if err != nil {
				return err
			}
			bit := fieldBit(name)
			if bit == 0 {
				return &scan.SyntaxError{Col: nameCol, Msg: fmt.Sprintf("unknown field %s (want session, id, status, ops, start or end; key and order in a version order; or nemesis and time in a fault)", scan.Snippet(name))}
			}
			if seen&bit != 0 {
				return &scan.SyntaxError{Col: nameCol, Msg: fmt.Sprintf("duplicate field %s", scan.Snippet(name))}
			}
			seen |= bit
			p.Ws()
			if !p.Eat(':') {
				return p.Errorf("expected ':' after field name, got %s", p.Describe())
			}
			p.Ws()
			if err := r.parseField(bit, &t, &idSet); err != nil {
				return err
			}
			p.Ws()
			if p.Eat(',') {
				continue
			}
			if p.Eat('}') {
				break
			}
			return p.Errorf("expected ',' or '}' after a field value, got %s", p.Describe())
		}
	}
	p.Ws()
	if p.I < len(p.S) {
		return p.Errorf("unexpected %s after the transaction object (one transaction per line)", p.Describe())
	}
	if seen&faultFields != 0 {
		return r.addFault(seen, lineNo)
	}
	if seen&(fKey|fOrder) != 0 {
		return r.addOrder(seen, lineNo)
	}
	if seen&fSession == 0 {
		return scan.LineError(r.name, lineNo, "missing field \"session\"")
	}
	if seen&fOps == 0 {
		return scan.LineError(r.name, lineNo, "missing field \"ops\"")
	}
	if t.Start != history.NoTime && t.End != history.NoTime && t.End < t.Start {
		return scan.LineError(r.name, lineNo, "end %d is before start %d", t.End, t.Start)
	}
	return r.addTxn(t, idSet, lineNo, true)
}

// addTxn adds transaction t of line lineNo, whose operations are r.ops,
// once its id is checked. In a history of lists, its operations' lists
// are those of r.lists when withLists is set, and none otherwise (a
// transaction that only reads null).
func (r *jsonlReader) addTxn(t history.Txn, idSet bool, lineNo int, withLists bool) error {
	if err := r.checkID(&t, idSet, lineNo); err != nil {
		return err
	}
	if len(r.ops) > scan.MaxOps-r.nops {
		return scan.LineError(r.name, lineNo, "too many operations (the limit is %d)", scan.MaxOps)
	}
	r.nops += len(r.ops)
	if r.listLine == 0 {
		r.b.AddTxn(t, r.ops)
		return nil
	}
	lists := r.listScratch[:0]
	if withLists {
		for _, l := range r.lists {
			lists = append(lists, r.listBuf[l[0]:l[1]])
		}
	} else {
		for range r.ops {
			lists = append(lists, nil)
		}
	}
	r.b.AddListTxn(t, r.ops, lists)
	clear(lists) // AddListTxn copied them
	r.listScratch = lists
	return nil
}

// addOrder adds the stated version order of the line, whose fields are
// seen.
// addFault adds the event of the nemesis of line lineNo, whose fields
// were r.fault's.
func (r *jsonlReader) addFault(seen, lineNo int) error {
	switch {
	case seen&^faultFields != 0:
		return scan.LineError(r.name, lineNo, "a line with \"nemesis\" is a fault and holds only \"nemesis\" and \"time\", not a transaction's fields")
	case seen&fNemesis == 0:
		return scan.LineError(r.name, lineNo, "missing field \"nemesis\" (a line with \"time\" alone is a fault)")
	}
	r.b.AddFault(history.Fault{Time: r.faultTime, What: r.faultWhat, Pos: int64(lineNo)})
	r.faultTime, r.faultWhat = history.NoTime, ""
	return nil
}

func (r *jsonlReader) addOrder(seen, lineNo int) error {
	switch {
	case seen&txnFields != 0:
		return scan.LineError(r.name, lineNo, "a line with \"key\" or \"order\" states a version order and holds only those two fields, not a transaction's")
	case seen&fOrder == 0:
		return scan.LineError(r.name, lineNo, "missing field \"order\" (a line with \"key\" states a version order)")
	case seen&fKey == 0:
		return scan.LineError(r.name, lineNo, "missing field \"key\" of the version order")
	}
	if r.orderLines == nil {
		r.orderLines = make(map[history.Key]int)
	}
	if other, ok := r.orderLines[r.orderKey]; ok {
		return scan.LineError(r.name, lineNo, "a second version order of key %s: the first is at %s:%d", r.orderKeyName, r.name, other)
	}
	r.orderLines[r.orderKey] = lineNo
	r.b.AddOrder(r.orderKey, r.orderVals)
	r.orders = append(r.orders, jsonlOrder{line: lineNo, key: r.orderKey, values: slices.Clone(r.orderVals)})
	return nil
}

// checkID gives t its default id (its line) if it has none, and checks
// that no other transaction has its id. An empty id means none, as it does
// in History.Name; transactions without an id are exempt.
func (r *jsonlReader) checkID(t *history.Txn, idSet bool, lineNo int) error {
	if !idSet {
		t.ID = strconv.Itoa(lineNo)
		if other, ok := r.ids[t.ID]; ok {
			return scan.LineError(r.name, lineNo, "transaction id %s (by default, the line number) is also the id of the transaction at %s:%d", scan.Quote(t.ID), r.name, other)
		}
		r.defaults = append(r.defaults, lineNo)
		return nil
	}
	if t.ID == "" {
		return nil
	}
	if other, ok := r.ids[t.ID]; ok {
		return scan.LineError(r.name, lineNo, "duplicate transaction id %s: the transaction at %s:%d has it too", scan.Quote(t.ID), r.name, other)
	}
	if n, ok := scan.CanonicalNonNeg(t.ID); ok && n < int64(lineNo) {
		if _, found := slices.BinarySearch(r.defaults, int(n)); found {
			return scan.LineError(r.name, lineNo, "transaction id %s is also the id (by default, the line number) of the transaction at %s:%d", scan.Quote(t.ID), r.name, n)
		}
	}
	r.ids[t.ID] = lineNo
	return nil
}

func (r *jsonlReader) parseField(bit int, t *history.Txn, idSet *bool) error {
	p := &r.sc
	col := p.I + 1
	switch bit {
	case fSession:
		kind, s, n, err := p.Scalar()
		if err != nil {
			return err
		}
		switch kind {
		case scan.TokInt:
			t.Session = r.b.IntSession(n)
		case scan.TokString, scan.TokBigInt:
			sess, ok := r.sess[string(s)]
			if !ok {
				sess = r.b.Session(string(s))
				r.sess[string(s)] = sess
			}
			t.Session = sess
		default:
			return &scan.SyntaxError{Col: col, Msg: "\"session\" must be an integer or a string, got " + kind.String()}
		}
	case fID:
		kind, s, n, err := p.Scalar()
		if err != nil {
			return err
		}
		switch kind {
		case scan.TokInt:
			t.ID, *idSet = strconv.FormatInt(n, 10), true
		case scan.TokString, scan.TokBigInt:
			t.ID, *idSet = string(s), true
		case scan.TokNull:
		default:
			return &scan.SyntaxError{Col: col, Msg: "\"id\" must be a string or an integer, got " + kind.String()}
		}
	case fStatus:
		kind, s, _, err := p.Scalar()
		if err != nil {
			return err
		}
		if kind != scan.TokString {
			return &scan.SyntaxError{Col: col, Msg: "\"status\" must be a string, got " + kind.String()}
		}
		st, ok := history.ParseStatus(string(s))
		if !ok {
			return &scan.SyntaxError{Col: col, Msg: fmt.Sprintf("unknown status %s (want %s)", scan.Snippet(s), history.StatusNames())}
		}
		t.Status = st
	case fStart:
		return r.parseTime("start", col, &t.Start)
	case fEnd:
		return r.parseTime("end", col, &t.End)
	case fOps:
		return r.parseOps()
	case fKey:
		k, err := r.parseKey(jsonlPlace{kind: placeOrderKey})
		if err != nil {
			return err
		}
		r.orderKey, r.orderKeyName = k, scan.Cut(string(p.S[col-1:p.I]))
	case fOrder:
		return r.parseOrder()
	case fNemesis:
		kind, s, _, err := p.Scalar()
		if err != nil {
			return err
		}
		if kind != scan.TokString || len(s) == 0 {
			return &scan.SyntaxError{Col: col, Msg: "\"nemesis\" must be a string that says what the nemesis did, got " + kind.String()}
		}
		r.faultWhat = string(s)
	case fTime:
		return r.parseTime("time", col, &r.faultTime)
	}
	return nil
}

// parseTime parses the value of field, at column col, into *at: an
// integer, or null for none (history.NoTime).
func (r *jsonlReader) parseTime(field string, col int, at *int64) error {
	kind, s, n, err := r.sc.Scalar()
	if err != nil {
		return err
	}
	switch kind {
	case scan.TokInt:
		if n == history.NoTime {
			return &scan.SyntaxError{Col: col, Msg: fmt.Sprintf("%q %d out of range", field, n)}
		}
		*at = n
	case scan.TokNull:
	case scan.TokBigInt:
		return &scan.SyntaxError{Col: col, Msg: fmt.Sprintf("%q %s out of range (the largest is 2^63-1)", field, scan.Cut(string(s)))}
	default:
		return &scan.SyntaxError{Col: col, Msg: fmt.Sprintf("%q must be an integer, got %s", field, kind)}
	}
	return nil
}

// parseOrder parses the values of a stated version order.
func (r *jsonlReader) parseOrder() error {
	p := &r.sc
	r.orderVals = r.orderVals[:0]
	if !p.Eat('[') {
		return p.Errorf("\"order\" must be an array of the values written to the key, in the order they were installed, got %s", p.Describe())
	}
	p.Ws()
	if p.Eat(']') {
		return nil
	}
	seen := make(map[history.Value]int)
	for i := 0; ; i++ {
		p.Ws()
		col := p.I + 1
		v, err := r.parseElement(jsonlPlace{kind: placeOrder, i: i})
		if err != nil {
			return err
		}
		if j, dup := seen[v]; dup {
			return &scan.SyntaxError{Col: col, Msg: fmt.Sprintf("order[%d] repeats order[%d], %s: a value is installed once", i, j, scan.Cut(string(p.S[col-1:p.I])))}
		}
		seen[v] = i
		r.orderVals = append(r.orderVals, v)
		p.Ws()
		if p.Eat(',') {
			continue
		}
		if p.Eat(']') {
			return nil
		}
		return p.Errorf("expected ',' or ']' after order[%d], got %s", i, p.Describe())
	}
}

func (r *jsonlReader) parseOps() error {
	p := &r.sc
	if !p.Eat('[') {
		return p.Errorf("\"ops\" must be an array of [kind, key, value] operations, got %s", p.Describe())
	}
	p.Ws()
	if p.Eat(']') {
		return nil
	}
	for i := 0; ; i++ {
		p.Ws()
		if err := r.parseOp(i); err != nil {
			return err
		}
		p.Ws()
		if p.Eat(',') {
			continue
		}
		if p.Eat(']') {
			return nil
		}
		return p.Errorf("expected ',' or ']' after ops[%d], got %s", i, p.Describe())
	}
}

func (r *jsonlReader) parseOp(i int) error {
	p := &r.sc
	if !p.Eat('[') {
		return p.Errorf("ops[%d] must be an array [kind, key, value], got %s", i, p.Describe())
	}
	var op history.Op
	// Kind.
	p.Ws()
	col := p.I + 1
	if p.Peek() == ']' {
		return p.Errorf("ops[%d] is empty: want [kind, key, value]", i)
	}
	kind, s, _, err := p.Scalar()
	if err != nil {
		return err
	}
	isAppend := false
	switch {
	case kind == scan.TokString && string(s) == "r":
		op.Kind = history.Read
	case kind == scan.TokString && string(s) == "w":
		op.Kind = history.Write
		if err := r.register(col, i, "writes with \"w\""); err != nil {
			return err
		}
	case kind == scan.TokString && string(s) == "append":
		op.Kind, isAppend = history.Write, true
		if err := r.list(col, i, "appends"); err != nil {
			return err
		}
	case kind == scan.TokString:
		return &scan.SyntaxError{Col: col, Msg: fmt.Sprintf("ops[%d]: unknown operation %s (want \"r\", \"w\" or \"append\")", i, scan.Snippet(s))}
	default:
		return &scan.SyntaxError{Col: col, Msg: fmt.Sprintf("ops[%d]: operation must be \"r\", \"w\" or \"append\", got %s", i, kind)}
	}
	if err := r.opSep(i, 1); err != nil {
		return err
	}
	// Key.
	if op.Key, err = r.parseKey(jsonlPlace{kind: placeKey, i: i}); err != nil {
		return err
	}
	if err := r.opSep(i, 2); err != nil {
		return err
	}
	// Value.
	col = p.I + 1
	list := [2]int{len(r.listBuf), len(r.listBuf)}
	switch c := p.Peek(); {
	case c == 'n' && p.Literal("null"):
		if op.Kind == history.Write {
			return &scan.SyntaxError{Col: col, Msg: fmt.Sprintf("ops[%d]: a write cannot write null", i)}
		}
		op.Value = history.Null
	case c == '[':
		if op.Kind == history.Write {
			what := "a write"
			if isAppend {
				what = "an append"
			}
			return &scan.SyntaxError{Col: col, Msg: fmt.Sprintf("ops[%d]: %s writes one value, not an array", i, what)}
		}
		if err := r.list(col, i, "reads a list"); err != nil {
			return err
		}
		if err := r.parseList(i); err != nil {
			return err
		}
		list[1] = len(r.listBuf)
		op.Value = history.Null // set by AddListTxn
	default:
		v, err := r.parseElement(jsonlPlace{kind: placeValue, i: i})
		if err != nil {
			return err
		}
		if op.Kind == history.Read {
			if err := r.register(col, i, "reads a single value"); err != nil {
				return err
			}
		}
		op.Value = v
	}
	p.Ws()
	if p.Eat(']') {
		r.ops = append(r.ops, op)
		r.lists = append(r.lists, list)
		return nil
	}
	if p.Peek() == ',' {
		return p.Errorf("ops[%d] has more than 3 elements: want [kind, key, value]", i)
	}
	return p.Errorf("expected ']' after ops[%d], got %s", i, p.Describe())
}

// list notes that op i, at column col, shows a history of lists: it does
// what (appends, or reads a list). It is an error in a history of
// registers.
func (r *jsonlReader) list(col, i int, what string) error {
	if r.regLine != 0 {
		return &scan.SyntaxError{Col: col, Msg: fmt.Sprintf("ops[%d] %s, but line %d %s: a history holds either lists (\"append\", reads of arrays) or registers (\"w\", reads of single values)", i, what, r.regLine, r.regWhat)}
	}
	if r.listLine == 0 {
		r.listLine, r.listWhat = r.line, what
	}
	return nil
}

// register is list for operations of a history of registers.
func (r *jsonlReader) register(col, i int, what string) error {
	if r.listLine != 0 {
		return &scan.SyntaxError{Col: col, Msg: fmt.Sprintf("ops[%d] %s, but line %d %s: a history holds either lists (\"append\", reads of arrays) or registers (\"w\", reads of single values)", i, what, r.listLine, r.listWhat)}
	}
	if r.regLine == 0 {
		r.regLine, r.regWhat = r.line, what
	}
	return nil
}

// parseList parses the list read by op i onto r.listBuf.
func (r *jsonlReader) parseList(i int) error {
	p := &r.sc
	p.Eat('[')
	p.Ws()
	if p.Eat(']') {
		return nil
	}
	for j := 0; ; j++ {
		p.Ws()
		v, err := r.parseElement(jsonlPlace{kind: placeElement, i: i, j: j})
		if err != nil {
			return err
		}
		r.listBuf = append(r.listBuf, v)
		p.Ws()
		if p.Eat(',') {
			continue
		}
		if p.Eat(']') {
			return nil
		}
		return p.Errorf("expected ',' or ']' after element %d of the list of ops[%d], got %s", j, i, p.Describe())
	}
}

// jsonlPlace names a key or value in messages, formatted only when one needs
// it (formatting it for every operation would cost more than parsing).
type jsonlPlace struct {
	kind uint8
	i, j int
}

// Kinds of jsonlPlace.
const (
	placeKey      = iota // the key of ops[i]
	placeValue           // the value of ops[i]
	placeElement         // element j of the list read by ops[i]
	placeOrderKey        // the key of a version order
	placeOrder           // order[i] of a version order
)

func (p jsonlPlace) String() string {
	switch p.kind {
	case placeKey:
		return fmt.Sprintf("ops[%d]: key", p.i)
	case placeValue:
		return fmt.Sprintf("ops[%d]: value", p.i)
	case placeElement:
		return fmt.Sprintf("ops[%d]: element %d of the list", p.i, p.j)
	case placeOrderKey:
		return `"key"`
	}
	return fmt.Sprintf("order[%d]", p.i)
}

// parseKey parses a key; what names it in messages.
func (r *jsonlReader) parseKey(what jsonlPlace) (history.Key, error) {
	p := &r.sc
	col := p.I + 1
	kind, s, n, err := p.Scalar()
	if err != nil {
		return 0, err
	}
	switch kind {
	case scan.TokInt:
		return r.b.IntKey(n), nil
	case scan.TokString, scan.TokBigInt:
		k, ok := r.keys[string(s)]
		if !ok {
			k = r.b.Key(string(s))
			r.keys[string(s)] = k
		}
		return k, nil
	}
	return 0, &scan.SyntaxError{Col: col, Msg: fmt.Sprintf("%s must be a string or an integer, got %s", what, kind)}
}

// parseElement parses a value written: an integer or a string (not null);
// what names it in messages.
func (r *jsonlReader) parseElement(what jsonlPlace) (history.Value, error) {
	p := &r.sc
	col := p.I + 1
	kind, s, n, err := p.Scalar()
	if err != nil {
		return 0, err
	}
	switch kind {
	case scan.TokInt:
		if n < scan.MaxNativeInt && n > -scan.MaxNativeInt {
			return history.Value(n), nil
		}
		// Named by its decimal form, as the text and binary readers do.
		s = strconv.AppendInt(p.Buf[:0], n, 10)
		p.Buf = s
		fallthrough
	case scan.TokString, scan.TokBigInt:
		v, ok := r.vals[string(s)]
		if !ok {
			v = r.b.StringValue(string(s))
			r.vals[string(s)] = v
		}
		return v, nil
	case scan.TokNull:
		return 0, &scan.SyntaxError{Col: col, Msg: fmt.Sprintf("%s cannot be null: null is no write's value", what)}
	}
	return 0, &scan.SyntaxError{Col: col, Msg: fmt.Sprintf("%s must be an integer, a string or null, got %s", what, kind)}
}

// opSep consumes the ',' after element n of op i.
func (r *jsonlReader) opSep(i, n int) error {
	p := &r.sc
	p.Ws()
	if p.Eat(',') {
		p.Ws()
		return nil
	}
	if p.Peek() == ']' {
		return p.Errorf("ops[%d] has %d element%s: want [kind, key, value]", i, n, plural(n))
	}
	return p.Errorf("expected ',' in ops[%d], got %s", i, p.Describe())
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
