// Package register is the model of compare-and-set registers: the reads,
// writes and compare-and-sets of Jepsen's register tests (knossos's
// cas-register, etcd's, elle-cli's), how each completed, and when. Its one
// job is to name these operations; package format reads them from
// histories, and package lwt checks them for linearizability.
//
// A Jepsen history gives them as events, one an invocation and one a
// completion:
//
//	{:type :invoke, :f :cas, :value [3 4], :time 9, :process 2}
//	{"type": "ok", "f": "read", "value": 3, "process": 1, "time": 12}
//
// and so do native JSONL histories whose transactions each read, write, or
// read then write one key (what isocheck run --workload lwt records).
package register

import (
	"fmt"
	"math"
)

// Kind is what a register operation does.
type Kind uint8

const (
	// Read returns the register's value (:f :read).
	Read Kind = iota
	// Write sets it (:f :write).
	Write
	// CAS sets it to New if it holds Old (:f :cas).
	CAS
)

// String returns the name of the operation's :f: "read", "write" or
// "cas".
func (k Kind) String() string {
	switch k {
	case Read:
		return "read"
	case Write:
		return "write"
	case CAS:
		return "cas"
	}
	return fmt.Sprintf("RegisterKind(%d)", uint8(k))
}

// Outcome is how an operation completed, as Jepsen says it.
type Outcome uint8

const (
	// OK (:ok): the operation took effect.
	OK Outcome = iota
	// Fail (:fail): the operation did not take effect. (Porcupine's
	// etcd tests read a failed compare-and-set as one that compared and
	// found another value; what to make of it is the checker's choice.)
	Fail
	// Info (:info, or no completion): it may or may not have taken
	// effect.
	Info
)

// String returns the name of the outcome's :type: "ok", "fail" or "info".
func (o Outcome) String() string {
	switch o {
	case OK:
		return "ok"
	case Fail:
		return "fail"
	case Info:
		return "info"
	}
	return fmt.Sprintf("Outcome(%d)", uint8(o))
}

// Nil is the value nil (a register nobody wrote) in an Op.
const Nil int64 = math.MinInt64

const (
	// NoCall is the Call of an operation that has no invocation in the
	// history: it may have been invoked any time before it returned.
	NoCall int64 = math.MinInt64
	// NoReturn is the Return of an operation that did not complete :ok or
	// :fail.
	NoReturn int64 = math.MaxInt64
)

// Op is one operation on a register.
type Op struct {
	// Process is the operation's :process, or -1 when its events have
	// none.
	Process int64
	Kind    Kind
	// Key names the register: from Jepsen's "independent" form
	// ([key value], for :cas [key [old new]]), or a "key" field; "" for
	// histories of a single register. Integers are their decimal form,
	// keywords their name without the colon.
	Key string
	// Value is the value read (an :ok read) or written; Old and New are a
	// compare-and-set's. Nil stands for nil.
	Value, Old, New int64
	Outcome         Outcome
	// Call and Return are the times of the invocation and the completion
	// on one clock (the reader's, such as format.ReadRegisterOps): NoCall
	// without an invocation, NoReturn unless the outcome is OK or Fail.
	Call, Return int64
	// Line and RetLine are the lines of the invocation and the
	// completion (0: none).
	Line, RetLine int
}
