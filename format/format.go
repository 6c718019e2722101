// Package format reads and writes histories in the formats isocheck understands.
//
// The formats are:
//
//   - [JSONL], isocheck's native format, described below.
//   - [Text], the text format of the PolySI checker: one operation per line,
//     r(key,value,session,txn) or w(key,value,session,txn), all
//     non-negative decimal integers but txn, which may be -1. Transaction
//     ids are global; a transaction's operations are its lines, in order,
//     and a session's transactions come in the order of their first lines.
//     The initial value of every key is 0. As in Plume's and AWDIT's
//     files, the operations of aborted transactions have the id -1: the -1
//     operations of a session that follow the same transaction of the
//     session (no other of its transactions starting between them) are one
//     aborted transaction, which has no id. Write writes aborted
//     transactions so; two adjacent in a session read back as one. As in
//     IsoVista's files, a history may start with a transaction that writes
//     the initial value 0 to every key: a first transaction (that of the
//     first line) that only writes 0 is the initial state, and is dropped
//     (its writes would otherwise repeat the initial value, an input
//     error); Write puts such a transaction before a history whose first
//     transaction only writes 0, so that it reads back as it was. The
//     format holds neither lists nor stated version orders.
//   - [DBCop], the binary (bincode) format of the dbcop tool. The initial
//     value is 0. Transactions that failed are read as aborted; events that
//     failed inside a transaction are dropped, as PolySI and dbcop do, and
//     counted in [Info.FailedEvents].
//   - [Cobra], the log directories of the Cobra checker: one T<n>.log file
//     per session, each a regular file. Transaction ids and write ids must
//     be unique across the directory. Writes and reads get the values of
//     the file, and a read names the write it saw: the reader checks that
//     this write exists in the transaction named, is of the read's key and
//     wrote the value read, so that reads-from stays exact; a read that
//     disagrees with its write is an error at its byte offset. On a key
//     where values cannot tell writes apart (two writes of one value, a
//     write of 0, or a read of a write no log holds with a value some
//     write of the key wrote, or 0), every operation gets the write's id
//     as its value instead. The initial value is 0: reads of Cobra's
//     initial state read 0, whatever value the file gives (the reads of
//     one key must give the same).
//   - [EDN], the history.edn of Jepsen and its checker Elle, and
//     [ElleJSON], elle-cli's JSON form of the same: one event (an op map)
//     a line, or all of them in one vector (array), as described below
//     under "Jepsen histories".
//   - [SQL], histories of SQL transactions (package sqlhistory), one JSON
//     transaction per line, as described below under "SQL histories".
//     They are not key-value histories: [ReadSQL] and [WriteSQL] read and
//     write them, and ReadFile and Read refuse them.
//
// Integers of the text and binary formats that the native format cannot
// hold as integers (|v| >= 2^62) are read as named values, the decimal
// number as a string, and written back as integers; keys above 2^63-1 are
// named keys, their name the decimal number.
//
// # The native format
//
// A JSONL history holds one transaction per line:
//
//	{"session": 0, "id": "t7", "status": "committed", "ops": [["r","x",null],["w","x",5]], "start": 120, "end": 135}
//
// The lines of a session, in file order, are its transactions in session
// order. The fields are:
//
//   - session (required): an integer or a string; 1 and "1" are the same.
//   - id: a string or an integer naming the transaction in reports; by
//     default its line number. No two transactions may have the same id
//     (given, or by default); "" and null mean no id at all, and then the
//     transaction is named by its index in reports.
//   - status: "committed" (the default), "aborted" or "unknown".
//   - ops (required): the operations in program order, each ["r", key,
//     value] (a read that returned value) or ["w", key, value]. A key is a
//     string or an integer (again 1 and "1" are the same key). A value is an
//     integer, a string, or null: a read of null saw no write, which is the
//     initial state of every key. Writes cannot write null.
//   - start, end: optional integers bounding the transaction in real time;
//     end must not be before start.
//
// Integers (values, keys, sessions, ids) go from -2^63 to 2^64-1. Values
// v with |v| >= 2^62 are named values (see history.Value), as in the text
// and binary formats: v and the string of its decimal digits are the same
// value, and the writer writes such a value as the integer. A number
// outside that range, or with a fraction or exponent, is an error.
//
// # Lists and version orders
//
// A history of lists (Elle's list-append workload; history.History.Lists)
// appends to keys and reads whole lists:
//
//	{"session": 1, "ops": [["append", "x", 3], ["r", "x", [1, 2, 3]], ["r", "y", null]]}
//
// ["append", key, value] appends value to the key's list (a write, to the
// checker), and ["r", key, [v1, v2, ...]] is a read that returned the
// list, first appended first; ["r", key, null] and ["r", key, []] read the
// empty list, the initial state. A history holds either lists or
// registers: a "w" or a read of a single value in a history that appends
// or reads a list (or the other way round) is an error that names the line
// that first did the other. Reads of null fit both; a history without
// appends or reads of arrays holds registers. The writer writes the empty
// lists of a history of lists as [].
//
// A line can also state the version order of a key instead of holding a
// transaction:
//
//	{"key": "x", "order": [1, 2, 3]}
//
// says that the writes of 1, 2 and 3 to x were installed in that order,
// the write of 1 first after the initial state, and every other write of x
// after them (history.VersionOrder); it holds for registers and lists
// alike. Its values must be distinct and written to the key by the
// history. A key has at most one stated order; the line may come anywhere
// (the writer puts orders after the transactions).
//
// Blank lines are ignored; unknown fields are errors.
//
// # Jepsen histories
//
// A Jepsen history (EDN) holds events:
//
//	{:type :invoke, :f :txn, :value [[:r :x nil] [:w :y 2]], :process 3, :time 12345, :index 7}
//
// and the same in JSON (ElleJSON), with strings for keywords:
//
//	{"type": "ok", "f": "txn", "value": [["append", 3, 2], ["r", 3, [1, 2]]], "process": 0, "time": 9, "index": 8}
//
// Each :invoke of a process pairs with the same process's next
// completion. A transaction completed :ok committed, with the completion's
// micro-ops; one completed :fail aborted, and one completed :info, or
// never completed, has unknown status: of those only the writes and
// appends are kept (from the :fail completion, or else the invocation),
// since their reads returned nothing to check. :process is the session;
// events of other processes (:nemesis, any process that is not an integer)
// are skipped and counted in [Info.SkippedOps]. A transaction is an
// operation of :f :txn, or of no :f; the client operations of other
// functions (:read, :write, :cas of a register test mixed in) are counted
// in [Info.OtherOps], not read, and a history of nothing else is an error.
// A completion's :f, when given, must be its invocation's. A transaction
// starts at its invocation's :time and ends at its :ok or :fail
// completion's; one of unknown status has no end (it may take effect any
// time later). Where :time is missing, :index is the clock instead, if
// every event has one; with neither, there is no real time. A
// transaction's id is the :index of its completion (of its invocation if
// it has none), its position the line of its completion.
//
// Histories written by hand (Elle's tests, elle-cli's examples) may leave
// out what Jepsen records. A completion without an invocation (a history
// of completions alone) is a transaction whose invocation is unknown: it
// has no start, so real-time order relates it to no other (strict
// serializability checks it as serializability does); such completions
// are counted in [Info.NoInvoke]. Events without :process are counted in
// [Info.NoProcess]: an invocation without :process pairs with the next
// event without :process if that is a completion (two such invocations
// in a row are an error), a completion without :process and without such
// an invocation stands alone, and each transaction of them is a session
// of its own, named "no-process-" and the line of its last event: no
// session order relates it to another.
//
// [ReadRegisterOps] reads the register operations of the same events
// instead: :read, :write and :cas.
//
// The micro-ops are those of Elle's two workloads: rw-register, [:r k v]
// and [:w k v], whose initial value is null (a read of nil saw no write),
// and list-append, [:append k v] and [:r k [v1 v2 ...]] ([:r k nil] is an
// empty list), read as a history of lists (history.History.Lists). A
// history mixing writes and appends is an error. Keys and values are
// integers, keywords (named with their colon, ":x") or strings.
// Tagged records (#jepsen.history.Op{...}) are read as their maps;
// comments and #_ discards are skipped.
//
// # SQL histories
//
// A SQL history (Bouajjani, Enea and Román-Calvo, "On the Complexity of
// Checking Mixed Isolation Levels for SQL Transactions", CAV 2025, §2)
// holds transactions of SELECT, INSERT, UPDATE and DELETE statements
// (events) over tables of rows with a primary key, each transaction at its
// own isolation level. It is JSONL:
// one JSON object a line, blank lines ignored. Lines with the single field
// "init" declare the initial rows; there may be any number of them, before
// the first transaction:
//
//	{"init": [{"table": "kv", "key": 1, "id": "init-1", "row": {"k": 1, "v": 0}}]}
//
// Each other line is a transaction:
//
//	{"session": 0, "id": "t1", "level": "SER", "status": "committed", "events": [
//	  {"select": "kv", "where": "k = 1 OR v > 3", "rows": [{"key": 1, "id": "init-1"}]},
//	  {"insert": "kv", "rows": [{"key": 2, "id": "t1-a", "row": {"k": 2, "v": 5}}]},
//	  {"update": "kv", "where": "v < 3", "rows": [{"key": 1, "read": "init-1", "id": "t1-b", "row": {"k": 1, "v": 3}}]},
//	  {"delete": "kv", "where": "v = 5", "rows": [{"key": 2, "read": "t1-a"}]}]}
//
// (on one line in a file). The lines of a session, in file order, are its
// transactions in session order. The fields of a transaction are:
//
//   - session (required): an integer or a string; 1 and "1" are the same.
//   - id: a string naming the transaction in reports; by default T and its
//     index, from T0. No two transactions may have the same id (given, or
//     by default).
//   - level (required): its isolation level, SER, SI, PC, CC, RA or RC
//     (or a long name such as "serializable" or "read-committed").
//   - status: "committed" (the default), "aborted" or "unknown".
//   - events (required): its statements in program order.
//
// An event has exactly one of the fields select, insert, update and
// delete, whose value is the table; where, its predicate (absent: every
// row of the table; an insert has none); rows (required, maybe []); and
// text, the statement as sent, for reports only. A row of an event has
// key, the row's primary key: a string, a number or an array of those,
// whose canonical text is the string, the number as written, or the
// array's compact JSON encoding (so 1 and "1" are the same key, but 1 and
// 1.0 are not); and, by the kind of the event:
//
//   - select: id, the version of the row the select returned, and
//     optionally row, its content, which must agree with what the version's
//     writer wrote. A select names only the rows it returned: that no other
//     row satisfied the predicate is left for the checker to explain.
//   - insert: id, the version it wrote, and row, its content. An insert
//     reads nothing; it inserts or replaces the row.
//   - update: read, the version the update matched, id, the version it
//     wrote, and row, the new content. An update names the rows it
//     matched, only.
//   - delete: read, the version the delete matched, and optionally id, the
//     name of the deletion (by default one is made up).
//
// Versions are named by write ids, unique in the history: an initial row,
// an insert or an update writes a version of the name given, and a read
// names one. A read of a version nobody wrote is a read from thin air,
// left for the checker to report. The content of a row (row) is an object
// of its columns: each value a string, a number (an integer from -2^63 to
// 2^63-1 if written without fraction or exponent, else a float), a
// boolean or null.
//
// A predicate (where) is SQL's WHERE clause, as package predicate reads
// it: comparisons (=, <> or !=, <, <=, >, >=) of columns and constants
// (integers, decimals, 'strings', TRUE, FALSE, NULL), col [NOT] IN (v1,
// v2, ...), col [NOT] BETWEEN lo AND hi and col IS [NOT] NULL, combined
// with AND, OR, NOT and parentheses. It has SQL's three-valued logic: a
// comparison with NULL (a missing column is NULL) or of values of
// incomparable kinds is unknown, and a row satisfies the predicate only
// if it is true. A deleted row satisfies no predicate.
//
// Unknown and duplicate fields are errors, and every error gives the file
// and the line, and the column for one inside a line (and the byte offset
// inside the predicate for a predicate that does not parse). Besides the
// length of a line (see "Limits"), an event or an init line has at most
// 2^20 rows and a transaction at most 2^20 events.
//
// # Empty inputs
//
// An input that is empty or blank (only spaces, tabs, carriage returns and
// newlines, after an optional UTF-8 byte order mark) is a history of no
// transaction in every format, binary ones included (no dbcop file or Cobra
// log can be blank), and also when the format is detected: then
// Info.Format is [Empty]. A Cobra directory whose logs are all empty or
// blank is a history of no transaction too (Info.Format is Cobra; its
// sessions have no transaction), but a directory without any T*.log file
// is an error.
//
// # Limits
//
// Readers hold no more than they must of inputs, which may be hostile: a
// line of a text format, a transaction of a dbcop file and a string of a
// dbcop header are at most 64 MiB, counts of a dbcop file are checked
// against the rest of the input (or, when its size is unknown, a bound)
// before the reader relies on them, and the logs of a Cobra directory must
// be regular files (not FIFOs, devices or directories).
//
// # Errors
//
// Every error caused by the content of an input is an [*Error], which gives
// the file and the line (text formats) or byte offset (binary formats) of the
// problem.
package format

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

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
	// SQL is a SQL history (see "SQL histories" in the package
	// documentation), which is not a key-value history: read it with
	// ReadSQL or ReadSQLFile. ReadFile and Read refuse it, saying so.
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

// Error is an error in the content of an input.
type Error struct {
	// File is the name of the input.
	File string
	// Line is the 1-based line of the error in text formats, 0 otherwise.
	Line int
	// Offset is the byte offset of the error when Line is 0, or -1 when the
	// error concerns the input as a whole.
	Offset int64
	// Msg describes the problem.
	Msg string
	// Err is the underlying error, if any (for example an I/O error).
	Err error
}

// Error renders the error as "file:line: msg", "file: byte offset N: msg"
// or "file: msg".
func (e *Error) Error() string {
	file := e.File
	if file == "" {
		file = "<input>"
	}
	switch {
	case e.Line > 0:
		return file + ":" + strconv.Itoa(e.Line) + ": " + e.Msg
	case e.Offset >= 0:
		return file + ": byte offset " + strconv.FormatInt(e.Offset, 10) + ": " + e.Msg
	}
	return file + ": " + e.Msg
}

// Unwrap returns e.Err.
func (e *Error) Unwrap() error { return e.Err }

func lineError(file string, line int, format string, args ...any) *Error {
	return &Error{File: file, Line: line, Msg: fmt.Sprintf(format, args...)}
}

func offsetError(file string, off int64, format string, args ...any) *Error {
	return &Error{File: file, Offset: off, Msg: fmt.Sprintf(format, args...)}
}

func fileError(file string, format string, args ...any) *Error {
	return &Error{File: file, Offset: -1, Msg: fmt.Sprintf(format, args...)}
}

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
	DBCop *DBCopHeader
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
}

// DBCopHeader is the header of a dbcop bincode file. The counts are the
// parameters the history was generated with.
type DBCopHeader struct {
	ID           uint64
	Nodes        uint64 // number of sessions
	Variables    uint64 // number of variables (keys)
	Transactions uint64 // transactions per session
	Events       uint64 // events per transaction
	Info         string // the database, e.g. "CockroachDB"
	Start, End   string // timestamps of the recording
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
		return readCobra(ctx, path)
	case SQL:
		return nil, nil, errSQL(path, false)
	default:
		return nil, nil, fmt.Errorf("read %s: unknown format %q", path, f)
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, stopError(path, 0, context.Cause(ctx))
	}
	if f == Auto {
		if st, err := os.Stat(path); err == nil && st.IsDir() {
			return readCobra(ctx, path)
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
	return readStream(ctx, file, path, f, size)
}

// openInput opens the file at path, which must not be a directory, and
// returns its size, or -1 when it is not a regular file.
func openInput(path string, f Format) (*os.File, int64, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, 0, err
	}
	if st.IsDir() {
		return nil, 0, fileError(path, "is a directory, not a %s file", f)
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
		return nil, nil, errSQL(name, false)
	default:
		return nil, nil, fmt.Errorf("read %s: unknown format %q", name, f)
	}
	return readStream(ctx, r, name, f, inputSize(r))
}

// readBufSize is the size of the read buffer for large or unknown inputs;
// smaller inputs get a buffer their size, but at least minReadBufSize.
const (
	readBufSize    = 1 << 20
	minReadBufSize = 4 << 10
)

// inputSize returns the size of r when it is known, or -1.
func inputSize(r io.Reader) int64 {
	switch r := r.(type) {
	case interface{ Len() int }: // bytes.Reader, strings.Reader, bytes.Buffer
		return int64(r.Len())
	case *os.File:
		if st, err := r.Stat(); err == nil && st.Mode().IsRegular() {
			return st.Size()
		}
	}
	return -1
}

// bufSize returns the size of the read buffer for an input of size bytes
// (-1 if unknown).
func bufSize(size int64) int {
	n := int64(readBufSize)
	if size >= 0 {
		n = size + 1
	}
	return int(min(max(n, minReadBufSize), readBufSize))
}

// stopReader reads through a progress meter, so that reading fails with
// the meter's reason once its context has ended, and counts the bytes read.
type stopReader struct {
	m *progress.Meter
	r io.Reader
	n int64
}

func newStopReader(m *progress.Meter, r io.Reader) *stopReader {
	return &stopReader{m: m, r: progress.Reader(m, r)}
}

func (s *stopReader) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	s.n += int64(n)
	if err != nil && err != io.EOF {
		// A read interrupted by the deadline set when ctx ended fails
		// with os.ErrDeadlineExceeded: report the context's reason.
		if stop := s.m.Err(); stop != nil {
			err = stop
		}
	}
	return n, err
}

// stopError is the error of a read stopped from outside after n bytes.
func stopError(name string, n int64, cause error) error {
	return fmt.Errorf("read %s: stopped after %d bytes: %w", name, n, cause)
}

// stopped returns err, or a stop error if the reading was stopped from
// outside.
func stopped(name string, sr *stopReader, err error) error {
	if cause := sr.m.Err(); cause != nil {
		return stopError(name, sr.n, cause)
	}
	if progress.Stopped(err) {
		return stopError(name, sr.n, err)
	}
	return err
}

// readStream reads a history in format f (not Cobra) from r, an input of
// size bytes (-1 if unknown).
func readStream(ctx context.Context, r io.Reader, name string, f Format, size int64) (*history.History, *Info, error) {
	m := progress.Start(ctx, "parse", max(size, 0), "bytes")
	sr := newStopReader(m, r)
	h, info, err := readBuffered(m, bufio.NewReaderSize(sr, bufSize(size)), name, f, size)
	if err != nil {
		return nil, nil, stopped(name, sr, err)
	}
	if err := m.Err(); err != nil {
		return nil, nil, stopError(name, sr.n, err)
	}
	return h, info, nil
}

func readBuffered(m *progress.Meter, br *bufio.Reader, name string, f Format, size int64) (*history.History, *Info, error) {
	var lr *lineReader
	if f == Auto {
		var err error
		if f, lr, err = detectStream(br, name); err != nil {
			return nil, nil, err
		}
	}
	switch f {
	case Empty:
		return emptyHistory(name), &Info{Format: Empty}, nil
	case SQL:
		return nil, nil, errSQL(name, true)
	case JSONL, Text:
		if lr == nil {
			lr = newLineReader(br, name)
		}
		var (
			h   *history.History
			err error
		)
		if f == JSONL {
			h, err = readJSONL(m, lr, size)
		} else {
			h, err = readText(m, lr, size)
		}
		if err != nil {
			return nil, nil, err
		}
		return h, &Info{Format: f}, nil
	case DBCop:
		return readDBCop(m, br, name, size)
	case EDN:
		return readEDN(m, br, name, size)
	case ElleJSON:
		return readElleJSON(m, br, name, size)
	case Cobra: // a single log, detected
		b := newCobraBuilder()
		cr := &cobraReader{b: b, ids: make(map[uint64]cobraPlace)}
		if err := cr.readLog(br, name, b.AddFile(name), b.Session(cobraSession(name))); err != nil {
			return nil, nil, err
		}
		return b.History(), &Info{Format: Cobra}, nil
	}
	return nil, nil, fmt.Errorf("read %s: unknown format %q", name, f)
}

// emptyHistory returns a history of no transaction read from name.
func emptyHistory(name string) *history.History {
	return history.NewBuilder(history.Null, name).History()
}

// detectStream detects the format of the input in br from its first bytes.
// When they are all blank, it reads on to the first line that is not and
// returns the line reader positioned on it.
func detectStream(br *bufio.Reader, name string) (Format, *lineReader, error) {
	n := min(sniffLen, br.Size())
	head, err := br.Peek(n)
	if err != nil && err != io.EOF {
		return "", nil, &Error{File: name, Offset: 0, Msg: "read error: " + err.Error(), Err: err}
	}
	if !isBlankInput(head) {
		f, err := sniff(name, head, isLogName(name))
		return f, nil, err
	}
	if len(head) < n {
		return Empty, nil, nil // all of the input is blank
	}
	// A long run of blank lines: only text formats start that way.
	lr := newLineReader(br, name)
	line, err := lr.nextContent()
	if err == io.EOF {
		return Empty, nil, nil
	}
	if err != nil {
		return "", nil, err
	}
	lr.unread()
	f, err := sniff(name, line, false)
	if err != nil {
		e := err.(*Error)
		e.Line = lr.line
		return "", nil, e
	}
	if f != JSONL && f != Text && f != SQL {
		return "", nil, lineError(name, lr.line, "cannot detect the format: a %s input cannot start with blank lines", f)
	}
	return f, lr, nil
}

func isLogName(name string) bool { return strings.HasSuffix(filepath.Base(name), ".log") }

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
// strings because the native format cannot hold them (see the package
// documentation) are written as the integers they name.
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
		err = writeJSONL(bw, h)
	case Text:
		err = writeText(bw, h)
	case DBCop:
		err = writeDBCop(bw, h)
	case EDN:
		err = writeEDN(bw, h)
	case ElleJSON:
		err = writeElleJSON(bw, h)
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

// sniffLen is how many bytes Detect looks at.
const sniffLen = 64 << 10

// Detect guesses the format of the file or directory at path from its
// content:
//
//   - a directory holding T*.log files is Cobra;
//   - a file that is empty or blank (see "Empty inputs" in the package
//     documentation) is Empty;
//   - a file whose first bytes parse as a dbcop header (sane little-endian
//     counts followed by length-prefixed UTF-8 strings) is DBCop;
//   - a file that starts (after blanks) with "[" and a JSON object, or with a
//     JSON object whose first field is one of Jepsen's ("type", "process",
//     "f", "value", "time", "index"), or whose first line is a JSON object
//     with a field "type" and none "ops", is ElleJSON;
//   - a file that starts with an EDN map ("{:"), a vector or list of them,
//     a record ("#jepsen..."), a discarded form ("#_") or a comment (";")
//     is EDN;
//   - a file whose first non-blank line is a JSON object with a field
//     "events" or "init" (among those of the first 64 KiB) is SQL;
//   - a file whose first non-blank line starts with "{" is JSONL;
//   - a file whose first non-blank line starts with "r(" or "w(" is Text;
//   - a file named *.log that starts with a Cobra 'S' record is a Cobra log
//     of a single session.
//
// It returns an *Error if the content matches none of them.
func Detect(path string) (Format, error) {
	st, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	if st.IsDir() {
		logs, err := cobraLogs(path)
		if err != nil {
			return "", err
		}
		if len(logs) == 0 {
			return "", fileError(path, "cannot detect the format: directory holds no Cobra T*.log files")
		}
		return Cobra, nil
	}
	file, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer file.Close()
	f, _, err := detectStream(bufio.NewReaderSize(file, sniffLen), path)
	return f, err
}

// sniff guesses the format of an input from its first bytes. A Cobra log
// is recognised only if isLog.
func sniff(name string, head []byte, isLog bool) (Format, error) {
	if looksLikeDBCop(head) {
		return DBCop, nil
	}
	if isLog && looksLikeCobra(head) {
		return Cobra, nil
	}
	s := head
	if len(s) >= 3 && s[0] == 0xEF && s[1] == 0xBB && s[2] == 0xBF {
		s = s[3:]
	}
	i := 0
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	if i < len(s) {
		switch s[i] {
		case '{':
			if f, ok := sniffJepsen(s[i:]); ok {
				return f, nil
			}
			if sniffEvent(s[i:]) {
				return ElleJSON, nil
			}
			if sniffSQL(s[i:]) {
				return SQL, nil
			}
			return JSONL, nil
		case '[', '(', '#', ';':
			if f, ok := sniffJepsen(s[i:]); ok {
				return f, nil
			}
		case 'r', 'w':
			j := i + 1
			for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
				j++
			}
			if j < len(s) && s[j] == '(' {
				return Text, nil
			}
		}
	}
	return "", fileError(name, "cannot detect the format: not a dbcop bincode file, and the first line is neither a JSON object, nor r(...)/w(...), nor a Jepsen EDN history; give the format explicitly")
}

// sniffJepsen tells a Jepsen history, EDN or ElleJSON, from the start of
// an input s, past blanks.
func sniffJepsen(s []byte) (Format, bool) {
	skip := func(s []byte) []byte {
		for len(s) > 0 && (isSpace(s[0]) || s[0] == ',') {
			s = s[1:]
		}
		return s
	}
	switch s[0] {
	case ';', '#', '(':
		return EDN, true
	case '[':
		t := skip(s[1:])
		if len(t) == 0 || t[0] != '{' {
			return EDN, true // ], a record, a comment, or too long a blank to tell
		}
		if u := skip(t[1:]); len(u) > 0 && (u[0] == '"' || u[0] == '}') {
			return ElleJSON, true
		}
		return EDN, true
	case '{':
		t := skip(s[1:])
		if len(t) == 0 {
			return "", false
		}
		if t[0] == ':' {
			return EDN, true
		}
		if t[0] != '"' {
			return "", false
		}
		end := bytes.IndexByte(t[1:], '"')
		if end < 0 {
			return "", false
		}
		switch string(t[1 : 1+end]) {
		case "type", "process", "f", "value", "time", "index":
			return ElleJSON, true
		}
	}
	return "", false
}

// sniffEvent reports whether the first line of s is a JSON object with a
// field "type" and none "ops": a Jepsen event whose first field is not one
// of those sniffJepsen looks for, which no native transaction can be.
func sniffEvent(s []byte) bool {
	if i := bytes.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(s, &fields) != nil {
		return false
	}
	_, typ := fields["type"]
	_, ops := fields["ops"]
	return typ && !ops
}

// isBlankInput reports whether s holds only blanks, after an optional
// UTF-8 byte order mark.
func isBlankInput(s []byte) bool {
	if len(s) >= 3 && s[0] == 0xEF && s[1] == 0xBB && s[2] == 0xBF {
		s = s[3:]
	}
	return isBlank(s)
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }
