package format

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"time"

	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/internal/edn"
	"github.com/isocheck/isocheck/progress"
)

// Register operations: the reads, writes and compare-and-sets of Jepsen's
// register tests (knossos's cas-register, etcd's, elle-cli's), read from
// the same events as transactions (see jepsen_read.go):
//
//	{:type :invoke, :f :cas, :value [3 4], :time 9, :process 2}
//	{"type": "ok", "f": "read", "value": 3, "process": 1, "time": 12}
//
// and from native JSONL histories whose transactions each read, write, or
// read then write one key (what isocheck run --workload lwt records).

// RegisterKind is what a register operation does.
type RegisterKind uint8

const (
	// RegisterRead returns the register's value (:f :read).
	RegisterRead RegisterKind = iota
	// RegisterWrite sets it (:f :write).
	RegisterWrite
	// RegisterCAS sets it to New if it holds Old (:f :cas).
	RegisterCAS
)

func (k RegisterKind) String() string {
	switch k {
	case RegisterRead:
		return "read"
	case RegisterWrite:
		return "write"
	case RegisterCAS:
		return "cas"
	}
	return fmt.Sprintf("RegisterKind(%d)", uint8(k))
}

// Outcome is how an operation completed, as Jepsen says it.
type Outcome uint8

const (
	// OutcomeOK (:ok): the operation took effect.
	OutcomeOK Outcome = iota
	// OutcomeFail (:fail): the operation did not take effect. (Porcupine's
	// etcd tests read a failed compare-and-set as one that compared and
	// found another value; what to make of it is the checker's choice.)
	OutcomeFail
	// OutcomeInfo (:info, or no completion): it may or may not have taken
	// effect.
	OutcomeInfo
)

func (o Outcome) String() string {
	switch o {
	case OutcomeOK:
		return "ok"
	case OutcomeFail:
		return "fail"
	case OutcomeInfo:
		return "info"
	}
	return fmt.Sprintf("Outcome(%d)", uint8(o))
}

// RegisterNil is the value nil (a register nobody wrote) in a RegisterOp.
const RegisterNil int64 = math.MinInt64

const (
	// NoCall is the Call of an operation that has no invocation in the
	// history: it may have been invoked any time before it returned.
	NoCall int64 = math.MinInt64
	// NoReturn is the Return of an operation that did not complete :ok or
	// :fail.
	NoReturn int64 = math.MaxInt64
)

// RegisterOp is one operation on a register.
type RegisterOp struct {
	// Process is the operation's :process, or -1 when its events have
	// none.
	Process int64
	Kind    RegisterKind
	// Key names the register: from Jepsen's "independent" form
	// ([key value], for :cas [key [old new]]), or a "key" field; "" for
	// histories of a single register. Integers are their decimal form,
	// keywords their name without the colon.
	Key string
	// Value is the value read (an :ok read) or written; Old and New are a
	// compare-and-set's. RegisterNil stands for nil.
	Value, Old, New int64
	Outcome         Outcome
	// Call and Return are the times of the invocation and the completion
	// on one clock (see ReadRegisterOps): NoCall without an invocation,
	// NoReturn unless the outcome is OutcomeOK or OutcomeFail.
	Call, Return int64
	// Line and RetLine are the lines of the invocation and the
	// completion (0: none).
	Line, RetLine int
}

// ReadRegisterOps reads the register operations of a history in format f
// from r: EDN, ElleJSON, JSONL or Auto (detect; see Detect). name is the
// input's name for messages. It stops soon after ctx ends, as
// ReadFileContext does.
//
// In a Jepsen history (EDN, ElleJSON, or JSONL that holds Jepsen events)
// an operation is an :invoke of :f :read, :write or :cas paired with its
// process's next completion, as for transactions; events of processes
// that are not clients are skipped, operations of other functions (such
// as :txn) are counted in Info.OtherOps, completions without an
// invocation and events without :process are read as for transactions
// (Info.NoInvoke, Info.NoProcess). :value is the value written, [old new]
// for :cas, and on an :ok read's completion the value read; integers or
// nil. Real time is read from :time, else :index, as for transactions;
// where neither is on every event, from the position of the events in the
// input (as Knossos reads Jepsen histories).
//
// In a native JSONL history of transactions, each transaction must read
// one key ([r k v]: a read), write it ([w k v]: a write), or read then
// write it ([r k a] [w k b]: a compare-and-set of a to b that took
// effect); committed ones are OutcomeOK, unknown ones OutcomeInfo, aborted
// ones did not happen and are left out. A rolled-back one keeps its read,
// which the database served, as an OutcomeOK read; its write never took
// effect. Sessions are processes, and start
// and end the times, which every transaction must have (an unknown one
// needs no end).
func ReadRegisterOps(ctx context.Context, r io.Reader, name string, f Format) ([]RegisterOp, *Info, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	return readRegisterStream(ctx, r, name, f, inputSize(r))
}

// ReadRegisterOpsFile is ReadRegisterOps on the file at path, read as
// ReadFileContext reads it.
func ReadRegisterOpsFile(ctx context.Context, path string, f Format) ([]RegisterOp, *Info, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, stopError(path, 0, context.Cause(ctx))
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return nil, nil, fileError(path, "is a directory, which holds no register operations (they are read from Jepsen EDN, elle-cli JSON and native JSONL files)")
	}
	file, size, err := openInput(path, f)
	if err != nil {
		return nil, nil, err
	}
	defer file.Close()
	defer context.AfterFunc(ctx, func() { file.SetReadDeadline(time.Now()) })()
	return readRegisterStream(ctx, file, path, f, size)
}

func readRegisterStream(ctx context.Context, r io.Reader, name string, f Format, size int64) ([]RegisterOp, *Info, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, stopError(name, 0, context.Cause(ctx))
	}
	m := progress.Start(ctx, "parse", max(size, 0), "bytes")
	sr := newStopReader(m, r)
	ops, info, err := readRegisters(m, bufio.NewReaderSize(sr, bufSize(size)), name, f, size)
	if err != nil {
		return nil, nil, stopped(name, sr, err)
	}
	if err := m.Err(); err != nil {
		return nil, nil, stopError(name, sr.n, err)
	}
	return ops, info, nil
}

func readRegisters(m *progress.Meter, br *bufio.Reader, name string, f Format, size int64) ([]RegisterOp, *Info, error) {
	var lr *lineReader
	if f == Auto || f == JSONL {
		// JSONL may hold transactions or Jepsen events (isocheck lwt's
		// own JSON lines): tell them apart.
		asked := f
		g, l, err := detectStream(br, name)
		if err != nil {
			return nil, nil, err
		}
		if asked == Auto || g == ElleJSON || g == JSONL {
			f, lr = g, l
		}
	}
	switch f {
	case Empty:
		return nil, &Info{Format: Empty}, nil
	case EDN, ElleJSON:
		r := newJepsenReader(name)
		r.regs = &registerReader{}
		var err error
		if f == EDN {
			err = r.readEDN(m, br)
		} else {
			err = r.readElleJSON(m, br)
		}
		if err != nil {
			return nil, nil, err
		}
		ops, err := r.finishRegisters()
		if err != nil {
			return nil, nil, err
		}
		return ops, r.info(f), nil
	case JSONL:
		if lr == nil {
			lr = newLineReader(br, name)
		}
		h, err := readJSONL(m, lr, size)
		if err != nil {
			return nil, nil, err
		}
		ops, err := registersOf(h, name)
		if err != nil {
			return nil, nil, err
		}
		return ops, &Info{Format: JSONL}, nil
	case SQL:
		return nil, nil, errSQL(name, true)
	case Text, DBCop, Cobra:
		return nil, nil, fileError(name, "a %s history holds no register operations: they are read from Jepsen EDN, elle-cli JSON and native JSONL", f)
	}
	return nil, nil, fmt.Errorf("read %s: unknown format %q", name, f)
}

// registerReader collects the register operations of a Jepsen history
// and their times on each clock, until the clock is chosen.
type registerReader struct {
	ops []timedOp
}

// timedOp is an operation with its times on the three clocks, and the
// position of its first event.
type timedOp struct {
	RegisterOp
	callTime, callIndex, callPos int64
	retTime, retIndex, retPos    int64
	first                        int64
}

// add adds the operation f of invocation inv and completion comp (either
// may be nil, not both).
func (rr *registerReader) add(r *jepsenReader, f string, inv, comp *jepsenEvent) error {
	first := firstEvent(inv, comp)
	if len(rr.ops) == maxOps {
		return r.errorf(first.line, "too many operations (the limit is %d)", maxOps)
	}
	o := RegisterOp{Call: NoCall, Return: NoReturn, Outcome: OutcomeInfo, Process: -1}
	tm := timedOp{callTime: NoCall, callIndex: NoCall, callPos: NoCall,
		retTime: NoReturn, retIndex: NoReturn, retPos: NoReturn, first: first.pos}
	if !first.noProc {
		o.Process = first.process
	}
	switch f {
	case "read":
		o.Kind = RegisterRead
	case "write":
		o.Kind = RegisterWrite
	case "cas":
		o.Kind = RegisterCAS
	}
	if inv != nil {
		o.Line = inv.line
		r.clock(inv, inv.line)
		tm.callTime, tm.callIndex, tm.callPos = inv.time, inv.index, inv.pos
	}
	if comp != nil {
		o.RetLine = comp.line
		if o.Line == 0 {
			o.Line = comp.line
		}
		switch comp.typ {
		case evOK:
			o.Outcome = OutcomeOK
		case evFail:
			o.Outcome = OutcomeFail
		}
		if o.Outcome != OutcomeInfo {
			r.clock(comp, comp.line)
			r.backwards(inv, comp)
			tm.retTime, tm.retIndex, tm.retPos = comp.time, comp.index, comp.pos
		}
	}
	if err := decodeRegister(r, &o, inv, comp); err != nil {
		return err
	}
	tm.RegisterOp = o
	rr.ops = append(rr.ops, tm)
	return nil
}

// finishRegisters adds the operations never completed and sets the times
// of every operation on the clock chosen.
func (r *jepsenReader) finishRegisters() ([]RegisterOp, error) {
	if err := r.flush(); err != nil {
		return nil, err
	}
	timed := r.regs.ops
	if len(timed) == 0 && len(r.other) > 0 {
		return nil, r.errorf(r.otherLine, "no register operations (:read, :write, :cas) to check, only %s; isocheck check checks transactions (:txn)", r.otherText())
	}
	clk, err := r.chooseClock()
	if err != nil {
		return nil, err
	}
	// In the order of their first events.
	slices.SortFunc(timed, func(a, b timedOp) int { return cmp.Compare(a.first, b.first) })
	ops := make([]RegisterOp, len(timed))
	for i := range timed {
		t := &timed[i]
		ops[i] = t.RegisterOp
		call, ret := t.callPos, t.retPos
		switch clk {
		case timeClock:
			call, ret = t.callTime, t.retTime
		case indexClock:
			call, ret = t.callIndex, t.retIndex
		}
		if t.callPos != NoCall { // it was invoked
			ops[i].Call = call
		}
		if ops[i].Outcome != OutcomeInfo {
			ops[i].Return = ret
		}
	}
	return ops, nil
}

// decodeRegister fills o's key and values from its invocation and
// completion: the value written, [old new] of a compare-and-set, the
// value an :ok read returned; in Jepsen's independent form, [key value].
func decodeRegister(r *jepsenReader, o *RegisterOp, inv, comp *jepsenEvent) error {
	bad := func(e *jepsenEvent, format string, args ...any) error {
		return r.errorf(e.line, format, args...)
	}
	// The arguments come from the invocation, or the completion when
	// there is none (a read's is nil).
	arg := inv
	if arg == nil {
		arg = comp
	}
	iv := arg.value
	if inv == nil && o.Kind == RegisterRead {
		iv = nil
	}
	key := arg.key
	if key == nil && comp != nil {
		key = comp.key
	}
	independent := false
	switch o.Kind {
	case RegisterRead:
		_, ip := pairOf(iv)
		_, cp := pairOf(compValue(comp))
		independent = ip || (iv == nil && key == nil && cp)
	case RegisterWrite:
		_, independent = seqOf(iv)
	case RegisterCAS:
		if p, ok := pairOf(iv); ok {
			_, independent = seqOf(p[1])
		}
	}
	if independent {
		switch p, ok := pairOf(iv); {
		case ok:
			key, iv = p[0], p[1]
		case o.Kind == RegisterRead && iv == nil: // a read invoked with nil
			p, _ := pairOf(comp.value)
			key = p[0]
		default:
			return bad(arg, ":value of an independent %s must be [key value], not %s", o.Kind, describeValue(iv))
		}
	}
	if key != nil {
		k, err := registerKey(key)
		if err != nil {
			return bad(arg, "%v", err)
		}
		o.Key = k
	}
	var err error
	switch o.Kind {
	case RegisterRead:
		if comp == nil || o.Outcome != OutcomeOK {
			return nil
		}
		cv := comp.value
		if independent {
			p, ok := pairOf(cv)
			if !ok {
				return bad(comp, ":value of an independent read must be [key value], not %s", describeValue(cv))
			}
			if k, err := registerKey(p[0]); err != nil || k != o.Key {
				return bad(comp, "the read completes on key %s, invoked on %s", describeValue(p[0]), quote(o.Key))
			}
			cv = p[1]
		}
		if o.Value, err = registerValue(cv); err != nil {
			return bad(comp, "read value: %v", err)
		}
	case RegisterWrite:
		if o.Value, err = registerValue(iv); err != nil {
			return bad(arg, "write value: %v", err)
		}
	case RegisterCAS:
		p, ok := pairOf(iv)
		if !ok {
			return bad(arg, ":value of a cas must be [old new], not %s", describeValue(iv))
		}
		if o.Old, err = registerValue(p[0]); err == nil {
			o.New, err = registerValue(p[1])
		}
		if err != nil {
			return bad(arg, "cas value: %v", err)
		}
	}
	return nil
}

func compValue(comp *jepsenEvent) any {
	if comp == nil {
		return nil
	}
	return comp.value
}

// pairOf returns the elements of a vector or list of two.
func pairOf(x any) ([]any, bool) {
	s, ok := seqOf(x)
	return s, ok && len(s) == 2
}

// registerValue reads a register's value: an integer, or nil.
func registerValue(x any) (int64, error) {
	switch x := x.(type) {
	case nil:
		return RegisterNil, nil
	case int64:
		if x == RegisterNil {
			return 0, fmt.Errorf("%d is reserved for nil", x)
		}
		return x, nil
	case json.Number:
		if n, big, ok := jsonInt(x); ok && big == "" {
			return registerValue(n)
		}
	}
	return 0, fmt.Errorf("want an integer or nil, not %s", describeValue(x))
}

// registerKey reads a register's name: an integer, a string or a keyword
// (without its colon).
func registerKey(x any) (string, error) {
	switch x := x.(type) {
	case int64:
		return strconv.FormatInt(x, 10), nil
	case string:
		return x, nil
	case edn.Keyword:
		return string(x), nil
	case edn.Symbol:
		return string(x), nil
	case edn.BigInt:
		return string(x), nil
	case json.Number:
		if n, big, ok := jsonInt(x); ok {
			if big != "" {
				return big, nil
			}
			return strconv.FormatInt(n, 10), nil
		}
	}
	return "", fmt.Errorf("a key must be an integer, string or keyword, not %s", describeValue(x))
}

// registersOf reads the register operations of a native history of
// transactions (see ReadRegisterOps).
func registersOf(h *history.History, name string) ([]RegisterOp, error) {
	if h.Lists {
		return nil, fileError(name, "a history of lists holds no register operations")
	}
	procs := integerNames(h.SessionNames, len(h.Sessions))
	ops := make([]RegisterOp, 0, len(h.Txns))
	for i := range h.Txns {
		t := &h.Txns[i]
		tops := h.OpsOf(i)
		if t.Status == history.RolledBack && len(tops) > 0 && tops[0].Kind == history.Read {
			tops = tops[:1] // its read alone happened
		}
		if len(tops) == 0 || t.Status == history.Aborted || t.Status == history.RolledBack && tops[0].Kind == history.Write {
			continue // it did not happen, or did nothing
		}
		bad := func(format string, args ...any) error {
			return lineError(name, int(t.Pos), format, args...)
		}
		o := RegisterOp{Process: procs[t.Session], Key: h.FormatKey(tops[0].Key), Outcome: OutcomeOK,
			Call: t.Start, Return: t.End, Line: int(t.Pos), RetLine: int(t.Pos)}
		for _, op := range tops[1:] {
			if op.Key != tops[0].Key {
				return nil, bad("the transaction touches keys %s and %s: a register operation reads or writes one key", h.FormatKey(tops[0].Key), h.FormatKey(op.Key))
			}
		}
		value := func(v history.Value) (int64, error) {
			if v == history.Null || v == h.Init {
				return RegisterNil, nil
			}
			if v >= history.StringBase || v <= -history.StringBase {
				return 0, bad("the value %s is not an integer: registers hold integers", h.FormatValue(v))
			}
			return int64(v), nil
		}
		var err error
		switch {
		case len(tops) == 1 && tops[0].Kind == history.Read:
			o.Kind = RegisterRead
			o.Value, err = value(tops[0].Value)
		case len(tops) == 1:
			o.Kind = RegisterWrite
			o.Value, err = value(tops[0].Value)
		case len(tops) == 2 && tops[0].Kind == history.Read && tops[1].Kind == history.Write:
			o.Kind = RegisterCAS
			if o.Old, err = value(tops[0].Value); err == nil {
				o.New, err = value(tops[1].Value)
			}
		default:
			return nil, bad("a transaction of %d operations is not a register operation: want a read, a write, or a read then a write of one key", len(tops))
		}
		if err != nil {
			return nil, err
		}
		if t.Status == history.Unknown {
			o.Outcome, o.Return = OutcomeInfo, NoReturn
		}
		if o.Call == history.NoTime || o.Outcome == OutcomeOK && o.Return == history.NoTime {
			return nil, bad("the transaction has no start or end: linearizability needs the real time of every operation")
		}
		ops = append(ops, o)
	}
	return ops, nil
}
