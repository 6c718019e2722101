// Package run executes a workload plan against a database and records the
// history it produced.
//
// Run starts one goroutine per session of the plan, each with its own
// db.Session, and runs the session's transactions in order. Every
// operation's answer is recorded as the transaction completes, in the
// native JSONL format (format.Recorder), with start and end times from a
// monotonic clock and the status the database gave:
//
//   - committed when the database acknowledged the commit;
//   - aborted when it refused the transaction (db.AbortError), or when an
//     operation failed before the commit was sent: without a commit the
//     database cannot have installed the writes;
//   - unknown when the commit got no answer (connection lost, timeout):
//     its writes may have taken effect, and the checker treats them so.
//
// A session whose connection failed reconnects before its next
// transaction, for at most Options.Reconnect; a session that cannot
// reconnect stops, and the run is incomplete (Summary.Incomplete): a
// database that stops answering ends the run within seconds, with the
// transactions that did not run counted and the first error kept.
//
// A transaction whose commit got no answer may still be in progress
// inside the database after the client gave up on it, so the session goes
// on as a new session of the history (session 2 becomes 2.1, then 2.2), as
// a Jepsen process does after an :info operation: the history must not
// claim that the next transaction came after one the database may not have
// finished. Cancelling the context stops the sessions between
// transactions; a transaction in flight runs to its end (bounded by
// Options.TxnTimeout), so an interrupted run leaves a complete history of
// what ran.
package run

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/isocheck/isocheck/db"
	"github.com/isocheck/isocheck/format/jsonl"
	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/progress"
	"github.com/isocheck/isocheck/workload"
)

// Options tune a run. The zero value records nothing and has the default
// timeout.
type Options struct {
	// Recorder receives every transaction as it completes; nil records
	// nothing (to measure the recorder's cost).
	Recorder *jsonl.Recorder
	// TxnTimeout bounds each transaction, commit included [10s]. A
	// transaction past it is abandoned: aborted if its commit was not
	// sent, unknown if it was.
	TxnTimeout time.Duration
	// Reconnect bounds how long a session keeps trying to open its
	// connection again after it failed [DefaultReconnect]. A session that
	// cannot reconnect stops; the others go on. Runs that restart a
	// cluster's nodes under the sessions want it longer than a restart.
	Reconnect time.Duration
	// Waiting, if set, is called after each failed attempt to connect
	// with what the sessions are waiting for; it must be safe for
	// concurrent use. Calls are serialized.
	Waiting func(Waiting)
	// Completed, if set, is called with each transaction as it is
	// recorded, one call at a time; rec is valid only during the call.
	Completed func(rec *jsonl.TxnRecord)
	// Start is the origin of the transactions' times (nanoseconds since
	// it); zero means when Run starts. A nemesis's events share it.
	Start time.Time
	// Fences, when positive, makes the sessions meet at a fence each
	// Fences transactions of theirs: every session writes a key of its
	// own and waits for the others; then a transaction of a session of its
	// own (FenceSession) reads those keys and every key written since the
	// last fence, and writes the fence's key; then every session reads
	// it and goes on. In every order a level allows, what ran before a
	// fence then comes before what runs after it, and what a checker
	// needs to know of the transactions before it is the values that the
	// fence's transaction read: package online checks such a history a
	// piece at a time, in memory that does not grow with the run
	// (Cobra's fences: Tan, Zhao, Mu and Walfish, "Cobra: Making
	// Transactional Key-Value Stores Verifiably Serializable", OSDI 2020,
	// §4). The fences use the keys from the plan's Keys on, FenceKeys of
	// them: the database must hold them.
	Fences int
}

// DefaultReconnect is the default of Options.Reconnect: a few seconds, so
// that a database that stopped answering ends the run soon.
const DefaultReconnect = 5 * time.Second

// Waiting says that sessions are trying to connect again.
type Waiting struct {
	// Sessions is how many are trying.
	Sessions int
	// Err is the last attempt's error.
	Err error
	// For is how long the longest waiting of them has been trying.
	For time.Duration
}

// Run runs plan against d. It returns an error only when the run could not
// take place (no session could connect, or the recorder failed); failures
// of single transactions are outcomes, counted in the Summary. It runs as
// the stage "run" of the progress.Tracker of ctx, if any, counting the
// transactions completed.
func Run(ctx context.Context, d db.Database, plan *workload.Plan, opts Options) (*Summary, error) {
	if opts.TxnTimeout <= 0 {
		opts.TxnTimeout = 10 * time.Second
	}
	if opts.Reconnect <= 0 {
		opts.Reconnect = DefaultReconnect
	}
	start := opts.Start
	if start.IsZero() {
		start = time.Now()
	}
	r := &runner{d: d, plan: plan, opts: opts, start: start}
	r.meter = progress.Start(ctx, "run", int64(plan.Txns()), "txns")
	if opts.Fences > 0 {
		r.fences = newFences(r, opts.Fences, len(plan.Sessions))
		defer r.fences.close()
		stop := context.AfterFunc(ctx, r.fences.wake)
		defer stop()
	}
	sessions := make([]*session, len(plan.Sessions))
	var wg sync.WaitGroup
	for i := range sessions {
		s := &session{r: r, id: i, seen: make(map[int64]seenValue)}
		sessions[i] = s
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.run(ctx)
		}()
	}
	wg.Wait()
	sum := &Summary{Duration: time.Since(r.start), Planned: plan.Txns(), AbortReasons: map[string]int{}}
	connected := false
	for _, s := range sessions {
		sum.add(&s.stats)
		connected = connected || s.connected
	}
	// The sessions' errors in the order they stopped: the first is the
	// likeliest cause of the others.
	stopped := slices.DeleteFunc(slices.Clone(sessions), func(s *session) bool { return s.err == nil })
	slices.SortStableFunc(stopped, func(a, b *session) int { return a.stoppedAt.Compare(b.stoppedAt) })
	var errs []error
	for _, s := range stopped {
		errs = append(errs, &SessionError{Session: s.id, Err: s.err})
	}
	sum.Interrupted = ctx.Err() != nil && sum.Done() < sum.Planned
	sum.finish()
	if r.recErr != nil {
		return sum, r.recErr
	}
	if !connected {
		return sum, fmt.Errorf("no session could connect: %w", errors.Join(errs...))
	}
	sum.SessionErrors = errs
	return sum, nil
}

type runner struct {
	d     db.Database
	plan  *workload.Plan
	opts  Options
	start time.Time
	meter *progress.Meter // counts the transactions completed
	// fences are the sessions' meetings (Options.Fences), or nil.
	fences *fences

	mu     sync.Mutex
	recErr error

	// The sessions trying to connect: how many, since when each.
	waitMu    sync.Mutex
	waitSince map[int]time.Time
}

// now is the time since the run started, in nanoseconds of the monotonic
// clock.
func (r *runner) now() int64 { return int64(time.Since(r.start)) }

// record records rec; planned says it is a transaction of the plan, which
// the progress counts (a fence's are not).
func (r *runner) record(rec *jsonl.TxnRecord, planned bool) error {
	var err error
	if r.opts.Recorder != nil {
		err = r.opts.Recorder.Record(rec)
	}
	r.mu.Lock()
	if r.opts.Completed != nil {
		r.opts.Completed(rec)
	}
	if err != nil && r.recErr == nil {
		r.recErr = err
	}
	err = r.recErr
	r.mu.Unlock()
	if planned {
		r.meter.Add(1)
	}
	return err
}

// seenValue is the last value a session saw of a key, which its next
// compare-and-set expects.
type seenValue struct {
	v  int64
	ok bool
}

type session struct {
	r         *runner
	id        int
	conn      db.Session
	connected bool
	seen      map[int64]seenValue
	// incarnation counts the commits that got no answer: the session's
	// name in the history is id, then id.1, id.2, ...
	incarnation int
	stats       stats
	err         error     // why the session stopped early
	stoppedAt   time.Time // when
	rec         jsonl.TxnRecord
}

func (s *session) run(ctx context.Context) {
	f := s.r.fences
	defer func() {
		if s.conn != nil {
			s.conn.Close()
		}
	}()
	plan := s.r.plan.Sessions[s.id]
	for t, txn := range plan {
		if ctx.Err() != nil {
			f.leaveIf()
			return
		}
		if s.conn == nil {
			if err := s.connect(ctx); err != nil {
				f.leaveIf()
				s.stop(err)
				return
			}
		}
		if err := s.runTxn(ctx, t, txn); err != nil {
			f.leaveIf()
			s.stop(err)
			return
		}
		if f == nil {
			continue
		}
		f.wrote(txn)
		if last := t == len(plan)-1; last || (t+1)%f.every == 0 {
			if err := f.meet(ctx, s, last); err != nil {
				s.stop(err)
				return
			}
		}
	}
}

func (s *session) stop(err error) {
	s.err, s.stoppedAt = err, time.Now()
}

// connect opens the session's connection, retrying with backoff for up to
// Options.Reconnect (a node restarting).
func (s *session) connect(ctx context.Context) error {
	var err error
	start := time.Now()
	giveUp := start.Add(s.r.opts.Reconnect)
	defer s.r.waited(s.id)
	for wait := 50 * time.Millisecond; ; wait = min(2*wait, time.Second) {
		c, cancel := context.WithTimeout(ctx, min(s.r.opts.TxnTimeout, s.r.opts.Reconnect))
		s.conn, err = s.r.d.Session(c, s.id)
		cancel()
		if err == nil {
			s.connected = true
			return nil
		}
		if time.Now().Add(wait).After(giveUp) || ctx.Err() != nil {
			return &ReconnectError{Again: s.connected, After: s.r.opts.Reconnect, Err: err}
		}
		s.r.waiting(s.id, start, err)
		select {
		case <-time.After(wait):
		case <-ctx.Done():
		}
	}
}

// ReconnectError is why a session stopped when it could not connect
// within Options.Reconnect.
type ReconnectError struct {
	Again bool          // it had been connected before
	After time.Duration // how long it tried (Options.Reconnect)
	Err   error         // the last attempt's error
}

func (e *ReconnectError) Error() string {
	re := ""
	if e.Again {
		re = "re"
	}
	return fmt.Sprintf("could not %sconnect within %s: %v", re, e.After, e.Err)
}

func (e *ReconnectError) Unwrap() error { return e.Err }

// A SessionError says why a session stopped before the end of its plan.
type SessionError struct {
	Session int
	Err     error
}

func (e *SessionError) Error() string { return fmt.Sprintf("session %d: %v", e.Session, e.Err) }

func (e *SessionError) Unwrap() error { return e.Err }

// waiting notes that session id has been trying to connect since start,
// and tells Options.Waiting.
func (r *runner) waiting(id int, start time.Time, err error) {
	r.waitMu.Lock()
	defer r.waitMu.Unlock()
	if r.waitSince == nil {
		r.waitSince = make(map[int]time.Time)
	}
	r.waitSince[id] = start
	if r.opts.Waiting == nil {
		return
	}
	first := start
	for _, t := range r.waitSince {
		if t.Before(first) {
			first = t
		}
	}
	r.opts.Waiting(Waiting{Sessions: len(r.waitSince), Err: err, For: time.Since(first)})
}

// waited notes that session id no longer tries to connect.
func (r *runner) waited(id int) {
	r.waitMu.Lock()
	delete(r.waitSince, id)
	r.waitMu.Unlock()
}

// runTxn runs one planned transaction and records it. The transaction's
// context is not the run's: an interrupt waits for it to end.
func (s *session) runTxn(ctx context.Context, t int, plan workload.TxnPlan) error {
	_, err := s.runAs(ctx, strconv.Itoa(s.id)+"/"+strconv.Itoa(t), plan, true)
	return err
}

// fenceTries is how many times a fence's transaction is tried while the
// database aborts it.
const fenceTries = 10

// runFenceTxn runs one of the session's transactions of a fence, named
// what after the session's number, again while the database aborts it;
// the summary does not count it.
func (s *session) runFenceTxn(ctx context.Context, what string, plan workload.TxnPlan) error {
	for try := range fenceTries {
		if s.conn == nil && s.connect(ctx) != nil {
			return nil // the session's next transaction reports it
		}
		id := strconv.Itoa(s.id) + "/" + what
		if try > 0 {
			id += "." + strconv.Itoa(try)
			plan = tryAgain(plan, try)
		}
		status, err := s.runAs(ctx, id, plan, false)
		if err != nil || status != history.Aborted {
			return err
		}
	}
	return nil
}

// runAs runs a transaction named id; planned says it is one of the plan's,
// which the summary counts.
func (s *session) runAs(ctx context.Context, id string, plan workload.TxnPlan, planned bool) (history.Status, error) {
	c, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.r.opts.TxnTimeout)
	defer cancel()
	rec := &s.rec
	name := strconv.Itoa(s.id)
	if s.incarnation > 0 {
		name = fmt.Sprintf("%d.%d", s.id, s.incarnation)
	}
	*rec = jsonl.TxnRecord{Session: name, ID: id, Ops: rec.Ops[:0], End: history.NoTime}
	rec.Start = s.r.now()
	outcome, reason := s.execute(c, plan, rec)
	end := s.r.now()
	st := &s.stats
	if !planned {
		st = &stats{} // a fence's transaction is not counted
	}
	switch outcome {
	case history.Committed:
		rec.Status = history.Committed
		rec.End = end
		st.latencies = append(st.latencies, time.Duration(end-rec.Start))
	case history.Aborted:
		rec.Status = history.Aborted
		rec.End = end
		st.aborts = append(st.aborts, reason)
	default:
		rec.Status = history.Unknown
		st.unknown++
		defer func() { s.incarnation++ }()
	}
	if outcome != history.Committed {
		// Forget what this transaction saw: it may not have happened.
		clear(s.seen)
	}
	return outcome, s.r.record(rec, planned)
}

// execute runs the transaction's operations and commit, appending what
// each returned to rec.
func (s *session) execute(c context.Context, plan workload.TxnPlan, rec *jsonl.TxnRecord) (history.Status, string) {
	tx, err := s.conn.Begin(c)
	if err != nil {
		return s.failedBeforeCommit(err, "begin failed")
	}
	lists := s.r.plan.Lists
	for _, op := range plan.Ops {
		if err := s.do(c, tx, op, lists, rec); err != nil {
			tx.Rollback(context.WithoutCancel(c))
			return s.failedBeforeCommit(err, "failed before commit")
		}
	}
	err = tx.Commit(c)
	outcome, reason := db.Classify(err)
	if outcome == history.Unknown {
		s.drop()
	}
	return outcome, reason
}

// failedBeforeCommit classifies an error before the commit was sent: the
// transaction cannot have committed, so it is aborted, for the database's
// reason if it gave one. A connection that failed without a reason is
// dropped and opened again for the next transaction.
func (s *session) failedBeforeCommit(err error, what string) (history.Status, string) {
	if o, reason := db.Classify(err); o == history.Aborted {
		return o, reason
	}
	s.drop()
	return history.Aborted, what
}

func (s *session) drop() {
	if s.conn != nil {
		s.conn.Close()
		s.conn = nil
	}
}

// do runs one operation.
func (s *session) do(c context.Context, tx db.Txn, op workload.OpPlan, lists bool, rec *jsonl.TxnRecord) error {
	switch {
	case op.Kind == workload.ReadOp && lists:
		l, err := tx.ReadList(c, op.Key)
		if err != nil {
			return err
		}
		rec.Ops = append(rec.Ops, jsonl.OpRecord{Kind: history.Read, Key: op.Key, IsList: true, List: l})
	case op.Kind == workload.ReadOp:
		v, ok, err := tx.Read(c, op.Key)
		if err != nil {
			return err
		}
		rec.Ops = append(rec.Ops, jsonl.OpRecord{Kind: history.Read, Key: op.Key, Value: v, Null: !ok})
		s.seen[op.Key] = seenValue{v, ok}
	case op.Kind == workload.WriteOp:
		if err := tx.Write(c, op.Key, op.Value); err != nil {
			return err
		}
		rec.Ops = append(rec.Ops, jsonl.OpRecord{Kind: history.Write, Key: op.Key, Value: op.Value})
		s.seen[op.Key] = seenValue{op.Value, true}
	case op.Kind == workload.AppendOp:
		if err := tx.Append(c, op.Key, op.Value); err != nil {
			return err
		}
		rec.Ops = append(rec.Ops, jsonl.OpRecord{Kind: history.Write, Append: true, Key: op.Key, Value: op.Value})
	case op.Kind == workload.CASOp:
		want := s.seen[op.Key]
		v, ok, err := tx.Read(c, op.Key)
		if err != nil {
			return err
		}
		rec.Ops = append(rec.Ops, jsonl.OpRecord{Kind: history.Read, Key: op.Key, Value: v, Null: !ok})
		s.seen[op.Key] = seenValue{v, ok}
		if (seenValue{v, ok}) != want {
			return nil // the compare failed: the transaction only read
		}
		if err := tx.Write(c, op.Key, op.Value); err != nil {
			return err
		}
		rec.Ops = append(rec.Ops, jsonl.OpRecord{Kind: history.Write, Key: op.Key, Value: op.Value})
		s.seen[op.Key] = seenValue{op.Value, true}
	default:
		return fmt.Errorf("unknown operation kind %q", op.Kind)
	}
	return nil
}
