// Package sqlcheck checks SQL histories whose transactions each run at their
// own isolation level, as Bouajjani, Enea and Román-Calvo define them in
// "On the Complexity of Checking Mixed Isolation Levels for SQL
// Transactions" (CAV 2025); the sections, figures, algorithms and theorems
// named in this package are theirs.
//
// A history (package sqlhistory) is a client history (§2.3): a read names
// the row versions its predicate selected and nothing of the others. It
// is consistent when some witness, a choice of the version each read saw
// of every row it did not return (one its predicate rejects), and some
// commit order satisfy the axioms of every transaction's level (§3): for
// a read of x from t1 in a transaction at level L, every other writer of
// x visible to it under L commits before t1.
//
// Check decides it in three steps:
//
//   - It checks what holds at every level: a read sees its own
//     transaction's writes; a row read was written by a committed
//     transaction, in its final version, and satisfies the predicate; a row
//     not returned had some version the predicate rejects. A failure is an
//     Anomaly.
//   - Saturation (Algorithms 1 and 2, §4.2): the partial commit order pco
//     starts as (so ∪ wr)+ and grows by the axioms until a fixpoint. A
//     cycle is a violation every witness has. For levels whose visibility
//     does not mention the commit order (RC, RA, CC) on full histories this
//     is the whole check (Theorem 2).
//   - Search (Algorithms 3 and 4, §5): a read that did not return a row
//     one of whose possible versions its predicate selects is a conflict;
//     its writer is chosen among those its predicate rejects, saturating
//     after each choice, and once no conflict is left, a commit order is
//     searched prefix by prefix. Sound and complete for SER, SI, PC, RA,
//     RC and CC configurations (Theorem 5), and tested against a
//     brute-force reference (package internal/reference).
//
// Transactions of unknown outcome count as committed when a committed
// transaction read from them; each of the others may or may not have
// committed, and Check tries the subsets of them (at most MaxUnknown).
package sqlcheck

import (
	"context"
	"errors"
	"fmt"
	"math/bits"
	"time"

	"github.com/isocheck/isocheck/progress"
	"github.com/isocheck/isocheck/solver"
	"github.com/isocheck/isocheck/sqlhistory"
	"github.com/isocheck/isocheck/verdict"
)

// MaxUnknown bounds the transactions of unknown outcome nobody read from
// whose subsets Check tries; with more, a history Check finds violated
// with all of them aborted gets no verdict.
const MaxUnknown = 10

// Options tune CheckWith. The zero value is what Check does.
type Options struct {
	// Naive checks as the baseline of Bouajjani et al. (CAV 2025) §6 does:
	// every witness of every read of a row it did not return, and every
	// commit order, without saturation or memory of failed prefixes. For
	// benchmarks.
	Naive bool
	// Paper searches for witnesses and a commit order as Algorithms 3 and 4
	// of Bouajjani et al. (CAV 2025) do (with saturation after every
	// choice) instead of solving the SAT encoding. For benchmarks;
	// histories with CC transactions are always checked so.
	Paper bool
	// NoShrink keeps the whole history as the counterexample instead of
	// shrinking it to a minimal set of transactions.
	NoShrink bool
}

// Result is the outcome of Check.
type Result struct {
	// Outcome is the verdict; without one, why and where Check stopped.
	verdict.Outcome
	// Txns are the transactions of the counterexample, as indices into
	// the input's Txns: a minimal set unless Options.NoShrink (removing
	// any one that no other of them read from leaves a consistent
	// history).
	Txns []int
	// Anomalies are violations no commit order can mend.
	Anomalies []Anomaly
	// Cycle is a cycle of commit-order constraints every witness has.
	Cycle []Edge
	// Missed, when set, is a read that did not return a row, with each
	// version it could have read instead and why each fails.
	Missed *Missed
	// NoOrder says that no commit order satisfies the axioms although no
	// single cycle shows it (Bouajjani et al. (CAV 2025) Algorithm 4 found
	// none).
	NoOrder bool
	// Either, when NoOrder, may show why: two transactions that close a
	// cycle in whichever order they commit.
	Either *Either
	// History is the history the evidence refers to: the counterexample
	// alone when shrunk, else the input. The transaction indices of
	// Anomalies, Cycle and Missed are indices into History.Txns; Txns maps
	// them back to the input's.
	History *sqlhistory.History
	// ShrinkStopped, when not zero, is how long shrinking ran before its
	// budget ended: Txns may then not be minimal, though a minimal
	// counterexample has no more transactions than it.
	ShrinkStopped time.Duration
	// Shrunk says that History is a counterexample shrunk from the
	// input, whose transactions number InputTxns.
	Shrunk    bool
	InputTxns int
	// Minimal says that History is a minimal counterexample: its
	// transactions, with all their read events but those that returned
	// a version a transaction left out wrote, violate on their own, and
	// without any one of them (and the reads of its versions) the rest
	// do not. When it is not, Removable lists the transactions (indices
	// into History.Txns) without any one of which the rest still
	// violate: those the read events left out keep.
	Minimal   bool
	Removable []int
	// ReadsLeftOut counts the read events of the input's transactions
	// that History leaves out: a Select left out whole, or an Update or a
	// Delete kept as a blind write (an Insert). They read from
	// transactions dropped, or the violation does not need them.
	ReadsLeftOut int
	Stats        Stats

	// core are transactions (indices into History) the evidence of a
	// NoOrder involves, where known: where shrinking starts.
	core []int
}

// Stats describe the work done.
type Stats struct {
	Txns      int
	Conflicts int // reads of rows not returned that some version could have matched
	Steps     int
	// Vars and Clauses are the size of the SAT encoding, when solved so.
	Vars, Clauses int
	Elapsed       time.Duration
}

// Anomaly is a violation found without a cycle.
type Anomaly struct {
	// Kind is the anomaly: ThinAirRead, AbortedRead, IntermediateRead,
	// FutureRead, NotMyOwnWrite, NotMyLastWrite, PredicateMismatch or
	// Phantom.
	Kind verdict.Anomaly
	// NotReturned says the read did not return the row (a Phantom, or a
	// NotMyOwnWrite of a row the transaction wrote and its predicate
	// selects); otherwise it returned Version.
	NotReturned bool
	// Txn and Event locate the read.
	Txn, Event int
	Key        sqlhistory.KeyID
	// Version is the version read (when NotReturned, the transaction's
	// own, if any).
	Version sqlhistory.VersionID
	// Expected is the version it should have read (NotMyOwnWrite or
	// NotMyLastWrite when the row was returned, IntermediateRead).
	Expected sqlhistory.VersionID
	// Writers are, for a Phantom, the writers of the versions the read
	// could have seen (all selected by its predicate).
	Writers []int
}

// Edge is a commit-order constraint From → To with its reason.
type Edge struct {
	// From and To are transaction indices, sqlhistory.Init for init.
	From, To int
	// Kind is SO (session order), WR (To read Key from From), Visible
	// (the reader's level makes From visible to a read of To's write) or
	// Supposed (one side of a choice, see Result.Either).
	Kind verdict.EdgeKind
	Key  sqlhistory.KeyID
	// Reader and Event locate the read the edge comes from (ReadFrom,
	// Visible).
	Reader, Event int
	// Version is the version read; Chosen says the read did not return
	// the row and the witness chose To's (Visible) or From's (ReadFrom)
	// version, one its predicate rejects.
	Version sqlhistory.VersionID
	Chosen  bool
	// Via, for Visible edges, is the chain of commit-order constraints
	// that makes From visible to the read (for levels whose visibility
	// depends on the commit order).
	Via []Edge

	from, to, reader, readEv int // nodes
}

// Missed is a read that did not return a row (a conflict of Bouajjani
// et al. (CAV 2025) §5) whose every possible version leads to a violation.
type Missed struct {
	Txn, Event int
	Key        sqlhistory.KeyID
	// Selected are the writers of versions the predicate selects that
	// the read may have seen: it did not see them.
	Selected []int
	// Choices are the versions the predicate rejects, each with why
	// reading it fails.
	Choices []Choice
}

// Choice is one version a Missed read could have seen.
type Choice struct {
	Writer  int
	Version sqlhistory.VersionID // -1: absent initially
	// Cycle closes when the read saw this version; NoOrder says no single
	// cycle does, but no commit order satisfies the axioms, and Either,
	// if found, shows two transactions that close one in either order.
	Cycle   []Edge
	NoOrder bool
	Either  *Either
}

// Either is a pair of transactions A and B such that A before B closes
// cycle AB, and B before A closes cycle BA (each starting with the
// supposed edge).
type Either struct {
	A, B   int
	AB, BA []Edge
}

// Check decides whether h is consistent: whether it satisfies every
// transaction's isolation level, with the zero Options.
//
// It follows the convention of every isocheck entry point (see "Entry
// points" in docs/development.md): the error is only for a check that
// could not be made. A history that is not well formed (a level a SQL
// history does not have, a version or a transaction that is not in it;
// a history sqlhistory.Builder built always is) is returned as a
// *sqlhistory.InputError; any other error is a failure of the checker
// (its solver refusing the problem it was given), a bug. A stop is not an
// error: when ctx ends first (a timeout, a cancellation, a memory limit
// watched from outside), the solver gives up, or the history has more
// than MaxUnknown transactions of unknown outcome to try, the Result has
// no verdict (verdict.Unknown), the Reason says why (see
// progress.Outcome) and the Stage where, unless a violation was found
// already: then it stands, with the evidence shrunk as far as it got.
// Every stage reports to the progress.Tracker of ctx, if any: "build SQL
// problem" (transactions), "search" (steps), "shrink" (transactions
// left).
func Check(ctx context.Context, h *sqlhistory.History) (*Result, error) {
	return CheckWith(ctx, h, Options{})
}

// CheckWith is Check with opts.
func CheckWith(ctx context.Context, h *sqlhistory.History, opts Options) (*Result, error) {
	if err := validate(h); err != nil {
		return nil, err
	}
	start := time.Now()
	res, err := decide(ctx, h, opts)
	if err != nil {
		return nil, err
	}
	if res.Verdict == verdict.Violated && !opts.NoShrink {
		shrink(ctx, h, opts, res)
		res.Shrunk = true
	} else {
		res.History = h
		res.Txns = allTxns(h, res)
	}
	res.InputTxns = len(h.Txns)
	res.Stats.Elapsed = time.Since(start)
	return res, nil
}

func allTxns(h *sqlhistory.History, res *Result) []int {
	if res.Verdict != verdict.Violated {
		return nil
	}
	ts := make([]int, len(h.Txns))
	for i := range ts {
		ts[i] = i
	}
	return ts
}

// decide checks h without shrinking. Its error is a failure of the
// checker, not a stop (see Check).
func decide(ctx context.Context, h *sqlhistory.History, opts Options) (*Result, error) {
	committed, optional := outcomes(h)
	if len(optional) > MaxUnknown {
		// Try all committed and all aborted only.
		res, err := decideOne(ctx, h, committed, opts)
		if err == nil && res.Verdict == verdict.Violated {
			return &Result{Outcome: verdict.Outcome{Reason: fmt.Sprintf("%d transactions of unknown outcome that nobody read from: more than %d to try", len(optional), MaxUnknown)}}, nil
		}
		return res, err
	}
	var first *Result
	// Subsets by increasing size: the evidence kept is that of all of
	// them aborted.
	for size := 0; size <= len(optional); size++ {
		for mask := uint(0); mask < 1<<len(optional); mask++ {
			if bits.OnesCount(mask) != size {
				continue
			}
			c := append([]bool(nil), committed...)
			for i, t := range optional {
				c[t] = mask&(1<<i) != 0
			}
			res, err := decideOne(ctx, h, c, opts)
			if err != nil {
				return nil, err
			}
			if first == nil {
				first = res
			}
			if res.Verdict == verdict.Satisfied {
				res.Stats.Steps += first.Stats.Steps
				return res, nil
			}
			if res.Verdict == verdict.Unknown {
				return res, nil
			}
		}
	}
	return first, nil
}

// outcomes returns which transactions are checked: those that committed,
// taking an Unknown one as committed when a checked transaction read a
// version it wrote (transitively), and the rolled-back ones, whose writes
// newProblem leaves out; and the Unknown ones left undecided.
func outcomes(h *sqlhistory.History) (committed []bool, optional []int) {
	committed = make([]bool, len(h.Txns))
	for i := range h.Txns {
		committed[i] = h.Txns[i].Status == sqlhistory.Committed || h.Txns[i].Status == sqlhistory.RolledBack
	}
	for changed := true; changed; {
		changed = false
		for i := range h.Txns {
			if !committed[i] {
				continue
			}
			for _, e := range h.Txns[i].Events {
				for _, v := range e.Reads {
					w := h.Versions[v].Writer
					if w >= 0 && !committed[w] && h.Txns[w].Status == sqlhistory.Unknown {
						committed[w] = true
						changed = true
					}
				}
			}
		}
	}
	for i := range h.Txns {
		if !committed[i] && h.Txns[i].Status == sqlhistory.Unknown {
			optional = append(optional, i)
		}
	}
	return committed, optional
}

// decideOne checks h with the given committed transactions. The search
// runs as the stage "search", counting steps.
func decideOne(ctx context.Context, h *sqlhistory.History, committed []bool, opts Options) (*Result, error) {
	p, err := newProblem(ctx, h, committed, opts.Naive)
	if err != nil {
		o, err := stopped(ctx, err)
		if err != nil {
			return nil, err
		}
		return &Result{Outcome: o}, nil
	}
	res := &Result{Stats: Stats{Txns: len(p.nodes) - 1, Conflicts: len(p.unknown)}}
	if len(p.anomalies) > 0 {
		res.Verdict, res.Anomalies = verdict.Violated, p.anomalies
		return res, nil
	}
	s := &searcher{ctx: ctx, m: progress.Start(ctx, "search", 0, "steps"), p: p, naive: opts.Naive, paper: opts.Paper}
	f := s.solve()
	res.Stats.Steps, res.Stats.Vars, res.Stats.Clauses = s.steps, s.vars, s.clauses
	switch {
	case s.err != nil:
		if res.Outcome, err = stopped(ctx, s.err); err != nil {
			return nil, err
		}
	case f == nil:
		res.Verdict = verdict.Satisfied
	default:
		res.Verdict = verdict.Violated
		res.Cycle, res.Missed, res.NoOrder = p.export(f.cycle), f.missed, f.noOrder
		for _, n := range f.core {
			if n > 0 {
				res.core = append(res.core, p.nodes[n])
			}
		}
	}
	return res, nil
}

// stopped is the outcome of a check that stopped with err: its context
// ended, the solver gave up, or the search spent the step budget of its
// context (see progress.Outcome). Any other err is a failure, returned.
func stopped(ctx context.Context, err error) (verdict.Outcome, error) {
	o, ok := progress.Outcome(ctx, err, errors.Is(err, solver.ErrGaveUp) || errors.Is(err, errStepBudget))
	if !ok {
		return o, fmt.Errorf("sqlcheck: %w", err)
	}
	return o, nil
}

// export fills the transaction indices of edges from their nodes.
func (p *problem) export(cycle []Edge) []Edge {
	if cycle == nil {
		return nil
	}
	out := make([]Edge, len(cycle))
	for i, e := range cycle {
		e.From, e.To = p.nodes[e.from], p.nodes[e.to]
		e.Reader, e.Event = -1, -1
		if e.Kind != verdict.SO && e.Kind != verdict.Supposed {
			e.Reader, e.Event = p.nodes[e.reader], e.readEv
		}
		e.Via = p.export(e.Via)
		out[i] = e
	}
	return out
}
