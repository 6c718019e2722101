package polygraph

import (
	"fmt"

	"github.com/isocheck/isocheck/history"
)

// AnomalyKind names an anomaly found without looking for cycles
// (Wei et al., ICDE 2025, Table I; Huang et al., PVLDB 2023, Section 4.5).
type AnomalyKind uint8

const (
	// ThinAirRead: a read returned a value nobody wrote.
	ThinAirRead AnomalyKind = iota + 1
	// AbortedRead: a read returned a value written by an aborted
	// transaction.
	AbortedRead
	// FutureRead: a read returned a value its own transaction writes later.
	FutureRead
	// NotMyOwnWrite: after writing a key, a transaction read another
	// transaction's value of it.
	NotMyOwnWrite
	// NotMyLastWrite: after writing a key twice, a transaction read its
	// first value.
	NotMyLastWrite
	// IntermediateRead: a read returned a value its writer overwrote in the
	// same transaction.
	IntermediateRead
	// NonRepeatableRead: two reads of a key in one transaction, with no
	// write between them, returned different values.
	NonRepeatableRead
	// LostUpdate: two transactions read a key from the same write and both
	// wrote it (MTC's Divergence): one overwrote the other's update without
	// seeing it.
	LostUpdate
	// IncompatibleOrder: two reads of a list key (or a read and the
	// history's stated version order, OtherOp -1), neither a prefix of the
	// other: no order of the appends explains both (Elle's
	// incompatible-order).
	IncompatibleOrder
	// DuplicateElements: a list read holds one element twice (Value).
	DuplicateElements
	// SplitAppends: a list read shows the appends of transaction Writer to
	// the key other than as one run, whole and in program order: another
	// transaction's appends between them, one missing, or two swapped.
	// Value is the first element out of place.
	SplitAppends
)

var anomalyNames = map[AnomalyKind]string{
	ThinAirRead:       "ThinAirRead",
	AbortedRead:       "AbortedRead",
	FutureRead:        "FutureRead",
	NotMyOwnWrite:     "NotMyOwnWrite",
	NotMyLastWrite:    "NotMyLastWrite",
	IntermediateRead:  "IntermediateRead",
	NonRepeatableRead: "NonRepeatableRead",
	LostUpdate:        "LostUpdate",
	IncompatibleOrder: "IncompatibleOrder",
	DuplicateElements: "DuplicateElements",
	SplitAppends:      "SplitAppends",
}

func (k AnomalyKind) String() string {
	if n, ok := anomalyNames[k]; ok {
		return n
	}
	return fmt.Sprintf("AnomalyKind(%d)", uint8(k))
}

// Anomaly is one anomaly found while resolving reads.
type Anomaly struct {
	Kind AnomalyKind
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
	// OtherOp is the related operation: the write read (ThinAirRead: -1),
	// or the earlier read (NonRepeatableRead).
	OtherOp int32
	// OtherTxn is, for LostUpdate, the first transaction that overwrote
	// Writer's version.
	OtherTxn int32
	Key      history.Key
	Value    history.Value
}
