package explore

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/isocheck/isocheck/history"
)

// Status says how a transaction ended.
type Status uint8

const (
	// Pending: the transaction has not ended (only in partial histories).
	Pending Status = iota
	// Committed: its body returned.
	Committed
	// Aborted: its body called Tx.Abort; its writes are invisible (in the
	// key-value history, history.RolledBack).
	Aborted
)

func (s Status) String() string {
	switch s {
	case Committed:
		return "committed"
	case Aborted:
		return "aborted"
	}
	return "pending"
}

// EventKind is the kind of an event.
type EventKind uint8

const (
	Read EventKind = iota + 1
	Write
	Commit
	Abort
)

// TxnID names a transaction of a program by its place: its session's index
// in Program.Sessions and its index in the session. The Final transaction
// is {len(Program.Sessions), 0}; the initial state is Init.
type TxnID struct{ Session, Index int }

// Init is the TxnID of the initial state, the transaction that wrote every
// key's initial value before everything else.
var Init = TxnID{-1, 0}

func (id TxnID) String() string {
	if id == Init {
		return "init"
	}
	return fmt.Sprintf("s%d.t%d", id.Session, id.Index)
}

// Event is one step of a transaction.
type Event struct {
	Kind  EventKind
	Key   string
	Value Value // written, or read
	// From is the transaction whose write a read returned (Init for the
	// initial value). For a read of the transaction's own write, Internal
	// is set and From is the transaction itself.
	From     TxnID
	Internal bool
}

func (e Event) String() string {
	switch e.Kind {
	case Read:
		if e.Internal {
			return fmt.Sprintf("r(%s)=%d", e.Key, e.Value)
		}
		return fmt.Sprintf("r(%s)=%d<-%s", e.Key, e.Value, e.From)
	case Write:
		return fmt.Sprintf("w(%s,%d)", e.Key, e.Value)
	case Commit:
		return "commit"
	case Abort:
		return "abort"
	}
	return "?"
}

// TxnLog is what one transaction did in a history.
type TxnLog struct {
	ID     TxnID
	Name   string
	Events []Event // in program order, ending with Commit or Abort
	Status Status
	// Failures are the messages of the assertions the transaction broke.
	Failures []string
}

// History is one execution of a program: what every transaction read and
// wrote, and whose writes its reads returned. Txns are in the order the
// explorer added them, which respects session order and reads-from.
type History struct {
	Txns     []TxnLog
	Sessions []string // the session names, Final's last when there is one
	Init     map[string]Value
}

// Failed reports whether some transaction broke an assertion.
func (h *History) Failed() bool {
	for _, t := range h.Txns {
		if len(t.Failures) > 0 {
			return true
		}
	}
	return false
}

// Failures lists the broken assertions as "name: message".
func (h *History) Failures() []string {
	var out []string
	for _, t := range h.Txns {
		for _, f := range t.Failures {
			out = append(out, t.Name+": "+f)
		}
	}
	return out
}

// Key is a canonical text of h that two histories share exactly when they
// are the same history (the same transactions, the same events and the
// same reads-from), whatever the order the explorer added them in.
func (h *History) Key() string {
	txns := slices.Clone(h.Txns)
	slices.SortFunc(txns, func(a, b TxnLog) int {
		if a.ID.Session != b.ID.Session {
			return a.ID.Session - b.ID.Session
		}
		return a.ID.Index - b.ID.Index
	})
	return writeTxns(txns, func(t TxnLog) string { return fmt.Sprintf("%s[%s]", t.ID, t.Status) })
}

func (h *History) String() string {
	return writeTxns(h.Txns, func(t TxnLog) string { return fmt.Sprintf("%s %s:", t.ID, t.Name) })
}

// writeTxns writes a line per transaction: its head, then its events.
func writeTxns(txns []TxnLog, head func(TxnLog) string) string {
	var b strings.Builder
	for _, t := range txns {
		b.WriteString(head(t))
		for _, e := range t.Events {
			b.WriteByte(' ')
			b.WriteString(e.String())
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// KV returns h in isocheck's key-value model (package history), to check
// it or write it in the native format. The initial state is the history's
// implicit initial transaction (reads of it read null); a transaction's
// writes keep the program's values when they tell the writes of their key
// apart, and otherwise become "value@transaction" strings, so that every
// read names the write it returned. Transactions are in h's order, each
// session its program session, named by the transaction's name; their
// positions are lines of a file "history", the history as format.Write
// writes it. A transaction whose body called Tx.Abort is
// history.RolledBack: its reads are checked and it keeps its place in its
// session, only its writes vanish, as in Bouajjani et al. (PLDI 2023,
// §2.2.1), so that checking the history gives the explorer's verdict.
func (h *History) KV() *history.History {
	b := history.NewBuilder(history.Null, "history")
	for _, name := range h.Sessions {
		b.Session(name)
	}
	// A key's writes keep their values when those are distinct.
	distinct := map[string]map[Value]bool{}
	clash := map[string]bool{}
	for _, t := range h.Txns {
		for _, e := range finalWrites(t.Events) {
			if distinct[e.Key] == nil {
				distinct[e.Key] = map[Value]bool{}
			}
			if distinct[e.Key][e.Value] {
				clash[e.Key] = true
			}
			distinct[e.Key][e.Value] = true
		}
	}
	value := func(key string, v Value, by TxnID) history.Value {
		if by == Init {
			return history.Null
		}
		if clash[key] {
			return b.StringValue(strconv.FormatInt(v, 10) + "@" + by.String())
		}
		if history.Value(v) <= -history.StringBase || history.Value(v) >= history.StringBase {
			return b.StringValue(strconv.FormatInt(v, 10))
		}
		return history.Value(v)
	}
	// Transactions are named by their names where those are unique.
	count := map[string]int{}
	for _, t := range h.Txns {
		count[t.Name]++
	}
	for _, t := range h.Txns {
		status := history.Committed
		var ops []history.Op
		last := lastWriteIndex(t.Events)
		own := map[string]history.Value{} // the value of the transaction's last write of each key so far
		for i, e := range t.Events {
			switch e.Kind {
			case Read:
				v := value(e.Key, e.Value, e.From)
				if e.Internal {
					v = own[e.Key]
				}
				ops = append(ops, history.Op{Kind: history.Read, Key: b.Key(e.Key), Value: v})
			case Write:
				// Intermediate writes get their own values so that
				// they never pass for the final one.
				v := value(e.Key, e.Value, t.ID)
				if last[e.Key] != i {
					v = b.StringValue(fmt.Sprintf("%d@%s#%d", e.Value, t.ID, i))
				}
				own[e.Key] = v
				ops = append(ops, history.Op{Kind: history.Write, Key: b.Key(e.Key), Value: v})
			}
		}
		if t.Status == Aborted {
			status = history.RolledBack
		}
		id := t.Name
		if count[id] > 1 || id == "" {
			id = t.ID.String() + ":" + t.Name
		}
		// Positions are lines of the history as format.Write writes it.
		b.AddTxn(history.Txn{ID: id, Session: int32(t.ID.Session), Status: status, Start: history.NoTime, End: history.NoTime, Pos: int64(b.NumTxns() + 1)}, ops)
	}
	return b.History()
}

// finalWrites returns the last write of each key in events, in order.
func finalWrites(events []Event) []Event {
	last := lastWriteIndex(events)
	var out []Event
	for i, e := range events {
		if e.Kind == Write && last[e.Key] == i {
			out = append(out, e)
		}
	}
	return out
}

func lastWriteIndex(events []Event) map[string]int {
	last := map[string]int{}
	for i, e := range events {
		if e.Kind == Write {
			last[e.Key] = i
		}
	}
	return last
}
