// Package workload generates histories for tests and benchmarks by
// simulating stores with known visibility rules.
//
// A simulated store runs the transactions of a few client sessions,
// interleaving their operations at random, and records what every read
// returned. Each Store has a known isolation level: histories from
// Serializable satisfy SER, from StrictSerializable SSER, from
// SnapshotIsolation SI, from SnapshotNoFCW prefix consistency (PC), from
// Causal causal consistency (CC), from ReadAtomic RA and from ReadCommitted
// RC; Random satisfies nothing in particular. Inject adds the
// intra-transaction anomalies no store produces (thin-air reads, aborted
// reads, ...).
//
// Every generated history uses history.Null as the initial value and
// writes, per key, the values 1, 2, 3, ... in the order the writes were
// issued, so values are unique per key and never the initial value.
// Generation is deterministic for a given random source or seed.
package workload

import (
	"fmt"
	"strings"

	"github.com/isocheck/isocheck/history"
)

// Store is a simulated store, the isolation level it provides decides what
// its reads may return.
type Store int

const (
	// SnapshotIsolation reads from a snapshot taken when the transaction
	// starts and aborts a transaction at commit if a transaction that
	// committed since its start wrote a key it writes (first committer
	// wins). Its histories satisfy SI.
	SnapshotIsolation Store = iota
	// Serializable runs whole transactions one at a time in a random order
	// that respects session order. Its histories satisfy SER; their times,
	// when recorded, need not agree with that order.
	Serializable
	// StrictSerializable is Serializable with start and end times that
	// agree with the serial order: its histories satisfy SSER.
	StrictSerializable
	// SnapshotNoFCW is SnapshotIsolation without first-committer-wins:
	// concurrent writers of a key both commit, which allows lost updates.
	// Its histories satisfy prefix consistency (PC).
	SnapshotNoFCW
	// Causal replicates: each session runs on a replica (up to four;
	// sessions beyond share them), which applies its own commits at once
	// and the other replicas' commits after a random delay, in causal
	// order, with last-writer-wins by Lamport timestamp. Transactions read
	// a snapshot of their replica. Replicas apply concurrent commits in
	// different orders, which gives long forks (and, with no write-conflict
	// check, lost updates); the histories satisfy causal consistency (CC).
	Causal
	// ReadAtomic is Causal with replicas that apply other replicas'
	// commits as they arrive, in any order, which gives causality
	// violations; the histories satisfy read atomic (RA).
	ReadAtomic
	// ReadCommitted lets each read see the latest committed value at the
	// moment it runs (and the transaction's own writes). Its histories
	// satisfy read committed (RC), and show fractured and non-repeatable
	// reads.
	ReadCommitted
	// Random lets every read that does not follow the transaction's own
	// write of the key return the initial value or the final write of the
	// key by any other transaction that did not abort, at random.
	Random

	numStores
)

var storeNames = [...]string{
	SnapshotIsolation:  "SnapshotIsolation",
	Serializable:       "Serializable",
	StrictSerializable: "StrictSerializable",
	SnapshotNoFCW:      "SnapshotNoFCW",
	Causal:             "Causal",
	ReadAtomic:         "ReadAtomic",
	ReadCommitted:      "ReadCommitted",
	Random:             "Random",
}

func (s Store) String() string {
	if s >= 0 && s < numStores {
		return storeNames[s]
	}
	return fmt.Sprintf("Store(%d)", int(s))
}

// Stores returns all stores.
func Stores() []Store {
	s := make([]Store, numStores)
	for i := range s {
		s[i] = Store(i)
	}
	return s
}

// Describe returns a compact human-readable form of h, for test failure
// messages: the initial value, then one line per transaction with its
// session, name, status, times and operations, then the stated version
// orders. In a list history appends are a(x)=v and reads show the whole
// list, r(x)=[1 2].
func Describe(h *history.History) string {
	var b strings.Builder
	fmt.Fprintf(&b, "init=%s\n", h.FormatValue(h.Init))
	for t := range h.Txns {
		tx := &h.Txns[t]
		fmt.Fprintf(&b, "s%s %s %s", h.SessionName(int(tx.Session)), h.Name(t), tx.Status)
		if tx.Start != history.NoTime || tx.End != history.NoTime {
			fmt.Fprintf(&b, " [%s,%s]", formatTime(tx.Start), formatTime(tx.End))
		}
		b.WriteString(":")
		for i := tx.OpStart; i < tx.OpEnd; i++ {
			op := h.Ops[i]
			switch {
			case !h.Lists:
				fmt.Fprintf(&b, " %s(%s)=%s", op.Kind, h.FormatKey(op.Key), h.FormatValue(op.Value))
			case op.Kind == history.Write:
				fmt.Fprintf(&b, " a(%s)=%s", h.FormatKey(op.Key), h.FormatValue(op.Value))
			default:
				fmt.Fprintf(&b, " r(%s)=%s", h.FormatKey(op.Key), formatList(h, h.ListOf(i)))
			}
		}
		b.WriteString("\n")
	}
	for _, o := range h.Orders {
		fmt.Fprintf(&b, "order %s: %s\n", h.FormatKey(o.Key), formatList(h, o.Values))
	}
	return b.String()
}

// formatList returns a list of values like [1 2 3].
func formatList(h *history.History, vals []history.Value) string {
	parts := make([]string, len(vals))
	for i, v := range vals {
		parts[i] = h.FormatValue(v)
	}
	return "[" + strings.Join(parts, " ") + "]"
}

func formatTime(t int64) string {
	if t == history.NoTime {
		return "?"
	}
	return fmt.Sprint(t)
}
