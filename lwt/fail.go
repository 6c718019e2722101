package lwt

import (
	"fmt"

	"github.com/isocheck/isocheck/register"
)

// Failed operations.
//
// The readers of package format give the register operations of a history
// as register.Op values, failed ones included; FromRegisterOps makes them
// the operations the checker takes, keeping or leaving out the failed ones
// as a FailMeaning says.

// FailMeaning says what a failed operation (:fail) of a history means.
type FailMeaning uint8

const (
	// FailAbsent is Jepsen's and Knossos's meaning: a failed operation did
	// not happen, and is left out.
	FailAbsent FailMeaning = iota
	// FailCompared is Porcupine's etcd model: a failed compare-and-set
	// compared and found a value other than Old (an operation of outcome
	// Fail); failed reads and writes are ignored.
	FailCompared
)

func (m FailMeaning) String() string {
	switch m {
	case FailAbsent:
		return "absent"
	case FailCompared:
		return "compared"
	}
	return fmt.Sprintf("FailMeaning(%d)", uint8(m))
}

// ParseFailMeaning returns the FailMeaning named "absent" or "compared".
func ParseFailMeaning(s string) (FailMeaning, error) {
	switch s {
	case "absent":
		return FailAbsent, nil
	case "compared":
		return FailCompared, nil
	}
	return 0, fmt.Errorf("unknown meaning of :fail %q (want absent or compared)", s)
}

// FromRegisterOps returns the operations of rops, failed ones left out
// (FailAbsent) or kept as Fail (FailCompared). Operations without a
// process get Process -1; those without an invocation Call math.MinInt64
// (register.NoCall): they may have been invoked any time before they
// returned.
func FromRegisterOps(rops []register.Op, fail FailMeaning) []Op {
	ops := make([]Op, 0, len(rops))
	for _, r := range rops {
		if r.Outcome == register.Fail && fail == FailAbsent {
			continue
		}
		o := Op{Process: int(r.Process), Kind: r.Kind, Key: r.Key, Value: r.Value, Old: r.Old, New: r.New,
			Call: r.Call, Return: r.Return, Outcome: r.Outcome, Line: r.Line, RetLine: r.RetLine}
		if r.Process < 0 || int64(int(r.Process)) != r.Process {
			o.Process = -1
		}
		if o.Outcome == register.Info {
			o.Return = Never
		}
		ops = append(ops, o)
	}
	return ops
}
