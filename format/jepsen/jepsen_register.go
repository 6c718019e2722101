package jepsen

import (
	"bufio"
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	"github.com/isocheck/isocheck/format/internal/scan"
	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/internal/edn"
	"github.com/isocheck/isocheck/progress"
	"github.com/isocheck/isocheck/register"
)

// ReadRegisters reads the register operations of a Jepsen history
// in EDN, or in elle-cli's JSON if asJSON (see ReadRegisterOps).
func ReadRegisters(m *progress.Meter, br *bufio.Reader, name string, asJSON bool) ([]register.Op, Stats, error) {
	r := newJepsenReader(name)
	r.regs = &registerReader{}
	var err error
	if !asJSON {
		err = r.readEDN(m, br)
	} else {
		err = r.readElleJSON(m, br)
	}
	if err != nil {
		return nil, Stats{}, err
	}
	ops, err := r.finishRegisters()
	if err != nil {
		return nil, Stats{}, err
	}
	s := r.stats()
	s.Faults = r.faults
	return ops, s, nil
}

// registerReader collects the register operations of a Jepsen history
// and their times on each clock, until the clock is chosen.
type registerReader struct {
	ops []timedOp
}

// timedOp is an operation with its times on the three clocks, and the
// position of its first event.
type timedOp struct {
	register.Op
	callTime, callIndex, callPos int64
	retTime, retIndex, retPos    int64
	first                        int64
}

// add adds the operation f of invocation inv and completion comp (either
// may be nil, not both).
func (rr *registerReader) add(r *jepsenReader, f string, inv, comp *jepsenEvent) error {
	first := firstEvent(inv, comp)
	if len(rr.ops) == scan.MaxOps {
		return r.errorf(first.line, "too many operations (the limit is %d)", scan.MaxOps)
	}
	o := register.Op{Call: register.NoCall, Return: register.NoReturn, Outcome: register.Info, Process: -1}
	tm := timedOp{callTime: register.NoCall, callIndex: register.NoCall, callPos: register.NoCall,
		retTime: register.NoReturn, retIndex: register.NoReturn, retPos: register.NoReturn, first: first.pos}
	if !first.noProc {
		o.Process = first.process
	}
	switch f {
	case "read":
		o.Kind = register.Read
	case "write":
		o.Kind = register.Write
	case "cas":
		o.Kind = register.CAS
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
			o.Outcome = register.OK
		case evFail:
			o.Outcome = register.Fail
		}
		if o.Outcome != register.Info {
			r.clock(comp, comp.line)
			r.backwards(inv, comp)
			tm.retTime, tm.retIndex, tm.retPos = comp.time, comp.index, comp.pos
		}
	}
	if err := decodeRegister(r, &o, inv, comp); err != nil {
		return err
	}
	tm.Op = o
	rr.ops = append(rr.ops, tm)
	return nil
}

// finishRegisters adds the operations never completed and sets the times
// of every operation on the clock chosen.
func (r *jepsenReader) finishRegisters() ([]register.Op, error) {
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
	if clk != timeClock {
		// The operations' times are not :time: neither are the faults'.
		for i := range r.faults {
			r.faults[i].Time = history.NoTime
		}
	}
	// In the order of their first events.
	slices.SortFunc(timed, func(a, b timedOp) int { return cmp.Compare(a.first, b.first) })
	ops := make([]register.Op, len(timed))
	for i := range timed {
		t := &timed[i]
		ops[i] = t.Op
		call, ret := t.callPos, t.retPos
		switch clk {
		case timeClock:
			call, ret = t.callTime, t.retTime
		case indexClock:
			call, ret = t.callIndex, t.retIndex
		}
		if t.callPos != register.NoCall { // it was invoked
			ops[i].Call = call
		}
		if ops[i].Outcome != register.Info {
			ops[i].Return = ret
		}
	}
	return ops, nil
}

// decodeRegister fills o's key and values from its invocation and
// completion: the value written, [old new] of a compare-and-set, the
// value an :ok read returned; in Jepsen's independent form, [key value].
func decodeRegister(r *jepsenReader, o *register.Op, inv, comp *jepsenEvent) error {
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
	if inv == nil && o.Kind == register.Read {
		iv = nil
	}
	key := arg.key
	if key == nil && comp != nil {
		key = comp.key
	}
	independent := false
	switch o.Kind {
	case register.Read:
		_, ip := pairOf(iv)
		_, cp := pairOf(compValue(comp))
		independent = ip || (iv == nil && key == nil && cp)
	case register.Write:
		_, independent = seqOf(iv)
	case register.CAS:
		if p, ok := pairOf(iv); ok {
			_, independent = seqOf(p[1])
		}
	}
	if independent {
		switch p, ok := pairOf(iv); {
		case ok:
			key, iv = p[0], p[1]
		case o.Kind == register.Read && iv == nil: // a read invoked with nil
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
	case register.Read:
		if comp == nil || o.Outcome != register.OK {
			return nil
		}
		cv := comp.value
		if independent {
			p, ok := pairOf(cv)
			if !ok {
				return bad(comp, ":value of an independent read must be [key value], not %s", describeValue(cv))
			}
			if k, err := registerKey(p[0]); err != nil || k != o.Key {
				return bad(comp, "the read completes on key %s, invoked on %s", describeValue(p[0]), scan.Quote(o.Key))
			}
			cv = p[1]
		}
		if o.Value, err = registerValue(cv); err != nil {
			return bad(comp, "read value: %v", err)
		}
	case register.Write:
		if o.Value, err = registerValue(iv); err != nil {
			return bad(arg, "write value: %v", err)
		}
	case register.CAS:
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
		return register.Nil, nil
	case int64:
		if x == register.Nil {
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
