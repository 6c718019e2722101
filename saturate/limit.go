package saturate

import (
	"fmt"
	"strconv"

	"github.com/isocheck/isocheck/progress"
)

// Resource names what a LimitError ran out of.
type Resource uint8

const (
	// ClockEntries are the entries of CC's vector clocks live at once
	// (Options.MaxClockEntries).
	ClockEntries Resource = iota + 1
	// ForcedEdges are the commit-order edges CC's axiom forces
	// (MaxForcedEdges).
	ForcedEdges
)

// LimitError says that a check would pass one of its limits. It wraps
// progress.ErrResourceLimit: the check gives no verdict rather than
// exhaust memory.
type LimitError struct {
	What  Resource
	Limit int64
	// Txns and Sessions are the size of the history checked.
	Txns, Sessions int
	// Live counts, for ClockEntries, the clocks live when the limit was
	// reached.
	Live int64
}

func (e *LimitError) Error() string {
	switch e.What {
	case ClockEntries:
		return fmt.Sprintf("%v: causal consistency's vector clocks would need more than the limit of %s entries (%s): "+
			"one entry of 4 bytes per session (%s sessions) for each transaction whose clock a later one still needs, "+
			"and %s of the %s transactions needed theirs at once; check fewer sessions, or allow more memory",
			progress.ErrResourceLimit, group(e.Limit), bytes(4*e.Limit), group(int64(e.Sessions)), group(e.Live+1), group(int64(e.Txns)))
	case ForcedEdges:
		return fmt.Sprintf("%v: causal consistency's axiom would force more than %s commit-order edges (%s) "+
			"on %s transactions in %s sessions; allow more memory", progress.ErrResourceLimit, group(e.Limit), bytes(8*e.Limit), group(int64(e.Txns)), group(int64(e.Sessions)))
	}
	return fmt.Sprintf("%v: saturate: limit %d of resource %d", progress.ErrResourceLimit, e.Limit, e.What)
}

// Unwrap returns progress.ErrResourceLimit.
func (e *LimitError) Unwrap() error { return progress.ErrResourceLimit }

// group writes n with thousands separators.
func group(n int64) string {
	s := strconv.FormatInt(n, 10)
	out := make([]byte, 0, len(s)+len(s)/3)
	for i := range len(s) {
		if i > 0 && s[i-1] != '-' && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	return string(out)
}

// bytes writes n bytes in the largest unit that leaves a number of at
// least 1.
func bytes(n int64) string {
	switch {
	case n >= 1<<30:
		return strconv.FormatFloat(float64(n)/(1<<30), 'f', 1, 64) + " GiB"
	case n >= 1<<20:
		return strconv.FormatFloat(float64(n)/(1<<20), 'f', 1, 64) + " MiB"
	case n >= 1<<10:
		return strconv.FormatFloat(float64(n)/(1<<10), 'f', 1, 64) + " KiB"
	}
	return strconv.FormatInt(n, 10) + " bytes"
}
