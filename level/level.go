// Package level names the isolation levels isocheck checks.
package level

import (
	"fmt"
	"strings"
)

// Level is an isolation level.
type Level uint8

const (
	// SER is serializability: some total order of the committed
	// transactions explains every read.
	SER Level = iota + 1
	// SI is (strong session) snapshot isolation, as in seed 002.
	SI
	// SSER is strict serializability: SER whose order also respects real
	// time (a transaction that ended before another started precedes it).
	SSER
)

var names = map[Level]string{SER: "SER", SI: "SI", SSER: "SSER"}

func (l Level) String() string {
	if n, ok := names[l]; ok {
		return n
	}
	return fmt.Sprintf("Level(%d)", uint8(l))
}

// Parse reads a level name such as "si" or "SER".
func Parse(s string) (Level, error) {
	for l, n := range names {
		if strings.EqualFold(s, n) {
			return l, nil
		}
	}
	return 0, fmt.Errorf("unknown isolation level %q (want ser, si or sser)", s)
}
