package format

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"
	"time"

	"github.com/isocheck/isocheck/format/cobra"
	"github.com/isocheck/isocheck/format/dbcop"
	"github.com/isocheck/isocheck/format/internal/scan"
	"github.com/isocheck/isocheck/format/jepsen"
	"github.com/isocheck/isocheck/format/jsonl"
	"github.com/isocheck/isocheck/format/sqljsonl"
	"github.com/isocheck/isocheck/format/text"
	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/progress"
)

// Format names a history format.
type Format string

const (
	// Auto asks ReadFile and Read to detect the format (see Detect).
	Auto Format = "auto"
	// JSONL is isocheck's native format, one JSON transaction per line.
	JSONL Format = "jsonl"
	// Text is PolySI's text format, one r(key,value,session,txn) or
	// w(key,value,session,txn) operation per line.
	Text Format = "text"
	// DBCop is the dbcop tool's bincode format.
	DBCop Format = "dbcop"
	// Cobra is a directory of Cobra T*.log files, one per session.
	Cobra Format = "cobra"
	// EDN is a Jepsen history (history.edn), as Elle reads it.
	EDN Format = "edn"
	// ElleJSON is elle-cli's JSON form of a Jepsen history.
	ElleJSON Format = "elle-json"
	// SQL is a SQL history (specified in docs/formats.md), which is not
	// a key-value history: read it with
	// sqljsonl.Read or sqljsonl.ReadFile. ReadFile and Read refuse it, saying so.
	SQL Format = "sql"
	// Empty is the Info.Format of an input read with Auto that is empty or
	// blank (see "Empty inputs" in the package documentation): there was
	// nothing to tell its format by. It is not a format to read with.
	Empty Format = "empty"
)

// ParseFormat returns the Format named by s. Besides the names of the
// constants it accepts, case-insensitively, "json" for JSONL, "txt" and
// "polysi" for Text, "bincode" for DBCop, "jepsen" for EDN and "ellejson"
// for ElleJSON.
func ParseFormat(s string) (Format, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "auto", "":
		return Auto, nil
	case "jsonl", "json":
		return JSONL, nil
	case "text", "txt", "polysi":
		return Text, nil
	case "dbcop", "bincode":
		return DBCop, nil
	case "cobra":
		return Cobra, nil
	case "edn", "jepsen":
		return EDN, nil
	case "elle-json", "ellejson":
		return ElleJSON, nil
	case "sql":
		return SQL, nil
	}
	return "", fmt.Errorf("unknown history format %q (want auto, jsonl, text, dbcop, cobra, edn, elle-json or sql)", s)
}

// Error is an error in the content of an input, which every reader
// returns for a problem of the input: it gives the file and the line (text
// formats), the byte offset (binary formats) or neither (the input as a
// whole) of the problem. Its Error method renders it as "file:line: msg",
// "file: byte offset N: msg" or "file: msg".
type Error = scan.Error

// Info describes how a history was read.
type Info struct {
	// Format is the format the history was read in: the one asked for, or
	// the one detected, or Empty when Auto met an empty or blank input.
	// It is never Auto.
	Format Format
	// FailedEvents maps the index of a DBCop transaction to the number of
	// its events that had success = 0 and were dropped. Transactions without
	// failed events are absent. It is nil for other formats.
	FailedEvents map[int]int
	// DBCop is the header of a DBCop file, nil for other formats.
	DBCop *dbcop.Header
	// SkippedOps counts the events of a Jepsen history (EDN, ElleJSON)
	// that were skipped because their process is not a client (:nemesis,
	// or any :process that is not an integer). It is 0 for other formats.
	SkippedOps int
	// NoProcess counts the events of a Jepsen history without :process.
	// Each of their operations is a session of its own: no session order
	// relates it to another.
	NoProcess int
	// NoInvoke counts the operations of a Jepsen history completed
	// without an invocation (histories of completions only, as Elle's
	// tests write them). Their start is unknown: real-time order relates
	// them to no other.
	NoInvoke int
	// OtherOps counts, by :f, the client operations of a Jepsen history
	// that were not read: those that are not transactions (:f :txn, or no
	// :f) for ReadFile and Read, those that are not :read, :write or :cas
	// for ReadRegisterOps. It is nil when there are none. Names longer
	// than a message can hold are cut short.
	OtherOps map[string]int
	// Faults are the events of the nemesis a register history records
	// (ReadRegisterOps: Jepsen's :nemesis events, the fault lines of
	// native JSONL), each at its time on the operations' clock, or
	// history.NoTime where they have none. A history of transactions
	// has them as History.Faults.
	Faults []history.Fault
}

// ReadFile reads the history in the file or (for Cobra) directory at path.
// If f is Auto, it detects the format from the content (see Detect).
func ReadFile(path string, f Format) (*history.History, error) {
	h, _, err := ReadFileContext(context.Background(), path, f)
	return h, err
}

// ReadFileInfo is like ReadFile but also describes the input.
func ReadFileInfo(path string, f Format) (*history.History, *Info, error) {
	return ReadFileContext(context.Background(), path, f)
}

// ReadFileContext is like ReadFileInfo, but stops soon after ctx ends: it
// measures its work on a progress meter (stage "parse", in bytes) and, once
// ctx has ended, returns an error that wraps the reason (context.Cause), so
// that progress.Stopped reports true for it. Such an error is never an
// *Error.
//
// Inputs that are not regular files (pipes, /dev/stdin) are read as
// streams, once; the files of a Cobra directory must be regular files.
func ReadFileContext(ctx context.Context, path string, f Format) (*history.History, *Info, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	switch f {
	case Auto, JSONL, Text, DBCop, EDN, ElleJSON:
	case Cobra:
		return readCobraInfo(ctx, path)
	case SQL:
		return nil, nil, sqljsonl.NotKeyValueError(path, false)
	default:
		return nil, nil, fmt.Errorf("read %s: unknown format %q", path, f)
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, scan.StopError(path, 0, context.Cause(ctx))
	}
	if f == Auto {
		if st, err := os.Stat(path); err == nil && st.IsDir() {
			return readCobraInfo(ctx, path)
		}
	}
	file, size, err := openInput(path, f)
	if err != nil {
		return nil, nil, err
	}
	defer file.Close()
	// A read blocked on a pipe ends when ctx does, where the file supports
	// deadlines.
	defer context.AfterFunc(ctx, func() { file.SetReadDeadline(time.Now()) })()
	h, info, err := readStream(ctx, file, path, f, size)
	if err == nil && len(h.Ops) >= releaseOps {
		// What reading used (the file's chunks, their operations before
		// the merge), about as large as the history, is garbage now:
		// hand it back, or the checker's arrays come on top of it.
		debug.FreeOSMemory()
	}
	return h, info, err
}

// readCobraInfo reads the Cobra log directory or file at path.
func readCobraInfo(ctx context.Context, path string) (*history.History, *Info, error) {
	h, err := cobra.Read(ctx, path)
	if err != nil {
		return nil, nil, err
	}
	return h, &Info{Format: Cobra}, nil
}

// releaseOps is the size of history, in operations, from which reading
// hands its memory back to the operating system when done.
const releaseOps = 1 << 22

// openInput opens the file at path, which must not be a directory, and
// returns its size, or -1 when it is not a regular file.
func openInput(path string, f Format) (*os.File, int64, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, 0, err
	}
	if st.IsDir() {
		return nil, 0, scan.FileError(path, "is a directory, not a %s file", f)
	}
	file, err := os.Open(path)
	if err != nil {
		return nil, 0, err
	}
	size := int64(-1)
	if st, err := file.Stat(); err == nil && st.Mode().IsRegular() {
		size = st.Size()
	}
	return file, size, nil
}

// Read reads a history in format f from r; name is the input's name for
// messages and History.Files. If f is Auto, Read detects the format from
// the content (see Detect). Read cannot read Cobra directories; use ReadFile.
func Read(r io.Reader, name string, f Format) (*history.History, error) {
	h, _, err := ReadContext(context.Background(), r, name, f)
	return h, err
}

// ReadInfo is like Read but also describes the input.
func ReadInfo(r io.Reader, name string, f Format) (*history.History, *Info, error) {
	return ReadContext(context.Background(), r, name, f)
}

// ReadContext is like ReadInfo, but stops soon after ctx ends, as
// ReadFileContext does.
func ReadContext(ctx context.Context, r io.Reader, name string, f Format) (*history.History, *Info, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	switch f {
	case Auto, JSONL, Text, DBCop, EDN, ElleJSON:
	case Cobra:
		return nil, nil, fmt.Errorf("read %s: Cobra histories are directories: use ReadFile", name)
	case SQL:
		return nil, nil, sqljsonl.NotKeyValueError(name, false)
	default:
		return nil, nil, fmt.Errorf("read %s: unknown format %q", name, f)
	}
	return readStream(ctx, r, name, f, scan.InputSize(r))
}

// readStream reads a history in format f (not Cobra) from r, an input of
// size bytes (-1 if unknown).
func readStream(ctx context.Context, r io.Reader, name string, f Format, size int64) (*history.History, *Info, error) {
	m := progress.Start(ctx, "parse", max(size, 0), "bytes")
	sr := scan.NewStopReader(m, r)
	h, info, err := readBuffered(m, bufio.NewReaderSize(sr, scan.BufSize(size)), name, f, size)
	if err != nil {
		return nil, nil, scan.Stopped(name, sr, err)
	}
	if err := m.Err(); err != nil {
		return nil, nil, scan.StopError(name, sr.N, err)
	}
	return h, info, nil
}

func readBuffered(m *progress.Meter, br *bufio.Reader, name string, f Format, size int64) (*history.History, *Info, error) {
	var sk skipped
	if f == Auto {
		var err error
		if f, sk, err = detectStream(br, name); err != nil {
			return nil, nil, err
		}
	}
	switch f {
	case Empty:
		return emptyHistory(name), &Info{Format: Empty}, nil
	case SQL:
		return nil, nil, sqljsonl.NotKeyValueError(name, true)
	case JSONL, Text:
		read := jsonl.Read
		if f == Text {
			read = text.Read
		}
		h, err := read(m, br, name, size, sk.lines, sk.offset)
		if err != nil {
			return nil, nil, err
		}
		return h, &Info{Format: f}, nil
	case DBCop:
		h, hdr, failed, err := dbcop.Read(m, br, name, size)
		if err != nil {
			return nil, nil, err
		}
		return h, &Info{Format: DBCop, FailedEvents: failed, DBCop: hdr}, nil
	case EDN, ElleJSON:
		read := jepsen.ReadEDN
		if f == ElleJSON {
			read = jepsen.ReadElleJSON
		}
		h, s, err := read(m, br, name, size)
		if err != nil {
			return nil, nil, err
		}
		return h, jepsenInfo(f, s), nil
	case Cobra: // a single log, detected
		h, err := cobra.ReadLog(br, name)
		if err != nil {
			return nil, nil, err
		}
		return h, &Info{Format: Cobra}, nil
	}
	return nil, nil, fmt.Errorf("read %s: unknown format %q", name, f)
}

// jepsenInfo describes a Jepsen history read in format f.
func jepsenInfo(f Format, s jepsen.Stats) *Info {
	return &Info{Format: f, SkippedOps: s.SkippedOps, NoProcess: s.NoProcess, NoInvoke: s.NoInvoke, OtherOps: s.OtherOps}
}

// emptyHistory returns a history of no transaction read from name.
func emptyHistory(name string) *history.History {
	return history.NewBuilder(history.Null, name).History()
}

// Write writes h to w in format f, which must be JSONL, Text, DBCop, EDN
// or ElleJSON.
//
// The formats differ in the initial state: null in JSONL, 0 in Text and
// DBCop. Write maps one to the other, key by key, so that the history
// written checks the same as h at every level:
//
//   - To JSONL, when h.Init is not history.Null, reads of h.Init are
//     written as reads of null. A write of h.Init is an error (the checker
//     rejects it too: reads of it would be ambiguous).
//   - To Text and DBCop, whose keys and values are integers (from 0 to
//     2^63-1 in Text, to 2^64-1 in DBCop), h.Init is written as 0, and
//     every value that is an integer the format holds (other than 0 when
//     h.Init is not 0) as itself. Each other value of a key (a string, an
//     integer out of range, 0 when h.Init is not 0) is written, in order of
//     first appearance, as the smallest positive integer that no operation
//     on the key has. Likewise keys named by an integer the format holds
//     keep it, and the others get the smallest integers no key has.
//
// These mappings are one-to-one on each key and keep the initial state, so
// that the result checks the same as h at every level; reading it back
// gives h with values and keys renamed where needed. Integers named as
// strings because the native format cannot hold them (|v| >= 2^62) are
// written as the integers they name.
//
// JSONL represents every history a reader of this package produces, except
// sessions without transactions, which it drops.
//
// Text cannot represent transactions of unknown status (aborted ones are
// written with the transaction id -1); it drops transactions without
// operations, and numbers sessions and transactions afresh unless their
// names are distinct non-negative integers. DBCop cannot represent
// transactions of unknown status. Neither holds lists or stated version
// orders: Write refuses such histories. Neither has real time: start and end
// times are dropped, so that the history written cannot violate strict
// serializability (SSER) other than as it violates serializability.
//
// EDN and ElleJSON write each transaction as an invocation and its
// completion (:ok, :fail, or :info for unknown status), with lists as
// appends and list reads; reads of h.Init are reads of nil. Sessions
// become integer processes (those named by integers keep their number),
// ids the :index of completions when they are distinct non-negative
// integers. Start and end times are written when every transaction has
// them (an unknown one needs no end), and else none is, so that real time
// reads back as it was or not at all. A Jepsen reader keeps only the
// writes of aborted and unknown transactions, and cannot hold stated
// version orders (history.History.Orders): writing a history with some is
// an error.
func Write(w io.Writer, h *history.History, f Format) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	var err error
	switch f {
	case JSONL:
		err = jsonl.Write(bw, h)
	case Text:
		err = text.Write(bw, h)
	case DBCop:
		err = dbcop.Write(bw, h)
	case EDN:
		err = jepsen.WriteEDN(bw, h)
	case ElleJSON:
		err = jepsen.WriteElleJSON(bw, h)
	case SQL:
		return fmt.Errorf("cannot write a key-value history in the sql format, which records SQL queries and the rows they returned: write jsonl, text, dbcop, edn or elle-json")
	default:
		return fmt.Errorf("cannot write format %q (want jsonl, text, dbcop, edn or elle-json)", f)
	}
	if err != nil {
		return err
	}
	return bw.Flush()
}
