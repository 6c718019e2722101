package explore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/progress"
	"github.com/isocheck/isocheck/verdict"
)

// Algorithm is a way of enumerating a program's histories.
type Algorithm uint8

const (
	// ExploreCE is the explore-ce (§5) of Bouajjani et al. (PLDI 2023)
	// under the base level, with the filter of explore-ce* (§6) when the
	// level is stronger.
	ExploreCE Algorithm = iota
	// DFS is the baseline of Bouajjani et al. (PLDI 2023) §7.3: a
	// depth-first search of every interleaving of the operational semantics
	// (§2.3), which reaches a history once per interleaving that produces
	// it.
	DFS
)

func (a Algorithm) String() string {
	if a == DFS {
		return "dfs"
	}
	return "explore-ce"
}

// AnyHistory is the trivial base level ("true" in Bouajjani et al.,
// PLDI 2023, §7.3): every history is consistent while exploring, and only
// the filter at the end applies the level.
const AnyHistory = anyHistory

// Options say how to explore.
type Options struct {
	// Level is the isolation level the database keeps: RC, RA, CC, PC, SI
	// or SER.
	Level level.Level
	// Base is the level explored under: RC, RA, CC or AnyHistory, no
	// stronger than Level. By default it is Level for RC, RA and CC and CC
	// for the others (explore-ce*(CC, Level)). A weaker base explores more
	// partial histories and filters the complete ones (explore-ce*(Base,
	// Level) of Bouajjani et al., PLDI 2023).
	Base level.Level
	// Algorithm is ExploreCE (the default) or DFS.
	Algorithm Algorithm
	// OnHistory, when set, is called with every history found (those
	// that satisfy Level). An error stops the exploration and is
	// returned.
	OnHistory func(*History) error
	// StopAtFailure stops at the first history that breaks an assertion.
	StopAtFailure bool
	// Workers is the number of goroutines explore-ce runs on (DFS runs on
	// one); 0 or 1 means one. With more, OnHistory is called from several
	// goroutines, one at a time, and sees the histories in no set order; the counts, and
	// Result.First, are those of a run on one goroutine (unless
	// StopAtFailure stops the run early: then any broken history may
	// come first).
	Workers int
}

// Result is what an exploration found.
type Result struct {
	// Outcome is Violated when a history breaks an assertion (Failed > 0),
	// Satisfied when every history was enumerated and none does, and no
	// verdict otherwise, with the reason the exploration stopped (see
	// progress.Outcome): "timed out", "cancelled", or the resource limit.
	verdict.Outcome
	Algorithm   Algorithm
	Level, Base level.Level
	// EndStates counts the complete histories reached (the end states of
	// Bouajjani et al. (PLDI 2023) §7.3), before the filter of explore-ce*.
	// DFS counts a history once per interleaving that reaches it.
	EndStates int
	// Histories counts the end states that satisfy Level.
	Histories int
	// Failed counts those that break an assertion; First is the first
	// of them.
	Failed int
	First  *History
	// Blocked counts explorations that ended without a complete history:
	// zero for explore-ce (strong optimality), not for DFS.
	Blocked int
	// Complete says every history was enumerated: false when the context
	// ended or StopAtFailure stopped early.
	Complete bool
	Elapsed  time.Duration
}

// Explore enumerates the histories of p under opts.Level and checks the
// program's assertions on each. It runs as the stage "explore" of the
// progress.Tracker of ctx, if any, counting end states.
//
// It follows the convention of every isocheck entry point (see "Entry
// points" in docs/development.md), but for its name, the verb of this
// vertical, and for taking Options always: their zero value names no
// level, so there is no Explore without them. The error is only for an
// exploration that could not be made: the program or the configuration
// is wrong (a body that panics or is not deterministic, a level it cannot
// explore), or OnHistory returned it; there is no Result then. A stop is
// not an error: when ctx ends (a timeout, a cancellation, a memory limit
// watched from outside), before the first step too, Explore returns
// early, with Result.Complete false and, unless a history broke an
// assertion already, no verdict (verdict.Unknown), the Reason and the
// Stage.
func Explore(ctx context.Context, p *Program, opts Options) (*Result, error) {
	m := progress.Start(ctx, "explore", 0, "end states")
	var res *Result
	var err error
	if opts.Workers > 1 && opts.Algorithm == ExploreCE {
		res, err = exploreParallel(ctx, p, opts, opts.Workers, m)
	} else {
		res, err = exploreSerial(ctx, p, opts, m)
	}
	if err != nil {
		return nil, err
	}
	res.Outcome = outcome(ctx, res)
	return res, nil
}

// outcome is the verdict of res, an exploration under ctx that ended
// without an error.
func outcome(ctx context.Context, res *Result) verdict.Outcome {
	switch {
	case res.Failed > 0:
		return verdict.Outcome{Verdict: verdict.Violated}
	case res.Complete:
		return verdict.Outcome{Verdict: verdict.Satisfied}
	}
	o, _ := progress.Outcome(ctx, context.Cause(ctx), true)
	return o
}

// exploreSerial runs the exploration on one goroutine, counting end
// states on m.
func exploreSerial(ctx context.Context, p *Program, opts Options, m *progress.Meter) (*Result, error) {
	e, err := newEngine(ctx, p, opts)
	if err != nil {
		return nil, err
	}
	e.meter = m
	start := time.Now()
	res := &e.res
	if opts.Algorithm == DFS {
		err = e.dfs(&state{recs: make([]*txnRec, len(e.txns))})
	} else {
		err = e.explore(&state{recs: make([]*txnRec, len(e.txns))})
	}
	res.Elapsed = time.Since(start)
	switch {
	case err == nil:
		res.Complete = true
	case errors.Is(err, errStop):
		if e.bodyErr != nil {
			return res, e.bodyErr
		}
	default:
		return res, err
	}
	return res, nil
}

// errStop unwinds the exploration.
var errStop = errors.New("exploration stopped")

// progTxn is a transaction of the program, by pid.
type progTxn struct {
	id   TxnID
	name string
	body func(*Tx)
}

type engine struct {
	ctx      context.Context
	opts     Options
	prog     *Program
	txns     []progTxn
	sessions []string
	base     *checker       // the base level, at every step
	final    *checker       // Level, when it is RC, RA or CC and stronger than Base
	serial   *serialChecker // Level, when it is PC, SI or SER
	keys     map[string]int32
	res      Result
	steps    int
	bodyErr  error
	meter    *progress.Meter // counts the end states, when set

	// The exploration tree, for parallel workers (parallel.go): path
	// numbers the children taken from the root to the current node.
	path      []int32
	firstPath []int32 // the path of Result.First
	split     int     // the depth of the subtrees dealt out, 0 for none
	worker    int     // this worker's number
	workers   int
	counting  bool // count the nodes at depth split instead of exploring
	atSplit   int
}

func newEngine(ctx context.Context, p *Program, opts Options) (*engine, error) {
	switch opts.Level {
	case level.RC, level.RA, level.CC, level.PC, level.SI, level.SER:
	default:
		return nil, fmt.Errorf("explore: cannot explore under %v: choose RC, RA, CC, PC, SI or SER", opts.Level)
	}
	if opts.Base == 0 {
		opts.Base = opts.Level
		if !causallyExtensible(opts.Level) {
			opts.Base = level.CC
		}
	}
	if !causallyExtensible(opts.Base) && opts.Base != anyHistory {
		return nil, fmt.Errorf("explore: cannot explore under %v: the base level must be RC, RA or CC (explore-ce needs a causally extensible level: Bouajjani, Enea and Román-Calvo, \"Dynamic Partial Order Reduction for Checking Correctness against Transaction Isolation Levels\", PLDI 2023, §5)", opts.Base)
	}
	if opts.Base != anyHistory && weaker(opts.Level, opts.Base) {
		return nil, fmt.Errorf("explore: the base level %v is stronger than %v", opts.Base, opts.Level)
	}
	e := &engine{ctx: ctx, opts: opts, prog: p, keys: map[string]int32{}}
	e.res.Algorithm, e.res.Level, e.res.Base = opts.Algorithm, opts.Level, opts.Base
	seen := map[string]bool{}
	for i, s := range p.Sessions {
		name := s.Name
		if name == "" || seen[name] {
			name = fmt.Sprintf("s%d", i)
		}
		seen[name] = true
		e.sessions = append(e.sessions, name)
		for j, t := range s.Txns {
			e.txns = append(e.txns, progTxn{id: TxnID{i, j}, name: t.Name, body: t.Body})
		}
	}
	if p.Final != nil {
		e.sessions = append(e.sessions, "final")
		e.txns = append(e.txns, progTxn{id: TxnID{len(p.Sessions), 0}, name: p.Final.Name, body: p.Final.Body})
	}
	if len(e.txns) > 63 {
		return nil, fmt.Errorf("explore: the program has %d transactions; explore handles at most 63", len(e.txns))
	}
	for pid, t := range e.txns {
		if t.body == nil {
			return nil, fmt.Errorf("explore: transaction %s (%s) has no body", t.id, t.name)
		}
		if t.name == "" {
			e.txns[pid].name = t.id.String()
		}
	}
	soPred := make([]uint64, len(e.txns))
	for pid, t := range e.txns {
		soPred[pid] = 1
		for q := 0; q < pid; q++ {
			if e.txns[q].id.Session == t.id.Session || (p.Final != nil && pid == len(e.txns)-1) {
				soPred[pid] |= bit(q)
			}
		}
	}
	final := -1
	if p.Final != nil {
		final = len(e.txns) - 1
	}
	e.base = newChecker(opts.Base, soPred, final)
	if causallyExtensible(opts.Level) && opts.Level != opts.Base {
		e.final = newChecker(opts.Level, soPred, final)
	}
	if !causallyExtensible(opts.Level) {
		e.serial = newSerialChecker(opts.Level, soPred)
	}
	return e, nil
}

func causallyExtensible(l level.Level) bool { return l == level.RC || l == level.RA || l == level.CC }

// weaker reports whether a is weaker than b.
func weaker(a, b level.Level) bool {
	rank := map[level.Level]int{level.RC: 0, level.RA: 1, level.CC: 2, level.PC: 3, level.SI: 4, level.SER: 5}
	return rank[a] < rank[b]
}

// tick counts a step and stops the exploration when the context ended:
// it looks at the first step, and every 256 steps after.
func (e *engine) tick() error {
	e.steps++
	if e.steps&255 == 1 && e.ctx.Err() != nil {
		return errStop
	}
	return nil
}

// complete handles a complete history: Valid (Bouajjani et al., PLDI 2023,
// §6) and the assertions.
func (e *engine) complete(s *state) error {
	if !e.counts() {
		return nil
	}
	e.res.EndStates++
	if e.meter != nil {
		e.meter.Add(1)
	}
	if !e.valid(s) {
		return nil
	}
	e.res.Histories++
	failed := false
	for _, p := range s.order {
		failed = failed || len(s.recs[p].failures) > 0
	}
	if failed {
		e.res.Failed++
		if e.res.First == nil {
			e.res.First = e.history(s)
			e.firstPath = append([]int32(nil), e.path...)
		}
	}
	if e.opts.OnHistory != nil {
		if err := e.opts.OnHistory(e.history(s)); err != nil {
			return err
		}
	}
	if e.opts.StopAtFailure && e.res.First != nil {
		return errStop
	}
	return nil
}

// valid reports whether a complete history satisfies Level.
func (e *engine) valid(s *state) bool {
	switch {
	case e.final != nil:
		return e.final.consistent(s)
	case e.serial != nil:
		return e.serial.consistent(s)
	}
	return true // Level is Base
}

// history returns s as a History.
func (e *engine) history(s *state) *History {
	h := &History{Sessions: e.sessions, Init: e.prog.Init}
	for _, pid := range s.order {
		r := s.recs[pid]
		h.Txns = append(h.Txns, TxnLog{
			ID:       e.txns[pid].id,
			Name:     e.txns[pid].name,
			Events:   append([]Event(nil), r.events...),
			Status:   r.status,
			Failures: r.failures,
		})
	}
	return h
}

// initial returns the initial value of key.
func (e *engine) initial(key string) Value { return e.prog.Init[key] }

// kid interns a key.
func (e *engine) kid(key string) int32 {
	k, ok := e.keys[key]
	if !ok {
		k = int32(len(e.keys))
		e.keys[key] = k
	}
	return k
}

// step is what a transaction does next: the events up to its next read of
// another transaction (readKey, when stopped) or its end (status).
type step struct {
	added    []Event
	stopped  bool
	readKey  string
	status   Status
	failures []string
}

// run replays transaction pid over its recorded events and returns its
// next step.
func (e *engine) run(pid int, r *txnRec) (step, error) {
	rp := &replay{}
	if r != nil {
		rp.recorded = r.events
	}
	t := e.txns[pid]
	if err := rp.run(t.name, t.body); err != nil {
		return step{}, err
	}
	if rp.pos < len(rp.recorded) {
		return step{}, fmt.Errorf("transaction %s is not deterministic: it ended after %d events, having done %d before with the same reads", t.name, rp.pos, len(rp.recorded))
	}
	st := step{added: rp.added, stopped: rp.stopped, readKey: rp.pending, status: rp.status}
	if !rp.stopped {
		for _, f := range rp.failures {
			st.failures = append(st.failures, f.String())
		}
	}
	return st, nil
}

// push appends events to r, interning their keys; reads among them are
// the transaction's own (internal).
func (e *engine) push(r *txnRec, events []Event) {
	for _, ev := range events {
		r.events = append(r.events, ev)
		r.kids = append(r.kids, e.kid(ev.Key))
		r.from = append(r.from, fromNone)
	}
}

// pushRead appends a read of key from transaction from (a pid or
// fromInit).
func (e *engine) pushRead(r *txnRec, s *state, key string, from int) {
	ev := Event{Kind: Read, Key: key, From: Init, Value: e.initial(key)}
	if from != fromInit {
		ev.From = e.txns[from].id
		ev.Value = s.recs[from].finalWrite(key)
	}
	r.events = append(r.events, ev)
	r.kids = append(r.kids, e.kid(key))
	r.from = append(r.from, from)
}

// finalWrite returns the value of the transaction's last write of key.
func (r *txnRec) finalWrite(key string) Value {
	for i := len(r.events) - 1; i >= 0; i-- {
		if e := r.events[i]; e.Kind == Write && e.Key == key {
			return e.Value
		}
	}
	panic("explore: read from a transaction that did not write the key")
}

// writes reports whether the committed transaction r wrote key.
func (r *txnRec) writes(kid int32) bool {
	if r.status != Committed {
		return false
	}
	for i, e := range r.events {
		if e.Kind == Write && r.kids[i] == kid {
			return true
		}
	}
	return false
}
