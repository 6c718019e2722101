package jepsen

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/isocheck/isocheck/format/internal/scan"
	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/internal/edn"
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
//
// Each :invoke pairs with its process's next completion. A transaction
// (:f :txn, or no :f) completed :ok committed with the completion's
// micro-ops; :fail aborted; :info, or no completion, has unknown status.
// Of aborted and unknown ones only the writes and appends are kept (from
// the :fail completion, else the invocation). Events of processes that are
// not integers (:nemesis) are skipped (Info.SkippedOps); operations of
// other functions are counted (Info.OtherOps). A completion without an
// invocation stands alone, without a start (Info.NoInvoke); events without
// :process pair with each other, each transaction a session of its own
// named "no-process-" and its line (Info.NoProcess). Real time is :time,
// else :index when every event has one, else none (chooseClock); a
// transaction's id is its completion's :index (else its invocation's), its
// position the line of its completion.

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
	b *history.Builder
	// faults are the nemesis's events; faultF their :f, faultInvoked
	// whether each may be an invocation whose completion follows.
	faults       []history.Fault
	faultF       []string
	faultInvoked []bool
	name         string
	pending      map[int64]*pendingInvoke
	free         []*pendingInvoke
	mode         mode
	modeLine     int // where the mode was set
	skipped      int
	nops         int

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
	return scan.LineError(r.name, line, format, args...)
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
			return r.errorf(comp.line, "the completion's :f :%s does not match the invocation's :f :%s at line %d", scan.Cut(comp.f), scan.Cut(f), inv.line)
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
	r.other[scan.Cut(f)]++ // a name as long as a line is no use in a message
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
	if len(r.ops) > scan.MaxOps-r.nops {
		return r.errorf(last.line, "too many operations (the limit is %d)", scan.MaxOps)
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

// addFault keeps an event of the nemesis as a fault: its :f and :value
// (cut short), at its :time. Jepsen logs each of the nemesis's
// operations twice, invoked and completed (both :info): the completion,
// whose value says what was done, takes the invocation's place.
func (r *jepsenReader) addFault(e *eventFields) {
	what, _ := name(e.f)
	if what == "" {
		what = "nemesis"
	}
	if e.ev.hasValue && e.ev.value != nil {
		what += " " + ednText(e.ev.value, maxFaultText)
	}
	f := history.Fault{Time: history.NoTime, What: what, Pos: int64(e.ev.line)}
	if e.ev.hasTime {
		f.Time = e.ev.time
	}
	fn, _ := name(e.f)
	if n := len(r.faults); n > 0 && fn != "" && r.faultF[n-1] == fn && r.faultInvoked[n-1] {
		f.Time = r.faults[n-1].Time
		r.faults[n-1], r.faultInvoked[n-1] = f, false
		return
	}
	r.faults = append(r.faults, f)
	r.faultF = append(r.faultF, fn)
	r.faultInvoked = append(r.faultInvoked, e.ev.typ == evInvoke || !e.ev.hasValue || e.ev.value == nil)
}

// maxFaultText bounds the text of a fault's value.
const maxFaultText = 200

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
	h.Faults = r.faults
	if clk != timeClock {
		// The transactions' times are not :time: neither are the faults'.
		for i := range h.Faults {
			h.Faults[i].Time = history.NoTime
		}
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

// Stats counts what a Jepsen reader skipped or inferred; the
// fields are those of the same name of Info.
type Stats struct {
	SkippedOps, NoProcess, NoInvoke int
	OtherOps                        map[string]int
	// Faults are the nemesis's events of a register history
	// (ReadRegisters), at their :time when the operations' times are
	// :time; a history of transactions has them as History.Faults.
	Faults []history.Fault
}

// stats describes what was read.
func (r *jepsenReader) stats() Stats {
	s := Stats{SkippedOps: r.skipped, NoProcess: r.noProcess, NoInvoke: r.noInvoke}
	if len(r.other) > 0 {
		s.OtherOps = maps.Clone(r.other)
	}
	return s
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
	// nemesis says the event is the nemesis's (:process :nemesis): kept
	// as a fault of the history.
	nemesis bool
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
			n, ok := name(v)
			e.nemesis = ok && n == "nemesis"
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
		if e.nemesis {
			r.addFault(e)
		}
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
