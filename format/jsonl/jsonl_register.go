package jsonl

import (
	"github.com/isocheck/isocheck/format/internal/scan"
	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/register"
)

// RegisterOps reads the register operations of a native history of
// transactions (see format.ReadRegisterOps).
func RegisterOps(h *history.History, name string) ([]register.Op, error) {
	if h.Lists {
		return nil, scan.FileError(name, "a history of lists holds no register operations")
	}
	procs := scan.IntegerNames(h.SessionNames, len(h.Sessions))
	ops := make([]register.Op, 0, len(h.Txns))
	for i := range h.Txns {
		t := &h.Txns[i]
		tops := h.OpsOf(i)
		if t.Status == history.RolledBack && len(tops) > 0 && tops[0].Kind == history.Read {
			tops = tops[:1] // its read alone happened
		}
		if len(tops) == 0 || t.Status == history.Aborted || t.Status == history.RolledBack && tops[0].Kind == history.Write {
			continue // it did not happen, or did nothing
		}
		bad := func(format string, args ...any) error {
			return scan.LineError(name, int(t.Pos), format, args...)
		}
		o := register.Op{Process: procs[t.Session], Key: h.FormatKey(tops[0].Key), Outcome: register.OK,
			Call: t.Start, Return: t.End, Line: int(t.Pos), RetLine: int(t.Pos)}
		for _, op := range tops[1:] {
			if op.Key != tops[0].Key {
				return nil, bad("the transaction touches keys %s and %s: a register operation reads or writes one key", h.FormatKey(tops[0].Key), h.FormatKey(op.Key))
			}
		}
		value := func(v history.Value) (int64, error) {
			if v == history.Null || v == h.Init {
				return register.Nil, nil
			}
			if v >= history.StringBase || v <= -history.StringBase {
				return 0, bad("the value %s is not an integer: registers hold integers", h.FormatValue(v))
			}
			return int64(v), nil
		}
		var err error
		switch {
		case len(tops) == 1 && tops[0].Kind == history.Read:
			o.Kind = register.Read
			o.Value, err = value(tops[0].Value)
		case len(tops) == 1:
			o.Kind = register.Write
			o.Value, err = value(tops[0].Value)
		case len(tops) == 2 && tops[0].Kind == history.Read && tops[1].Kind == history.Write:
			o.Kind = register.CAS
			if o.Old, err = value(tops[0].Value); err == nil {
				o.New, err = value(tops[1].Value)
			}
		default:
			return nil, bad("a transaction of %d operations is not a register operation: want a read, a write, or a read then a write of one key", len(tops))
		}
		if err != nil {
			return nil, err
		}
		if t.Status == history.Unknown {
			o.Outcome, o.Return = register.Info, register.NoReturn
		}
		if o.Call == history.NoTime || o.Outcome == register.OK && o.Return == history.NoTime {
			return nil, bad("the transaction has no start or end: linearizability needs the real time of every operation")
		}
		ops = append(ops, o)
	}
	return ops, nil
}
