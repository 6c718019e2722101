// Package histgen generates histories of known isolation levels for tests
// and benchmarks, without a database, by simulating stores with exact
// visibility rules.
//
// A simulated store runs the transactions of a few client sessions,
// interleaving their operations at random, and records what every read
// returned. Each Store has a known isolation level: histories from
// Serializable satisfy SER, from StrictSerializable SSER, from
// SnapshotIsolation SI, from SnapshotNoFCW prefix consistency (PC), from
// Causal causal consistency (CC), from ReadAtomic RA and from ReadCommitted
// RC; Random satisfies nothing in particular. Small makes small histories
// for property tests, Large and Mini large ones for benchmarks, and Inject
// adds the intra-transaction anomalies no store produces (thin-air reads,
// aborted reads, ...). Describe prints a history for a test's failure
// message.
//
// Every generated history uses history.Null as the initial value and
// writes, per key, the values 1, 2, 3, ... in the order the writes were
// issued, so values are unique per key and never the initial value;
// Repeat folds them so that they repeat.
// Generation is deterministic for a given random source or seed.
//
// Package db/sim is the other simulator: a database adapter (sim://...)
// that runs a workload's plan, concurrently, with the faults of buggy
// databases, for demonstrations and end-to-end tests of the runner. Use
// histgen for a history of an exact level made in one call; use db/sim to
// exercise what runs against databases.
package histgen

import (
	"fmt"
	"math/rand/v2"

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

// newStore returns the simulation of kind for a history with the given
// numbers of keys and sessions.
func newStore(rng *rand.Rand, kind Store, keys, sessions int) store {
	switch kind {
	case SnapshotIsolation:
		return newSnapshotStore(keys, true)
	case SnapshotNoFCW:
		return newSnapshotStore(keys, false)
	case Causal, ReadAtomic:
		return newReplicatedStore(rng, keys, min(sessions, maxReplicas), kind == Causal)
	case Random:
		return randomStore{}
	default: // Serializable, StrictSerializable (run atomically), ReadCommitted
		return newLatestStore(keys)
	}
}

// maxReplicas bounds the replicas of the replicated stores; sessions
// beyond share them.
const maxReplicas = 4

// finish adjusts a simulated history to its store: Random's reads are
// drawn now, and the serial stores get times around their place in an
// order: the serial order for StrictSerializable, a random interleaving
// of the sessions for Serializable.
func finish(rng *rand.Rand, h *history.History, kind Store) *history.History {
	switch kind {
	case Random:
		if h.Lists {
			return readListsRandomly(rng, h)
		}
		readRandomly(rng, h)
	case Serializable, StrictSerializable:
		if len(h.Txns) == 0 || h.Txns[0].Start == history.NoTime {
			return h
		}
		// The simulation added transactions in serial order.
		rank := make([]int64, len(h.Txns))
		for t := range rank {
			rank[t] = int64(t)
		}
		if kind == Serializable {
			next := make([]int, len(h.Sessions))
			var left []int
			for s, txns := range h.Sessions {
				if len(txns) > 0 {
					left = append(left, s)
				}
			}
			for r := int64(0); len(left) > 0; r++ {
				i := rng.IntN(len(left))
				s := left[i]
				rank[h.Sessions[s][next[s]]] = r
				if next[s]++; next[s] == len(h.Sessions[s]) {
					left = append(left[:i], left[i+1:]...)
				}
			}
		}
		// An interval around 10·rank+12: T.End < S.Start implies rank T <
		// rank S.
		for t := range h.Txns {
			h.Txns[t].Start = 10*rank[t] + 12 - rng.Int64N(12)
			h.Txns[t].End = 10*rank[t] + 12 + rng.Int64N(12)
		}
	}
	return h
}
