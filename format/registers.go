package format

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/isocheck/isocheck/format/internal/scan"
	"github.com/isocheck/isocheck/format/jepsen"
	"github.com/isocheck/isocheck/format/jsonl"
	"github.com/isocheck/isocheck/format/sqljsonl"
	"github.com/isocheck/isocheck/progress"
	"github.com/isocheck/isocheck/register"
)

// ReadRegisterOps reads the register operations of a history in format f
// from r: EDN, ElleJSON, JSONL or Auto (detect; see Detect). name is the
// input's name for messages. It stops soon after ctx ends, as
// ReadFileContext does.
//
// In a Jepsen history (EDN, ElleJSON, or JSONL that holds Jepsen events)
// an operation is an :invoke of :f :read, :write or :cas paired with its
// process's next completion, as for transactions; events of processes
// that are not clients are skipped, operations of other functions (such
// as :txn) are counted in Info.OtherOps, completions without an
// invocation and events without :process are read as for transactions
// (Info.NoInvoke, Info.NoProcess). :value is the value written, [old new]
// for :cas, and on an :ok read's completion the value read; integers or
// nil. Real time is read from :time, else :index, as for transactions;
// where neither is on every event, from the position of the events in the
// input (as Knossos reads Jepsen histories).
//
// In a native JSONL history of transactions, each transaction must read
// one key ([r k v]: a read), write it ([w k v]: a write), or read then
// write it ([r k a] [w k b]: a compare-and-set of a to b that took
// effect); committed ones are register.OK, unknown ones register.Info, aborted
// ones did not happen and are left out. A rolled-back one keeps its read,
// which the database served, as a register.OK read; its write never took
// effect. Sessions are processes, and start
// and end the times, which every transaction must have (an unknown one
// needs no end).
func ReadRegisterOps(ctx context.Context, r io.Reader, name string, f Format) ([]register.Op, *Info, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	return readRegisterStream(ctx, r, name, f, scan.InputSize(r))
}

// ReadRegisterOpsFile is ReadRegisterOps on the file at path, read as
// ReadFileContext reads it.
func ReadRegisterOpsFile(ctx context.Context, path string, f Format) ([]register.Op, *Info, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, scan.StopError(path, 0, context.Cause(ctx))
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return nil, nil, scan.FileError(path, "is a directory, which holds no register operations (they are read from Jepsen EDN, elle-cli JSON and native JSONL files)")
	}
	file, size, err := openInput(path, f)
	if err != nil {
		return nil, nil, err
	}
	defer file.Close()
	defer context.AfterFunc(ctx, func() { file.SetReadDeadline(time.Now()) })()
	return readRegisterStream(ctx, file, path, f, size)
}

func readRegisterStream(ctx context.Context, r io.Reader, name string, f Format, size int64) ([]register.Op, *Info, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, scan.StopError(name, 0, context.Cause(ctx))
	}
	m := progress.Start(ctx, "parse", max(size, 0), "bytes")
	sr := scan.NewStopReader(m, r)
	ops, info, err := readRegisters(m, bufio.NewReaderSize(sr, scan.BufSize(size)), name, f, size)
	if err != nil {
		return nil, nil, scan.Stopped(name, sr, err)
	}
	if err := m.Err(); err != nil {
		return nil, nil, scan.StopError(name, sr.N, err)
	}
	return ops, info, nil
}

func readRegisters(m *progress.Meter, br *bufio.Reader, name string, f Format, size int64) ([]register.Op, *Info, error) {
	var sk skipped
	if f == Auto || f == JSONL {
		// JSONL may hold transactions or Jepsen events (isocheck lwt's
		// own JSON lines): tell them apart.
		asked := f
		g, s, err := detectStream(br, name)
		if err != nil {
			return nil, nil, err
		}
		sk = s // the blank lines detecting skipped are gone from br
		if asked == Auto || g == ElleJSON || g == JSONL {
			f = g
		}
	}
	switch f {
	case Empty:
		return nil, &Info{Format: Empty}, nil
	case EDN, ElleJSON:
		ops, s, err := jepsen.ReadRegisters(m, br, name, f == ElleJSON)
		if err != nil {
			return nil, nil, err
		}
		info := jepsenInfo(f, s)
		info.Faults = s.Faults
		return ops, info, nil
	case JSONL:
		h, err := jsonl.Read(m, br, name, size, sk.lines, sk.offset)
		if err != nil {
			return nil, nil, err
		}
		ops, err := jsonl.RegisterOps(h, name)
		if err != nil {
			return nil, nil, err
		}
		return ops, &Info{Format: JSONL, Faults: h.Faults}, nil
	case SQL:
		return nil, nil, sqljsonl.NotKeyValueError(name, true)
	case Text, DBCop, Cobra:
		return nil, nil, scan.FileError(name, "a %s history holds no register operations: they are read from Jepsen EDN, elle-cli JSON and native JSONL", f)
	}
	return nil, nil, fmt.Errorf("read %s: unknown format %q", name, f)
}
