package check

import (
	"context"
	"time"

	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/polygraph"
	"github.com/isocheck/isocheck/resolve"
	"github.com/isocheck/isocheck/saturate"
	"github.com/isocheck/isocheck/solver"
	"github.com/isocheck/isocheck/verdict"
)

// Options turn parts of the checker off or swap them, for measurements (the
// ablations of Huang, Liu, Chen, Wei, Basin, Li and Pan, "Efficient
// Black-box Checking of Snapshot Isolation in Databases" (PolySI), PVLDB
// 16(6), 2023, Section 5.3, Figure 9) and for cross-checking one engine
// against another. The zero value is what Check does. Options change the
// work done, never the verdict, except MaxClockBytes and MaxReachBytes,
// which may turn a verdict into none (verdict.Unknown).
type Options struct {
	// NoPrune sends every constraint to the solver: pruning only checks
	// that the known edges are acyclic.
	NoPrune bool
	// AllPairs makes a constraint for every pair of write chains of a key,
	// as PolySI (Huang et al., PVLDB 2023) does, instead of ordering by
	// reachability first (polygraph.Options.AllPairs).
	AllPairs bool
	// NoWitness skips the guess of an order of the writes that would
	// witness the level without a search (polygraph.Options.NoWitness):
	// the constraints are built, pruned and solved for every history.
	NoWitness bool
	// Engine is the solver's engine (solver.DefaultEngine when empty).
	Engine solver.Engine
	// MaxClockBytes bounds the memory of CC's vector clocks (one entry of
	// 4 bytes per session for each transaction whose clock a later one
	// still needs) and, apart, of the commit-order edges its axiom forces
	// (8 bytes each; see saturate.Options): 0 means 1 GiB for the clocks
	// (saturate.MaxClockEntries) and 2 GiB for the edges
	// (saturate.MaxForcedEdges), a negative value no bound. Past it, CC
	// has no verdict, with the reason.
	MaxClockBytes int64
	// MaxReachBytes bounds the memory of the reachability clocks with
	// which SER, SI, SSER and PC order writes (4 bytes per node and session;
	// see polygraph.Options.MaxClockBytes): 0 means 1 GiB, a negative
	// value no bound. Past it, the level has no verdict, with the reason,
	// before the clocks are allocated. The command line allows each kind
	// of clock half of --max-memory.
	MaxReachBytes int64
	// Cases decides the writers of reads whose value several
	// transactions wrote case by case, for explanations (see Case): the
	// level's own check of each choice of writers, ruling out the part
	// of the choice each violation needs, rather than one problem for
	// the solver. It is how RC, RA and CC always choose.
	Cases bool
	// WeakestBroken, on a violation, checks the levels weaker than the
	// one asked for, from the strongest down to the first one kept, and
	// returns the violation of
	// the weakest broken one (with ImpliedBy set; the Result's Level is
	// the level asked for): the history breaks that level already, and
	// its evidence is what a report explains, named by the rule that
	// broke there. It costs the checks of the weaker levels, on a
	// violation only.
	WeakestBroken bool

	// stronger, when set, shares the checks of stronger levels made to
	// find writers that satisfy a level (satisfiedAs) among the checks of
	// several levels on one resolution.
	stronger *strongerChecks
	// releaseReads lets the polygraph release the reads of the
	// resolution (polygraph.Options.ReleaseReads): set by CheckWith,
	// which owns its resolution, for a history of releaseReads reads or
	// more.
	releaseReads bool
}

// releaseReads is the number of reads from which CheckWith lets the
// polygraph of SER, SI or SSER release the resolution's reads, 20 bytes
// each, once it holds them as its own edges: 1.4 GB of the 8.6 GiB of a
// check of SI on ten million transactions of fifteen operations. A
// violation then costs a second resolution of the history (see
// unreleased), a tenth of the check's time; below it, the memory saved is
// not worth it.
const releaseReads = 1 << 25

// reachBytes is the bound on the reachability clocks of the polygraph
// that o sets (0: none).
func (o Options) reachBytes() int64 {
	switch {
	case o.MaxReachBytes < 0:
		return 0
	case o.MaxReachBytes == 0:
		return 1 << 30
	}
	return o.MaxReachBytes
}

// polygraph returns the options of the polygraph of level l that o sets.
func (o Options) polygraph(l level.Level) polygraph.Options {
	return polygraph.Options{Level: l, AllPairs: o.AllPairs, NoWitness: o.NoWitness, NoRelax: o.NoWitness, MaxClockBytes: o.reachBytes(), ReleaseReads: o.releaseReads}
}

// saturateOptions returns the options of saturate that o sets.
func (o Options) saturateOptions() saturate.Options {
	if o.MaxClockBytes < 0 {
		return saturate.Options{MaxClockEntries: -1, MaxForcedEdges: -1}
	}
	return saturate.Options{MaxClockEntries: max(o.MaxClockBytes/4, 0), MaxForcedEdges: max(o.MaxClockBytes/8, 0)}
}

// CheckWith is Check with opts. Options other than MaxClockBytes only
// concern SER, SI and SSER; the other levels are checked without a solver.
func CheckWith(ctx context.Context, h *history.History, l level.Level, opts Options) (*Result, error) {
	t := time.Now()
	r, err := resolve.Resolve(ctx, h)
	if err != nil {
		return stoppedBefore(ctx, h, l, time.Since(t), err)
	}
	if opts.stronger == nil {
		opts.stronger = &strongerChecks{}
	}
	opts.releaseReads = opts.releaseReads || len(r.Reads) >= releaseReads
	res, err := checkResolved(ctx, r, l, opts)
	if res != nil {
		res.Stats.Construct += time.Since(t) - res.Stats.total()
	}
	if err == nil && opts.WeakestBroken && res.Verdict == verdict.Violated {
		if r, err = unreleased(ctx, r); err != nil {
			// Stopped before the weaker levels: the violation stands,
			// and they are not said to be kept.
			return res, nil
		}
		// The weaker levels share r.
		opts.releaseReads = false
		return weakestBroken(ctx, r, res, opts)
	}
	return res, err
}

// unreleased returns r, or its history resolved again where the
// polygraph released its reads (see releaseReads).
func unreleased(ctx context.Context, r *resolve.Resolution) (*resolve.Resolution, error) {
	if !r.Released() {
		return r, nil
	}
	return resolve.Resolve(ctx, r.History)
}
