package jsonl

import (
	"bufio"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/isocheck/isocheck/format/internal/scan"
	"github.com/isocheck/isocheck/history"
)

// Writing native JSONL histories.

// Write writes h in the native format.
func Write(w *bufio.Writer, h *history.History) error {
	sessions := make([][]byte, len(h.Sessions))
	for s := range sessions {
		name := h.SessionName(s)
		enc, err := appendJSONName(nil, name)
		if err != nil {
			return fmt.Errorf("session %d: %w", s, err)
		}
		sessions[s] = enc
	}
	keys := make([][]byte, len(h.KeyNames))
	for k, name := range h.KeyNames {
		enc, err := appendJSONName(nil, name)
		if err != nil {
			return fmt.Errorf("key %d: %w", k, err)
		}
		keys[k] = enc
	}
	for i, name := range h.ValueNames {
		if !utf8.ValidString(name) {
			return fmt.Errorf("value %d: %s is not valid UTF-8", i, scan.Quote(name))
		}
	}
	var line []byte
	next := 0 // the first list read not yet written
	for t := range h.Txns {
		tx := &h.Txns[t]
		if int(tx.Session) >= len(sessions) || tx.Session < 0 {
			return fmt.Errorf("transaction %s: session %d out of range", scan.Cut(h.Name(t)), tx.Session)
		}
		if !utf8.ValidString(tx.ID) {
			return fmt.Errorf("transaction %d: id %s is not valid UTF-8", t, scan.Quote(tx.ID))
		}
		line = append(line[:0], `{"session":`...)
		line = append(line, sessions[tx.Session]...)
		line = append(line, `,"id":`...)
		line = scan.AppendJSONString(line, tx.ID)
		switch tx.Status {
		case history.Committed:
		case history.Aborted, history.Unknown, history.RolledBack:
			line = append(line, `,"status":"`...)
			line = append(line, tx.Status.String()...)
			line = append(line, '"')
		default:
			return fmt.Errorf("transaction %s: invalid status %v", scan.Cut(h.Name(t)), tx.Status)
		}
		line = append(line, `,"ops":[`...)
		for j := tx.OpStart; j < tx.OpEnd; j++ {
			op := h.Ops[j]
			if j > tx.OpStart {
				line = append(line, ',')
			}
			switch {
			case op.Kind == history.Read:
				line = append(line, `["r",`...)
			case h.Lists:
				line = append(line, `["append",`...)
			default:
				line = append(line, `["w",`...)
			}
			if op.Key < 0 || int(op.Key) >= len(keys) {
				return fmt.Errorf("transaction %s: key %d out of range", scan.Cut(h.Name(t)), op.Key)
			}
			line = append(line, keys[op.Key]...)
			line = append(line, ',')
			for next < len(h.ListReads) && h.ListReads[next].Op < j {
				next++
			}
			var err error
			switch {
			case op.Kind == history.Write:
				line, err = appendJSONValue(line, h, op.Value)
			case next < len(h.ListReads) && h.ListReads[next].Op == j:
				line, err = appendJSONList(line, h, h.ListReads[next].Values)
			case h.Lists && op.Value != h.Init:
				err = fmt.Errorf("it reads %s but no list", scan.Cut(h.FormatValue(op.Value)))
			case h.Lists:
				line = append(line, "[]"...) // the empty list
			case op.Value == h.Init || op.Value == history.Null:
				line = append(line, "null"...)
			default:
				line, err = appendJSONValue(line, h, op.Value)
			}
			if err != nil {
				return fmt.Errorf("transaction %s, key %s: %w", scan.Cut(h.Name(t)), scan.Cut(h.FormatKey(op.Key)), err)
			}
			line = append(line, ']')
		}
		line = append(line, ']')
		if tx.Start != history.NoTime {
			line = append(line, `,"start":`...)
			line = strconv.AppendInt(line, tx.Start, 10)
		}
		if tx.End != history.NoTime {
			line = append(line, `,"end":`...)
			line = strconv.AppendInt(line, tx.End, 10)
		}
		line = append(line, "}\n"...)
		if _, err := w.Write(line); err != nil {
			return err
		}
	}
	for _, o := range h.Orders {
		if o.Key < 0 || int(o.Key) >= len(keys) {
			return fmt.Errorf("version order: key %d out of range", o.Key)
		}
		line = append(line[:0], `{"key":`...)
		line = append(line, keys[o.Key]...)
		line = append(line, `,"order":`...)
		var err error
		if line, err = appendJSONList(line, h, o.Values); err != nil {
			return fmt.Errorf("version order of key %s: %w", scan.Cut(h.FormatKey(o.Key)), err)
		}
		line = append(line, "}\n"...)
		if _, err := w.Write(line); err != nil {
			return err
		}
	}
	// The nemesis's events after the transactions: their times place
	// them.
	for _, f := range h.Faults {
		var err error
		if line, err = AppendFault(line[:0], f); err != nil {
			return err
		}
		if _, err := w.Write(line); err != nil {
			return err
		}
	}
	return nil
}

// appendJSONValue appends v, a value written: an integer, a string, or a
// named integer (see values.go) as the integer it names.
func appendJSONValue(b []byte, h *history.History, v history.Value) ([]byte, error) {
	switch {
	case v == history.Null:
		return b, errors.New("writes null")
	case h.Init != history.Null && v == h.Init:
		return b, fmt.Errorf("writes the initial value %s, which JSONL cannot represent", scan.Cut(h.FormatValue(v)))
	case v >= history.StringBase && int64(v-history.StringBase) < int64(len(h.ValueNames)):
		name := h.ValueNames[v-history.StringBase]
		if scan.BigIntName(name) {
			return append(b, name...), nil
		}
		return scan.AppendJSONString(b, name), nil
	case v < scan.MaxNativeInt && v > -scan.MaxNativeInt:
		return strconv.AppendInt(b, int64(v), 10), nil
	}
	return b, fmt.Errorf("value %d out of the range of JSONL integers (|v| < 2^62)", int64(v))
}

// appendJSONList appends the values vs as a JSON array.
func appendJSONList(b []byte, h *history.History, vs []history.Value) ([]byte, error) {
	b = append(b, '[')
	for i, v := range vs {
		if i > 0 {
			b = append(b, ',')
		}
		var err error
		if b, err = appendJSONValue(b, h, v); err != nil {
			return b, err
		}
	}
	return append(b, ']'), nil
}

// appendJSONName appends a session or key name: as an integer if it is the
// canonical decimal form of one, as a string otherwise.
func appendJSONName(b []byte, name string) ([]byte, error) {
	if n, err := strconv.ParseInt(name, 10, 64); err == nil && strconv.FormatInt(n, 10) == name {
		return strconv.AppendInt(b, n, 10), nil
	}
	if !utf8.ValidString(name) {
		return nil, fmt.Errorf("name %s is not valid UTF-8", scan.Quote(name))
	}
	return scan.AppendJSONString(b, name), nil
}
