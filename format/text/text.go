package text

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"

	"github.com/isocheck/isocheck/format/internal/scan"
	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/progress"
)

// PolySI's text format holds one operation per line, r(key,value,session,txn)
// or w(key,value,session,txn), all non-negative decimal integers but txn,
// which may be -1. Transaction ids are global; a transaction's operations
// are its lines in order.
//
// Two conventions of other tools are read too:
//
//   - Plume and AWDIT give the operations of aborted transactions the
//     transaction id -1 (PolySI's own loader takes non-negative ids only,
//     so a file with aborted transactions is not one PolySI reads). A session's -1 operations that follow the same
//     transaction of the session (with no other of its transactions
//     starting between them) are one aborted transaction, which has no id.
//   - IsoVista starts a history with a transaction that writes 0, the
//     initial value, to every key. A first transaction (that of the first
//     line) that only writes, and only 0, is the initial state: it is
//     dropped.

const textSyntax = "r(key,value,session,txn) or w(key,value,session,txn)"

// abortedID is the transaction id of the operations of aborted
// transactions.
const abortedID = -1

// textTxn is one transaction of a text history.
type textTxn struct {
	id      int64 // abortedID for an aborted transaction
	session int64
	line    int
	nops    int32 // its number of operations
	start   int32 // the index of its first operation in the ops grouped by transaction
}

// textOp is an operation of a text history, its key and value not yet
// interned (so that a transaction dropped as the initial state leaves no
// trace).
type textOp struct {
	kind  history.OpKind
	txn   int32 // the index of its transaction
	key   int64
	value int64
}

// isInit reports whether t, whose operations are ops, only writes 0, as an
// initial transaction does.
func (t *textTxn) isInit(ops []textOp) bool {
	if t.id == abortedID {
		return false
	}
	for _, op := range ops {
		if op.kind != history.Write || op.value != 0 {
			return false
		}
	}
	return true
}

// Read reads a text history named name from br; size, when not -1, is
// the input's size in bytes, from which it estimates how much to
// allocate. line and offset count the lines and bytes of the input read
// before br (0 from its start), so that errors name the input's lines.
func Read(m *progress.Meter, br *bufio.Reader, name string, size int64, line int, offset int64) (*history.History, error) {
	lr := scan.NewLineReaderAt(br, name, line, offset)
	b := history.NewBuilder(0, name)
	// The operations are collected in one slice, in input order, and
	// grouped by transaction at the end (when a transaction's operations
	// are not all adjacent): a slice per transaction costs several
	// allocations each (measured: a quarter of the reading).
	var (
		txns        []textTxn
		ops         []textOp
		interleaved bool // some transaction's operations are not adjacent
		cur         = -1 // the transaction of the previous line
	)
	if size > 0 {
		// A line takes 12 to 25 bytes: room for one every 16 bytes
		// saves growing the slice (measured: a tenth of the reading).
		ops = make([]textOp, 0, size/16)
	}
	index := make(map[int64]int32)
	last := make(map[int64]int32) // the latest transaction of each session
	for {
		line, err := lr.NextContent()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		kind, f, err := parseTextLine(line)
		if err != nil {
			return nil, scan.LineError(name, lr.Line, "%v", err)
		}
		key, value, session, id := f[0], f[1], f[2], f[3]
		t := cur
		switch {
		case t >= 0 && txns[t].id == id && txns[t].session == session:
			// the same transaction as the previous line (the common case,
			// which needs no lookup)
		case id == abortedID:
			if l, ok := last[session]; ok && txns[l].id == abortedID {
				t = int(l)
			} else {
				t = len(txns)
				txns = append(txns, textTxn{id: id, session: session, line: lr.Line})
				last[session] = int32(t)
			}
		default:
			if i, ok := index[id]; ok {
				t = int(i)
				if txns[t].session != session {
					return nil, scan.LineError(name, lr.Line, "transaction %d is in session %d here but in session %d at line %d", id, session, txns[t].session, txns[t].line)
				}
			} else {
				if len(txns) == math.MaxInt32 {
					return nil, scan.LineError(name, lr.Line, "too many transactions (the limit is %d)", math.MaxInt32)
				}
				t = len(txns)
				index[id] = int32(t)
				txns = append(txns, textTxn{id: id, session: session, line: lr.Line})
				last[session] = int32(t)
			}
		}
		if t != cur && txns[t].nops > 0 {
			interleaved = true
		}
		cur = t
		if len(ops) == scan.MaxOps {
			return nil, scan.LineError(name, lr.Line, "too many operations (the limit is %d)", scan.MaxOps)
		}
		txns[t].nops++
		ops = append(ops, textOp{kind, int32(t), key, value})
	}
	if interleaved {
		ops = groupTextOps(txns, ops)
	} else {
		start := int32(0)
		for i := range txns {
			txns[i].start = start
			start += txns[i].nops
		}
	}
	opsOf := func(t *textTxn) []textOp { return ops[t.start : t.start+t.nops] }
	if len(txns) > 0 && txns[0].isInit(opsOf(&txns[0])) {
		txns = txns[1:] // IsoVista's initial state
	}
	b.Grow(len(txns), len(ops))
	b.GrowKeys(len(ops) / 2)
	var (
		hops []history.Op
		ns   []int64
		keys []history.Key
		ids  scan.NameArena
	)
	for i := range txns {
		if i%progress.Every == 0 {
			if err := m.Err(); err != nil {
				return nil, err
			}
		}
		t := &txns[i]
		hops, ns = hops[:0], ns[:0]
		for _, op := range opsOf(t) {
			hops = append(hops, history.Op{Kind: op.kind, Value: scan.UintValue(b, uint64(op.value))})
			ns = append(ns, op.key)
		}
		keys = slices.Grow(keys[:0], len(ns))[:len(ns)]
		b.IntKeys(ns, keys) // together: see IntKeys
		for j := range hops {
			hops[j].Key = keys[j]
		}
		tx := history.Txn{
			Session: b.IntSession(t.session),
			Status:  history.Committed,
			Start:   history.NoTime,
			End:     history.NoTime,
			Pos:     int64(t.line),
		}
		if t.id == abortedID {
			tx.Status = history.Aborted
		} else {
			tx.ID = ids.Int(t.id)
		}
		b.AddTxn(tx, hops)
	}
	return b.History(), nil
}

// groupTextOps returns ops grouped by transaction, in input order within
// each, and sets each transaction's start.
func groupTextOps(txns []textTxn, ops []textOp) []textOp {
	start := int32(0)
	for i := range txns {
		txns[i].start = start
		start += txns[i].nops
	}
	next := make([]int32, len(txns))
	for i := range txns {
		next[i] = txns[i].start
	}
	grouped := make([]textOp, len(ops))
	for _, op := range ops {
		grouped[next[op.txn]] = op
		next[op.txn]++
	}
	return grouped
}

// parseTextLine parses "r(key,value,session,txn)" or "w(...)", with optional
// blanks around the tokens.
func parseTextLine(s []byte) (history.OpKind, [4]int64, error) {
	if kind, f, ok := parseTextLineFast(s); ok {
		return kind, f, nil
	}
	return parseTextLineGeneral(s)
}

// parseTextLineGeneral is parseTextLine without the fast path.
func parseTextLineGeneral(s []byte) (history.OpKind, [4]int64, error) {
	var f [4]int64
	bad := func(why string) (history.OpKind, [4]int64, error) {
		return 0, f, fmt.Errorf("expected %s, got %s%s", textSyntax, scan.Snippet(s), why)
	}
	i := 0
	skip := func() {
		for i < len(s) && scan.IsSpace(s[i]) {
			i++
		}
	}
	skip()
	var kind history.OpKind
	switch {
	case i < len(s) && s[i] == 'r':
		kind = history.Read
	case i < len(s) && s[i] == 'w':
		kind = history.Write
	default:
		return bad("")
	}
	i++
	skip()
	if i >= len(s) || s[i] != '(' {
		return bad("")
	}
	i++
	names := [4]string{"key", "value", "session", "txn"}
	for n := range f {
		skip()
		start := i
		if i < len(s) && s[i] == '-' {
			if n == 3 && string(s[i:scanNumber(s, i+1)]) == "-1" {
				i += 2 // an aborted transaction's operation
				f[n] = abortedID
				skip()
				if i < len(s) && s[i] == ')' {
					i++
					break
				}
				if i < len(s) && s[i] == ',' {
					return bad(" (too many fields)")
				}
				return bad(" (bad txn)")
			}
			what := "a non-negative integer"
			if n == 3 {
				what += " or -1 (aborted)"
			}
			return 0, f, fmt.Errorf("%s must be %s, got %s", names[n], what, scan.Snippet(s[i:scanNumber(s, i+1)]))
		}
		var u uint64
		overflow := false
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			if u > (math.MaxInt64-uint64(s[i]-'0'))/10 {
				overflow = true
			} else {
				u = u*10 + uint64(s[i]-'0')
			}
			i++
		}
		if i == start {
			return bad(fmt.Sprintf(" (bad %s)", names[n]))
		}
		if overflow {
			return 0, f, fmt.Errorf("%s %s out of range (the largest is %d)", names[n], scan.Cut(string(s[start:i])), int64(math.MaxInt64))
		}
		f[n] = int64(u)
		skip()
		sep := byte(',')
		if n == len(f)-1 {
			sep = ')'
		}
		if i >= len(s) || s[i] != sep {
			if sep == ',' && i < len(s) && s[i] == ')' {
				return bad(" (too few fields)")
			}
			if sep == ')' && i < len(s) && s[i] == ',' {
				return bad(" (too many fields)")
			}
			return bad(fmt.Sprintf(" (bad %s)", names[n]))
		}
		i++
	}
	skip()
	if i < len(s) {
		return bad(" (text after ')')")
	}
	return kind, f, nil
}

// parseTextLineFast parses a line as the tools write it, without blanks
// and with numbers of at most 18 digits, or reports false (then
// parseTextLine parses it, and says what is wrong). It is a third faster
// than parseTextLine's general path (measured).
func parseTextLineFast(s []byte) (history.OpKind, [4]int64, bool) {
	var f [4]int64
	if len(s) < 10 || s[1] != '(' || s[len(s)-1] != ')' {
		return 0, f, false
	}
	var kind history.OpKind
	switch s[0] {
	case 'r':
	case 'w':
		kind = history.Write
	default:
		return 0, f, false
	}
	i, end := 2, len(s)-1
	for n := range f {
		if n == 3 && i+2 == end && s[i] == '-' && s[i+1] == '1' {
			f[3] = abortedID
			return kind, f, true
		}
		start := i
		var u int64
		for i < end && s[i] >= '0' && s[i] <= '9' {
			u = u*10 + int64(s[i]-'0')
			i++
		}
		if i == start || i-start > 18 {
			return 0, f, false
		}
		f[n] = u
		if n < 3 {
			if i == end || s[i] != ',' {
				return 0, f, false
			}
			i++
		}
	}
	return kind, f, i == end
}

// scanNumber returns the end of the digits starting at i.
func scanNumber(s []byte, i int) int {
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i
}

// Write writes h in PolySI's text format. Aborted transactions are
// written with the transaction id -1 (adjacent ones of a session read back
// as one). When the first transaction written only writes 0, which a
// reader takes for IsoVista's initial state, an initial transaction that
// writes 0 to one of its keys goes before it, so that it reads back as it
// is.
func Write(w *bufio.Writer, h *history.History) error {
	if h.Lists {
		return fmt.Errorf("the text format cannot hold a history of lists")
	}
	if len(h.Orders) > 0 {
		return fmt.Errorf("the text format cannot hold stated version orders (key %s has one)", scan.Cut(h.FormatKey(h.Orders[0].Key)))
	}
	keys := scan.IntegerKeys(h, math.MaxInt64)
	values := scan.NewIntValues(h, math.MaxInt64)
	// Sessions and transactions keep their numbers when all are
	// non-negative integers (and, for committed transactions, distinct).
	sessions := make([]int64, len(h.Sessions))
	useNames := true
	for s := range sessions {
		n, ok := scan.CanonicalNonNeg(h.SessionName(s))
		if !ok {
			useNames = false
			break
		}
		sessions[s] = n
	}
	if !useNames {
		for s := range sessions {
			sessions[s] = int64(s)
		}
	}
	ids := make([]int64, len(h.Txns))
	seen := make(map[int64]bool, len(h.Txns))
	useIDs := true
	for t := range h.Txns {
		if h.Txns[t].Status == history.Aborted {
			ids[t] = abortedID
			continue
		}
		n, ok := scan.CanonicalNonNeg(h.Txns[t].ID)
		if !ok || seen[n] {
			useIDs = false
			break
		}
		seen[n] = true
		ids[t] = n
	}
	if !useIDs {
		for t := range ids {
			if h.Txns[t].Status == history.Aborted {
				ids[t] = abortedID
			} else {
				ids[t] = int64(t)
			}
		}
	}
	var line []byte
	first := true // no operation written yet
	for t := range h.Txns {
		tx := &h.Txns[t]
		switch tx.Status {
		case history.Committed, history.Aborted:
		default:
			return fmt.Errorf("transaction %s is %v: the text format holds only committed and aborted transactions", scan.Cut(h.Name(t)), tx.Status)
		}
		if tx.Session < 0 || int(tx.Session) >= len(sessions) {
			return fmt.Errorf("transaction %s: session %d out of range", scan.Cut(h.Name(t)), tx.Session)
		}
		ops := h.OpsOf(t)
		for _, op := range ops {
			if op.Key < 0 || int(op.Key) >= len(keys) {
				return fmt.Errorf("transaction %s: key %d out of range", scan.Cut(h.Name(t)), op.Key)
			}
		}
		if first && len(ops) > 0 && tx.Status == history.Committed && onlyWritesZero(ops, values) {
			// An initial transaction first, for the reader to drop.
			var id int64
			for useIDs && seen[id] {
				id++
			}
			if !useIDs {
				id = int64(len(h.Txns))
			}
			line = appendTextOp(line[:0], history.Write, keys[ops[0].Key], 0, sessions[tx.Session], id)
			if _, err := w.Write(line); err != nil {
				return err
			}
		}
		for _, op := range ops {
			first = false
			line = appendTextOp(line[:0], op.Kind, keys[op.Key], values.Bits(op), sessions[tx.Session], ids[t])
			if _, err := w.Write(line); err != nil {
				return err
			}
		}
	}
	return nil
}

// onlyWritesZero reports whether ops are all writes of 0.
func onlyWritesZero(ops []history.Op, values *scan.IntValues) bool {
	for _, op := range ops {
		if op.Kind != history.Write || values.Bits(op) != 0 {
			return false
		}
	}
	return true
}

// appendTextOp appends an operation line.
func appendTextOp(line []byte, kind history.OpKind, key, value uint64, session, id int64) []byte {
	line = append(line, kind.String()...)
	line = append(line, '(')
	line = strconv.AppendUint(line, key, 10)
	line = append(line, ',')
	line = strconv.AppendUint(line, value, 10)
	line = append(line, ',')
	line = strconv.AppendInt(line, session, 10)
	line = append(line, ',')
	line = strconv.AppendInt(line, id, 10)
	return append(line, ")\n"...)
}
