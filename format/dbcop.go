package format

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/isocheck/isocheck/history"
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
	str  []byte
}

// next returns the next n bytes (n at most the buffer size), valid until
// the next call.
func (r *binReader) next(n int, what place) ([]byte, error) {
	b, err := r.br.Peek(n)
	if len(b) < n {
		if err == nil || err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF) || err == bufio.ErrBufferFull {
			return nil, offsetError(r.name, r.off, "unexpected end of file in %s (the input ends at byte offset %d)", what, r.off+int64(len(b)))
		}
		return nil, &Error{File: r.name, Offset: r.off + int64(len(b)), Msg: "read error: " + err.Error(), Err: err}
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
	return false, offsetError(r.name, off, "%s is %d, want 0 or 1", what, c)
}

// string reads a length-prefixed UTF-8 string, reading incrementally so
// that a huge length cannot exhaust memory.
func (r *binReader) string(what string) (string, error) {
	start := r.off
	n, err := r.u64(at("the length of " + what))
	if err != nil {
		return "", err
	}
	r.str = r.str[:0]
	for rest := n; rest > 0; {
		chunk := min(rest, 4096)
		b, err := r.br.Peek(int(chunk))
		if len(b) == 0 && err != nil {
			if err == io.EOF {
				return "", offsetError(r.name, start, "%s: string length %d exceeds the remaining input (%d bytes)", what, n, n-rest)
			}
			return "", &Error{File: r.name, Offset: r.off, Msg: "read error: " + err.Error(), Err: err}
		}
		r.str = append(r.str, b...)
		r.br.Discard(len(b))
		r.off += int64(len(b))
		rest -= uint64(len(b))
	}
	if !utf8.Valid(r.str) {
		return "", offsetError(r.name, start, "%s is not valid UTF-8", what)
	}
	return string(r.str), nil
}

func readDBCop(br *bufio.Reader, name string) (*history.History, *Info, error) {
	r := &binReader{br: br, name: name}
	hdr := &DBCopHeader{}
	info := &Info{Format: DBCop, FailedEvents: make(map[int]int), DBCop: hdr}
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
			return nil, nil, err
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
			return nil, nil, err
		}
		*f.p = v
	}

	b := history.NewBuilder(0, name)
	b.SetPosIsOffset(true)
	nSessions, err := r.u64(at("the number of sessions"))
	if err != nil {
		return nil, nil, err
	}
	var ops []history.Op
	nops := 0
	for s := uint64(0); s < nSessions; s++ {
		if s > math.MaxInt32 {
			return nil, nil, offsetError(name, r.off, "too many sessions")
		}
		sess := b.IntSession(int64(s))
		sname := strconv.FormatUint(s, 10)
		nTxns, err := r.u64(place{"the number of transactions", int64(s), -1})
		if err != nil {
			return nil, nil, err
		}
		for t := uint64(0); t < nTxns; t++ {
			pos := r.off
			where := func(what string) place { return place{what, int64(s), int64(t)} }
			nEvents, err := r.u64(where("the number of events"))
			if err != nil {
				return nil, nil, err
			}
			ops = ops[:0]
			failed := 0
			for e := uint64(0); e < nEvents; e++ {
				ev, err := r.next(18, where("an event"))
				if err != nil {
					return nil, nil, err
				}
				evOff := r.off - 18
				write, err := r.checkBool(ev[0], evOff, where("the write flag of an event"))
				if err != nil {
					return nil, nil, err
				}
				ok, err := r.checkBool(ev[17], evOff+17, where("the success flag of an event"))
				if err != nil {
					return nil, nil, err
				}
				if !ok {
					failed++
					continue
				}
				op := history.Op{
					Kind:  history.Read,
					Key:   b.IntKey(int64(binary.LittleEndian.Uint64(ev[1:]))),
					Value: history.Value(int64(binary.LittleEndian.Uint64(ev[9:]))),
				}
				if write {
					op.Kind = history.Write
				}
				if nops == maxOps {
					return nil, nil, offsetError(name, evOff, "too many operations (the limit is %d)", maxOps)
				}
				nops++
				ops = append(ops, op)
			}
			committed, err := r.boolean(where("the success flag"))
			if err != nil {
				return nil, nil, err
			}
			status := history.Committed
			if !committed {
				status = history.Aborted
			}
			i := b.AddTxn(history.Txn{
				ID:      "s" + sname + "t" + strconv.FormatUint(t, 10),
				Session: sess,
				Status:  status,
				Start:   history.NoTime,
				End:     history.NoTime,
				Pos:     pos,
			}, ops)
			if failed > 0 {
				info.FailedEvents[i] = failed
			}
		}
	}
	if b, _ := r.br.Peek(1); len(b) > 0 {
		return nil, nil, offsetError(name, r.off, "unexpected data after the end of the history")
	}
	return b.History(), info, nil
}

// looksLikeDBCop reports whether head starts like a dbcop file: four sane
// header counts and three short UTF-8 strings.
func looksLikeDBCop(head []byte) bool {
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

// writeDBCop writes h in dbcop's bincode format.
func writeDBCop(w *bufio.Writer, h *history.History) error {
	if h.Init != 0 {
		return fmt.Errorf("the dbcop format needs initial value 0, not %s", h.FormatValue(h.Init))
	}
	keys, err := integerKeys(h, true)
	if err != nil {
		return fmt.Errorf("the dbcop format needs integer keys: %w", err)
	}
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
	str("")
	str("")
	u64(uint64(len(h.Sessions)))
	for _, sess := range h.Sessions {
		u64(uint64(len(sess)))
		for _, t := range sess {
			tx := &h.Txns[t]
			ops := h.OpsOf(int(t))
			u64(uint64(len(ops)))
			for _, op := range ops {
				if op.Key < 0 || int(op.Key) >= len(keys) {
					return fmt.Errorf("transaction %s: key %d out of range", h.Name(int(t)), op.Key)
				}
				if op.Value == history.Null || op.Value >= history.StringBase && int64(op.Value-history.StringBase) < int64(len(h.ValueNames)) {
					return fmt.Errorf("transaction %s: value %s of key %s is not an integer, as the dbcop format needs", h.Name(int(t)), h.FormatValue(op.Value), h.FormatKey(op.Key))
				}
				if op.Kind == history.Write {
					buf = append(buf, 1)
				} else {
					buf = append(buf, 0)
				}
				u64(uint64(keys[op.Key]))
				u64(uint64(op.Value))
				buf = append(buf, 1)
			}
			switch tx.Status {
			case history.Committed:
				buf = append(buf, 1)
			case history.Aborted:
				buf = append(buf, 0)
			default:
				return fmt.Errorf("transaction %s is %v, which the dbcop format cannot represent", h.Name(int(t)), tx.Status)
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
