package lwt

import (
	"bytes"
	"context"
	"io"

	"github.com/isocheck/isocheck/format"
	"github.com/isocheck/isocheck/format/jepsen"
	"github.com/isocheck/isocheck/register"
)

// Reading and writing histories, for the tests: package format reads the
// register operations of a file, FromRegisterOps makes them the checker's,
// and package format/jepsen writes them back.

// ReadOptions say how to read a history.
type ReadOptions struct {
	// Format is the history's format: format.Auto (the zero value:
	// detect it), format.EDN, format.ElleJSON or format.JSONL.
	Format format.Format
	// Fail is what a failed operation means (FailAbsent by default).
	Fail FailMeaning
}

// ReadFile reads the history in the file at path, detecting its format,
// with failed operations left out (FailAbsent).
func ReadFile(path string) ([]Op, error) {
	ops, _, err := ReadFileContext(context.Background(), path, ReadOptions{})
	return ops, err
}

// ReadFileContext reads the history in the file at path as opts say.
func ReadFileContext(ctx context.Context, path string, opts ReadOptions) ([]Op, *format.Info, error) {
	rops, info, err := format.ReadRegisterOpsFile(ctx, path, formatOf(opts))
	if err != nil {
		return nil, nil, err
	}
	return FromRegisterOps(rops, opts.Fail), info, nil
}

// ReadHistory reads a history from r, detecting its format, with failed
// operations left out; name is used in errors.
func ReadHistory(r io.Reader, name string) ([]Op, error) {
	ops, _, err := ReadHistoryContext(context.Background(), r, name, ReadOptions{})
	return ops, err
}

// ReadHistoryContext is ReadFileContext on a stream.
func ReadHistoryContext(ctx context.Context, r io.Reader, name string, opts ReadOptions) ([]Op, *format.Info, error) {
	rops, info, err := format.ReadRegisterOps(ctx, r, name, formatOf(opts))
	if err != nil {
		return nil, nil, err
	}
	return FromRegisterOps(rops, opts.Fail), info, nil
}

// ReadBytes is ReadHistory on a byte slice.
func ReadBytes(data []byte, name string) ([]Op, error) {
	return ReadHistory(bytes.NewReader(data), name)
}

func formatOf(opts ReadOptions) format.Format {
	if opts.Format == "" {
		return format.Auto
	}
	return opts.Format
}

// registerOps returns ops as register operations.
func registerOps(ops []Op) []register.Op {
	rops := make([]register.Op, len(ops))
	for i, o := range ops {
		rops[i] = register.Op{Process: int64(o.Process), Kind: o.Kind, Key: o.Key, Value: o.Value, Old: o.Old, New: o.New,
			Outcome: o.Outcome, Call: o.Call, Return: o.Return, Line: o.Line, RetLine: o.RetLine}
	}
	return rops
}

// WriteJSONL writes ops as Jepsen events in JSON lines, in time order.
func WriteJSONL(w io.Writer, ops []Op) error { return jepsen.WriteRegisterJSON(w, registerOps(ops)) }

// WriteEDN writes ops as a Jepsen EDN history, in time order.
func WriteEDN(w io.Writer, ops []Op) error { return jepsen.WriteRegisterEDN(w, registerOps(ops)) }
