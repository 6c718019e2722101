package resolve

import (
	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/verdict"
)

// Anomaly is one anomaly found while resolving reads.
type Anomaly struct {
	// Kind is the anomaly's name: one of those read resolution finds
	// (ThinAirRead, AbortedRead, FutureRead, NotMyOwnWrite,
	// NotMyLastWrite, IntermediateRead, NonRepeatableRead, LostUpdate,
	// IncompatibleOrder, DuplicateElements, SplitAppends).
	Kind verdict.Anomaly
	// Txn is the transaction that read (for LostUpdate, the second writer).
	Txn int32
	// Op is the read's index in History.Ops (-1 for LostUpdate). For the
	// anomalies of list reads (ThinAirRead, AbortedRead, DuplicateElements,
	// SplitAppends of an element other than the last), Value is the
	// element concerned, not the read's Op.Value.
	Op int32
	// Writer is the transaction that wrote the value read, or -1 (none, or
	// the initial transaction for a LostUpdate on the initial value is
	// T0).
	Writer int32
	// OtherOp is the related operation: the write read, or the earlier
	// read (NonRepeatableRead); -1 for none (ThinAirRead, LostUpdate).
	OtherOp int32
	// OtherTxn is, for LostUpdate, the first transaction that overwrote
	// Writer's version.
	OtherTxn int32
	Key      history.Key
	Value    history.Value
}
