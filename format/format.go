// Package format reads and writes histories in the formats isocheck understands.
//
// The formats are:
//
//   - [JSONL], isocheck's native format, described below.
//   - [Text], the text format of the PolySI checker: one operation per line,
//     r(key,value,session,txn) or w(key,value,session,txn), all
//     non-negative decimal integers. Transaction ids are global; a
//     transaction's operations are its lines, in order. The initial value
//     of every key is 0.
//   - [DBCop], the binary (bincode) format of the dbcop tool. The initial
//     value is 0. Transactions that failed are read as aborted; events that
//     failed inside a transaction are dropped, as PolySI and dbcop do, and
//     counted in [Info.FailedEvents].
//   - [Cobra], the log directories of the Cobra checker: one T<n>.log file
//     per session. Writes and reads get the write's unique id as their
//     value, so that reads-from is exact; the initial value is 0.
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
//     default its line number.
//   - status: "committed" (the default), "aborted" or "unknown".
//   - ops (required): the operations in program order, each ["r", key,
//     value] (a read that returned value) or ["w", key, value]. A key is a
//     string or an integer (again 1 and "1" are the same key). A value is an
//     integer v with |v| < 2^62, a string, or null: a read of null saw no
//     write, which is the initial state of every key. Writes cannot write
//     null.
//   - start, end: optional integers bounding the transaction in real time;
//     end must not be before start.
//
// Blank lines are ignored; unknown fields are errors.
//
// # Errors
//
// Every error caused by the content of an input is an [*Error], which gives
// the file and the line (text formats) or byte offset (binary formats) of the
// problem.
package format

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/isocheck/isocheck/history"
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
)

// ParseFormat returns the Format named by s. Besides the names of the
// constants it accepts, case-insensitively, "json" for JSONL, "txt" and
// "polysi" for Text, and "bincode" for DBCop.
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
	}
	return "", fmt.Errorf("unknown history format %q (want auto, jsonl, text, dbcop or cobra)", s)
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
	// Format is the format the history was read in (never Auto).
	Format Format
	// FailedEvents maps the index of a DBCop transaction to the number of
	// its events that had success = 0 and were dropped. Transactions without
	// failed events are absent. It is nil for other formats.
	FailedEvents map[int]int
	// DBCop is the header of a DBCop file, nil for other formats.
	DBCop *DBCopHeader
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
// If f is Auto, it detects the format with Detect.
func ReadFile(path string, f Format) (*history.History, error) {
	h, _, err := ReadFileInfo(path, f)
	return h, err
}

// ReadFileInfo is like ReadFile but also describes the input.
func ReadFileInfo(path string, f Format) (*history.History, *Info, error) {
	if f == Auto && !isRegularOrDir(path) {
		// A pipe (such as /dev/stdin) can be read once only: detect the
		// format from the buffered content instead of opening it twice.
		file, err := os.Open(path)
		if err != nil {
			return nil, nil, err
		}
		defer file.Close()
		return read(file, path, Auto)
	}
	if f == Auto {
		var err error
		if f, err = Detect(path); err != nil {
			return nil, nil, err
		}
	}
	switch f {
	case JSONL, Text, DBCop:
	case Cobra:
		return readCobra(path)
	default:
		return nil, nil, fmt.Errorf("read %s: unknown format %q", path, f)
	}
	file, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer file.Close()
	if st, err := file.Stat(); err == nil && st.IsDir() {
		return nil, nil, fileError(path, "is a directory, not a %s file", f)
	}
	return read(file, path, f)
}

func isRegularOrDir(path string) bool {
	st, err := os.Stat(path)
	return err != nil || st.Mode().IsRegular() || st.IsDir()
}

// Read reads a history in format f from r; name is the input's name for
// messages and History.Files. If f is Auto, Read detects the format from
// the content (see Detect). Read cannot read Cobra directories; use ReadFile.
func Read(r io.Reader, name string, f Format) (*history.History, error) {
	h, _, err := ReadInfo(r, name, f)
	return h, err
}

// ReadInfo is like Read but also describes the input.
func ReadInfo(r io.Reader, name string, f Format) (*history.History, *Info, error) {
	if f == Cobra {
		return nil, nil, fmt.Errorf("read %s: Cobra histories are directories: use ReadFile", name)
	}
	return read(r, name, f)
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

// bufSize returns the size of the read buffer for r.
func bufSize(r io.Reader) int {
	n := int64(readBufSize)
	switch r := r.(type) {
	case interface{ Len() int }: // bytes.Reader, strings.Reader, bytes.Buffer
		n = int64(r.Len()) + 1
	case *os.File:
		if st, err := r.Stat(); err == nil && st.Mode().IsRegular() {
			n = st.Size() + 1
		}
	}
	return int(min(max(n, minReadBufSize), readBufSize))
}

func read(r io.Reader, name string, f Format) (*history.History, *Info, error) {
	br := bufio.NewReaderSize(r, bufSize(r))
	if f == Auto {
		head, err := br.Peek(sniffLen)
		if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
			return nil, nil, &Error{File: name, Offset: 0, Msg: "read error: " + err.Error(), Err: err}
		}
		f, err = sniff(name, head, false)
		if err != nil {
			return nil, nil, err
		}
	}
	var (
		h    *history.History
		info = &Info{Format: f}
		err  error
	)
	switch f {
	case JSONL:
		h, err = readJSONL(br, name, inputSize(r))
	case Text:
		h, err = readText(br, name)
	case DBCop:
		h, info, err = readDBCop(br, name)
	case Cobra:
		return nil, nil, fmt.Errorf("read %s: Cobra histories are directories: use ReadFile", name)
	default:
		return nil, nil, fmt.Errorf("read %s: unknown format %q", name, f)
	}
	if err != nil {
		return nil, nil, err
	}
	return h, info, nil
}

// Write writes h to w in format f, which must be JSONL, Text or DBCop.
//
// JSONL represents every history a reader of this package produces, except
// sessions without transactions, which it drops. When h.Init is not
// history.Null, reads of h.Init are written as null reads, and a write of
// h.Init is an error.
//
// Text and DBCop represent only histories with integer keys and values whose
// initial value is 0. Text also requires every transaction to have
// committed; it drops transactions without operations. DBCop cannot
// represent transactions of unknown status.
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
	default:
		return fmt.Errorf("cannot write format %q (want jsonl, text or dbcop)", f)
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
//   - a file whose first bytes parse as a dbcop header (sane little-endian
//     counts followed by length-prefixed UTF-8 strings) is DBCop;
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
	head := make([]byte, sniffLen)
	n, err := io.ReadFull(file, head)
	if err != nil && err != io.EOF && !errors.Is(err, io.ErrUnexpectedEOF) {
		return "", &Error{File: path, Offset: 0, Msg: "read error: " + err.Error(), Err: err}
	}
	return sniff(path, head[:n], strings.HasSuffix(filepath.Base(path), ".log"))
}

// sniff guesses the format of an input from its first bytes. A Cobra log
// is recognised only if isLog.
func sniff(name string, head []byte, isLog bool) (Format, error) {
	if len(head) == 0 {
		return "", fileError(name, "cannot detect the format of an empty input")
	}
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
			return JSONL, nil
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
	return "", fileError(name, "cannot detect the format: not a dbcop bincode file, and the first line is neither a JSON object nor r(...)/w(...); give the format explicitly")
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }
