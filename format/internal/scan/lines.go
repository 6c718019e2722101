package scan

import (
	"bufio"
	"io"
	"strconv"
	"unicode/utf8"
	"unsafe"

	"github.com/isocheck/isocheck/internal/textsafe"
)

// MaxLineLen caps the length of one line of a text format, and of one
// record of a binary format: a longer one is an error, so that no input,
// however hostile (such as /dev/zero), makes a reader hold more than about
// this much beyond the history it builds.
const MaxLineLen = 64 << 20

// LineReader reads the lines of a text input without copying them, except
// lines longer than its buffer.
type LineReader struct {
	Br      *bufio.Reader
	Name    string
	Line    int    // number of the line last returned
	off     int64  // byte offset of the line last returned
	NextOff int64  // byte offset of the next line
	Max     int    // longest line accepted, in bytes
	long    []byte // holds a line longer than br's buffer
	last    []byte // the line nextContent returned last
	Pending bool   // nextContent returns last again
}

func NewLineReader(br *bufio.Reader, name string) *LineReader {
	return &LineReader{Br: br, Name: name, Max: MaxLineLen}
}

// NewLineReaderAt is NewLineReader for an input of which line lines and
// offset bytes were read already (blank lines that detecting the format
// skipped), so that errors name the lines and offsets of the input.
func NewLineReaderAt(br *bufio.Reader, name string, line int, offset int64) *LineReader {
	lr := NewLineReader(br, name)
	lr.Line, lr.NextOff = line, offset
	return lr
}

// tooLong is the error of a line longer than lr.max.
func (lr *LineReader) tooLong() error {
	return LineError(lr.Name, lr.Line+1, "line longer than %d bytes (it starts at byte offset %d)", lr.Max, lr.NextOff)
}

// Next returns the next line without its '\n', valid until the next call,
// or io.EOF after the last line.
func (lr *LineReader) Next() ([]byte, error) {
	lr.long = lr.long[:0]
	for {
		s, err := lr.Br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			if len(lr.long)+len(s) > lr.Max {
				return nil, lr.tooLong()
			}
			lr.long = appendLong(lr.long, s, lr.Max)
			continue
		}
		if len(lr.long) > 0 {
			lr.long = appendLong(lr.long, s, lr.Max+1)
			s = lr.long
		}
		if err != nil && err != io.EOF {
			return nil, &Error{File: lr.Name, Line: lr.Line + 1, Msg: "read error: " + err.Error(), Err: err}
		}
		if err == io.EOF && len(s) == 0 {
			return nil, io.EOF
		}
		n := len(s)
		if err == nil {
			s = s[:len(s)-1]
		}
		if len(s) > lr.Max {
			return nil, lr.tooLong()
		}
		lr.Line++
		lr.off = lr.NextOff
		lr.NextOff += int64(n)
		return s, nil
	}
}

// appendLong appends s to long, doubling its capacity (up to limit) when it
// needs room: append grows large slices by a quarter, which would allocate
// five times the longest line in all.
func appendLong(long, s []byte, limit int) []byte {
	if n := len(long) + len(s); n > cap(long) {
		c := min(max(2*cap(long), n, 4096), max(limit, n))
		long = append(make([]byte, 0, c), long...)
	}
	return append(long, s...)
}

// NextContent returns the next line that is not blank, without a byte
// order mark on the first line.
func (lr *LineReader) NextContent() ([]byte, error) {
	if lr.Pending {
		lr.Pending = false
		return lr.last, nil
	}
	for {
		line, err := lr.Next()
		if err != nil {
			return nil, err
		}
		if lr.Line == 1 && len(line) >= 3 && line[0] == 0xEF && line[1] == 0xBB && line[2] == 0xBF {
			line = line[3:] // byte order mark
		}
		if !IsBlank(line) {
			lr.last = line
			return line, nil
		}
	}
}

// Unread makes the next call of nextContent return the line the last one
// returned.
func (lr *LineReader) Unread() { lr.Pending = true }

// IsBlank reports whether s holds only spaces, tabs, carriage returns and
// newlines.
func IsBlank(s []byte) bool {
	for _, c := range s {
		if !IsSpace(c) {
			return false
		}
	}
	return true
}

// maxQuote is how many bytes of a token or snippet an error message quotes.
const maxQuote = 40

// Snippet quotes s for an error message: whole if it is short, else its
// first bytes followed by "…" and its length.
func Snippet(s []byte) string {
	if len(s) <= maxQuote {
		return strconv.Quote(string(s))
	}
	cut := maxQuote
	for cut > maxQuote-utf8.UTFMax && cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strconv.Quote(string(s[:cut])) + "… (" + strconv.Itoa(len(s)) + " bytes)"
}

// Quote is snippet for a string.
func Quote(s string) string {
	if len(s) <= maxQuote {
		return strconv.Quote(s)
	}
	cut := maxQuote
	for cut > maxQuote-utf8.UTFMax && cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strconv.Quote(s[:cut]) + "… (" + strconv.Itoa(len(s)) + " bytes)"
}

// Cut is snippet without the quotes, for text that needs none (numbers,
// values and keys already formatted).
func Cut(s string) string {
	if len(s) <= maxQuote {
		return textsafe.Escape(s)
	}
	n := maxQuote
	for n > maxQuote-utf8.UTFMax && n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return textsafe.Escape(s[:n]) + "… (" + strconv.Itoa(len(s)) + " bytes)"
}

// NameArena makes strings (transaction ids, names) out of chunks of
// memory shared by many of them, rather than allocating each: the readers
// make one per transaction, and allocating them one by one costs a tenth
// of reading a dbcop or text history (measured), and the garbage
// collector as many objects to scan.
type NameArena struct {
	buf []byte // the free tail of the current chunk
}

// arenaChunk is the size of a nameArena's chunks.
const arenaChunk = 32 << 10

// Bytes returns b as a string.
func (a *NameArena) Bytes(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if len(b) > arenaChunk/8 {
		return string(b)
	}
	if cap(a.buf)-len(a.buf) < len(b) {
		a.buf = make([]byte, 0, arenaChunk)
	}
	start := len(a.buf)
	a.buf = append(a.buf, b...)
	// The bytes are never written again: a.buf only grows past them.
	return unsafe.String(&a.buf[start], len(b))
}

// Int returns the decimal form of n.
func (a *NameArena) Int(n int64) string {
	if cap(a.buf)-len(a.buf) < 20 {
		a.buf = make([]byte, 0, arenaChunk)
	}
	start := len(a.buf)
	a.buf = strconv.AppendInt(a.buf, n, 10)
	return unsafe.String(&a.buf[start], len(a.buf)-start)
}
