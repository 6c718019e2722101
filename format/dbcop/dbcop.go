package dbcop

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/isocheck/isocheck/format/internal/scan"
	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/progress"
)

// The dbcop bincode format (all integers little-endian, u64 is 8 bytes, a
// bool one byte, 0 or 1, a string a u64 length and UTF-8 bytes):
//
//	header   u64 id, u64 n_node, u64 n_variable, u64 n_transaction, u64 n_event
//	         string info, string start, string end
//	body     u64 nSessions
//	           per session:      u64 nTxns
//	             per transaction: u64 nEvents
//	               per event:      u8 write, u64 variable, u64 value, u8 success
//	             u8 txnSuccess
//
// start and end are the times the recording began and ended, chrono
// DateTimes in dbcop, written as RFC 3339 strings such as
// "2019-04-02T10:59:36.450006139+02:00". The reader keeps them as they are
// and does not require them to parse (PolySI ignores them); the writer
// writes valid ones (see dbcopNoTime).
//
// Counts and lengths come from the input, which may be hostile: the reader
// never allocates according to them, only according to what it has read.

// place says what a binReader is reading, for messages. It is formatted
// only when there is an error.
type place struct {
	what      string // "the number of events", "an event", ...
	sess, txn int64  // the session and transaction, -1 if not applicable
}

func at(what string) place { return place{what, -1, -1} }

func (p place) String() string {
	switch {
	case p.txn >= 0:
		return fmt.Sprintf("%s of transaction %d of session %d", p.what, p.txn, p.sess)
	case p.sess >= 0:
		return fmt.Sprintf("%s of session %d", p.what, p.sess)
	}
	return p.what
}

// binReader reads the little-endian items of a dbcop file.
type binReader struct {
	br   *bufio.Reader
	name string
	off  int64
	size int64 // the input's size, -1 if unknown
	str  []byte
}

// checkCount checks a count n read at offset off of items of at least
// itemLen bytes each against the rest of the input, when its size is known,
// and against limit: a hostile count must not make the reader allocate
// or loop for nothing.
func (r *binReader) checkCount(n uint64, itemLen int64, limit uint64, off int64, what place) error {
	if r.size >= 0 {
		if rest := uint64(max(r.size-r.off, 0)); n > rest/uint64(itemLen) {
			return scan.OffsetError(r.name, off, "%s is %d, but only %d bytes remain (at least %d each)", what, n, rest, itemLen)
		}
	}
	if n > limit {
		return scan.OffsetError(r.name, off, "%s is %d, more than the limit of %d", what, n, limit)
	}
	return nil
}

// next returns the next n bytes (n at most the buffer size), valid until
// the next call.
func (r *binReader) next(n int, what place) ([]byte, error) {
	b, err := r.br.Peek(n)
	if len(b) < n {
		if err == nil || err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF) || err == bufio.ErrBufferFull {
			return nil, scan.OffsetError(r.name, r.off, "unexpected end of file in %s (the input ends at byte offset %d)", what, r.off+int64(len(b)))
		}
		return nil, &scan.Error{File: r.name, Offset: r.off + int64(len(b)), Msg: "read error: " + err.Error(), Err: err}
	}
	r.br.Discard(n)
	r.off += int64(n)
	return b, nil
}

func (r *binReader) u64(what place) (uint64, error) {
	b, err := r.next(8, what)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint64(b), nil
}

func (r *binReader) boolean(what place) (bool, error) {
	b, err := r.next(1, what)
	if err != nil {
		return false, err
	}
	return r.checkBool(b[0], r.off-1, what)
}

func (r *binReader) checkBool(c byte, off int64, what place) (bool, error) {
	switch c {
	case 0:
		return false, nil
	case 1:
		return true, nil
	}
	return false, scan.OffsetError(r.name, off, "%s is %d, want 0 or 1", what, c)
}

// string reads a length-prefixed UTF-8 string, reading incrementally so
// that a length larger than the input cannot exhaust memory.
func (r *binReader) string(what string) (string, error) {
	start := r.off
	n, err := r.u64(at("the length of " + what))
	if err != nil {
		return "", err
	}
	if err := r.checkCount(n, 1, scan.MaxLineLen, start, at("the length of "+what)); err != nil {
		return "", err
	}
	r.str = r.str[:0]
	for rest := n; rest > 0; {
		chunk := min(rest, 4096)
		b, err := r.br.Peek(int(chunk))
		if len(b) == 0 && err != nil {
			if err == io.EOF {
				return "", scan.OffsetError(r.name, start, "%s: string length %d exceeds the remaining input (%d bytes)", what, n, n-rest)
			}
			return "", &scan.Error{File: r.name, Offset: r.off, Msg: "read error: " + err.Error(), Err: err}
		}
		r.str = append(r.str, b...)
		r.br.Discard(len(b))
		r.off += int64(len(b))
		rest -= uint64(len(b))
	}
	if !utf8.Valid(r.str) {
		return "", scan.OffsetError(r.name, start, "%s is not valid UTF-8", what)
	}
	return string(r.str), nil
}

// Header is the header of a dbcop bincode file. The counts are the
// parameters the history was generated with.
type Header struct {
	ID           uint64
	Nodes        uint64 // number of sessions
	Variables    uint64 // number of variables (keys)
	Transactions uint64 // transactions per session
	Events       uint64 // events per transaction
	Info         string // the database, e.g. "CockroachDB"
	Start, End   string // timestamps of the recording
}

// Limits on the counts of a dbcop input.
const (
	// maxDBCopSessions bounds the number of sessions of an input whose
	// size is unknown (dbcop histories have tens).
	maxDBCopSessions = 1 << 20
	// dbcopEventLen is the length of an encoded event.
	dbcopEventLen = 18
)

func Read(m *progress.Meter, br *bufio.Reader, name string, size int64) (*history.History, *Header, map[int]int, error) {
	if blank, err := scan.SkipBlank(br, name, "a dbcop file"); err != nil {
		return nil, nil, nil, err
	} else if blank {
		b := history.NewBuilder(0, name)
		b.SetPosIsOffset(true)
		return b.History(), nil, nil, nil
	}
	r := &binReader{br: br, name: name, size: size}
	hdr := &Header{}
	failedEvents := make(map[int]int)
	for _, f := range []struct {
		p    *uint64
		what string
	}{
		{&hdr.ID, "the header's id"},
		{&hdr.Nodes, "the header's n_node"},
		{&hdr.Variables, "the header's n_variable"},
		{&hdr.Transactions, "the header's n_transaction"},
		{&hdr.Events, "the header's n_event"},
	} {
		v, err := r.u64(at(f.what))
		if err != nil {
			return nil, nil, nil, err
		}
		*f.p = v
	}
	for _, f := range []struct {
		p    *string
		what string
	}{
		{&hdr.Info, "the header's info"},
		{&hdr.Start, "the header's start"},
		{&hdr.End, "the header's end"},
	} {
		v, err := r.string(f.what)
		if err != nil {
			return nil, nil, nil, err
		}
		*f.p = v
	}

	b := history.NewBuilder(0, name)
	b.SetPosIsOffset(true)
	nSessions, err := r.u64(at("the number of sessions"))
	if err != nil {
		return nil, nil, nil, err
	}
	limit := uint64(maxDBCopSessions)
	if r.size >= 0 {
		limit = math.MaxInt32 // and the input's size
	}
	if err := r.checkCount(nSessions, 8, limit, r.off-8, at("the number of sessions")); err != nil {
		return nil, nil, nil, err
	}
	if r.size >= 0 {
		// Room for the transactions and events the header announces, as
		// far as the input can hold them.
		// (A transaction takes at least 9 bytes, but room for more than
		// one per 32 bytes would be 2 bytes for each byte of a hostile
		// input: more are appended as they come.)
		rest := uint64(max(r.size-r.off, 0))
		txns := min(hdr.Nodes*hdr.Transactions, rest/32)
		if hdr.Nodes != 0 && txns/hdr.Nodes != hdr.Transactions {
			txns = rest / 32 // overflow
		}
		ops := min(txns*hdr.Events, rest/dbcopEventLen)
		if hdr.Events != 0 && ops/hdr.Events != txns {
			ops = rest / dbcopEventLen
		}
		b.Grow(int(txns), int(ops))
		b.GrowKeys(int(min(hdr.Variables, ops)))
	}
	var (
		ops   []history.Op
		ids   scan.NameArena
		idBuf []byte
		// The keys of the events of a transaction, and whether one is
		// above 2^63-1 (a named key).
		rawKeys []int64
		keys    []history.Key
		bigKeys bool
	)
	nops := 0
	for s := uint64(0); s < nSessions; s++ {
		sess := b.IntSession(int64(s))
		sname := strconv.FormatUint(s, 10)
		nTxns, err := r.u64(place{"the number of transactions", int64(s), -1})
		if err != nil {
			return nil, nil, nil, err
		}
		if err := r.checkCount(nTxns, 9, math.MaxInt32-uint64(b.NumTxns()), r.off-8, place{"the number of transactions", int64(s), -1}); err != nil {
			return nil, nil, nil, err
		}
		for t := uint64(0); t < nTxns; t++ {
			pos := r.off
			where := func(what string) place { return place{what, int64(s), int64(t)} }
			nEvents, err := r.u64(where("the number of events"))
			if err != nil {
				return nil, nil, nil, err
			}
			if err := r.checkCount(nEvents, dbcopEventLen, scan.MaxLineLen/dbcopEventLen, pos, where("the number of events")); err != nil {
				return nil, nil, nil, err
			}
			ops = ops[:0]
			failed := 0
			// The events are decoded from the buffer, as many at a time as
			// it holds (a Peek and a Discard per event cost a third of
			// the reading, measured); a short read falls back to r.next
			// for its message.
			event := func(ev []byte, evOff int64) error {
				if ev[0] > 1 {
					_, err := r.checkBool(ev[0], evOff, where("the write flag of an event"))
					return err
				}
				if ev[17] > 1 {
					_, err := r.checkBool(ev[17], evOff+17, where("the success flag of an event"))
					return err
				}
				if ev[17] == 0 {
					failed++
					return nil
				}
				if nops == scan.MaxOps {
					return scan.OffsetError(name, evOff, "too many operations (the limit is %d)", scan.MaxOps)
				}
				nops++
				ops = append(ops, history.Op{
					Kind:  history.OpKind(ev[0]), // Read is 0, Write 1
					Value: scan.UintValue(b, binary.LittleEndian.Uint64(ev[9:])),
				})
				k := binary.LittleEndian.Uint64(ev[1:])
				bigKeys = bigKeys || k > math.MaxInt64
				rawKeys = append(rawKeys, int64(k))
				return nil
			}
			rawKeys, bigKeys = rawKeys[:0], false
			for e := uint64(0); e < nEvents; {
				want := int(min(nEvents-e, uint64(r.br.Size()/dbcopEventLen)))
				evs, _ := r.br.Peek(want * dbcopEventLen)
				n := len(evs) / dbcopEventLen
				if n == 0 {
					ev, err := r.next(dbcopEventLen, where("an event"))
					if err != nil {
						return nil, nil, nil, err
					}
					if err := event(ev, r.off-dbcopEventLen); err != nil {
						return nil, nil, nil, err
					}
					e++
					continue
				}
				for j := range n {
					if err := event(evs[j*dbcopEventLen:(j+1)*dbcopEventLen], r.off+int64(j*dbcopEventLen)); err != nil {
						return nil, nil, nil, err
					}
				}
				r.br.Discard(n * dbcopEventLen)
				r.off += int64(n * dbcopEventLen)
				e += uint64(n)
			}
			// The keys, interned together (see IntKeys), in order.
			if bigKeys {
				for i := range ops {
					ops[i].Key = scan.UintKey(b, uint64(rawKeys[i]))
				}
			} else {
				keys = slices.Grow(keys[:0], len(ops))[:len(ops)]
				b.IntKeys(rawKeys, keys)
				for i := range ops {
					ops[i].Key = keys[i]
				}
			}
			committed, err := r.boolean(where("the success flag"))
			if err != nil {
				return nil, nil, nil, err
			}
			status := history.Committed
			if !committed {
				status = history.Aborted
			}
			idBuf = strconv.AppendUint(append(append(append(idBuf[:0], 's'), sname...), 't'), t, 10)
			i := b.AddTxn(history.Txn{
				ID:      ids.Bytes(idBuf),
				Session: sess,
				Status:  status,
				Start:   history.NoTime,
				End:     history.NoTime,
				Pos:     pos,
			}, ops)
			if failed > 0 {
				failedEvents[i] = failed
			}
		}
	}
	if b, _ := r.br.Peek(1); len(b) > 0 {
		return nil, nil, nil, scan.OffsetError(name, r.off, "unexpected data after the end of the history")
	}
	if err := m.Err(); err != nil {
		return nil, nil, nil, err
	}
	return b.History(), hdr, failedEvents, nil
}

// LooksLike reports whether head starts like a dbcop file: four sane
// header counts and three short UTF-8 strings.
func LooksLike(head []byte) bool {
	if len(head) < 48 {
		return false
	}
	for i := 1; i < 5; i++ {
		if binary.LittleEndian.Uint64(head[8*i:]) >= 1<<32 {
			return false
		}
	}
	off := 40
	for range 3 {
		if len(head)-off < 8 {
			return false
		}
		n := binary.LittleEndian.Uint64(head[off:])
		off += 8
		if n > 1<<16 || uint64(len(head)-off) < n || !utf8.Valid(head[off:off+int(n)]) {
			return false
		}
		off += int(n)
	}
	return true
}

// dbcopNoTime is the start and end of the recording that Write puts
// in the header. A history does not hold them (its times, if any, are not
// wall-clock times, and the format drops them), so both are the Unix epoch:
// a time no recording has, not a claim about when one ran. The dbcop tool
// declares these fields as chrono DateTimes, which bincode encodes as the
// string chrono writes and parses (RFC 3339), so readers that decode the
// header as dbcop does (AWDIT's) reject a file whose times are not such
// strings, the empty string included.
const dbcopNoTime = "1970-01-01T00:00:00+00:00"

// Write writes h in dbcop's bincode format.
func Write(w *bufio.Writer, h *history.History) error {
	if h.Lists {
		return fmt.Errorf("the dbcop format cannot hold a history of lists")
	}
	if len(h.Orders) > 0 {
		return fmt.Errorf("the dbcop format cannot hold stated version orders (key %s has one)", scan.Cut(h.FormatKey(h.Orders[0].Key)))
	}
	keys := scan.IntegerKeys(h, math.MaxUint64)
	values := scan.NewIntValues(h, math.MaxUint64)
	maxTxns, maxEvents := 0, 0
	for _, s := range h.Sessions {
		maxTxns = max(maxTxns, len(s))
	}
	for t := range h.Txns {
		maxEvents = max(maxEvents, len(h.OpsOf(t)))
	}
	var buf []byte
	u64 := func(v uint64) { buf = binary.LittleEndian.AppendUint64(buf, v) }
	str := func(s string) { u64(uint64(len(s))); buf = append(buf, s...) }
	flush := func() error {
		_, err := w.Write(buf)
		buf = buf[:0]
		return err
	}
	u64(0)
	u64(uint64(len(h.Sessions)))
	u64(uint64(h.NumKeys()))
	u64(uint64(maxTxns))
	u64(uint64(maxEvents))
	str("isocheck")
	str(dbcopNoTime)
	str(dbcopNoTime)
	u64(uint64(len(h.Sessions)))
	for _, sess := range h.Sessions {
		u64(uint64(len(sess)))
		for _, t := range sess {
			tx := &h.Txns[t]
			ops := h.OpsOf(int(t))
			u64(uint64(len(ops)))
			for _, op := range ops {
				if op.Key < 0 || int(op.Key) >= len(keys) {
					return fmt.Errorf("transaction %s: key %d out of range", scan.Cut(h.Name(int(t))), op.Key)
				}
				v := values.Bits(op)
				if op.Kind == history.Write {
					buf = append(buf, 1)
				} else {
					buf = append(buf, 0)
				}
				u64(keys[op.Key])
				u64(v)
				buf = append(buf, 1)
			}
			switch tx.Status {
			case history.Committed:
				buf = append(buf, 1)
			case history.Aborted:
				buf = append(buf, 0)
			default:
				return fmt.Errorf("transaction %s is %v, which the dbcop format cannot represent", scan.Cut(h.Name(int(t))), tx.Status)
			}
			if len(buf) >= 1<<16 {
				if err := flush(); err != nil {
					return err
				}
			}
		}
	}
	return flush()
}
