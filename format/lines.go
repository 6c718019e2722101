package format

import (
	"bufio"
	"io"
	"strconv"
)

// maxLineLen caps the length of one line of a text format.
const maxLineLen = 64 << 20

// lineReader reads the lines of a text input without copying them, except
// lines longer than its buffer.
type lineReader struct {
	br   *bufio.Reader
	name string
	line int    // number of the line last returned
	max  int    // longest line accepted, in bytes
	long []byte // holds a line longer than br's buffer
}

func newLineReader(br *bufio.Reader, name string) *lineReader {
	return &lineReader{br: br, name: name, max: maxLineLen}
}

// next returns the next line without its '\n', valid until the next call,
// or io.EOF after the last line.
func (lr *lineReader) next() ([]byte, error) {
	lr.long = lr.long[:0]
	for {
		s, err := lr.br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			if len(lr.long)+len(s) > lr.max {
				return nil, lineError(lr.name, lr.line+1, "line longer than %d bytes", lr.max)
			}
			lr.long = append(lr.long, s...)
			continue
		}
		if len(lr.long) > 0 {
			lr.long = append(lr.long, s...)
			s = lr.long
		}
		if err != nil && err != io.EOF {
			return nil, &Error{File: lr.name, Line: lr.line + 1, Msg: "read error: " + err.Error(), Err: err}
		}
		if err == io.EOF && len(s) == 0 {
			return nil, io.EOF
		}
		lr.line++
		if err == nil {
			s = s[:len(s)-1]
		}
		if len(s) > lr.max {
			return nil, lineError(lr.name, lr.line, "line longer than %d bytes", lr.max)
		}
		return s, nil
	}
}

// isBlank reports whether s holds only spaces, tabs and carriage returns.
// nextContent returns the next line that is not blank, without a byte
// order mark on the first line.
func (lr *lineReader) nextContent() ([]byte, error) {
	for {
		line, err := lr.next()
		if err != nil {
			return nil, err
		}
		if lr.line == 1 && len(line) >= 3 && line[0] == 0xEF && line[1] == 0xBB && line[2] == 0xBF {
			line = line[3:] // byte order mark
		}
		if !isBlank(line) {
			return line, nil
		}
	}
}

func isBlank(s []byte) bool {
	for _, c := range s {
		if !isSpace(c) {
			return false
		}
	}
	return true
}

// snippet quotes the start of s for an error message.
func snippet(s []byte) string {
	const max = 60
	if len(s) > max {
		return strconv.Quote(string(s[:max])) + "..."
	}
	return strconv.Quote(string(s))
}
