package jsonl

import (
	"fmt"
	"io"
	"strconv"
	"sync"
	"unicode/utf8"

	"github.com/isocheck/isocheck/format/internal/scan"
	"github.com/isocheck/isocheck/history"
)

// A TxnRecord is one transaction as a runner saw it, to be written as a
// line of the native JSONL format by a Recorder.
type TxnRecord struct {
	// Session names the session: an integer in decimal is written as a
	// JSON number, anything else as a string.
	Session string
	ID      string
	Status  history.Status
	// Start and End are on one clock (nanoseconds of a monotonic clock);
	// history.NoTime leaves one out (an unknown transaction has no end).
	Start, End int64
	Ops        []OpRecord
}

// An OpRecord is one operation of a TxnRecord.
type OpRecord struct {
	Kind  history.OpKind // Read or Write
	Key   int64
	Value int64 // written (appended), or read unless Null
	// Null marks a read that found no value.
	Null bool
	// Append marks a write that appended Value to a list; List holds what
	// a read of a list returned (Lists histories).
	Append bool
	List   []int64
	IsList bool // the read returned List
}

// A Recorder writes transactions to a native JSONL history one line at a
// time, each line in one Write call, so that a run killed halfway leaves a
// history of every transaction recorded before. It is safe for concurrent
// use; lines of one session keep the order of their Record calls.
type Recorder struct {
	mu  sync.Mutex
	w   io.Writer
	buf []byte
	err error
}

// NewRecorder returns a Recorder writing to w.
func NewRecorder(w io.Writer) *Recorder { return &Recorder{w: w} }

// Record writes t as one line. After a write error every call returns it.
func (r *Recorder) Record(t *TxnRecord) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err != nil {
		return r.err
	}
	b, err := AppendTxnRecord(r.buf[:0], t)
	if err != nil {
		return err
	}
	r.buf = b
	if _, err := r.w.Write(b); err != nil {
		r.err = fmt.Errorf("recording transaction %s: %w", t.ID, err)
	}
	return r.err
}

// RecordFault writes an event of the nemesis as one line, {"nemesis":
// what, "time": at} (see history.Fault); at is on the transactions'
// clock, history.NoTime to leave it out.
func (r *Recorder) RecordFault(what string, at int64) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err != nil {
		return r.err
	}
	b, err := AppendFault(r.buf[:0], history.Fault{What: what, Time: at})
	if err != nil {
		return err
	}
	r.buf = b
	if _, err := r.w.Write(b); err != nil {
		r.err = fmt.Errorf("recording a fault: %w", err)
	}
	return r.err
}

// AppendFault appends f as a JSONL line, newline included.
func AppendFault(b []byte, f history.Fault) ([]byte, error) {
	if f.What == "" || !utf8.ValidString(f.What) {
		return b, fmt.Errorf("fault %s: not a string of valid UTF-8 that says what happened", scan.Quote(f.What))
	}
	b = append(b, `{"nemesis":`...)
	b = scan.AppendJSONString(b, f.What)
	if f.Time != history.NoTime {
		b = append(b, `,"time":`...)
		b = strconv.AppendInt(b, f.Time, 10)
	}
	return append(b, "}\n"...), nil
}

// AppendTxnRecord appends t as a JSONL line, newline included.
func AppendTxnRecord(b []byte, t *TxnRecord) ([]byte, error) {
	if !utf8.ValidString(t.ID) {
		return b, fmt.Errorf("transaction id %s is not valid UTF-8", scan.Quote(t.ID))
	}
	b = append(b, `{"session":`...)
	b, err := appendJSONName(b, t.Session)
	if err != nil {
		return b, fmt.Errorf("transaction %s: session %w", t.ID, err)
	}
	b = append(b, `,"id":`...)
	b = scan.AppendJSONString(b, t.ID)
	switch t.Status {
	case history.Committed:
	case history.Aborted, history.Unknown, history.RolledBack:
		b = append(b, `,"status":"`...)
		b = append(b, t.Status.String()...)
		b = append(b, '"')
	default:
		return b, fmt.Errorf("transaction %s: invalid status %v", t.ID, t.Status)
	}
	b = append(b, `,"ops":[`...)
	for i, op := range t.Ops {
		if i > 0 {
			b = append(b, ',')
		}
		switch {
		case op.Kind == history.Read:
			b = append(b, `["r",`...)
		case op.Append:
			b = append(b, `["append",`...)
		default:
			b = append(b, `["w",`...)
		}
		b = strconv.AppendInt(b, op.Key, 10)
		b = append(b, ',')
		switch {
		case op.Kind == history.Read && op.IsList:
			b = append(b, '[')
			for j, v := range op.List {
				if j > 0 {
					b = append(b, ',')
				}
				b = strconv.AppendInt(b, v, 10)
			}
			b = append(b, ']')
		case op.Kind == history.Read && op.Null:
			b = append(b, "null"...)
		default:
			b = strconv.AppendInt(b, op.Value, 10)
		}
		b = append(b, ']')
	}
	b = append(b, ']')
	if t.Start != history.NoTime {
		b = append(b, `,"start":`...)
		b = strconv.AppendInt(b, t.Start, 10)
	}
	if t.End != history.NoTime {
		b = append(b, `,"end":`...)
		b = strconv.AppendInt(b, t.End, 10)
	}
	return append(b, "}\n"...), nil
}
