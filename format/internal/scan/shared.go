package scan

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"

	"github.com/isocheck/isocheck/internal/textsafe"
	"github.com/isocheck/isocheck/progress"
)

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
// or "file: msg", with the control characters that the name or the message
// quote from the input escaped (see textsafe.Escape): the error may be
// printed to a terminal.
func (e *Error) Error() string {
	file := e.File
	if file == "" {
		file = "<input>"
	}
	var s string
	switch {
	case e.Line > 0:
		s = file + ":" + strconv.Itoa(e.Line) + ": " + e.Msg
	case e.Offset >= 0:
		s = file + ": byte offset " + strconv.FormatInt(e.Offset, 10) + ": " + e.Msg
	default:
		s = file + ": " + e.Msg
	}
	return textsafe.Escape(s)
}

// Unwrap returns e.Err.
func (e *Error) Unwrap() error { return e.Err }

func LineError(file string, line int, format string, args ...any) *Error {
	return &Error{File: file, Line: line, Msg: fmt.Sprintf(format, args...)}
}

func OffsetError(file string, off int64, format string, args ...any) *Error {
	return &Error{File: file, Offset: off, Msg: fmt.Sprintf(format, args...)}
}

func FileError(file string, format string, args ...any) *Error {
	return &Error{File: file, Offset: -1, Msg: fmt.Sprintf(format, args...)}
}

// readBufSize is the size of the read buffer for large or unknown inputs;
// smaller inputs get a buffer their size, but at least minReadBufSize.
const (
	readBufSize    = 1 << 20
	minReadBufSize = 4 << 10
)

// InputSize returns the size of r when it is known, or -1.
func InputSize(r io.Reader) int64 {
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

// BufSize returns the size of the read buffer for an input of size bytes
// (-1 if unknown).
func BufSize(size int64) int {
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
	N int64
}

func NewStopReader(m *progress.Meter, r io.Reader) *stopReader {
	return &stopReader{m: m, r: progress.Reader(m, r)}
}

func (s *stopReader) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	s.N += int64(n)
	if err != nil && err != io.EOF {
		// A read interrupted by the deadline set when ctx ended fails
		// with os.ErrDeadlineExceeded: report the context's reason.
		if stop := s.m.Err(); stop != nil {
			err = stop
		}
	}
	return n, err
}

// StopError is the error of a read stopped from outside after n bytes.
func StopError(name string, n int64, cause error) error {
	return fmt.Errorf("read %s: stopped after %d bytes: %w", name, n, cause)
}

// Stopped returns err, or a stop error if the reading was stopped from
// outside.
func Stopped(name string, sr *stopReader, err error) error {
	if cause := sr.m.Err(); cause != nil {
		return StopError(name, sr.N, cause)
	}
	if progress.Stopped(err) {
		return StopError(name, sr.N, err)
	}
	return err
}

// IsBlankInput reports whether s holds only blanks, after an optional
// UTF-8 byte order mark.
func IsBlankInput(s []byte) bool {
	if len(s) >= 3 && s[0] == 0xEF && s[1] == 0xBB && s[2] == 0xBF {
		s = s[3:]
	}
	return IsBlank(s)
}

func IsSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

// SkipBlank reports whether the binary input in br is empty or blank (see
// "Empty inputs" in the package documentation). It consumes the input only
// when it is, or when it starts with more blank bytes than a what (such as
// "a dbcop file") can: then it is an error.
func SkipBlank(br *bufio.Reader, name, what string) (bool, error) {
	head, err := br.Peek(br.Size())
	if err != nil && err != io.EOF {
		return false, &Error{File: name, Offset: 0, Msg: "read error: " + err.Error(), Err: err}
	}
	if !IsBlankInput(head) {
		return false, nil
	}
	if len(head) < br.Size() {
		return true, nil
	}
	// Blank bytes at the start of a dbcop input must end before the
	// length of the header's info string (at offset 40), which would
	// otherwise be above 2^59; a Cobra log starts with an 'S'.
	for off := int64(0); ; off++ {
		c, err := br.ReadByte()
		if err == io.EOF {
			return true, nil
		}
		if err != nil {
			return false, &Error{File: name, Offset: off, Msg: "read error: " + err.Error(), Err: err}
		}
		if !IsSpace(c) && !(off < 3 && c == "\xEF\xBB\xBF"[off]) {
			return false, OffsetError(name, off, "not %s: it starts with %d blank bytes", what, off)
		}
	}
}

// MaxNativeInt bounds the integer values of the native format: |v| must be
// below it, so that integers never collide with interned strings
// (history.StringBase) or history.Null.
const MaxNativeInt = 1 << 62

// MaxOps is the most operations a history can hold (Txn.OpStart is an int32).
const MaxOps = math.MaxInt32

// AppendJSONString appends s, valid UTF-8, as a JSON string.
func AppendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		b = append(b, s[start:i]...)
		switch c {
		case '"', '\\':
			b = append(b, '\\', c)
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		default:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
		}
		start = i + 1
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// IntegerNames gives each of n names an integer: its own when it is a
// canonical decimal int64 not taken, else the smallest non-negative one no
// name has.
func IntegerNames(names []string, n int) []int64 {
	out := make([]int64, n)
	used := make(map[int64]bool, n)
	var others []int
	for i := range n {
		name := ""
		if i < len(names) {
			name = names[i]
		}
		v, err := strconv.ParseInt(name, 10, 64)
		if err == nil && strconv.FormatInt(v, 10) == name && !used[v] {
			out[i] = v
			used[v] = true
		} else {
			others = append(others, i)
		}
	}
	next := int64(0)
	for _, i := range others {
		for used[next] {
			next++
		}
		out[i] = next
		used[next] = true
	}
	return out
}

// CanonicalNonNeg parses s if it is the canonical decimal form of a
// non-negative int64.
func CanonicalNonNeg(s string) (int64, bool) {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 || strconv.FormatInt(n, 10) != s {
		return 0, false
	}
	return n, true
}
