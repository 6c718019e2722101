package interpret

import (
	"strings"

	"github.com/isocheck/isocheck/draw"
	"github.com/isocheck/isocheck/verdict"
)

// opMarks records which operations of an anomaly's transactions a
// picture marks: by transaction name and operation index, the whole
// operation or, in a read of a list, the elements that matter.
type opMarks struct {
	a     *Anomaly
	byTxn map[string]map[int]*opMark
}

// opMark is what one operation has marked.
type opMark struct {
	whole bool
	elems map[int]bool
}

// newOpMarks returns an empty record for the anomaly's transactions.
func newOpMarks(a *Anomaly) opMarks {
	m := opMarks{a: a, byTxn: map[string]map[int]*opMark{}}
	for _, t := range a.Txns {
		m.byTxn[t.Name] = map[int]*opMark{}
	}
	return m
}

// txn returns the transaction named name, or nil.
func (m opMarks) txn(name string) *TxnInfo {
	for i := range m.a.Txns {
		if m.a.Txns[i].Name == name {
			return &m.a.Txns[i]
		}
	}
	return nil
}

// mark marks operation op of the transaction named txn: element elem of
// the list it read, or the whole operation when elem is negative.
func (m opMarks) mark(txn string, op, elem int) {
	ops, ok := m.byTxn[txn]
	if !ok || op < 0 {
		return
	}
	o := ops[op]
	if o == nil {
		o = &opMark{}
		ops[op] = o
	}
	if elem < 0 {
		o.whole = true
		return
	}
	if o.elems == nil {
		o.elems = map[int]bool{}
	}
	o.elems[elem] = true
}

// step marks the operations a dependency rests on: for WR the write and
// the read of its value, for WW the two writes, for RW the read and the
// write that overwrote what it read. It returns their indexes in the
// operations of From and To (-1 where it marked none).
func (m opMarks) step(s Step) (from, to int) {
	if s.Key == "" {
		return -1, -1
	}
	fromRead, toRead := false, false
	switch s.Kind {
	case "WR":
		toRead = true
	case "RW":
		fromRead = true
	case "WW":
	default:
		return -1, -1
	}
	return m.markValue(s.From, s.Key, s.FromValue, fromRead), m.markValue(s.To, s.Key, s.ToValue, toRead)
}

// markValue marks, in the transaction named txn, the read (or the write)
// of v on key; in a read of a list, the elements equal to v. Without
// such an operation it marks the transaction's first read (last write) of
// key, the operation the dependency stands for. It returns the index of
// the operation it marked, or -1.
func (m opMarks) markValue(txn string, key verdict.ID, v Value, read bool) int {
	t := m.txn(txn)
	if t == nil {
		return -1
	}
	fallback := -1
	for i, op := range t.Ops {
		if op.Key != key || isWrite(op) == read {
			continue
		}
		if read && fallback < 0 || !read {
			fallback = i
		}
		if op.Value.Kind() == KindList && v.Kind() != KindList {
			found := false
			for e, x := range op.Value.List() {
				if sameValue(x, v) {
					m.mark(txn, i, e)
					found = true
				}
			}
			if found {
				return i
			}
			continue
		}
		if sameValue(op.Value, v) {
			m.mark(txn, i, -1)
			return i
		}
	}
	m.mark(txn, fallback, -1)
	return fallback
}

// unwritten marks the reads of values that no transaction of the anomaly
// wrote (null aside).
func (m opMarks) unwritten() {
	a := m.a
	for _, t := range a.Txns {
		for i, op := range t.Ops {
			if op.Kind != "r" {
				continue
			}
			elems := []Value{op.Value}
			if op.Value.Kind() == KindList {
				elems = op.Value.List()
			}
			for e, v := range elems {
				if v.Kind() == KindNull || v.IsZero() {
					continue
				}
				if a.writerIn(t.Name, op.Key, v) < 0 {
					if op.Value.Kind() == KindList {
						m.mark(t.Name, i, e)
					} else {
						m.mark(t.Name, i, -1)
					}
				}
			}
		}
	}
}

// lines returns t's operations as a picture's lines, one each, with
// their marks.
func (m opMarks) lines(t *TxnInfo) []draw.Line {
	out := make([]draw.Line, len(t.Ops))
	for i, op := range t.Ops {
		out[i] = opLine(op, m.byTxn[t.Name][i])
	}
	return out
}

// opLine writes op as op.String() does, in spans: the whole operation
// marked, or the marked elements of the list it read.
func opLine(op Op, mark *opMark) draw.Line {
	text := op.String()
	switch {
	case mark == nil:
		return draw.Plain(text)
	case mark.whole || op.Value.Kind() != KindList:
		return draw.Line{{Text: text, Mark: true}}
	}
	// r(x, [1 2 3]) with 2 marked: "r(x, [1 ", "2", " 3])". A run of
	// more than elideRun unmarked elements is cut to its ends, so that
	// the marked ones of a long list stay in the box's width.
	var line draw.Line
	var plain strings.Builder
	plain.WriteString(op.Kind + "(" + string(op.Key) + ", [")
	list := op.Value.List()
	for i := 0; i < len(list); i++ {
		if i > 0 {
			plain.WriteString(" ")
		}
		if !mark.elems[i] {
			end := i
			for end < len(list) && !mark.elems[end] {
				end++
			}
			if end-i > elideRun {
				plain.WriteString(list[i].String() + " … " + list[end-1].String())
				i = end - 1
				continue
			}
			plain.WriteString(list[i].String())
			continue
		}
		if plain.Len() > 0 {
			line = append(line, draw.Span{Text: plain.String()})
			plain.Reset()
		}
		line = append(line, draw.Span{Text: list[i].String(), Mark: true})
	}
	plain.WriteString("])")
	return append(line, draw.Span{Text: plain.String()})
}

// elideRun is the longest run of unmarked elements of a list read that a
// picture writes in full.
const elideRun = 6

// isWrite reports whether op writes: a write, or an append to a list.
func isWrite(op Op) bool { return op.Kind == "w" || op.Kind == "append" }

// sameValue reports whether two values are the same as reports write them.
func sameValue(a, b Value) bool { return a.Kind() == b.Kind() && a.String() == b.String() }
