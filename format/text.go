package format

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/internal/progress"
)

// PolySI's text format holds one operation per line, r(key,value,session,txn)
// or w(key,value,session,txn), all non-negative decimal integers. Transaction
// ids are global; a transaction's operations are its lines in order.

const textSyntax = "r(key,value,session,txn) or w(key,value,session,txn)"

// textTxn collects the operations of one transaction of a text history.
type textTxn struct {
	id      int64
	session int64
	line    int
	ops     []history.Op
}

func readText(m *progress.Meter, lr *lineReader) (*history.History, error) {
	name := lr.name
	b := history.NewBuilder(0, name)
	var txns []*textTxn
	index := make(map[int64]*textTxn)
	nops := 0
	for {
		line, err := lr.nextContent()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		kind, f, err := parseTextLine(line)
		if err != nil {
			return nil, lineError(name, lr.line, "%v", err)
		}
		key, value, session, id := f[0], f[1], f[2], f[3]
		t := index[id]
		if t == nil {
			t = &textTxn{id: id, session: session, line: lr.line}
			index[id] = t
			txns = append(txns, t)
		} else if t.session != session {
			return nil, lineError(name, lr.line, "transaction %d is in session %d here but in session %d at line %d", id, session, t.session, t.line)
		}
		if nops == maxOps {
			return nil, lineError(name, lr.line, "too many operations (the limit is %d)", maxOps)
		}
		nops++
		t.ops = append(t.ops, history.Op{Kind: kind, Key: b.IntKey(key), Value: uintValue(b, uint64(value))})
	}
	for i, t := range txns {
		if i%progress.Every == 0 {
			if err := m.Err(); err != nil {
				return nil, err
			}
		}
		b.AddTxn(history.Txn{
			ID:      strconv.FormatInt(t.id, 10),
			Session: b.IntSession(t.session),
			Status:  history.Committed,
			Start:   history.NoTime,
			End:     history.NoTime,
			Pos:     int64(t.line),
		}, t.ops)
	}
	return b.History(), nil
}

// parseTextLine parses "r(key,value,session,txn)" or "w(...)", with optional
// blanks around the tokens.
func parseTextLine(s []byte) (history.OpKind, [4]int64, error) {
	var f [4]int64
	bad := func(why string) (history.OpKind, [4]int64, error) {
		return 0, f, fmt.Errorf("expected %s, got %s%s", textSyntax, snippet(s), why)
	}
	i := 0
	skip := func() {
		for i < len(s) && isSpace(s[i]) {
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
			return 0, f, fmt.Errorf("%s must be a non-negative integer, got %s", names[n], snippet(s[i:scanNumber(s, i+1)]))
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
			return 0, f, fmt.Errorf("%s %s out of range (the largest is %d)", names[n], cut(string(s[start:i])), int64(math.MaxInt64))
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

// scanNumber returns the end of the digits starting at i.
func scanNumber(s []byte, i int) int {
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i
}

// writeText writes h in PolySI's text format.
func writeText(w *bufio.Writer, h *history.History) error {
	keys := integerKeys(h, math.MaxInt64)
	values := newIntValues(h, math.MaxInt64)
	// Sessions and transactions keep their numbers when all are
	// non-negative integers (and, for transactions, distinct).
	sessions := make([]int64, len(h.Sessions))
	useNames := true
	for s := range sessions {
		n, ok := canonicalNonNeg(h.SessionName(s))
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
		n, ok := canonicalNonNeg(h.Txns[t].ID)
		if !ok || seen[n] {
			useIDs = false
			break
		}
		seen[n] = true
		ids[t] = n
	}
	if !useIDs {
		for t := range ids {
			ids[t] = int64(t)
		}
	}
	var line []byte
	for t := range h.Txns {
		tx := &h.Txns[t]
		if tx.Status != history.Committed {
			return fmt.Errorf("transaction %s is %v: the text format holds only committed transactions", cut(h.Name(t)), tx.Status)
		}
		if tx.Session < 0 || int(tx.Session) >= len(sessions) {
			return fmt.Errorf("transaction %s: session %d out of range", cut(h.Name(t)), tx.Session)
		}
		for _, op := range h.OpsOf(t) {
			if op.Key < 0 || int(op.Key) >= len(keys) {
				return fmt.Errorf("transaction %s: key %d out of range", cut(h.Name(t)), op.Key)
			}
			v := values.bits(op)
			line = append(line[:0], op.Kind.String()...)
			line = append(line, '(')
			line = strconv.AppendUint(line, keys[op.Key], 10)
			line = append(line, ',')
			line = strconv.AppendUint(line, v, 10)
			line = append(line, ',')
			line = strconv.AppendInt(line, sessions[tx.Session], 10)
			line = append(line, ',')
			line = strconv.AppendInt(line, ids[t], 10)
			line = append(line, ")\n"...)
			if _, err := w.Write(line); err != nil {
				return err
			}
		}
	}
	return nil
}

// canonicalNonNeg parses s if it is the canonical decimal form of a
// non-negative int64.
func canonicalNonNeg(s string) (int64, bool) {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 || strconv.FormatInt(n, 10) != s {
		return 0, false
	}
	return n, true
}
