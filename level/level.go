// Package level names the isolation levels isocheck checks and how they
// relate.
package level

import (
	"fmt"
	"strings"
)

// Level is an isolation level.
type Level uint8

// The levels, as defined over a commit order by Biswas and Enea, "On the
// Complexity of Checking Transactional Consistency" (OOPSLA 2019),
// Figure 2, with strong session guarantees throughout.
const (
	// SER is serializability: some total order of the committed
	// transactions explains every read.
	SER Level = iota + 1
	// SI is (strong session) snapshot isolation, as in Huang, Liu, Chen,
	// Wei, Basin, Li and Pan, "Efficient Black-box Checking of Snapshot
	// Isolation in Databases" (PolySI, PVLDB 16(6), 2023): Prefix and
	// Conflict.
	SI
	// SSER is strict serializability: SER whose order also respects real
	// time (a transaction that ended before another started precedes it).
	SSER
	// PC is prefix consistency: every transaction sees a prefix of one
	// commit order (SI without Conflict: lost updates are allowed).
	PC
	// CC is causal consistency: a transaction sees what its causal past
	// saw, in the same order (long forks are allowed).
	CC
	// RA is read atomic: a transaction sees all of another's writes or
	// none, and its own session's (fractured reads are not allowed).
	RA
	// RC is read committed: every read returns a committed value, and reads
	// of a transaction do not go back in commit order.
	RC
)

var names = map[Level]string{SER: "SER", SI: "SI", SSER: "SSER", PC: "PC", CC: "CC", RA: "RA", RC: "RC"}

func (l Level) String() string {
	if n, ok := names[l]; ok {
		return n
	}
	return fmt.Sprintf("Level(%d)", uint8(l))
}

// All lists the levels from strongest to weakest: each implies the next.
func All() []Level { return []Level{SSER, SER, SI, PC, CC, RA, RC} }

// Implies reports whether every history that satisfies l satisfies m.
func (l Level) Implies(m Level) bool {
	rank := func(x Level) int {
		for i, y := range All() {
			if x == y {
				return i
			}
		}
		return -1
	}
	return rank(l) >= 0 && rank(m) >= 0 && rank(l) <= rank(m)
}

// longNames are the names the levels go by in full, in the papers and in
// databases' own documentation, with the words joined by '-' or '_' or
// nothing.
var longNames = map[string]Level{
	"serializable": SER, "serializability": SER,
	"snapshot": SI, "snapshotisolation": SI,
	"strictserializable": SSER, "strictserializability": SSER, "strongserializable": SSER,
	"prefix": PC, "prefixconsistency": PC, "prefixconsistent": PC,
	"causal": CC, "causalconsistency": CC, "causallyconsistent": CC,
	"readatomic": RA, "readcommitted": RC,
}

// Parse reads a level name: the short name in any case ("si", "SER") or
// the long one ("snapshot-isolation", "serializable", "read_committed",
// "Strict Serializable").
func Parse(s string) (Level, error) {
	for l, n := range names {
		if strings.EqualFold(s, n) {
			return l, nil
		}
	}
	folded := strings.Map(func(r rune) rune {
		switch r {
		case '-', '_', ' ':
			return -1
		}
		return r
	}, strings.ToLower(s))
	if l, ok := longNames[folded]; ok {
		return l, nil
	}
	return 0, fmt.Errorf("unknown isolation level %q (want sser, ser, si, pc, cc, ra or rc, or a long name such as serializable or read-committed)", s)
}
