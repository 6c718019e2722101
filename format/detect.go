package format

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/isocheck/isocheck/format/cobra"
	"github.com/isocheck/isocheck/format/dbcop"
	"github.com/isocheck/isocheck/format/internal/scan"
)

// Detecting the format of an input from its first bytes. The readers
// detect the format of an input asked to be read with Auto as Detect does,
// from the bytes they buffer, so that an input that can be read only once
// (a pipe) is read once.

// sniffLen is how many bytes Detect looks at.
const sniffLen = 64 << 10

// Detect guesses the format of the file or directory at path from its
// content:
//
//   - a directory holding T*.log files is Cobra;
//   - a file that is empty or blank (only spaces, tabs, carriage returns
//     and newlines, after an optional UTF-8 byte order mark) is Empty;
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
// It returns an *Error if the content matches none of them. DetectBytes
// says the same of bytes, and Resolve of the input a command is given.
func Detect(path string) (Format, error) {
	st, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	return detectFile(path, st)
}

// detectFile is Detect of the file or directory at path, of FileInfo st.
func detectFile(path string, st os.FileInfo) (Format, error) {
	if st.IsDir() {
		logs, err := cobra.Logs(path)
		if err != nil {
			return "", err
		}
		if len(logs) == 0 {
			return "", scan.FileError(path, "cannot detect the format: directory holds no Cobra T*.log files")
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

// DetectBytes says which format data, an input named name or its start,
// is in, as Detect says it of a file: Empty when data is blank, SQL for a
// SQL history, and so on. It looks at the first 64 KiB of data (further
// only past blank lines), and recognises a Cobra log only when name ends
// in ".log".
func DetectBytes(name string, data []byte) (Format, error) {
	f, _, err := detectStream(bufio.NewReaderSize(bytes.NewReader(data), sniffLen), name)
	return f, err
}

// Resolve returns the format to read the input at path in when f is asked
// for: f itself unless it is Auto, and for Auto the format Detect finds in
// a regular file or a directory (SQL for a SQL history, which sqljsonl.ReadFile
// reads, and not ReadFile). An input of another kind (a pipe, a device)
// can be read only once: Resolve leaves it to the reader, which detects
// its format as it reads, and returns Auto.
func Resolve(path string, f Format) (Format, error) {
	if f != Auto {
		return f, nil
	}
	st, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	if !st.IsDir() && !st.Mode().IsRegular() {
		return Auto, nil
	}
	return detectFile(path, st)
}

// skipped counts the lines and bytes of an input that detecting its
// format read past: the blank lines before its first line that is not.
type skipped struct {
	lines  int
	offset int64
}

// detectStream detects the format of the input in br from its first bytes.
// When they are all blank, it discards blank lines up to the first line
// that is not, which stays in br, and returns how much it skipped.
func detectStream(br *bufio.Reader, name string) (Format, skipped, error) {
	var sk skipped
	n := min(sniffLen, br.Size())
	head, err := br.Peek(n)
	if err != nil && err != io.EOF {
		return "", sk, &scan.Error{File: name, Offset: 0, Msg: "read error: " + err.Error(), Err: err}
	}
	if !scan.IsBlankInput(head) {
		f, err := sniff(name, head, isLogName(name))
		return f, sk, err
	}
	if len(head) < n {
		return Empty, sk, nil // all of the input is blank
	}
	// A long run of blank lines: only text formats start that way. Look
	// a buffer at a time for the first byte that is not blank, and discard
	// the whole lines before it.
	for {
		p, err := br.Peek(br.Size())
		if err != nil && err != io.EOF {
			return "", sk, &scan.Error{File: name, Offset: sk.offset, Msg: "read error: " + err.Error(), Err: err}
		}
		from := 0
		if sk.offset == 0 && bytes.HasPrefix(p, byteOrderMark) {
			from = len(byteOrderMark)
		}
		i := from
		for i < len(p) && scan.IsSpace(p[i]) {
			i++
		}
		if i == len(p) {
			if err == io.EOF {
				return Empty, sk, nil
			}
			sk.lines += bytes.Count(p, newline)
			sk.offset += int64(len(p))
			br.Discard(len(p))
			continue
		}
		start := bytes.LastIndexByte(p[:i], '\n') + 1
		line := sk.lines + bytes.Count(p[:start], newline) + 1
		f, err := sniff(name, p[start:], false)
		if err != nil {
			e := err.(*scan.Error)
			e.Line = line
			return "", sk, e
		}
		if f != JSONL && f != Text && f != SQL {
			return "", sk, scan.LineError(name, line, "cannot detect the format: a %s input cannot start with blank lines", f)
		}
		sk.lines = line - 1
		sk.offset += int64(start)
		br.Discard(start)
		return f, sk, nil
	}
}

var (
	byteOrderMark = []byte{0xEF, 0xBB, 0xBF}
	newline       = []byte{'\n'}
)

func isLogName(name string) bool { return strings.HasSuffix(filepath.Base(name), ".log") }

// sniff guesses the format of an input from its first bytes. A Cobra log
// is recognised only if isLog.
func sniff(name string, head []byte, isLog bool) (Format, error) {
	if dbcop.LooksLike(head) {
		return DBCop, nil
	}
	if isLog && cobra.LooksLike(head) {
		return Cobra, nil
	}
	s := head
	if len(s) >= 3 && s[0] == 0xEF && s[1] == 0xBB && s[2] == 0xBF {
		s = s[3:]
	}
	i := 0
	for i < len(s) && scan.IsSpace(s[i]) {
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
	return "", scan.FileError(name, "cannot detect the format: not a dbcop bincode file, and the first line is neither a JSON object, nor r(...)/w(...), nor a Jepsen EDN history; give the format explicitly")
}

// sniffJepsen tells a Jepsen history, EDN or ElleJSON, from the start of
// an input s, past blanks.
func sniffJepsen(s []byte) (Format, bool) {
	skip := func(s []byte) []byte {
		for len(s) > 0 && (scan.IsSpace(s[0]) || s[0] == ',') {
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

// sniffSQL reports whether s, which starts with '{', starts a line of a SQL
// history: whether the object has a field "events" or "init", among those
// before the end of s or of its first line.
func sniffSQL(s []byte) bool {
	if i := slices.Index(s, '\n'); i >= 0 {
		s = s[:i]
	}
	p := &scan.Scanner{S: s}
	p.Eat('{')
	for {
		p.Ws()
		name, err := p.Str()
		if err != nil {
			return false
		}
		if string(name) == "events" || string(name) == "init" {
			return true
		}
		p.Ws()
		if !p.Eat(':') || !p.SkipValue() {
			return false
		}
		p.Ws()
		if !p.Eat(',') {
			return false
		}
	}
}
