package lwt

import (
	"encoding/json"
	"math"
	"strconv"

	"github.com/isocheck/isocheck/register"
	"github.com/isocheck/isocheck/verdict"
)

// Model is the Level of a Report: what Check decides.
const Model = "linearizability"

// Report is a Result in words for programs: its JSON encoding starts as
// every vertical's report does (level, satisfied, verdict, reason; see
// docs/json.md), and its evidence is the operation no order can place.
type Report struct {
	verdict.Report[Anomaly]
	// Registers counts the registers checked, Operations the operations
	// that took part (Result.Keys and Result.Ops).
	Registers  int `json:"registers"`
	Operations int `json:"operations"`
	// Searched counts the registers the exact search decided, or was
	// deciding when the check stopped.
	Searched int `json:"searched"`
}

// Anomaly is the evidence that a register's history is not linearizable.
type Anomaly struct {
	// Key is the register, "" for a history of one.
	Key string `json:"key,omitempty"`
	// Reason says why, in words, with times.
	Reason string `json:"reason"`
	// Operation cannot be placed in any order that fits real time and the
	// register; Related are the other operations the reason names.
	Operation OpInfo   `json:"operation"`
	Related   []OpInfo `json:"related,omitempty"`
	// Searched says the exact search, not the fast path, found it.
	Searched bool `json:"searched"`
}

// OpInfo is an operation of a report, as the history recorded it.
type OpInfo struct {
	// Index is the operation's index in the operations checked.
	Index int `json:"index"`
	// Process is the client that ran it, when known.
	Process *int `json:"process,omitempty"`
	// Kind is read, write or cas; Outcome ok, fail or info.
	Kind    string `json:"kind"`
	Outcome string `json:"outcome"`
	Key     string `json:"key,omitempty"`
	// Value is what a read returned or a write wrote; Old and New are a
	// cas's arguments. A register nobody wrote holds nil (JSON null).
	Value *Value `json:"value,omitempty"`
	Old   *Value `json:"old,omitempty"`
	New   *Value `json:"new,omitempty"`
	// Call and Return are its invocation and completion times; Call is
	// absent for an operation completed without an invocation, Return for
	// one that never completed (info).
	Call   *int64 `json:"call,omitempty"`
	Return *int64 `json:"return,omitempty"`
	// Line is where its invocation was read, RetLine its completion.
	Line    int `json:"line,omitempty"`
	RetLine int `json:"return_line,omitempty"`
}

// Value is a register's value in a report: an integer, or Nil, written
// as JSON null.
type Value int64

// MarshalJSON writes v as a number, or null for Nil.
func (v Value) MarshalJSON() ([]byte, error) {
	if int64(v) == Nil {
		return []byte("null"), nil
	}
	return strconv.AppendInt(nil, int64(v), 10), nil
}

// UnmarshalJSON reads a number, or null as Nil.
func (v *Value) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*v = Value(Nil)
		return nil
	}
	var n int64
	if err := json.Unmarshal(b, &n); err != nil {
		return err
	}
	*v = Value(n)
	return nil
}

// Explain puts res, the Result of checking ops, in a Report.
func Explain(res *Result, ops []Op) *Report {
	rep := &Report{Report: verdict.NewReport[Anomaly](Model, res.Outcome), Registers: res.Keys, Operations: res.Ops, Searched: res.Searched}
	if v := res.Violation; v != nil && res.Verdict == verdict.Violated {
		a := &Anomaly{Key: v.Key, Reason: v.Reason, Operation: opInfo(ops, v.Op), Searched: v.Searched}
		for _, j := range v.Related {
			a.Related = append(a.Related, opInfo(ops, j))
		}
		rep.Anomaly = a
	}
	return rep
}

// opInfo describes operation i of ops.
func opInfo(ops []Op, i int) OpInfo {
	o := &ops[i]
	info := OpInfo{Index: i, Kind: o.Kind.String(), Outcome: o.Outcome.String(), Key: o.Key, Line: o.Line, RetLine: o.RetLine}
	if o.Process >= 0 {
		p := o.Process
		info.Process = &p
	}
	value := func(v int64) *Value { x := Value(v); return &x }
	switch o.Kind {
	case register.Read:
		if o.Outcome == register.OK {
			info.Value = value(o.Value)
		}
	case register.Write:
		info.Value = value(o.Value)
	case register.CAS:
		info.Old, info.New = value(o.Old), value(o.New)
	}
	if o.Call != math.MinInt64 {
		call := o.Call
		info.Call = &call
	}
	if o.Outcome != register.Info {
		ret := o.Return
		info.Return = &ret
	}
	return info
}
