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
// databases' own documentation, folded (see fold).
var longNames = map[string]Level{
	"serializable": SER, "serializability": SER,
	"snapshot": SI, "snapshotisolation": SI,
	"strictserializable": SSER, "strictserializability": SSER, "strongserializable": SSER,
	"prefix": PC, "prefixconsistency": PC, "prefixconsistent": PC,
	"causal": CC, "causalconsistency": CC, "causallyconsistent": CC,
	"readatomic": RA, "readcommitted": RC,
}

// fold reduces a level's name to the form the tables of names hold: lower
// case, without the '-', '_' and spaces that join its words.
func fold(s string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case '-', '_', ' ':
			return -1
		}
		return r
	}, strings.ToLower(s))
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
	if l, ok := longNames[fold(s)]; ok {
		return l, nil
	}
	return 0, fmt.Errorf("unknown isolation level %q (want sser, ser, si, pc, cc, ra or rc, or a long name such as serializable or read-committed)", s)
}

// databaseNames are the names databases give the levels, in the words
// of a database's level setting (db.Config.Level).
var databaseNames = map[Level]string{
	SER: "serializable", SI: "snapshot", SSER: "strict-serializable",
	PC: "prefix-consistency", CC: "causal", RA: "read-atomic", RC: "read-committed",
}

// sqlOnlyNames are the levels of the SQL standard that isocheck does not
// check, folded, with the names databases give them.
var sqlOnlyNames = map[string]string{
	"repeatableread":  "repeatable-read",
	"readuncommitted": "read-uncommitted",
}

// DatabaseName returns the name databases give the level s names, in
// any spelling Parse reads or as the SQL standard names REPEATABLE READ
// and READ UNCOMMITTED: "serializable" for "ser", "SERIALIZABLE" or
// "Serializability"; "snapshot" for "si"; "strict-serializable";
// "read-committed"; "repeatable-read" for "REPEATABLE READ"; and so on.
// A name it does not know, such as "", comes back as given, for the
// database to take or refuse.
func DatabaseName(s string) string {
	if l, err := Parse(s); err == nil {
		return databaseNames[l]
	}
	if n, ok := sqlOnlyNames[fold(s)]; ok {
		return n
	}
	return s
}
