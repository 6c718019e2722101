// Package check decides whether a history satisfies an isolation level and
// returns the verdict with the evidence of a violation. It runs the stages
// in order: resolve the reads; for SER, SI and SSER build the polygraph,
// prune its constraints, encode what is left and solve it; for PC do the
// same on the history split into reads and writes; for RC, RA and CC
// saturate (package saturate). CheckAll does every level in one run.
package check

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/isocheck/isocheck/encode"
	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/polygraph"
	"github.com/isocheck/isocheck/progress"
	"github.com/isocheck/isocheck/prune"
	"github.com/isocheck/isocheck/resolve"
	"github.com/isocheck/isocheck/solver"
	"github.com/isocheck/isocheck/verdict"
)

// Stats describes the work of each stage.
type Stats struct {
	Construct, Prune, Encode, Solve time.Duration
	// Txns counts the transactions considered committed.
	Txns int
	// KnownEdges counts known dependencies before pruning.
	KnownEdges int
	// Constraints and UnknownEdges count the constraints and their edges
	// before pruning; the After fields what pruning left.
	Constraints, ConstraintsAfter   int
	UnknownEdges, UnknownEdgesAfter int
	PruneRounds                     int
	SolverRounds, SolverClauses     int
	// Choices counts the reads whose value several transactions wrote
	// (resolve.Resolution.Choices); ChoiceRounds the choices of their
	// writers checked.
	Choices, ChoiceRounds int
}

// Conflict is a constraint neither side of which can hold: each closes a
// cycle with dependencies that are known (or forced).
type Conflict struct {
	Constraint  polygraph.Constraint
	EitherCycle []polygraph.Edge
	OrCycle     []polygraph.Edge
}

// Result is the outcome of a check.
type Result struct {
	Level level.Level
	// Outcome is the verdict. Without one, its Reason says why, its Stage
	// where the check stopped, and Stopped whether ctx ending stopped it
	// (a timeout, a cancellation, a memory limit watched from outside)
	// rather than a limit of the check's own, such as the memory of CC's
	// clocks.
	verdict.Outcome
	// ImpliedBy, when set, is the weaker level whose violation this one's
	// follows from; the evidence is that level's.
	ImpliedBy level.Level
	// WeakerChecked says that the levels weaker than that of the evidence
	// (ImpliedBy, else Level) were checked and are kept, but for
	// Undecided (see Options.WeakestBroken and CheckAll): a report then
	// names an anomaly that the evidence's level forbids and every weaker
	// one allows.
	WeakerChecked bool
	// Undecided, when set, is a weaker level the check found no verdict
	// for (its own limit, or ctx ending): it may be broken too.
	Undecided level.Level
	// Own, for a result that Options.WeakestBroken found implied by a
	// weaker level's violation, is the check's own result at Level: the
	// evidence the check of Level found, from which the anomalies Level
	// forbids beyond the weaker level's are listed.
	Own *Result
	// KeptBy, when set, is the stronger level whose being kept implies
	// this one, which CheckAll found no verdict for on its own: the
	// Outcome is Satisfied, its Reason what stopped the level's own check.
	KeptBy level.Level
	// NotChecked says that CheckAll stopped before it began this level.
	NotChecked bool
	// Polygraph is the polygraph checked (its nodes only, for RC, RA and
	// CC; without its constraints once the solver was called).
	Polygraph *polygraph.Polygraph
	// Anomalies found without cycles (thin-air reads, lost updates, ...).
	Anomalies []resolve.Anomaly
	// Cycle is a cycle of dependencies every valid order would have.
	Cycle []polygraph.Edge
	// Conflict is a constraint with both sides impossible.
	Conflict *Conflict
	// Core holds cycles, at least one of which every choice of version
	// order closes, when no single cycle shows the violation.
	Core [][]polygraph.Edge
	// Known holds the dependencies known after pruning.
	Known []polygraph.Edge
	// Picks, when the history's values repeat and the level is
	// satisfied, are writers of the reads of the resolution's Choices
	// that satisfy it (with some commit order); for PC only when a guess
	// or a stronger level's writers settled it (its solver chooses on the
	// history split in two).
	Picks []resolve.Pick
	// Choices, with Cases, are the reads that may have read from several
	// writers which the cases pick writers for.
	Choices []resolve.Choice
	// Cases, when the history's values repeat and the level is violated
	// only for some choices of writers, cover every choice: each gives
	// the writers of some reads and the violation they lead to. The
	// evidence above is that of the first.
	Cases []Case
	Stats Stats
}

// Check decides whether h satisfies l, with the zero Options.
//
// It follows the convention of every isocheck entry point (see "Entry
// points" in docs/development.md): the error is only for a check that
// could not be made. Input errors (such as a value written twice to one
// key) are returned as *resolve.InputError; other errors (a level Check
// does not know) are failures of the caller or bugs. A stop is not an
// error: when ctx ends first (a timeout, a cancellation, a memory limit
// watched from outside), a limit of the check's own is reached
// (Options.MaxClockBytes, MaxReachBytes) or the solver gives up, the
// Result has no verdict (verdict.Unknown), the Reason says why (see
// progress.Outcome: "timed out", "cancelled", or the message of the
// limit), the Stage where, Stopped whether ctx ended, and Stats count
// the work done so far.
// Every stage reports to the progress.Tracker of ctx, if any.
func Check(ctx context.Context, h *history.History, l level.Level) (*Result, error) {
	return CheckWith(ctx, h, l, Options{})
}

func (s *Stats) total() time.Duration { return s.Construct + s.Prune + s.Encode + s.Solve }

// stoppedBefore is the Result of a check of h at l stopped by err before
// its reads were resolved, after d; other errors are returned as they are.
func stoppedBefore(ctx context.Context, h *history.History, l level.Level, d time.Duration, err error) (*Result, error) {
	if !progress.Stopped(err) {
		return nil, err
	}
	n := len(h.Txns)
	res := &Result{Level: l, Polygraph: &polygraph.Polygraph{History: h, T0: int32(n), NumNodes: n + 1}}
	res.Stats.Construct = d
	return noVerdict(ctx, res, err)
}

// nodesOf is the Polygraph of a Result whose check built none (RC, RA and
// CC, and checks that end before they build one or over a history other
// than r's, such as PC's split one): the nodes of r's history, to name
// them, with r's anomalies and picks, and no edges or constraints.
func nodesOf(r *resolve.Resolution) *polygraph.Polygraph {
	n := len(r.History.Txns)
	return &polygraph.Polygraph{
		History:   r.History,
		T0:        int32(n),
		NumNodes:  n + 1,
		Included:  r.Included,
		Anomalies: slices.Clone(r.Anomalies),
		Picks:     r.Picks(),
	}
}

// CheckResolved is Check on a history whose reads Resolve has resolved:
// checks of several levels share that work.
func CheckResolved(ctx context.Context, r *resolve.Resolution, l level.Level) (*Result, error) {
	return checkResolved(ctx, r, l, Options{})
}

// CheckResolvedWith is CheckResolved with opts.
func CheckResolvedWith(ctx context.Context, r *resolve.Resolution, l level.Level, opts Options) (*Result, error) {
	return checkResolved(ctx, r, l, opts)
}

func checkResolved(ctx context.Context, r *resolve.Resolution, l level.Level, opts Options) (*Result, error) {
	if len(r.Choices) == 0 {
		return checkLevel(ctx, r, l, opts)
	}
	if opts.Cases || !solverChooses(l) || excludedCandidates(r) {
		return checkChoosing(ctx, r, l, opts)
	}
	return checkLevelChoosing(ctx, r, l, opts, true)
}

// checkLevelChoosing checks SER, SI, SSER or PC on r, whose reads have
// Choices: case by case while a few checks may settle it (a history the
// database got right is satisfied by the writers its times point to),
// then, if stronger is set, as SSER (satisfiedAsStronger), then in the
// solver, which chooses writers beside the order of writes.
func checkLevelChoosing(ctx context.Context, r *resolve.Resolution, l level.Level, opts Options, stronger bool) (*Result, error) {
	if stronger {
		if res, err := satisfiedFirst(ctx, r, l, opts); err != nil || res != nil {
			return res, err
		}
	}
	if res, err := checkGuessed(ctx, r, l, opts); err != nil || res != nil {
		return res, err
	}
	if stronger {
		if res, err := satisfiedAsStronger(ctx, r, l, opts); err != nil || res != nil {
			return res, err
		}
	}
	// Reads left with one possible writer join the known dependencies
	// before the polygraph is built.
	if picks := knownPicks(r, pruneChoices(ctx, r, level.CC)); len(picks) > 0 {
		narrow, err := r.Narrow(ctx, picks)
		if err != nil {
			return noVerdict(ctx, &Result{Level: l, Polygraph: nodesOf(r)}, err)
		}
		r = narrow
	}
	return checkLevel(ctx, r, l, opts)
}

// checkLevel checks l on r, leaving out its Choices.
func checkLevel(ctx context.Context, r *resolve.Resolution, l level.Level, opts Options) (*Result, error) {
	switch l {
	case level.SER, level.SI, level.SSER:
		return checkCycles(ctx, r, opts.polygraph(l), opts)
	case level.PC:
		return checkPrefix(ctx, r, opts)
	case level.RC, level.RA, level.CC:
		return checkSaturated(ctx, r, l, opts.saturateOptions())
	}
	return nil, fmt.Errorf("check: level %v is not supported", l)
}

// checkCycles checks SER, SI and SSER: build the polygraph, prune, encode,
// solve. A relaxed polygraph (polygraph.Polygraph.Relaxed) that is
// satisfied proves nothing: the check runs again on the whole one.
func checkCycles(ctx context.Context, r *resolve.Resolution, opts polygraph.Options, copts Options) (*Result, error) {
	res, err := checkPolygraph(ctx, r, opts, copts)
	if err != nil || res.Verdict != verdict.Satisfied || res.Polygraph == nil || !res.Polygraph.Relaxed {
		return res, err
	}
	// The guess of a witness failed already: not again.
	opts.NoRelax, opts.NoWitness = true, true
	if r, err = unreleased(ctx, r); err != nil {
		return noVerdict(ctx, res, err)
	}
	return checkPolygraph(ctx, r, opts, copts)
}

// checkPolygraph is one build of the polygraph, then prune, encode and
// solve.
func checkPolygraph(ctx context.Context, r *resolve.Resolution, opts polygraph.Options, copts Options) (*Result, error) {
	l := opts.Level
	res := &Result{Level: l}
	st := &res.Stats
	st.Txns = count(r.Included)
	t := time.Now()
	p, err := polygraph.BuildResolved(ctx, r, opts)
	st.Construct = time.Since(t)
	if p == nil {
		return nil, err
	}
	res.Polygraph = p
	st.KnownEdges = len(p.Known)
	st.Constraints = len(p.Constraints)
	st.Choices = len(p.ChoiceEdges)
	for i := range p.Constraints {
		st.UnknownEdges += len(p.Constraints[i].Either) + len(p.Constraints[i].Or)
	}
	if err != nil {
		return noVerdict(ctx, res, err)
	}
	if len(p.Anomalies) > 0 {
		res.Verdict = verdict.Violated
		res.Anomalies = p.Anomalies
		return res, nil
	}
	if p.Witnessed {
		// An order of the writes under which every dependency is acyclic.
		res.Verdict = verdict.Satisfied
		res.Picks = p.Picks
		return res, nil
	}
	if p.TooLarge {
		res.Outcome = verdict.Outcome{Reason: fmt.Sprintf("resource limit: the constraints on the order of writes would need more than %d edges", opts.MaxConstraintEdges)}
		return res, nil
	}

	t = time.Now()
	pr, err := prune.PruneWith(ctx, p, prune.Options{NoDecide: copts.NoPrune})
	st.Prune = time.Since(t)
	if pr != nil {
		st.PruneRounds = pr.Rounds
	}
	if err != nil {
		return noVerdict(ctx, res, err)
	}
	// The known edges pruning returns begin with the polygraph's: share
	// them rather than keep two copies.
	p.Known = pr.Known[:len(p.Known):len(p.Known)]
	st.ConstraintsAfter = len(pr.Remaining)
	for _, ci := range pr.Remaining {
		st.UnknownEdgesAfter += len(p.Constraints[ci].Either) + len(p.Constraints[ci].Or)
	}
	res.Known = pr.Known
	if v := pr.Violation; v != nil {
		res.Verdict = verdict.Violated
		if v.Constraint < 0 {
			res.Cycle = v.Cycle
		} else {
			res.Conflict = &Conflict{Constraint: p.Constraints[v.Constraint], EitherCycle: v.EitherCycle, OrCycle: v.OrCycle}
		}
		return res, nil
	}
	if len(pr.Remaining) == 0 && len(p.ChoiceEdges) == 0 {
		res.Verdict = verdict.Satisfied
		res.Picks = p.Picks
		return res, nil
	}

	t = time.Now()
	enc, err := encode.EncodeGraph(ctx, p, pr.Known, pr.Remaining, pr.Graph, pr.Order)
	if err == nil && len(p.ChoiceEdges) > 0 {
		enc.AddChoices(p, pr.Resolved, latestWriters(p.History, p.ChoiceEdges, enc.Problem.FixedOrder))
	}
	st.Encode = time.Since(t)
	if err != nil {
		return noVerdict(ctx, res, err)
	}
	engine := copts.Engine
	if enc.Problem.Clauses != nil {
		engine = solver.Lazy // the one engine that takes clauses
	}
	// The encoding holds what the solver needs: let the constraints go,
	// which take as much memory as the known edges.
	pr = nil
	p.Constraints = nil

	t = time.Now()
	sol, err := solver.SolveWith(ctx, &enc.Problem, engine)
	st.Solve = time.Since(t)
	if sol != nil {
		st.SolverRounds, st.SolverClauses = sol.Rounds, sol.Clauses
	}
	if err != nil {
		return noVerdict(ctx, res, err)
	}
	if sol.Sat {
		res.Verdict = verdict.Satisfied
		// The writers pruning fixed, and the solver's.
		res.Picks = append(slices.Clone(p.Picks), enc.Picks(p, sol.Model)...)
		return res, nil
	}
	res.Verdict = verdict.Violated
	for _, c := range sol.Core {
		res.Core = append(res.Core, enc.Edges(c))
	}
	if len(res.Core) == 1 {
		res.Cycle = res.Core[0]
	}
	return res, nil
}

// noVerdict turns err into a Result without a verdict when it says the
// check was stopped from outside (progress.Stopped) or the solver gave up,
// with the reason progress.Outcome gives, and returns other errors as they
// are.
func noVerdict(ctx context.Context, res *Result, err error) (*Result, error) {
	o, ok := progress.Outcome(ctx, err, errors.Is(err, solver.ErrGaveUp))
	if !ok {
		return nil, err
	}
	res.Outcome = o
	return res, nil
}
