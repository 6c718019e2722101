package format

import (
	"bufio"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/internal/edn"
	"github.com/isocheck/isocheck/progress"
)

// Jepsen histories (EDN, Format EDN) and elle-cli's JSON form of them
// (ElleJSON) hold events: an :invoke of a transaction by a process, then
// that process's completion, :ok, :fail or :info.
//
//	{:type :invoke, :f :txn, :value [[:r :x nil] [:w :y 2]], :process 3, :time 12345, :index 7}
//	{"type": "ok", "f": "txn", "value": [["append", 3, 2], ["r", 3, [1, 2]]], "process": 0, "time": 9, "index": 8}
//
// The reader below turns them into transactions; both formats share it:
// only the syntax differs (ellejson.go reads JSON into the same events).

// evType is the :type of an event.
type evType uint8

const (
	evInvoke evType = iota
	evOK
	evFail
	evInfo
)

// jepsenEvent is one event of a client process, or of no process.
type jepsenEvent struct {
	line     int
	typ      evType
	process  int64
	noProc   bool   // the event has no :process
	f        string // the :f, "" when absent
	value    any    // the micro-ops: a vector or list of [f k v] vectors
	hasValue bool
	key      any // a "key" field (registers), nil when absent
	time     int64
	hasTime  bool
	index    int64
	hasIndex bool
	pos      int64 // the event's position among the events read
}

// mode is the workload of a Jepsen history, known from its first write,
// append or list read.
type mode uint8

const (
	modeUnknown  mode = iota
	modeRegister      // rw-register: [:r k v], [:w k v]
	modeList          // list-append: [:append k v], [:r k [v ...]]
)

// pendingInvoke is an invocation waiting for its completion.
type pendingInvoke struct {
	ev jepsenEvent
}

// jepsenReader builds a history from the events of a Jepsen history.
type jepsenReader struct {
	b        *history.Builder
	name     string
	pending  map[int64]*pendingInvoke
	free     []*pendingInvoke
	mode     mode
	modeLine int // where the mode was set
	skipped  int
	nops     int

	// npInv is the invocation without :process waiting for its
	// completion (the next event without :process), if any.
	npInv *jepsenEvent
	// npos counts the events read (their positions); noProcess the
	// events without :process, noInvoke the completions without an
	// invocation, other the operations of other functions than the
	// reader checks (by :f), txns the transactions added.
	npos      int64
	noProcess int
	noInvoke  int
	other     map[string]int
	otherLine int // the line of the first of them
	txns      int
	// regs, when not nil, makes the reader read register operations
	// instead of transactions (see ReadRegisterOps).
	regs *registerReader

	ops     []history.Op
	lists   [][]history.Value
	scratch []history.Value

	keys     map[edn.Keyword]history.Key
	intKeys  []history.Key // of the integers 0..maxKeyCache-1, or -1
	kwValues map[edn.Keyword]history.Value
	strKeys  map[string]history.Key

	// Real time: Start and End are set from :time; istart and iend keep
	// the :index of the same events, in case :time turns out to be
	// missing. allTime and allIndex say whether every invocation and
	// every :ok or :fail completion had one; noTime is the line of the
	// first without :time, withTime of the first with one.
	istart, iend     []int64
	allTime          bool
	allIndex         bool
	noTime, withTime int
	backTime         string // the first completion before its invocation, by :time
	backIndex        string // by :index

	// ids are the transactions' ids (:index) in order of addition while
	// they increase; idSet holds them all once one does not.
	ids     []int64
	idLines []int
	idSet   map[int64]int
}

func newJepsenReader(name string) *jepsenReader {
	return &jepsenReader{
		b:        history.NewBuilder(history.Null, name),
		name:     name,
		pending:  make(map[int64]*pendingInvoke),
		keys:     make(map[edn.Keyword]history.Key),
		kwValues: make(map[edn.Keyword]history.Value),
		strKeys:  make(map[string]history.Key),
		allTime:  true,
		allIndex: true,
	}
}

func (r *jepsenReader) errorf(line int, format string, args ...any) error {
	return lineError(r.name, line, format, args...)
}

// event takes the next event.
func (r *jepsenReader) event(ev *jepsenEvent) error {
	ev.pos = r.npos
	r.npos++
	if ev.noProc {
		return r.eventNoProcess(ev)
	}
	if ev.typ == evInvoke {
		if p, ok := r.pending[ev.process]; ok {
			return r.errorf(ev.line, "process %d invoked an operation before its invocation at line %d completed", ev.process, p.ev.line)
		}
		var p *pendingInvoke
		if n := len(r.free); n > 0 {
			p, r.free = r.free[n-1], r.free[:n-1]
		} else {
			p = new(pendingInvoke)
		}
		p.ev = *ev
		r.pending[ev.process] = p
		return nil
	}
	p, ok := r.pending[ev.process]
	if !ok {
		return r.complete(nil, ev) // a completion alone: no invocation known
	}
	delete(r.pending, ev.process)
	err := r.complete(&p.ev, ev)
	p.ev = jepsenEvent{}
	r.free = append(r.free, p)
	return err
}

// eventNoProcess takes an event without :process: an invocation pairs
// with the next event without :process if that is a completion; a
// completion without such an invocation stands alone.
func (r *jepsenReader) eventNoProcess(ev *jepsenEvent) error {
	r.noProcess++
	if ev.typ == evInvoke {
		if r.npInv != nil {
			return r.errorf(ev.line, "two invocations without :process (lines %d and %d) before a completion: which completion is whose cannot be told", r.npInv.line, ev.line)
		}
		inv := *ev
		r.npInv = &inv
		return nil
	}
	inv := r.npInv
	r.npInv = nil
	return r.complete(inv, ev)
}

// complete takes an operation: its invocation (nil when the history has
// none) and its completion (nil when it never completed).
func (r *jepsenReader) complete(inv, comp *jepsenEvent) error {
	f := ""
	if inv != nil {
		f = inv.f
	}
	if comp != nil && comp.f != "" {
		if f != "" && f != comp.f {
			return r.errorf(comp.line, "the completion's :f :%s does not match the invocation's :f :%s at line %d", cut(comp.f), cut(f), inv.line)
		}
		f = comp.f
	}
	if r.regs != nil {
		switch f {
		case "read", "write", "cas":
			if inv == nil {
				r.noInvoke++
			}
			return r.regs.add(r, f, inv, comp)
		case "":
			return r.errorf(firstEvent(inv, comp).line, "event without :f (want :read, :write or :cas)")
		}
	} else if f == "" || f == "txn" {
		r.txns++
		if inv == nil {
			r.noInvoke++
		}
		return r.txn(inv, comp)
	}
	if r.other == nil {
		r.other = make(map[string]int)
		r.otherLine = firstEvent(inv, comp).line
	}
	r.other[cut(f)]++ // a name as long as a line is no use in a message
	return nil
}

// txn adds the transaction of invocation inv (nil when the history has
// none) and its completion comp (nil when it never completed).
func (r *jepsenReader) txn(inv, comp *jepsenEvent) error {
	first, last := firstEvent(inv, comp), comp
	if last == nil {
		last = inv
	}
	t := history.Txn{Session: r.session(first, last), Start: history.NoTime, End: history.NoTime, Pos: int64(last.line)}
	// The ops: all of an :ok completion's; only the writes of a failed or
	// indeterminate one, whose reads returned nothing (those of the
	// completion when there is no invocation).
	value, vline, writesOnly := first.value, first.line, true
	t.Status = history.Unknown
	if comp != nil {
		switch comp.typ {
		case evOK:
			t.Status = history.Committed
			value, vline, writesOnly = comp.value, comp.line, false
			if !comp.hasValue {
				return r.errorf(comp.line, ":ok completion without :value")
			}
		case evFail:
			t.Status = history.Aborted
			if comp.hasValue && comp.value != nil {
				value, vline = comp.value, comp.line
			}
		}
	}
	if err := r.mops(value, vline, writesOnly); err != nil {
		return err
	}
	// Real time, from :time, and :index in case :time is missing. A
	// transaction without an invocation has no start: nothing precedes
	// it, nor does it precede anything (history.Txn.HasTime).
	ends := comp != nil && comp.typ != evInfo
	is, ie := int64(history.NoTime), int64(history.NoTime)
	if inv != nil {
		r.clock(inv, inv.line)
		if inv.hasTime {
			t.Start = inv.time
		}
		if inv.hasIndex {
			is = inv.index
		}
	}
	if ends {
		r.clock(comp, comp.line)
		if comp.hasTime {
			t.End = comp.time
		}
		if comp.hasIndex {
			ie = comp.index
		}
		r.backwards(inv, comp)
	}
	r.istart = append(r.istart, is)
	r.iend = append(r.iend, ie)
	// The id: the completion's :index, else the invocation's.
	id := last
	if !id.hasIndex {
		id = first
	}
	if id.hasIndex {
		if err := r.checkID(id.index, id.line); err != nil {
			return err
		}
		t.ID = strconv.FormatInt(id.index, 10)
	}
	if len(r.ops) > maxOps-r.nops {
		return r.errorf(last.line, "too many operations (the limit is %d)", maxOps)
	}
	r.nops += len(r.ops)
	if r.mode == modeList {
		r.b.AddListTxn(t, r.ops, r.lists)
	} else {
		r.b.AddTxn(t, r.ops)
	}
	return nil
}

// session returns the session of an operation whose first event is first
// and last last: its process, or a session of its own without one.
func (r *jepsenReader) session(first, last *jepsenEvent) int32 {
	if first.noProc {
		return r.b.Session("no-process-" + strconv.Itoa(last.line))
	}
	return r.b.IntSession(first.process)
}

// backwards notes the first completion whose :time or :index is before
// its invocation's.
func (r *jepsenReader) backwards(inv, comp *jepsenEvent) {
	if inv == nil {
		return
	}
	if inv.hasTime && comp.hasTime && comp.time < inv.time && r.backTime == "" {
		r.backTime = fmt.Sprintf("%s:%d: the completion's :time %d is before its invocation's :time %d at line %d", r.name, comp.line, comp.time, inv.time, inv.line)
	}
	if inv.hasIndex && comp.hasIndex && comp.index < inv.index && r.backIndex == "" {
		r.backIndex = fmt.Sprintf("%s:%d: the completion's :index %d is before its invocation's :index %d at line %d", r.name, comp.line, comp.index, inv.index, inv.line)
	}
}

// clock notes whether an event that gives a transaction's start or end has
// :time and :index.
func (r *jepsenReader) clock(ev *jepsenEvent, line int) {
	if ev.hasTime {
		if r.withTime == 0 {
			r.withTime = line
		}
	} else {
		r.allTime = false
		if r.noTime == 0 {
			r.noTime = line
		}
	}
	r.allIndex = r.allIndex && ev.hasIndex
}

// checkID checks that no other transaction has the id n.
func (r *jepsenReader) checkID(n int64, line int) error {
	if r.idSet == nil {
		if len(r.ids) == 0 || n > r.ids[len(r.ids)-1] {
			r.ids = append(r.ids, n)
			r.idLines = append(r.idLines, line)
			return nil
		}
		r.idSet = make(map[int64]int, len(r.ids))
		for i, id := range r.ids {
			r.idSet[id] = r.idLines[i]
		}
		r.ids, r.idLines = nil, nil
	}
	if other, ok := r.idSet[n]; ok {
		return r.errorf(line, "duplicate transaction id: :index %d is also the id of the transaction at line %d", n, other)
	}
	r.idSet[n] = line
	return nil
}

// grow makes room for about n transactions.
func (r *jepsenReader) grow(n int64) {
	if n <= 0 {
		return
	}
	n = min(n, 1<<24)
	r.istart = make([]int64, 0, n)
	r.iend = make([]int64, 0, n)
	r.ids = make([]int64, 0, n)
	r.idLines = make([]int, 0, n)
}

// flush adds the operations never completed, in the order of their
// invocations.
func (r *jepsenReader) flush() error {
	open := make([]*pendingInvoke, 0, len(r.pending)+1)
	for _, p := range r.pending {
		open = append(open, p)
	}
	if r.npInv != nil {
		open = append(open, &pendingInvoke{ev: *r.npInv})
		r.npInv = nil
	}
	slices.SortFunc(open, func(a, b *pendingInvoke) int { return cmp.Compare(a.ev.line, b.ev.line) })
	for _, p := range open {
		if err := r.complete(&p.ev, nil); err != nil {
			return err
		}
	}
	return nil
}

// realTime is the clock a history's real time is read from.
type realTime uint8

const (
	noClock    realTime = iota // neither :time nor :index on every event
	timeClock                  // :time
	indexClock                 // :index
)

// chooseClock picks the clock of real time: :time when every invocation
// and :ok or :fail completion has one and no completion's is before its
// invocation's; else :index on the same terms; else none, unless only
// some events have :time, an error.
func (r *jepsenReader) chooseClock() (realTime, error) {
	switch {
	case r.allTime:
		if r.backTime == "" {
			return timeClock, nil
		}
		if !r.allIndex || r.backIndex != "" {
			return 0, r.clockError(r.backTime, ", so :time is not a clock that real time can be read from")
		}
		return indexClock, nil
	case r.allIndex:
		if r.backIndex != "" {
			return 0, r.clockError(r.backIndex, "")
		}
		return indexClock, nil
	case r.withTime != 0:
		return 0, r.errorf(r.noTime, "event without :time, though others have one (line %d); real time needs :time on every invocation and :ok or :fail completion, or else :index on every one", r.withTime)
	}
	return noClock, nil
}

// finish adds the transactions never completed and returns the history.
func (r *jepsenReader) finish() (*history.History, error) {
	if err := r.flush(); err != nil {
		return nil, err
	}
	if r.txns == 0 && len(r.other) > 0 {
		return nil, r.errorf(r.otherLine, "no transactions (:f :txn) to check, only %s; isocheck lwt checks registers (:read, :write, :cas)", r.otherText())
	}
	h := r.b.History()
	clk, err := r.chooseClock()
	if err != nil {
		return nil, err
	}
	if clk == indexClock {
		r.useIndex(h)
	}
	return h, nil
}

// otherText describes the operations not read: "3 :read, 2 :cas".
func (r *jepsenReader) otherText() string {
	fs := slices.Sorted(maps.Keys(r.other))
	parts := make([]string, len(fs))
	for i, f := range fs {
		parts[i] = fmt.Sprintf("%d :%s", r.other[f], f)
	}
	return strings.Join(parts, ", ")
}

// firstEvent returns inv, or comp when inv is nil.
func firstEvent(inv, comp *jepsenEvent) *jepsenEvent {
	if inv != nil {
		return inv
	}
	return comp
}

// info describes what was read.
func (r *jepsenReader) info(f Format) *Info {
	info := &Info{Format: f, SkippedOps: r.skipped, NoProcess: r.noProcess, NoInvoke: r.noInvoke}
	if len(r.other) > 0 {
		info.OtherOps = maps.Clone(r.other)
	}
	return info
}

// clockError is the error of a clock that runs backwards.
func (r *jepsenReader) clockError(msg, why string) error {
	// msg is "name:line: text".
	rest := strings.TrimPrefix(msg, r.name+":")
	i := strings.IndexByte(rest, ':')
	line, _ := strconv.Atoi(rest[:i])
	return r.errorf(line, "%s%s", rest[i+2:], why)
}

// useIndex makes :index the clock of real time.
func (r *jepsenReader) useIndex(h *history.History) {
	for i := range h.Txns {
		h.Txns[i].Start, h.Txns[i].End = r.istart[i], r.iend[i]
	}
}

// mops reads the micro-ops of a transaction into r.ops and r.lists;
// writesOnly keeps only its writes and appends.
func (r *jepsenReader) mops(value any, line int, writesOnly bool) error {
	r.ops, r.lists, r.scratch = r.ops[:0], r.lists[:0], r.scratch[:0]
	mops, ok := seqOf(value)
	if !ok {
		if value == nil {
			if writesOnly {
				return nil // an :info or :fail without a value
			}
			return r.errorf(line, ":value of a completed transaction must be a vector of micro-ops, not nil")
		}
		return r.errorf(line, ":value must be a vector of micro-ops like [[:r :x nil] [:append :x 1]], not %s", describeValue(value))
	}
	// Where each list starts in scratch (lists point into it once it is
	// full, as it may move).
	type span struct{ op, from, to int }
	var spans [8]span
	sp := spans[:0]
	for i, m := range mops {
		mop, ok := seqOf(m)
		if !ok || len(mop) != 3 {
			return r.errorf(line, "micro-op %d: want [f key value] like [:r :x nil] or [:append :x 1], not %s", i, describeValue(m))
		}
		f, ok := name(mop[0])
		if !ok {
			return r.errorf(line, "micro-op %d: the function must be :r, :w or :append, not %s", i, describeValue(mop[0]))
		}
		var op history.Op
		switch f {
		case "r":
			op.Kind = history.Read
		case "w", "append":
			op.Kind = history.Write
		default:
			return r.errorf(line, "micro-op %d: unknown function %s (want :r, :w or :append)", i, quote(f))
		}
		if writesOnly && op.Kind == history.Read {
			continue
		}
		k, err := r.key(mop[1])
		if err != nil {
			return r.errorf(line, "micro-op %d: %v", i, err)
		}
		op.Key = k
		switch {
		case f == "w":
			if err := r.setMode(modeRegister, line); err != nil {
				return err
			}
		case f == "append":
			if err := r.setMode(modeList, line); err != nil {
				return err
			}
		}
		if op.Kind == history.Write {
			if mop[2] == nil {
				return r.errorf(line, "micro-op %d: writes nil", i)
			}
			v, err := r.value(mop[2])
			if err != nil {
				return r.errorf(line, "micro-op %d: %v", i, err)
			}
			op.Value = v
		} else if l, isInts := mop[2].([]int64); isInts {
			if err := r.setMode(modeList, line); err != nil {
				return err
			}
			from := len(r.scratch)
			for j, n := range l {
				if n >= maxNativeInt || n <= -maxNativeInt {
					v, err := r.value(n)
					if err != nil {
						return r.errorf(line, "micro-op %d: element %d of the list: %v", i, j, err)
					}
					r.scratch = append(r.scratch, v)
					continue
				}
				r.scratch = append(r.scratch, history.Value(n))
			}
			sp = append(sp, span{len(r.ops), from, len(r.scratch)})
		} else if l, isList := seqOf(mop[2]); isList {
			if err := r.setMode(modeList, line); err != nil {
				return err
			}
			from := len(r.scratch)
			for j, x := range l {
				v, err := r.value(x)
				if err != nil {
					return r.errorf(line, "micro-op %d: element %d of the list: %v", i, j, err)
				}
				r.scratch = append(r.scratch, v)
			}
			sp = append(sp, span{len(r.ops), from, len(r.scratch)})
		} else if mop[2] == nil {
			op.Value = history.Null
		} else {
			if err := r.setMode(modeRegister, line); err != nil {
				return err
			}
			v, err := r.value(mop[2])
			if err != nil {
				return r.errorf(line, "micro-op %d: %v", i, err)
			}
			op.Value = v
		}
		r.ops = append(r.ops, op)
	}
	if r.mode == modeList {
		for len(r.lists) < len(r.ops) {
			r.lists = append(r.lists, nil)
		}
		r.lists = r.lists[:len(r.ops)]
		clear(r.lists)
		for _, s := range sp {
			r.lists[s.op] = r.scratch[s.from:s.to]
		}
	}
	return nil
}

// setMode records the workload a micro-op shows.
func (r *jepsenReader) setMode(m mode, line int) error {
	if r.mode == m {
		return nil
	}
	if r.mode == modeUnknown {
		r.mode, r.modeLine = m, line
		return nil
	}
	was := "rw-register reads and writes"
	if r.mode == modeList {
		was = "list-append appends and list reads"
	}
	return r.errorf(line, "the history mixes rw-register micro-ops and list-append ones: line %d has %s", r.modeLine, was)
}

// maxKeyCache bounds the integer keys looked up in a slice.
const maxKeyCache = 1 << 20

// key interns a key: an integer, a keyword (named with its colon) or a
// string.
func (r *jepsenReader) key(x any) (history.Key, error) {
	switch x := x.(type) {
	case int64:
		// Small keys are looked up in a slice: a map costs more.
		if x >= 0 && x < maxKeyCache {
			if x >= int64(len(r.intKeys)) {
				n := len(r.intKeys)
				r.intKeys = append(r.intKeys, make([]history.Key, max(int(x)+1, 2*n)-n)...)
				for i := n; i < len(r.intKeys); i++ {
					r.intKeys[i] = -1
				}
			}
			if k := r.intKeys[x]; k >= 0 {
				return k, nil
			}
			k := r.b.IntKey(x)
			r.intKeys[x] = k
			return k, nil
		}
		return r.b.IntKey(x), nil
	case edn.Keyword:
		if k, ok := r.keys[x]; ok {
			return k, nil
		}
		k := r.b.Key(":" + string(x))
		r.keys[x] = k
		return k, nil
	case string:
		if k, ok := r.strKeys[x]; ok {
			return k, nil
		}
		k := r.b.Key(x)
		r.strKeys[x] = k
		return k, nil
	case edn.BigInt:
		return r.b.Key(string(x)), nil
	case json.Number:
		if n, big, ok := jsonInt(x); ok {
			if big != "" {
				return r.b.Key(big), nil
			}
			return r.b.IntKey(n), nil
		}
	}
	return 0, fmt.Errorf("a key must be an integer, a keyword or a string, not %s", describeValue(x))
}

// value interns a value: an integer, a keyword (named with its colon) or a
// string. Integers beyond ±(2^62-1) are named by their decimal form (see
// values.go).
func (r *jepsenReader) value(x any) (history.Value, error) {
	switch x := x.(type) {
	case int64:
		if x < maxNativeInt && x > -maxNativeInt {
			return history.Value(x), nil
		}
		return r.b.StringValue(strconv.FormatInt(x, 10)), nil
	case edn.Keyword:
		if v, ok := r.kwValues[x]; ok {
			return v, nil
		}
		v := r.b.StringValue(":" + string(x))
		r.kwValues[x] = v
		return v, nil
	case string:
		return r.b.StringValue(x), nil
	case edn.BigInt:
		return r.b.StringValue(string(x)), nil
	case json.Number:
		if n, big, ok := jsonInt(x); ok {
			if big != "" {
				return r.b.StringValue(big), nil
			}
			return r.value(n)
		}
	}
	return 0, fmt.Errorf("a value must be an integer, a keyword or a string, not %s", describeValue(x))
}

// jsonInt reads an integer of JSON: n, or big, the canonical decimal text
// of an integer beyond int64.
func jsonInt(x json.Number) (n int64, bigText string, ok bool) {
	if n, err := strconv.ParseInt(string(x), 10, 64); err == nil {
		return n, "", true
	}
	// JSON writes integers without leading zeros: beyond int64, the text
	// is the canonical decimal form already (math/big would take time
	// quadratic in its length to say so).
	s := strings.TrimPrefix(string(x), "-")
	if s == "" || s[0] == '0' {
		return 0, "", false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, "", false
		}
	}
	return 0, string(x), true
}

// seqOf returns the elements of a vector or list.
func seqOf(x any) ([]any, bool) { return edn.Seq(x) }

// name returns the name of a keyword or a string.
func name(x any) (string, bool) {
	switch x := x.(type) {
	case edn.Keyword:
		return string(x), true
	case string:
		return x, true
	}
	return "", false
}

// describeValue renders a value for a message, cut short when long.
func describeValue(x any) string {
	switch x := x.(type) {
	case nil:
		return "nil"
	case string:
		return quote(x)
	case edn.Keyword:
		return cut(x.String())
	case edn.Symbol:
		return cut(string(x))
	case edn.BigInt:
		return cut(string(x))
	case json.Number:
		return cut(string(x))
	case []int64:
		return fmt.Sprintf("a list of %d", len(x))
	case []any, edn.List:
		s, _ := seqOf(x)
		return fmt.Sprintf("a list of %d", len(s))
	case edn.Map, map[string]any:
		return "a map"
	case edn.Set:
		return "a set"
	case edn.Tagged:
		return "#" + cut(x.Tag) + " " + describeValue(x.Value)
	case edn.Char:
		return cut(fmt.Sprintf("\\%c", rune(x)))
	}
	return cut(fmt.Sprint(x))
}

// evTypeOf reads a :type.
func evTypeOf(x any) (evType, bool) {
	s, ok := name(x)
	if !ok {
		return 0, false
	}
	switch s {
	case "invoke":
		return evInvoke, true
	case "ok":
		return evOK, true
	case "fail":
		return evFail, true
	case "info":
		return evInfo, true
	}
	return 0, false
}

// fields fills ev from the fields of an event, given one at a time by
// name; it returns skip for the event of a process that is not a client.
type eventFields struct {
	ev                       jepsenEvent
	seenType, seenProc, skip bool
	f                        any
	seenF                    bool
}

func (e *eventFields) field(r *jepsenReader, key string, v any) error {
	ev := &e.ev
	switch key {
	case "type":
		t, ok := evTypeOf(v)
		if !ok {
			return r.errorf(ev.line, ":type must be :invoke, :ok, :fail or :info, not %s", describeValue(v))
		}
		ev.typ, e.seenType = t, true
	case "process":
		e.seenProc = true
		switch p := v.(type) {
		case int64:
			ev.process = p
		case json.Number:
			n, big, ok := jsonInt(p)
			if !ok || big != "" {
				e.skip = true
			}
			ev.process = n
		default:
			e.skip = true // :nemesis and other processes that are not clients
		}
	case "f":
		e.f, e.seenF = v, true
	case "value":
		ev.value, ev.hasValue = v, true
	case "key":
		ev.key = v
	case "time":
		n, ok := intOf(v)
		if !ok {
			return r.errorf(ev.line, ":time must be an integer, not %s", describeValue(v))
		}
		ev.time, ev.hasTime = n, true
	case "index":
		n, ok := intOf(v)
		if !ok {
			return r.errorf(ev.line, ":index must be an integer, not %s", describeValue(v))
		}
		ev.index, ev.hasIndex = n, true
	}
	return nil
}

// done checks the event and hands it to r.
func (e *eventFields) done(r *jepsenReader) error {
	ev := &e.ev
	if e.skip {
		r.skipped++
		return nil
	}
	ev.noProc = !e.seenProc
	if !e.seenType {
		return r.errorf(ev.line, "event without :type")
	}
	if e.seenF {
		f, ok := name(e.f)
		if !ok {
			return r.errorf(ev.line, ":f must be a keyword, not %s", describeValue(e.f))
		}
		ev.f = f
	}
	return r.event(ev)
}

func intOf(x any) (int64, bool) {
	switch x := x.(type) {
	case int64:
		return x, true
	case json.Number:
		n, big, ok := jsonInt(x)
		return n, ok && big == ""
	}
	return 0, false
}

// ednEvent reads an event from an EDN map (or a record of one).
func (r *jepsenReader) ednEvent(x any, line int) error {
	if t, ok := x.(edn.Tagged); ok {
		x = t.Value
	}
	m, ok := x.(edn.Map)
	if !ok {
		return r.errorf(line, "an event must be a map like {:type :invoke, :f :txn, :value [...], :process 0}, not %s", describeValue(x))
	}
	e := eventFields{ev: jepsenEvent{line: line}}
	for i := range m {
		k, ok := m[i].Key.(edn.Keyword)
		if !ok {
			continue
		}
		if err := e.field(r, string(k), m[i].Value); err != nil {
			return err
		}
	}
	return e.done(r)
}

// readEDN reads a Jepsen EDN history: event maps at top level, or in one
// vector or list.
func readEDN(m *progress.Meter, br *bufio.Reader, name string, size int64) (*history.History, *Info, error) {
	r := newJepsenReader(name)
	if size > 0 {
		r.b.Grow(int(size/300), int(size/80))
	}
	r.grow(size / 300)
	if err := r.readEDN(m, br); err != nil {
		return nil, nil, err
	}
	h, err := r.finish()
	if err != nil {
		return nil, nil, err
	}
	return h, r.info(EDN), nil
}

// readEDN reads the events of a Jepsen EDN history into r.
func (r *jepsenReader) readEDN(m *progress.Meter, br *bufio.Reader) error {
	// One goroutine decodes the events while this one builds the history
	// (the two take about as long), in batches.
	batches := make(chan *ednBatch, 4)
	free := make(chan *ednBatch, 6)
	done := make(chan struct{})
	go decodeEDN(edn.NewDecoder(br), batches, free, done)
	stop := func() {
		close(done)
		for range batches { // wait for the decoder to stop
		}
	}
	for b := range batches {
		for i := range b.vals {
			if err := r.ednEvent(b.vals[i], b.lines[i]); err != nil {
				stop()
				return err
			}
		}
		if b.err != nil {
			stop()
			if b.errLine > 0 {
				return r.errorf(b.errLine, "%s", b.err.Error())
			}
			return r.ednError(b.err)
		}
		clear(b.vals)
		b.vals, b.lines = b.vals[:0], b.lines[:0]
		select {
		case free <- b:
		default:
		}
	}
	return m.Err()
}

// ednBatch is a batch of events decoded, and the error that ended the
// input if any (at errLine when it is not the decoder's).
type ednBatch struct {
	vals    []any
	lines   []int
	err     error
	errLine int
}

// ednBatchSize is how many events a batch holds.
const ednBatchSize = 256

// decodeEDN decodes the events of a Jepsen EDN history (event maps at top
// level, or in one vector or list) and sends them in batches, until the
// end of the input, an error (sent in the last batch) or done.
func decodeEDN(d *edn.Decoder, batches chan<- *ednBatch, free chan *ednBatch, done <-chan struct{}) {
	defer close(batches)
	b := &ednBatch{}
	send := func() bool {
		select {
		case batches <- b:
		case <-done:
			return false
		}
		select {
		case b = <-free:
		default:
			b = &ednBatch{}
		}
		return true
	}
	fail := func(err error, line int) {
		b.err, b.errLine = err, line
		send()
	}
	inVec, err := d.OpenSeq()
	if err != nil && err != io.EOF {
		fail(err, 0)
		return
	}
	for {
		x, err := d.Decode()
		if err == io.EOF {
			break
		}
		if err != nil {
			fail(err, 0)
			return
		}
		b.vals = append(b.vals, x)
		b.lines = append(b.lines, d.Pos().Line)
		if len(b.vals) == ednBatchSize && !send() {
			return
		}
	}
	if inVec {
		if err := d.CloseSeq(); err != nil {
			fail(err, 0)
			return
		}
		if _, err := d.Decode(); err != io.EOF {
			if err != nil {
				fail(err, 0)
			} else {
				fail(errors.New("unexpected data after the history vector"), d.Pos().Line)
			}
			return
		}
	}
	if len(b.vals) > 0 {
		send()
	}
}

// ednError turns an error of the EDN reader into an *Error.
func (r *jepsenReader) ednError(err error) error {
	var se *edn.SyntaxError
	if errors.As(err, &se) {
		return r.errorf(se.Line, "%s", se.Msg)
	}
	if progress.Stopped(err) {
		return err
	}
	return &Error{File: r.name, Offset: -1, Msg: "read error: " + err.Error(), Err: err}
}

// Writing.

// jepsenWriter writes a history as Jepsen events.
type jepsenWriter struct {
	w     *bufio.Writer
	h     *history.History
	json  bool
	procs []int64 // the process of each session
	buf   []byte
}

// writeJepsen writes h as a Jepsen history, in EDN or in elle-cli's JSON.
//
// Each transaction is an invocation and its completion: :ok for committed
// transactions, :fail for aborted ones and :info for those of unknown
// status, written one after the other, transactions in the order of their
// indices (session order kept). Sessions named by integers are those
// processes; the others get the smallest integers no session is named by.
// :time is written where the transaction has a start or an end, but only
// when every transaction but those of unknown status has an end, and some
// a start: then a transaction without a start is written as its
// completion alone, and every invocation and :ok or :fail completion has
// a time, so that real time reads back as it was; a history without real
// time gets none (:index is written on completions
// only, so it does not become a clock). :index is the transaction's id
// when every id is a distinct non-negative integer, none when no
// transaction has an id, else its index.
//
// Reads of h.Init are written as reads of nil (the initial state of a
// Jepsen history), and writes of it are an error. Lists are written as
// [:append k v] and [:r k [v ...]].
func writeJepsen(w *bufio.Writer, h *history.History, asJSON bool) error {
	if len(h.Orders) > 0 {
		return fmt.Errorf("a Jepsen history cannot state version orders, and this one states %d", len(h.Orders))
	}
	jw := &jepsenWriter{w: w, h: h, json: asJSON}
	jw.procs = integerNames(h.SessionNames, len(h.Sessions))
	for i, op := range h.Ops {
		if op.Kind == history.Write && op.Value == h.Init {
			return fmt.Errorf("operation %d writes the initial value %s, which a Jepsen history cannot tell from nil", i, h.FormatValue(h.Init))
		}
	}
	// A transaction without a start but with times on the others (one
	// read from a completion alone) is written as its completion alone.
	withTime := false
	for i := range h.Txns {
		t := &h.Txns[i]
		if t.Status != history.Unknown && t.End == history.NoTime {
			withTime = false
			break
		}
		withTime = withTime || t.Start != history.NoTime
	}
	useIDs, noIDs := true, true
	for i := range h.Txns {
		noIDs = noIDs && h.Txns[i].ID == ""
	}
	seen := make(map[int64]bool, len(h.Txns))
	ids := make([]int64, len(h.Txns))
	for i := range h.Txns {
		n, err := strconv.ParseInt(h.Txns[i].ID, 10, 64)
		if err != nil || n < 0 || strconv.FormatInt(n, 10) != h.Txns[i].ID || seen[n] {
			useIDs = false
			break
		}
		seen[n] = true
		ids[i] = n
	}
	if asJSON {
		w.WriteString("[")
	}
	first := true
	for _, t := range txnOrder(h) {
		id := int64(t)
		if useIDs {
			id = ids[t]
		}
		for _, comp := range []bool{false, true} {
			if !comp && withTime && h.Txns[t].Start == history.NoTime {
				continue
			}
			if noIDs {
				id = -1
			}
			jw.buf = jw.event(jw.buf[:0], int(t), comp, withTime, id)
			if asJSON {
				if !first {
					w.WriteString(",\n ")
				}
				first = false
			} else {
				jw.buf = append(jw.buf, '\n')
			}
			if _, err := w.Write(jw.buf); err != nil {
				return err
			}
		}
	}
	if asJSON {
		w.WriteString("]\n")
	}
	return nil
}

// txnOrder returns the transactions of h by index, but each session's in
// session order.
func txnOrder(h *history.History) []int32 {
	out := make([]int32, 0, len(h.Txns))
	next := make([]int, len(h.Sessions))
	// A merge of the sessions by the index of their next transaction.
	type head struct {
		t int32
		s int
	}
	var heap []head
	less := func(a, b head) bool { return a.t < b.t }
	push := func(x head) {
		heap = append(heap, x)
		for i := len(heap) - 1; i > 0; {
			p := (i - 1) / 2
			if !less(heap[i], heap[p]) {
				break
			}
			heap[i], heap[p] = heap[p], heap[i]
			i = p
		}
	}
	pop := func() head {
		x := heap[0]
		n := len(heap) - 1
		heap[0] = heap[n]
		heap = heap[:n]
		for i := 0; ; {
			l, m := 2*i+1, i
			if l < n && less(heap[l], heap[m]) {
				m = l
			}
			if l+1 < n && less(heap[l+1], heap[m]) {
				m = l + 1
			}
			if m == i {
				break
			}
			heap[i], heap[m] = heap[m], heap[i]
			i = m
		}
		return x
	}
	for s, txns := range h.Sessions {
		if len(txns) > 0 {
			push(head{txns[0], s})
		}
	}
	for len(heap) > 0 {
		x := pop()
		out = append(out, x.t)
		next[x.s]++
		if txns := h.Sessions[x.s]; next[x.s] < len(txns) {
			push(head{txns[next[x.s]], x.s})
		}
	}
	return out
}

// integerNames gives each of n names an integer: its own when it is a
// canonical decimal int64 not taken, else the smallest non-negative one no
// name has.
func integerNames(names []string, n int) []int64 {
	out := make([]int64, n)
	used := make(map[int64]bool, n)
	var others []int
	for i := range n {
		name := ""
		if i < len(names) {
			name = names[i]
		}
		v, err := strconv.ParseInt(name, 10, 64)
		if err == nil && strconv.FormatInt(v, 10) == name && !used[v] {
			out[i] = v
			used[v] = true
		} else {
			others = append(others, i)
		}
	}
	next := int64(0)
	for _, i := range others {
		for used[next] {
			next++
		}
		out[i] = next
		used[next] = true
	}
	return out
}

// event appends the invocation (or the completion, if comp) of
// transaction t.
func (jw *jepsenWriter) event(b []byte, t int, comp, withTime bool, id int64) []byte {
	h := jw.h
	tx := &h.Txns[t]
	typ := "invoke"
	if comp {
		switch tx.Status {
		case history.Committed:
			typ = "ok"
		case history.Aborted:
			typ = "fail"
		default:
			typ = "info"
		}
	}
	if jw.json {
		b = append(b, `{"type": "`...)
		b = append(b, typ...)
		b = append(b, `", "f": "txn", "value": [`...)
	} else {
		b = append(b, "{:type :"...)
		b = append(b, typ...)
		b = append(b, ", :f :txn, :value ["...)
	}
	showReads := comp && tx.Status == history.Committed
	for i, op := range h.OpsOf(t) {
		if i > 0 {
			b = jw.sep(b)
		}
		b = append(b, '[')
		switch {
		case op.Kind == history.Read:
			b = jw.name(b, "r")
		case h.Lists:
			b = jw.name(b, "append")
		default:
			b = jw.name(b, "w")
		}
		b = jw.sep(b)
		b = jw.key(b, op.Key)
		b = jw.sep(b)
		switch {
		case op.Kind == history.Write:
			b = jw.value(b, op.Value)
		case !showReads:
			b = jw.null(b)
		case h.Lists:
			b = append(b, '[')
			for j, v := range h.ListOf(tx.OpStart + int32(i)) {
				if j > 0 {
					b = jw.sep(b)
				}
				b = jw.value(b, v)
			}
			b = append(b, ']')
		case op.Value == h.Init:
			b = jw.null(b)
		default:
			b = jw.value(b, op.Value)
		}
		b = append(b, ']')
	}
	b = append(b, ']')
	b = jw.field(b, "process", jw.procs[tx.Session])
	if withTime {
		if !comp {
			b = jw.field(b, "time", tx.Start)
		} else if tx.Status != history.Unknown {
			b = jw.field(b, "time", tx.End)
		}
	}
	if comp && id >= 0 {
		b = jw.field(b, "index", id)
	}
	return append(b, '}')
}

func (jw *jepsenWriter) sep(b []byte) []byte {
	if jw.json {
		return append(b, ", "...)
	}
	return append(b, ' ')
}

func (jw *jepsenWriter) null(b []byte) []byte {
	if jw.json {
		return append(b, "null"...)
	}
	return append(b, "nil"...)
}

// name appends a keyword, or a string in JSON.
func (jw *jepsenWriter) name(b []byte, s string) []byte {
	if jw.json {
		return appendJSONString(b, s)
	}
	return append(append(b, ':'), s...)
}

func (jw *jepsenWriter) field(b []byte, name string, n int64) []byte {
	if jw.json {
		b = append(b, `, "`...)
		b = append(b, name...)
		b = append(b, `": `...)
	} else {
		b = append(b, ", :"...)
		b = append(b, name...)
		b = append(b, ' ')
	}
	return strconv.AppendInt(b, n, 10)
}

// key appends a key: an integer when its name is one, a keyword when its
// name is one (in EDN), else a string.
func (jw *jepsenWriter) key(b []byte, k history.Key) []byte {
	return jw.text(b, jw.h.FormatKey(k), true)
}

// value appends a value: an integer, or the name of an interned one.
func (jw *jepsenWriter) value(b []byte, v history.Value) []byte {
	h := jw.h
	if v == history.Null || v == h.Init {
		return jw.null(b)
	}
	if v >= history.StringBase && int(v-history.StringBase) < len(h.ValueNames) {
		return jw.text(b, h.ValueNames[v-history.StringBase], false)
	}
	return strconv.AppendInt(b, int64(v), 10)
}

// text appends a name: as an integer when it is one (for values, only
// those beyond the native range, which read back as the same name), as a
// keyword in EDN when it is one, else as a string.
func (jw *jepsenWriter) text(b []byte, s string, isKey bool) []byte {
	if isCanonicalInt(s) {
		if isKey {
			return append(b, s...)
		}
		if n, err := strconv.ParseInt(s, 10, 64); err != nil || n >= maxNativeInt || n <= -maxNativeInt {
			return append(b, s...)
		}
	}
	if jw.json {
		return appendJSONString(b, s)
	}
	return edn.AppendName(b, s)
}

// isCanonicalInt reports whether s is an integer in canonical decimal
// form: -?[1-9][0-9]* or 0.
func isCanonicalInt(s string) bool {
	t := strings.TrimPrefix(s, "-")
	if t == "" || (t[0] == '0' && len(t) > 1) || (t == "0" && len(s) > 1) {
		return false
	}
	for i := 0; i < len(t); i++ {
		if t[i] < '0' || t[i] > '9' {
			return false
		}
	}
	return true
}
