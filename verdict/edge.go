package verdict

import "fmt"

// EdgeKind says why one transaction comes before another in a dependency
// a report shows: the same kinds for every vertical, after Adya's
// dependencies, with real time, and the two the SQL checker's axioms add.
type EdgeKind uint8

const (
	// SO is session order: From ran before To in the same session (or
	// From is the initial transaction).
	SO EdgeKind = iota
	// WR is write-read: To read Key from From.
	WR
	// WW is write-write: From's write of Key precedes To's in version
	// order.
	WW
	// RW is read-write (an anti-dependency): From read a version of Key
	// that To overwrote.
	RW
	// RT is real time: From ended before To started.
	RT
	// Visible is a commit order a SQL level's axiom forces: a read read
	// Key from To, and From, which also writes Key, is visible to that
	// read under the reader's level, so From commits first (Bouajjani,
	// Enea and Román-Calvo, "On the Complexity of Checking Mixed
	// Isolation Levels for SQL Transactions", CAV 2025, §3).
	Visible
	// Supposed is one side of a choice an explanation makes: From
	// commits before To in the case shown.
	Supposed
)

var edgeKindNames = [...]string{SO: "SO", WR: "WR", WW: "WW", RW: "RW", RT: "RT", Visible: "VIS", Supposed: "IF"}

// String returns the kind's short name: SO, WR, WW, RW, RT, VIS or IF.
func (k EdgeKind) String() string {
	if int(k) < len(edgeKindNames) {
		return edgeKindNames[k]
	}
	return fmt.Sprintf("EdgeKind(%d)", uint8(k))
}
