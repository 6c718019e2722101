// Package lwt decides whether a history of lightweight transactions — reads,
// writes and compare-and-set (CAS) operations on registers — is
// linearizable, and names the operation that breaks it when it is not.
//
// Linearizability is local, so each key (register) is checked on its own.
// For a key whose written values are unique the check follows the
// algorithm for lightweight-transaction histories of Wei, Xiao, Yang, Liu,
// Yin, Chen and Pan, "Boosting End-to-End Database Isolation Checking via
// Mini-Transactions" (MTC, ICDE 2025), Section IV-E, Algorithm 2, generalized to reads, blind writes, failed CAS and
// indeterminate operations; it runs in O(n log n) per key (O(n) after
// sorting). Keys whose written values repeat are decided by an exact
// backtracking search (Wing–Gong with Lowe's memoization, as in Knossos and
// Porcupine), so every verdict is exact; Result.Searched counts such keys.
// The search can take time and memory exponential in the concurrency: its
// cache of explored states is bounded (Options.SearchMemory, 1 GiB by
// default), and past that bound, or when the context ends, there is no
// verdict and Result.Reason says where the check stopped.
//
// # The model
//
// A register starts at the initial value Check takes: Nil for Jepsen's
// histories, whose registers nobody wrote start empty. Read
// returns the current value; Write sets it; CAS(old,new) sets it to new if it
// holds old and otherwise fails without effect. An operation's outcome
// (register.Outcome) is Ok (it took effect and returned what is recorded),
// Fail (it did not take effect: a failed CAS saw a value other than old; a
// failed write or read is ignored) or Info (unknown: a write or CAS may or
// may not have taken effect at any point after its call; an Info read is
// ignored). Operation a precedes b in real time iff a.Return < b.Call:
// intervals are closed, as in Porcupine, so operations that touch at one
// instant are concurrent.
//
// # The fast path, and what is exact about it
//
// With unique values (no two Ok/Info writes or CAS of a key write the same
// value, and none writes the initial value), each value names its writer:
//
//  1. An Info write or CAS whose value somebody observed (an Ok read of it, an
//     Ok CAS from it, or an observed Info CAS from it) took effect; other Info
//     operations are set aside (they can only matter to failed CAS, below).
//  2. A successful CAS(a,b) reads a and writes b, so in the version order b
//     comes directly after a (MTC, Algorithm 2 line 8): two successful
//     CAS from a are a lost update, a CAS from a value nobody wrote is a
//     thin-air read. Following these links from the initial value and from
//     each blind write gives chains (MTC has one: the insert); a value on no
//     chain lies on a cycle of CAS and is a violation.
//  3. Each version's writer, then the reads of that version, form groups in
//     chain order; the chain is linearizable iff no operation was invoked
//     after an operation of a later group returned (Algorithm 2, step 2,
//     extended to reads). Exact.
//  4. Chains other than the initial one are ordered by the zone argument of
//     Gibbons and Korach: a chain's zone runs from the earliest return to the
//     latest call among its operations; sorting by the zone's lower end (for
//     a backward zone, its latest call) gives an order that fits real time
//     iff any order does. Exact.
//  5. A failed CAS(a,·) must be placed among the reads of some version other
//     than a; the places allowed by real time form an interval of versions,
//     and failed CAS that precede each other must be placed in order. A
//     greedy sweep in invocation order (each takes the earliest allowed
//     place) finds a placement iff one exists for the fixed chain order.
//
// A "linearizable" answer always comes with a witness and is exact. A
// violation found in steps 1–4 is exact whatever the failed CAS and the
// set-aside Info operations do. A violation found in step 5 is exact when
// the chain order is forced (at most one chain besides the initial value's)
// and no Info operation was set aside; otherwise the key is re-checked by
// the exact search, as are keys without unique values.
//
// # Histories, failed operations and real time
//
// The operations are those of the register model (package register).
// Package format reads them from files (format.ReadRegisterOps): the
// :read, :write and :cas operations of Jepsen histories in EDN, in
// elle-cli's JSON or as JSON lines, and the transactions of native JSONL
// histories that each read, write, or read then write one key (as
// isocheck run --workload lwt records them). FromRegisterOps makes them
// the operations Check takes.
//
// Jepsen and Knossos define a failed operation (:fail) as one that did not
// happen: by default (FailAbsent) FromRegisterOps leaves failed operations
// out. Porcupine's etcd model reads a failed CAS as one that compared and
// found another value; FailCompared keeps failed operations, with outcome
// register.Fail.
//
// An operation's interval runs from its invocation to its completion, on
// the clock format.ReadRegisterOps chooses (:time, else :index, else the
// position of the events in the file); it returns a *format.Error naming
// the line when the history gives no clock to trust. An operation
// completed without an invocation (Elle's tests write completions alone)
// has Call math.MinInt64: it may have been invoked any time before it
// returned.
//
// # Verdicts
//
// Check answers in package verdict's terms: Result.Verdict is
// verdict.Satisfied when the history is linearizable, verdict.Violated
// when it is not, and verdict.Unknown, with Result.Reason, when the check
// stopped first.
package lwt

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/isocheck/isocheck/internal/edn"
	"github.com/isocheck/isocheck/progress"
	"github.com/isocheck/isocheck/register"
	"github.com/isocheck/isocheck/verdict"
)

// Nil is the value of a register nobody has written (Jepsen's nil).
const Nil int64 = register.Nil

// Never is the return time of operations that never completed; the checker
// treats the Return of every Info operation as Never.
const Never int64 = register.NoReturn

// Op is one operation on one register.
type Op struct {
	// Process is the client that ran the operation, -1 when unknown.
	Process int
	Kind    register.Kind
	// Key names the register; "" for histories of a single register.
	Key string
	// Value is the value read (Read; Nil for nil) or written (Write).
	Value int64
	// Old and New are CAS's arguments.
	Old, New int64
	// Call and Return are the invocation and completion times on one
	// clock; Return is ignored for Info operations.
	Call, Return int64
	Outcome      register.Outcome
	// Line is where the invocation was read (0 when not read from a file);
	// RetLine where its completion was (0: none).
	Line, RetLine int
}

// String describes the operation: "cas(3,4) ok by process 2 at [9,12]".
func (o Op) String() string {
	var b strings.Builder
	switch o.Kind {
	case register.Read:
		b.WriteString("read")
		if o.Outcome == register.OK {
			b.WriteString(" " + FormatValue(o.Value))
		}
	case register.Write:
		b.WriteString("write " + FormatValue(o.Value))
	case register.CAS:
		b.WriteString("cas(" + FormatValue(o.Old) + "," + FormatValue(o.New) + ")")
	default:
		b.WriteString(o.Kind.String())
	}
	if o.Key != "" {
		b.WriteString(" on " + edn.Quote(o.Key))
	}
	b.WriteString(" " + o.Outcome.String())
	if o.Process >= 0 {
		fmt.Fprintf(&b, " by process %d", o.Process)
	}
	if o.Call == math.MinInt64 {
		b.WriteString(" at [?,") // no invocation: any time before its return
	} else {
		fmt.Fprintf(&b, " at [%d,", o.Call)
	}
	if o.Outcome == register.Info {
		b.WriteString("never]")
	} else {
		fmt.Fprintf(&b, "%d]", o.Return)
	}
	if o.Line > 0 {
		fmt.Fprintf(&b, " (line %d)", o.Line)
	}
	return b.String()
}

// FormatValue prints a value, Nil as "nil".
func FormatValue(v int64) string {
	if v == Nil {
		return "nil"
	}
	return strconv.FormatInt(v, 10)
}

// Violation explains why a register's history is not linearizable.
type Violation struct {
	Key string
	// Op is the index (in the slice given to Check) of the operation that
	// cannot be linearized; Related are the other operations the reason
	// names.
	Op      int
	Related []int
	// Reason says why, in words, with times.
	Reason string
	// Searched is true when the exact search, not the fast path, found it.
	Searched bool
}

// Result is the outcome of Check. Its verdict is verdict.Satisfied when
// the history is linearizable: some order of the operations, one per
// register, fits both real time and the register's specification;
// verdict.Violated when no such order exists (Violation says why); and
// verdict.Unknown when the check stopped before it decided (its context
// ended, or the exact search went past its memory bound).
// Then Reason says why and where: "timed out in the exact search of key
// "x" after 120000 states", or "resource limit: the exact search of key
// "x" needed more than 5592405 states (~1024 MiB)".
type Result struct {
	verdict.Outcome
	Violation *Violation // set when the verdict is Violated
	Keys      int        // registers checked
	Ops       int        // operations that took part (failed reads and writes, and Info reads, do not)
	Searched  int        // registers decided (or being decided) by the exact search
}

// OK reports whether the history is linearizable.
func (r Result) OK() bool { return r.Verdict == verdict.Satisfied }

// String is a one-paragraph report: "linearizable", or for a violation
// "not linearizable", the register, the operation and the reason; for no
// verdict, "unknown" and why.
func (r Result) String() string {
	switch {
	case r.Verdict == verdict.Unknown && r.Reason != "":
		return "unknown: " + r.Reason
	case r.Verdict == verdict.Satisfied:
		return "linearizable"
	case r.Verdict == verdict.Unknown:
		return "unknown"
	case r.Violation == nil:
		return "not linearizable"
	}
	v := r.Violation
	key := ""
	if v.Key != "" {
		key = " on key " + edn.Quote(v.Key)
	}
	return fmt.Sprintf("not linearizable%s: %s", key, v.Reason)
}

// Check decides whether ops, a history of operations on registers that
// all start at init (Nil: nobody wrote them), is linearizable, with the
// zero Options. The order of ops does not matter.
//
// Like every isocheck entry point, it returns an error only when nothing
// could be checked: an operation of a kind or an outcome the register
// model does not have (an operation that returns before it is called is a
// violation, not an error). A stop is not an error: when ctx ends
// (a timeout, a cancellation, a memory limit watched from outside) or the
// exact search goes past its memory bound, the Result has no verdict
// (verdict.Unknown), its Reason says why and where the check stopped
// ("timed out in the exact search of 120000 states"), its Stage the stage
// of the progress.Tracker of ctx, and Stopped whether ctx ended rather
// than the bound was reached.
func Check(ctx context.Context, ops []Op, init int64) (*Result, error) {
	return CheckWith(ctx, ops, init, Options{})
}

// DefaultSearchMemory is the default bound on the memory of the exact
// search (Options.SearchMemory).
const DefaultSearchMemory = 1 << 30

// Options adjust CheckWith. The zero value is what Check does.
type Options struct {
	// SearchMemory bounds the memory, in bytes, of the exact search's cache
	// of explored states, for each register; past it the check stops with
	// Unknown. 0 means DefaultSearchMemory; a negative value, no bound.
	SearchMemory int64
}

// CheckWith is Check with opts. It reports its progress on progress
// meters of ctx: "linearizability" (operations), then "exact search"
// (steps) for each register the fast path could not decide.
//
// The fast path runs on every register before the exact search runs on
// any, so that a violation it finds is reported even when a search would
// not finish.
func CheckWith(ctx context.Context, ops []Op, init int64, opts Options) (*Result, error) {
	limit := opts.SearchMemory
	if limit == 0 {
		limit = DefaultSearchMemory
	}
	for i := range ops {
		if o := &ops[i]; o.Kind > register.CAS || o.Outcome > register.Info {
			return nil, fmt.Errorf("lwt: operation %d is a %v with outcome %v: not an operation of the register model", i, o.Kind, o.Outcome)
		}
	}
	res := &Result{}
	keyIdx := map[string]int{}
	var keys [][]int32
	for i := range ops {
		o := &ops[i]
		if o.Outcome != register.Info && o.Return < o.Call {
			res.Verdict = verdict.Violated
			res.Violation = &Violation{Key: o.Key, Op: i,
				Reason: fmt.Sprintf("%s returned before it was called", o)}
			return res, nil
		}
		if !participates(o) {
			continue
		}
		res.Ops++
		k, ok := keyIdx[o.Key]
		if !ok {
			k = len(keys)
			keyIdx[o.Key] = k
			keys = append(keys, nil)
		}
		keys[k] = append(keys[k], int32(i))
	}
	res.Keys = len(keys)
	stop := func(err error) (*Result, error) {
		res.Outcome, _ = progress.Outcome(ctx, err, true)
		// err says where the check was, as well as why it stopped.
		res.Reason = err.Error()
		return res, nil
	}
	violation := func(viol *Violation, searched bool) (*Result, error) {
		viol.Key = ops[viol.Op].Key
		viol.Searched = searched
		res.Verdict = verdict.Violated
		res.Violation = viol
		return res, nil
	}
	m := progress.Start(ctx, "linearizability", int64(res.Ops), "operations")
	var hard [][]int32 // keys for the exact search
	done := 0
	for _, idx := range keys {
		viol, exact, err := fastCheck(m, ops, idx, init)
		if err != nil {
			return stop(stopError{err, fmt.Sprintf("the fast check after %d of %d operations", done, res.Ops)})
		}
		done += len(idx)
		if err := m.Add(int64(len(idx))); err != nil {
			return stop(stopError{err, fmt.Sprintf("the fast check after %d of %d operations", done, res.Ops)})
		}
		switch {
		case !exact:
			hard = append(hard, idx)
		case viol != nil:
			return violation(viol, false)
		}
	}
	for _, idx := range hard {
		res.Searched++
		sm := progress.Start(ctx, "exact search", 0, "steps")
		viol, err := search(sm, ops, idx, init, limit)
		if err != nil {
			return stop(err)
		}
		if viol != nil {
			return violation(viol, true)
		}
	}
	res.Verdict = verdict.Satisfied
	return res, nil
}

// stopError is the reason the context of a check ended, and where the
// check was then: "timed out in the exact search after 81920 states".
type stopError struct {
	err   error
	where string
}

func (e stopError) Error() string {
	switch {
	case errors.Is(e.err, context.DeadlineExceeded):
		return "timed out in " + e.where
	case errors.Is(e.err, context.Canceled):
		return "cancelled in " + e.where
	}
	return e.err.Error() + " in " + e.where
}

func (e stopError) Unwrap() error { return e.err }

// participates reports whether o constrains the register: failed reads and
// writes and Info reads say nothing.
func participates(o *Op) bool {
	switch o.Kind {
	case register.Read:
		return o.Outcome == register.OK
	case register.Write:
		return o.Outcome != register.Fail
	case register.CAS:
		return true
	}
	return false
}

// ret is o's return time, Never for Info operations.
func ret(o *Op) int64 {
	if o.Outcome == register.Info {
		return Never
	}
	return o.Return
}

// writes reports whether o writes a value when it takes effect, and which.
func writes(o *Op) (int64, bool) {
	switch {
	case o.Kind == register.Write && o.Outcome != register.Fail:
		return o.Value, true
	case o.Kind == register.CAS && o.Outcome != register.Fail:
		return o.New, true
	}
	return 0, false
}

func fmtTime(t int64) string {
	if t == Never {
		return "never"
	}
	return strconv.FormatInt(t, 10)
}
