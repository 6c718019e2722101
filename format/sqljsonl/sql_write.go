package sqljsonl

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/isocheck/isocheck/format/internal/scan"
	"github.com/isocheck/isocheck/predicate"
	"github.com/isocheck/isocheck/sqlhistory"
)

// Writing SQL histories.

// sqlInitPerLine is how many initial rows Write puts on a line.
const sqlInitPerLine = 100

// Write writes h as a SQL history (specified in docs/formats.md): lines
// of initial rows, then one line per transaction in index order, with
// sessions named by their index. Read reads back h, but for
// History.File and Txn.Line, and for the transactions without a name,
// which it names T and their index. A select's row gives its content only
// where the version is one nobody wrote, and first read there.
func Write(w io.Writer, h *sqlhistory.History) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	var line []byte
	// Initial rows, in the order of their versions.
	var inits []sqlhistory.VersionID
	for id := range h.Versions {
		if h.Versions[id].Writer == sqlhistory.Init {
			inits = append(inits, sqlhistory.VersionID(id))
		}
	}
	for len(inits) > 0 {
		n := min(len(inits), sqlInitPerLine)
		line = append(line[:0], `{"init":[`...)
		for i, id := range inits[:n] {
			v := &h.Versions[id]
			if i > 0 {
				line = append(line, ',')
			}
			if v.Row == nil {
				return fmt.Errorf("write SQL history: initial version %s is a deletion", scan.Quote(v.Name))
			}
			rk := h.Keys[v.Key]
			var err error
			line = append(line, `{"table":`...)
			if line, err = appendSQLString(line, rk.Table); err != nil {
				return err
			}
			line = append(line, `,"key":`...)
			if line, err = appendSQLKey(line, rk.Key); err != nil {
				return err
			}
			line = append(line, `,"id":`...)
			if line, err = appendSQLString(line, v.Name); err != nil {
				return err
			}
			line = append(line, `,"row":`...)
			if line, err = appendSQLRow(line, v.Row); err != nil {
				return err
			}
			line = append(line, '}')
		}
		line = append(line, "]}\n"...)
		if _, err := bw.Write(line); err != nil {
			return err
		}
		inits = inits[n:]
	}
	// The versions nobody wrote whose content the first read gives.
	unwrittenSeen := make(map[sqlhistory.VersionID]bool)
	for ti := range h.Txns {
		var err error
		if line, err = appendSQLTxn(line[:0], h, ti, unwrittenSeen); err != nil {
			return fmt.Errorf("write SQL history: transaction %s: %w", scan.Quote(h.TxnName(ti)), err)
		}
		if _, err := bw.Write(line); err != nil {
			return err
		}
	}
	return bw.Flush()
}

func appendSQLTxn(b []byte, h *sqlhistory.History, ti int, unwrittenSeen map[sqlhistory.VersionID]bool) ([]byte, error) {
	t := &h.Txns[ti]
	var err error
	b = append(b, `{"session":`...)
	if name := h.SessionName(t.Session); isDecimal(name) {
		b = append(b, name...)
	} else if b, err = appendSQLString(b, name); err != nil {
		return nil, err
	}
	if t.Name != "" {
		b = append(b, `,"id":`...)
		if b, err = appendSQLString(b, t.Name); err != nil {
			return nil, err
		}
	}
	if !sqlhistory.ValidLevel(t.Level) {
		return nil, fmt.Errorf("level %v is not one of %v", t.Level, sqlhistory.Levels())
	}
	b = append(b, `,"level":"`...)
	b = append(b, t.Level.String()...)
	b = append(b, '"')
	switch t.Status {
	case sqlhistory.Committed:
	case sqlhistory.Aborted, sqlhistory.Unknown, sqlhistory.RolledBack:
		b = append(b, `,"status":"`...)
		b = append(b, t.Status.String()...)
		b = append(b, '"')
	default:
		return nil, fmt.Errorf("invalid status %v", t.Status)
	}
	b = append(b, `,"events":[`...)
	for ei := range t.Events {
		e := &t.Events[ei]
		if ei > 0 {
			b = append(b, ',')
		}
		switch e.Kind {
		case sqlhistory.Select, sqlhistory.Insert, sqlhistory.Update, sqlhistory.Delete:
		default:
			return nil, fmt.Errorf("event %d: invalid kind %v", ei+1, e.Kind)
		}
		b = append(b, `{"`...)
		b = append(b, e.Kind.String()...)
		b = append(b, `":`...)
		if b, err = appendSQLString(b, e.Table); err != nil {
			return nil, err
		}
		if e.Where != nil {
			if e.Kind == sqlhistory.Insert {
				return nil, fmt.Errorf("event %d: an insert with a predicate", ei+1)
			}
			b = append(b, `,"where":`...)
			if b, err = appendSQLString(b, e.Where.String()); err != nil {
				return nil, err
			}
		}
		if b, err = appendSQLRows(b, h, ti, ei, unwrittenSeen); err != nil {
			return nil, fmt.Errorf("event %d: %w", ei+1, err)
		}
		if e.Text != "" {
			b = append(b, `,"text":`...)
			if b, err = appendSQLString(b, e.Text); err != nil {
				return nil, err
			}
		}
		b = append(b, '}')
	}
	return append(b, "]}\n"...), nil
}

func appendSQLRows(b []byte, h *sqlhistory.History, ti, ei int, unwrittenSeen map[sqlhistory.VersionID]bool) ([]byte, error) {
	e := &h.Txns[ti].Events[ei]
	n := len(e.Reads)
	switch e.Kind {
	case sqlhistory.Select:
		if len(e.Writes) != 0 {
			return nil, fmt.Errorf("a select that writes")
		}
	case sqlhistory.Insert:
		if len(e.Reads) != 0 {
			return nil, fmt.Errorf("an insert that reads")
		}
		n = len(e.Writes)
	default:
		if len(e.Writes) != len(e.Reads) {
			return nil, fmt.Errorf("%d reads but %d writes", len(e.Reads), len(e.Writes))
		}
	}
	var err error
	b = append(b, `,"rows":[`...)
	for i := range n {
		if i > 0 {
			b = append(b, ',')
		}
		var (
			read, write *sqlhistory.Version
			readID      sqlhistory.VersionID
			key         sqlhistory.KeyID
		)
		if e.Kind != sqlhistory.Insert {
			readID = e.Reads[i]
			read = &h.Versions[readID]
			key = read.Key
		}
		if e.Kind != sqlhistory.Select {
			write = &h.Versions[e.Writes[i]]
			if read != nil && read.Key != write.Key {
				return nil, fmt.Errorf("row %d reads a version of %s and writes one of %s", i+1, h.Keys[read.Key], h.Keys[write.Key])
			}
			key = write.Key
		}
		b = append(b, `{"key":`...)
		if b, err = appendSQLKey(b, h.Keys[key].Key); err != nil {
			return nil, err
		}
		if read != nil {
			// The content of a version nobody wrote is that of its first
			// read, if a select.
			first := read.Writer == sqlhistory.Unwritten && !unwrittenSeen[readID]
			if first {
				unwrittenSeen[readID] = true
			}
			if e.Kind == sqlhistory.Select {
				b = append(b, `,"id":`...)
			} else {
				b = append(b, `,"read":`...)
			}
			if b, err = appendSQLString(b, read.Name); err != nil {
				return nil, err
			}
			if e.Kind == sqlhistory.Select && first && read.Row != nil {
				b = append(b, `,"row":`...)
				if b, err = appendSQLRow(b, read.Row); err != nil {
					return nil, err
				}
			}
		}
		switch {
		case write == nil:
		case e.Kind == sqlhistory.Delete:
			if write.Row != nil {
				return nil, fmt.Errorf("row %d: a delete that writes content", i+1)
			}
			// The Builder names the deletions not named so.
			if write.Name != fmt.Sprintf("†%s.%d.%s", h.TxnName(ti), ei+1, h.Keys[key].Key) {
				b = append(b, `,"id":`...)
				if b, err = appendSQLString(b, write.Name); err != nil {
					return nil, err
				}
			}
		default:
			if write.Row == nil {
				return nil, fmt.Errorf("row %d: an %v that writes no content", i+1, e.Kind)
			}
			b = append(b, `,"id":`...)
			if b, err = appendSQLString(b, write.Name); err != nil {
				return nil, err
			}
			b = append(b, `,"row":`...)
			if b, err = appendSQLRow(b, write.Row); err != nil {
				return nil, err
			}
		}
		b = append(b, '}')
	}
	return append(b, ']'), nil
}

// appendSQLString appends s as a JSON string, if it is valid UTF-8.
func appendSQLString(b []byte, s string) ([]byte, error) {
	if !utf8.ValidString(s) {
		return nil, fmt.Errorf("%s is not valid UTF-8", scan.Quote(s))
	}
	return scan.AppendJSONString(b, s), nil
}

// appendSQLKey appends a primary key in canonical text as Read reads
// it back: a number or an array as itself, when it is what Read makes
// of it, and anything else as a string.
func appendSQLKey(b []byte, key string) ([]byte, error) {
	if len(key) > 0 && (key[0] == '-' || key[0] >= '0' && key[0] <= '9' || key[0] == '[') {
		r := &sqlReader{sc: scan.Scanner{S: []byte(key)}}
		if k, err := r.parseKey("key"); err == nil && r.sc.I == len(key) && k == key {
			return append(b, key...), nil
		}
	}
	return appendSQLString(b, key)
}

// appendSQLRow appends the content of a row, its columns sorted.
func appendSQLRow(b []byte, row predicate.Row) ([]byte, error) {
	cols := make([]string, 0, len(row))
	for c := range row {
		cols = append(cols, c)
	}
	slices.Sort(cols)
	b = append(b, '{')
	var err error
	for i, c := range cols {
		if i > 0 {
			b = append(b, ',')
		}
		if b, err = appendSQLString(b, c); err != nil {
			return nil, err
		}
		b = append(b, ':')
		if b, err = appendSQLValue(b, row[c]); err != nil {
			return nil, fmt.Errorf("column %s: %w", scan.Quote(c), err)
		}
	}
	return append(b, '}'), nil
}

// appendSQLValue appends a column value. A float always has a decimal
// point or an exponent, so that it reads back as a float.
func appendSQLValue(b []byte, v predicate.Value) ([]byte, error) {
	switch x := v.JSON().(type) {
	case nil:
		return append(b, "null"...), nil
	case bool:
		return strconv.AppendBool(b, x), nil
	case int64:
		return strconv.AppendInt(b, x, 10), nil
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, fmt.Errorf("%v has no JSON form", x)
		}
		return append(b, v.String()...), nil
	case string:
		return appendSQLString(b, x)
	}
	return nil, fmt.Errorf("value %v of unknown kind", v)
}

// isDecimal reports whether s is a non-negative decimal integer as the
// reader writes session numbers: no sign, no leading zero.
func isDecimal(s string) bool {
	if s == "" || len(s) > 18 || (s[0] == '0' && len(s) > 1) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
