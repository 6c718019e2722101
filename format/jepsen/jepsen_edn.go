package jepsen

import (
	"bufio"
	"errors"
	"io"

	"github.com/isocheck/isocheck/format/internal/scan"
	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/internal/edn"
	"github.com/isocheck/isocheck/progress"
)

// Reading Jepsen histories in EDN: event maps at top level or in one vector
// or list, decoded by a goroutine while the reader pairs their events.

// ednEvent reads an event from an EDN map (or a record of one).
func (r *jepsenReader) ednEvent(x any, line int) error {
	if t, ok := x.(edn.Tagged); ok {
		x = t.Value
	}
	m, ok := x.(edn.Map)
	if !ok {
		return r.errorf(line, "an event must be a map like {:type :invoke, :f :txn, :value [...], :process 0}, not %s", describeValue(x))
	}
	e := eventFields{ev: jepsenEvent{line: line}}
	for i := range m {
		k, ok := m[i].Key.(edn.Keyword)
		if !ok {
			continue
		}
		if err := e.field(r, string(k), m[i].Value); err != nil {
			return err
		}
	}
	return e.done(r)
}

// ReadEDN reads a Jepsen EDN history: event maps at top level, or in one
// vector or list.
func ReadEDN(m *progress.Meter, br *bufio.Reader, name string, size int64) (*history.History, Stats, error) {
	r := newJepsenReader(name)
	if size > 0 {
		r.b.Grow(int(size/300), int(size/80))
	}
	r.grow(size / 300)
	if err := r.readEDN(m, br); err != nil {
		return nil, Stats{}, err
	}
	h, err := r.finish()
	if err != nil {
		return nil, Stats{}, err
	}
	return h, r.stats(), nil
}

// readEDN reads the events of a Jepsen EDN history into r.
func (r *jepsenReader) readEDN(m *progress.Meter, br *bufio.Reader) error {
	// One goroutine decodes the events while this one builds the history
	// (the two take about as long), in batches.
	batches := make(chan *ednBatch, 4)
	free := make(chan *ednBatch, 6)
	done := make(chan struct{})
	go decodeEDN(edn.NewDecoder(br), batches, free, done)
	stop := func() {
		close(done)
		for range batches { // wait for the decoder to stop
		}
	}
	for b := range batches {
		for i := range b.vals {
			if err := r.ednEvent(b.vals[i], b.lines[i]); err != nil {
				stop()
				return err
			}
		}
		if b.err != nil {
			stop()
			if b.errLine > 0 {
				return r.errorf(b.errLine, "%s", b.err.Error())
			}
			return r.ednError(b.err)
		}
		clear(b.vals)
		b.vals, b.lines = b.vals[:0], b.lines[:0]
		select {
		case free <- b:
		default:
		}
	}
	return m.Err()
}

// ednBatch is a batch of events decoded, and the error that ended the
// input if any (at errLine when it is not the decoder's).
type ednBatch struct {
	vals    []any
	lines   []int
	err     error
	errLine int
}

// ednBatchSize is how many events a batch holds.
const ednBatchSize = 256

// decodeEDN decodes the events of a Jepsen EDN history (event maps at top
// level, or in one vector or list) and sends them in batches, until the
// end of the input, an error (sent in the last batch) or done.
func decodeEDN(d *edn.Decoder, batches chan<- *ednBatch, free chan *ednBatch, done <-chan struct{}) {
	defer close(batches)
	b := &ednBatch{}
	send := func() bool {
		select {
		case batches <- b:
		case <-done:
			return false
		}
		select {
		case b = <-free:
		default:
			b = &ednBatch{}
		}
		return true
	}
	fail := func(err error, line int) {
		b.err, b.errLine = err, line
		send()
	}
	inVec, err := d.OpenSeq()
	if err != nil && err != io.EOF {
		fail(err, 0)
		return
	}
	for {
		x, err := d.Decode()
		if err == io.EOF {
			break
		}
		if err != nil {
			fail(err, 0)
			return
		}
		b.vals = append(b.vals, x)
		b.lines = append(b.lines, d.Pos().Line)
		if len(b.vals) == ednBatchSize && !send() {
			return
		}
	}
	if inVec {
		if err := d.CloseSeq(); err != nil {
			fail(err, 0)
			return
		}
		if _, err := d.Decode(); err != io.EOF {
			if err != nil {
				fail(err, 0)
			} else {
				fail(errors.New("unexpected data after the history vector"), d.Pos().Line)
			}
			return
		}
	}
	if len(b.vals) > 0 {
		send()
	}
}

// ednError turns an error of the EDN reader into an *Error.
func (r *jepsenReader) ednError(err error) error {
	var se *edn.SyntaxError
	if errors.As(err, &se) {
		return r.errorf(se.Line, "%s", se.Msg)
	}
	if progress.Stopped(err) {
		return err
	}
	return &scan.Error{File: r.name, Offset: -1, Msg: "read error: " + err.Error(), Err: err}
}
