package jepsen

import (
	"bufio"
	"fmt"
	"strconv"
	"strings"

	"github.com/isocheck/isocheck/format/internal/scan"
	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/internal/edn"
)

// Writing Jepsen histories, in EDN and in elle-cli's JSON.

// jepsenWriter writes a history as Jepsen events.
type jepsenWriter struct {
	w     *bufio.Writer
	h     *history.History
	json  bool
	procs []int64 // the process of each session
	buf   []byte
}

// writeJepsen writes h as a Jepsen history, in EDN or in elle-cli's JSON.
//
// Each transaction is an invocation and its completion: :ok for committed
// transactions, :fail for aborted ones and :info for those of unknown
// status (a rolled-back transaction has none: it is an error), written
// one after the other, transactions in the order of their
// indices (session order kept). Sessions named by integers are those
// processes; the others get the smallest integers no session is named by.
// :time is written where the transaction has a start or an end, but only
// when every transaction but those of unknown status has an end, and some
// a start: then a transaction without a start is written as its
// completion alone, and every invocation and :ok or :fail completion has
// a time, so that real time reads back as it was; a history without real
// time gets none (:index is written on completions
// only, so it does not become a clock). :index is the transaction's id
// when every id is a distinct non-negative integer, none when no
// transaction has an id, else its index.
//
// Reads of h.Init are written as reads of nil (the initial state of a
// Jepsen history), and writes of it are an error. Lists are written as
// [:append k v] and [:r k [v ...]].
func writeJepsen(w *bufio.Writer, h *history.History, asJSON bool) error {
	if len(h.Orders) > 0 {
		return fmt.Errorf("a Jepsen history cannot state version orders, and this one states %d", len(h.Orders))
	}
	for t := range h.Txns {
		if h.Txns[t].Status == history.RolledBack {
			return fmt.Errorf("transaction %s rolled back, which a Jepsen history cannot represent", scan.Cut(h.Name(t)))
		}
	}
	jw := &jepsenWriter{w: w, h: h, json: asJSON}
	jw.procs = scan.IntegerNames(h.SessionNames, len(h.Sessions))
	for i, op := range h.Ops {
		if op.Kind == history.Write && op.Value == h.Init {
			return fmt.Errorf("operation %d writes the initial value %s, which a Jepsen history cannot tell from nil", i, h.FormatValue(h.Init))
		}
	}
	// A transaction without a start but with times on the others (one
	// read from a completion alone) is written as its completion alone.
	withTime := false
	for i := range h.Txns {
		t := &h.Txns[i]
		if t.Status != history.Unknown && t.End == history.NoTime {
			withTime = false
			break
		}
		withTime = withTime || t.Start != history.NoTime
	}
	useIDs, noIDs := true, true
	for i := range h.Txns {
		noIDs = noIDs && h.Txns[i].ID == ""
	}
	seen := make(map[int64]bool, len(h.Txns))
	ids := make([]int64, len(h.Txns))
	for i := range h.Txns {
		n, err := strconv.ParseInt(h.Txns[i].ID, 10, 64)
		if err != nil || n < 0 || strconv.FormatInt(n, 10) != h.Txns[i].ID || seen[n] {
			useIDs = false
			break
		}
		seen[n] = true
		ids[i] = n
	}
	if asJSON {
		w.WriteString("[")
	}
	first := true
	for _, t := range txnOrder(h) {
		id := int64(t)
		if useIDs {
			id = ids[t]
		}
		for _, comp := range []bool{false, true} {
			if !comp && withTime && h.Txns[t].Start == history.NoTime {
				continue
			}
			if noIDs {
				id = -1
			}
			jw.buf = jw.event(jw.buf[:0], int(t), comp, withTime, id)
			if asJSON {
				if !first {
					w.WriteString(",\n ")
				}
				first = false
			} else {
				jw.buf = append(jw.buf, '\n')
			}
			if _, err := w.Write(jw.buf); err != nil {
				return err
			}
		}
	}
	if asJSON {
		w.WriteString("]\n")
	}
	return nil
}

// txnOrder returns the transactions of h by index, but each session's in
// session order.
func txnOrder(h *history.History) []int32 {
	out := make([]int32, 0, len(h.Txns))
	next := make([]int, len(h.Sessions))
	// A merge of the sessions by the index of their next transaction.
	type head struct {
		t int32
		s int
	}
	var heap []head
	less := func(a, b head) bool { return a.t < b.t }
	push := func(x head) {
		heap = append(heap, x)
		for i := len(heap) - 1; i > 0; {
			p := (i - 1) / 2
			if !less(heap[i], heap[p]) {
				break
			}
			heap[i], heap[p] = heap[p], heap[i]
			i = p
		}
	}
	pop := func() head {
		x := heap[0]
		n := len(heap) - 1
		heap[0] = heap[n]
		heap = heap[:n]
		for i := 0; ; {
			l, m := 2*i+1, i
			if l < n && less(heap[l], heap[m]) {
				m = l
			}
			if l+1 < n && less(heap[l+1], heap[m]) {
				m = l + 1
			}
			if m == i {
				break
			}
			heap[i], heap[m] = heap[m], heap[i]
			i = m
		}
		return x
	}
	for s, txns := range h.Sessions {
		if len(txns) > 0 {
			push(head{txns[0], s})
		}
	}
	for len(heap) > 0 {
		x := pop()
		out = append(out, x.t)
		next[x.s]++
		if txns := h.Sessions[x.s]; next[x.s] < len(txns) {
			push(head{txns[next[x.s]], x.s})
		}
	}
	return out
}

// event appends the invocation (or the completion, if comp) of
// transaction t.
func (jw *jepsenWriter) event(b []byte, t int, comp, withTime bool, id int64) []byte {
	h := jw.h
	tx := &h.Txns[t]
	typ := "invoke"
	if comp {
		switch tx.Status {
		case history.Committed:
			typ = "ok"
		case history.Aborted:
			typ = "fail"
		default:
			typ = "info"
		}
	}
	if jw.json {
		b = append(b, `{"type": "`...)
		b = append(b, typ...)
		b = append(b, `", "f": "txn", "value": [`...)
	} else {
		b = append(b, "{:type :"...)
		b = append(b, typ...)
		b = append(b, ", :f :txn, :value ["...)
	}
	showReads := comp && tx.Status == history.Committed
	for i, op := range h.OpsOf(t) {
		if i > 0 {
			b = jw.sep(b)
		}
		b = append(b, '[')
		switch {
		case op.Kind == history.Read:
			b = jw.name(b, "r")
		case h.Lists:
			b = jw.name(b, "append")
		default:
			b = jw.name(b, "w")
		}
		b = jw.sep(b)
		b = jw.key(b, op.Key)
		b = jw.sep(b)
		switch {
		case op.Kind == history.Write:
			b = jw.value(b, op.Value)
		case !showReads:
			b = jw.null(b)
		case h.Lists:
			b = append(b, '[')
			for j, v := range h.ListOf(tx.OpStart + int32(i)) {
				if j > 0 {
					b = jw.sep(b)
				}
				b = jw.value(b, v)
			}
			b = append(b, ']')
		case op.Value == h.Init:
			b = jw.null(b)
		default:
			b = jw.value(b, op.Value)
		}
		b = append(b, ']')
	}
	b = append(b, ']')
	b = jw.field(b, "process", jw.procs[tx.Session])
	if withTime {
		if !comp {
			b = jw.field(b, "time", tx.Start)
		} else if tx.Status != history.Unknown {
			b = jw.field(b, "time", tx.End)
		}
	}
	if comp && id >= 0 {
		b = jw.field(b, "index", id)
	}
	return append(b, '}')
}

func (jw *jepsenWriter) sep(b []byte) []byte {
	if jw.json {
		return append(b, ", "...)
	}
	return append(b, ' ')
}

func (jw *jepsenWriter) null(b []byte) []byte {
	if jw.json {
		return append(b, "null"...)
	}
	return append(b, "nil"...)
}

// name appends a keyword, or a string in JSON.
func (jw *jepsenWriter) name(b []byte, s string) []byte {
	if jw.json {
		return scan.AppendJSONString(b, s)
	}
	return append(append(b, ':'), s...)
}

func (jw *jepsenWriter) field(b []byte, name string, n int64) []byte {
	if jw.json {
		b = append(b, `, "`...)
		b = append(b, name...)
		b = append(b, `": `...)
	} else {
		b = append(b, ", :"...)
		b = append(b, name...)
		b = append(b, ' ')
	}
	return strconv.AppendInt(b, n, 10)
}

// key appends a key: an integer when its name is one, a keyword when its
// name is one (in EDN), else a string.
func (jw *jepsenWriter) key(b []byte, k history.Key) []byte {
	return jw.text(b, jw.h.FormatKey(k), true)
}

// value appends a value: an integer, or the name of an interned one.
func (jw *jepsenWriter) value(b []byte, v history.Value) []byte {
	h := jw.h
	if v == history.Null || v == h.Init {
		return jw.null(b)
	}
	if v >= history.StringBase && int(v-history.StringBase) < len(h.ValueNames) {
		return jw.text(b, h.ValueNames[v-history.StringBase], false)
	}
	return strconv.AppendInt(b, int64(v), 10)
}

// text appends a name: as an integer when it is one (for values, only
// those beyond the native range, which read back as the same name), as a
// keyword in EDN when it is one, else as a string.
func (jw *jepsenWriter) text(b []byte, s string, isKey bool) []byte {
	if isCanonicalInt(s) {
		if isKey {
			return append(b, s...)
		}
		if n, err := strconv.ParseInt(s, 10, 64); err != nil || n >= scan.MaxNativeInt || n <= -scan.MaxNativeInt {
			return append(b, s...)
		}
	}
	if jw.json {
		return scan.AppendJSONString(b, s)
	}
	return edn.AppendName(b, s)
}

// isCanonicalInt reports whether s is an integer in canonical decimal
// form: -?[1-9][0-9]* or 0.
func isCanonicalInt(s string) bool {
	t := strings.TrimPrefix(s, "-")
	if t == "" || (t[0] == '0' && len(t) > 1) || (t == "0" && len(s) > 1) {
		return false
	}
	for i := 0; i < len(t); i++ {
		if t[i] < '0' || t[i] > '9' {
			return false
		}
	}
	return true
}
