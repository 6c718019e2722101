// Package explore model-checks a transactional program: it enumerates every
// history the program can produce when the database keeps a given isolation
// level, each exactly once, and reports the histories that break the
// program's assertions.
//
// It implements the swapping-based stateless model checking of Bouajjani,
// Enea and Román-Calvo, "Dynamic Partial Order Reduction for Checking
// Correctness against Transaction Isolation Levels" (PLDI 2023):
// explore-ce (§5) for RC, RA and CC, which is sound, complete and strongly
// optimal (no history twice, no exploration that leads nowhere) in
// polynomial space, and explore-ce* (§6) for SI and SER, which explores
// under CC and keeps the histories isocheck's checker (package check)
// accepts at the stronger level. A plain depth-first search of the
// operational semantics (§2.3, Algorithm DFS) is there as the baseline of
// §7.
//
// A program is a set of sessions, each a sequence of transactions; a
// transaction is a Go function over a Tx handle. The function may compute
// anything between reads and writes, but it must be deterministic given
// the values it read: the explorer runs it again, replaying those values,
// whenever it needs the transaction's next step (stateless model checking
// keeps no snapshots of local state).
package explore

import (
	"fmt"
	"runtime"
)

// Value is what a key holds. Keys nobody wrote hold their Program.Init
// value, or 0. Tables of rows are modelled as in Bouajjani et al.
// (PLDI 2023) §7.2: a key per row field, and a key holding the set of row
// ids (see Set).
type Value = int64

// Program is a transactional program: its sessions run in parallel, the
// transactions of a session one after another.
type Program struct {
	Sessions []Session
	// Init holds the initial values of keys; a key not in it starts at 0.
	Init map[string]Value
	// Final, when set, is a transaction that runs after every transaction
	// of every session (it follows them all in session order) and asserts
	// over the final state: it reads every key from the transaction that
	// wrote it last, in a commit order the level allows. (Under RC, which
	// promises a client nothing about its own earlier transactions, a
	// later client could read older values; Final reads what the database
	// holds, so that its assertions are about the program, not about a
	// stale read of its own.) When several commit orders are allowed,
	// each final state is a history of its own.
	Final *Txn
}

// Session is a sequence of transactions run by one client.
type Session struct {
	Name string
	Txns []Txn
}

// Txn is one transaction of a program.
type Txn struct {
	// Name names the transaction in reports, e.g. "enroll(alice,db)".
	Name string
	// Body is the transaction's code. It commits when Body returns, and
	// aborts when it calls Tx.Abort.
	Body func(tx *Tx)
}

// NumTxns counts the program's transactions, Final included.
func (p *Program) NumTxns() int {
	n := 0
	for _, s := range p.Sessions {
		n += len(s.Txns)
	}
	if p.Final != nil {
		n++
	}
	return n
}

// Tx is the handle a transaction body reads and writes the database with.
// It is valid only during the call of Body it was passed to.
type Tx struct {
	run *replay
}

// Read returns the value of key: the transaction's own last write of it,
// if any, or else the value some other transaction wrote (which one is
// what the explorer enumerates).
func (tx *Tx) Read(key string) Value { return tx.run.read(key) }

// Write sets key to v. Other transactions see it only once the
// transaction commits.
func (tx *Tx) Write(key string, v Value) { tx.run.write(key, v) }

// Abort ends the transaction: its writes are discarded. It does not
// return.
func (tx *Tx) Abort() {
	tx.run.status = Aborted
	panic(stopBody{})
}

// Assert records a failure of the program's correctness condition when ok
// is false: the message, formatted as by fmt.Sprintf, is reported with the
// history in which the transaction saw what it saw. The transaction goes
// on.
func (tx *Tx) Assert(ok bool, format string, args ...any) {
	if !ok {
		// Formatted only if the body ends on this run: a body runs
		// again at every step of its transaction.
		tx.run.failures = append(tx.run.failures, failure{format, args})
	}
}

// Set helpers model SQL tables as Bouajjani et al. (PLDI 2023) §7.2 do: the
// ids of a table's rows form a set held in one key. A set is a bit mask of
// ids 0 to 62.

// SetHas reports whether id is in the set s.
func SetHas(s Value, id int) bool { return id >= 0 && id < 63 && s&(1<<id) != 0 }

// SetAdd returns s with id added; it panics unless 0 <= id < 63.
func SetAdd(s Value, id int) Value { return s | 1<<setBit(id) }

// SetRemove returns s without id; it panics unless 0 <= id < 63.
func SetRemove(s Value, id int) Value { return s &^ (1 << setBit(id)) }

// SetIDs returns the ids in s, smallest first.
func SetIDs(s Value) []int {
	var ids []int
	for id := 0; id < 63; id++ {
		if s&(1<<id) != 0 {
			ids = append(ids, id)
		}
	}
	return ids
}

func setBit(id int) uint {
	if id < 0 || id >= 63 {
		panic(fmt.Sprintf("explore: set id %d out of range [0, 63)", id))
	}
	return uint(id)
}

// stopBody unwinds a transaction body: it aborted, or it reached a read
// whose value the explorer has not chosen yet.
type stopBody struct{}

// replay runs a transaction body, giving its reads the values recorded so
// far, and collects the events past them up to and including the next
// read of another transaction's write (which it stops at) or the end.
type replay struct {
	recorded []Event // the events of the transaction so far
	pos      int     // the next recorded event to match
	added    []Event // events past the recorded ones
	own      map[string]Value
	status   Status // Pending while running; Committed or Aborted at the end
	failures []failure
	// pending is the key of the read the body stopped at, when it did.
	pending string
	stopped bool
}

// failure is a broken assertion, its message not yet formatted.
type failure struct {
	format string
	args   []any
}

func (f failure) String() string { return fmt.Sprintf(f.format, f.args...) }

// errNondeterministic is the panic value of a body that did not repeat
// itself on replay.
type errNondeterministic struct{ msg string }

func (r *replay) read(key string) Value {
	if v, ok := r.own[key]; ok {
		r.event(Event{Kind: Read, Key: key, Value: v, Internal: true})
		return v
	}
	if r.pos < len(r.recorded) {
		e := r.recorded[r.pos]
		r.match(Event{Kind: Read, Key: key}, e)
		r.pos++
		return e.Value
	}
	r.pending = key
	r.stopped = true
	panic(stopBody{})
}

func (r *replay) write(key string, v Value) {
	if r.own == nil {
		r.own = make(map[string]Value)
	}
	r.own[key] = v
	r.event(Event{Kind: Write, Key: key, Value: v})
}

// event records an event the body produced: it must match the recorded one
// at this point, if any.
func (r *replay) event(e Event) {
	if r.pos < len(r.recorded) {
		r.match(e, r.recorded[r.pos])
		r.pos++
		return
	}
	r.added = append(r.added, e)
}

func (r *replay) match(got, want Event) {
	if got.Kind != want.Kind || got.Key != want.Key || (got.Kind == Write && got.Value != want.Value) {
		panic(errNondeterministic{fmt.Sprintf("event %d is %s, was %s when the body ran before with the same reads", r.pos+1, got, want)})
	}
}

// run runs body over the recorded events. It returns the events past them
// and whether the body stopped at a read of another transaction (then
// r.pending is its key) or ended (r.status says how). A panic of the body
// other than the explorer's own is returned as an error.
func (r *replay) run(name string, body func(*Tx)) (err error) {
	r.status = Pending
	defer func() {
		p := recover()
		switch p := p.(type) {
		case nil:
		case stopBody:
			if !r.stopped && r.status == Aborted {
				r.added = append(r.added, Event{Kind: Abort})
			}
			return
		case errNondeterministic:
			err = fmt.Errorf("transaction %s is not deterministic: %s", name, p.msg)
			return
		default:
			buf := make([]byte, 4096)
			buf = buf[:runtime.Stack(buf, false)]
			err = fmt.Errorf("transaction %s panicked: %v\n%s", name, p, buf)
			return
		}
		r.status = Committed
		r.added = append(r.added, Event{Kind: Commit})
	}()
	body(&Tx{run: r})
	return nil
}
