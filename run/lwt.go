package run

import (
	"fmt"
	"strconv"

	"github.com/isocheck/isocheck/format/jsonl"
	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/lwt"
	"github.com/isocheck/isocheck/register"
)

// LWTOps collects the transactions of a run of the lwt workload as
// operations on registers (package lwt), to check the run for
// linearizability without reading its history back. Pass its Add as
// Options.Completed.
//
// Each transaction of the workload is one operation on one key:
//
//   - a read alone is a read (a compare-and-set whose compare failed
//     only read, and is one too);
//   - a read then a write of the same key is a compare-and-set from the
//     value read to the value written;
//   - a write alone is a write.
//
// A committed transaction's operation took effect (ok); an aborted one's
// did not and is left out; one whose commit got no answer is an info
// operation, which may have taken effect at any time after it began.
type LWTOps struct {
	ops   []lwt.Op
	procs map[string]int // session names that are not numbers, numbered
	lines int            // transactions added: the line of the last in the history
	err   error
}

// Add adds the transaction's operation. A transaction that is not one
// operation on one register makes Ops return an error.
//
// Transactions are added in the order the history records them, one a
// line: each operation's Line is its transaction's, and its process is
// its session's number, so that a report names both as the history
// file does.
func (c *LWTOps) Add(rec *jsonl.TxnRecord) {
	c.lines++
	if c.err != nil || rec.Status == history.Aborted {
		return
	}
	op := lwt.Op{Call: rec.Start, Return: rec.End, Line: c.lines}
	p, err := strconv.Atoi(rec.Session)
	if err != nil || p < 0 {
		// Not a number: numbered after every number a session could
		// have, in the order first seen.
		if c.procs == nil {
			c.procs = make(map[string]int)
		}
		var ok bool
		if p, ok = c.procs[rec.Session]; !ok {
			p = 1<<30 + len(c.procs)
			c.procs[rec.Session] = p
		}
	}
	op.Process = p
	ops := rec.Ops
	switch {
	case len(ops) == 1 && ops[0].Kind == history.Read && !ops[0].IsList:
		if rec.Status != history.Committed {
			return // a read without an answer says nothing
		}
		op.Kind, op.Value = register.Read, value(ops[0])
	case len(ops) == 1 && ops[0].Kind == history.Write && !ops[0].Append:
		op.Kind, op.Value = register.Write, ops[0].Value
	case len(ops) == 2 && ops[0].Kind == history.Read && !ops[0].IsList && ops[1].Kind == history.Write && !ops[1].Append && ops[0].Key == ops[1].Key:
		op.Kind, op.Old, op.New = register.CAS, value(ops[0]), ops[1].Value
	default:
		c.err = fmt.Errorf("transaction %s is not one read, write or compare-and-set of a register", rec.ID)
		return
	}
	op.Key = strconv.FormatInt(ops[0].Key, 10)
	op.Outcome = register.OK
	if rec.Status != history.Committed {
		op.Outcome, op.Return = register.Info, lwt.Never
	}
	c.ops = append(c.ops, op)
}

// value is what a read of a register returned, lwt.Nil for no value.
func value(r jsonl.OpRecord) int64 {
	if r.Null {
		return lwt.Nil
	}
	return r.Value
}

// Ops returns the operations added, or why the transactions are not
// operations on registers.
func (c *LWTOps) Ops() ([]lwt.Op, error) { return c.ops, c.err }
