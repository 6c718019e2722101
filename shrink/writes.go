package shrink

import (
	"cmp"
	"slices"

	"github.com/isocheck/isocheck/history"
)

// Writes indexes the writes of a history by key and value. It is built
// without hashing, in about the time of two passes over the operations
// and a sort of each key's writes, and finds the writes of a value in
// time logarithmic in the writes of its key.
type Writes struct {
	// The writes of key k, for k in [0, len(start)-1), are
	// all[start[k]:start[k+1]], by value, then in history order.
	start []int32
	all   []Write
	// other holds the writes of keys outside that range, which a
	// history's reader does not make.
	other map[history.Key][]Write
}

// Write is a write of an index: its value, its operation's index and its
// transaction's.
type Write struct {
	Value   history.Value
	Op, Txn int32
}

// NewWrites indexes the writes of h.
func NewWrites(h *history.History) *Writes {
	// Keys are numbered from 0 by the readers: a key past every
	// operation's count is an odd one, kept aside.
	limit := history.Key(len(h.Ops) + 1)
	maxKey := history.Key(-1)
	for i := range h.Ops {
		if op := &h.Ops[i]; op.Kind == history.Write && op.Key >= 0 && op.Key < limit {
			maxKey = max(maxKey, op.Key)
		}
	}
	w := &Writes{start: make([]int32, maxKey+2)}
	inRange := func(k history.Key) bool { return k >= 0 && k <= maxKey }
	for i := range h.Ops {
		if op := &h.Ops[i]; op.Kind == history.Write && inRange(op.Key) {
			w.start[op.Key+1]++
		}
	}
	for k := 1; k < len(w.start); k++ {
		w.start[k] += w.start[k-1]
	}
	w.all = make([]Write, w.start[len(w.start)-1])
	next := slices.Clone(w.start[:len(w.start)-1])
	for t := range h.Txns {
		tx := &h.Txns[t]
		for i := tx.OpStart; i < tx.OpEnd; i++ {
			op := &h.Ops[i]
			if op.Kind != history.Write {
				continue
			}
			x := Write{Value: op.Value, Op: i, Txn: int32(t)}
			if !inRange(op.Key) {
				if w.other == nil {
					w.other = make(map[history.Key][]Write)
				}
				w.other[op.Key] = append(w.other[op.Key], x)
				continue
			}
			w.all[next[op.Key]] = x
			next[op.Key]++
		}
	}
	byValue := func(a, b Write) int {
		if c := cmp.Compare(a.Value, b.Value); c != 0 {
			return c
		}
		return cmp.Compare(a.Op, b.Op)
	}
	for k := 0; k+1 < len(w.start); k++ {
		if ws := w.all[w.start[k]:w.start[k+1]]; !slices.IsSortedFunc(ws, byValue) {
			slices.SortFunc(ws, byValue)
		}
	}
	for _, ws := range w.other {
		slices.SortFunc(ws, byValue)
	}
	return w
}

// Of returns the writes of value v to key k, in history order.
func (w *Writes) Of(k history.Key, v history.Value) []Write {
	var ws []Write
	if k >= 0 && int(k)+1 < len(w.start) {
		ws = w.all[w.start[k]:w.start[k+1]]
	} else {
		ws = w.other[k]
	}
	i, found := slices.BinarySearchFunc(ws, v, func(x Write, v history.Value) int { return cmp.Compare(x.Value, v) })
	if !found {
		return nil
	}
	j := i + 1
	for j < len(ws) && ws[j].Value == v {
		j++
	}
	return ws[i:j:j]
}
