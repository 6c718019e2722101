package check

import (
	"context"
	"strconv"
	"time"

	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/polygraph"
	"github.com/isocheck/isocheck/progress"
	"github.com/isocheck/isocheck/saturate"
	"github.com/isocheck/isocheck/verdict"
)

// checkSaturated checks RC, RA and CC, which need no solver.
func checkSaturated(ctx context.Context, r *polygraph.Resolution, l level.Level, lim saturate.Limits) (*Result, error) {
	res := &Result{Level: l, Polygraph: polygraph.Bare(r)}
	res.Stats.Txns = count(r.Included)
	t := time.Now()
	sat, err := saturate.CheckLimits(ctx, r, l, lim)
	res.Stats.Construct = time.Since(t)
	if err != nil {
		return noVerdict(ctx, res, err)
	}
	res.Stats.KnownEdges = sat.Edges
	switch {
	case len(sat.Anomalies) > 0:
		res.Verdict = verdict.Violated
		res.Anomalies = sat.Anomalies
	case !sat.Satisfied && sat.Core != nil:
		res.Verdict = verdict.Violated
		res.Core = sat.Core
	case !sat.Satisfied && sat.Conflict != nil:
		res.Verdict = verdict.Violated
		res.Conflict = &Conflict{Constraint: sat.Conflict.Constraint, EitherCycle: sat.Conflict.EitherCycle, OrCycle: sat.Conflict.OrCycle}
	case !sat.Satisfied:
		res.Verdict = verdict.Violated
		res.Cycle = sat.Cycle
	default:
		res.Verdict = verdict.Satisfied
	}
	return res, nil
}

// checkPrefix checks prefix consistency by the reduction of Biswas and
// Enea, "On the Complexity of Checking Transactional Consistency"
// (OOPSLA 2019), Section 4.2: split every transaction t into a transaction
// R(t) of its reads followed, in its session, by a transaction W(t) of its
// writes; the history is PC iff the split one is serializable. (No
// transaction of the split history reads and writes one key, so no
// read-modify-write chain forbids the lost updates PC allows.)
//
// The evidence of a violation names the halves "T/r" and "T/w".
func checkPrefix(ctx context.Context, r *polygraph.Resolution) (*Result, error) {
	if len(r.Anomalies) > 0 {
		res := &Result{Level: level.PC, Polygraph: polygraph.Bare(r), Outcome: verdict.Outcome{Verdict: verdict.Violated}, Anomalies: r.Anomalies}
		return res, nil
	}
	split, err := splitReadsWrites(ctx, r)
	if err == nil {
		var sr *polygraph.Resolution
		if sr, err = polygraph.Resolve(ctx, split); err == nil {
			res, err := checkCycles(ctx, sr, polygraph.Options{Level: level.SER}, Options{})
			if res != nil {
				res.Level = level.PC
			}
			return res, err
		}
	}
	res := &Result{Level: level.PC, Polygraph: polygraph.Bare(r)}
	res.Stats.Txns = count(r.Included)
	return noVerdict(ctx, res, err)
}

// count returns the number of true elements of bs.
func count(bs []bool) int {
	n := 0
	for _, b := range bs {
		if b {
			n++
		}
	}
	return n
}

// splitReadsWrites returns the history of the included transactions of r
// with each split into its external reads and its final writes. It runs
// as the stage "split for PC", counting transactions, and returns the
// reason (context.Cause) if ctx ends first.
func splitReadsWrites(ctx context.Context, r *polygraph.Resolution) (*history.History, error) {
	h := r.History
	m := progress.Start(ctx, "split for PC", int64(len(h.Txns)), "transactions")
	b := history.NewBuilder(h.Init, h.Files...)
	b.SetPosIsOffset(h.PosIsOffset)
	for _, name := range h.KeyNames {
		b.Key(name)
	}
	// Resolve lists the external reads by transaction: r.Reads[
	// readStart[t]:readStart[t+1]] are t's.
	readStart := make([]int32, len(h.Txns)+1)
	for _, rd := range r.Reads {
		readStart[rd.Reader+1]++
	}
	for t := range h.Txns {
		readStart[t+1] += readStart[t]
	}
	if err := m.Err(); err != nil {
		return nil, err
	}
	// Each operation goes to at most one half: room for all at once.
	b.Grow(2*count(r.Included), len(h.Ops))
	var reads, writes []history.Op
	done := 0
	for s, sess := range h.Sessions {
		sid := b.Session(h.SessionName(s) + "\x00" + strconv.Itoa(s))
		for _, t := range sess {
			if done++; done&(progress.Every-1) == 0 {
				if err := m.Add(progress.Every); err != nil {
					return nil, err
				}
			}
			if !r.Included[t] {
				continue
			}
			tx := h.Txns[t]
			reads = reads[:0]
			for _, rd := range r.Reads[readStart[t]:readStart[t+1]] {
				if !rd.Repeat {
					reads = append(reads, h.Ops[rd.Op])
				}
			}
			writes = writes[:0]
			for i := tx.OpStart; i < tx.OpEnd; i++ {
				if r.IsFinalWrite(i) {
					writes = append(writes, h.Ops[i])
				}
			}
			half := history.Txn{Session: sid, Status: history.Committed, Start: history.NoTime, End: history.NoTime, File: tx.File, Pos: tx.Pos}
			half.ID = h.Name(int(t)) + "/r"
			b.AddTxn(half, reads)
			half.ID = h.Name(int(t)) + "/w"
			b.AddTxn(half, writes)
		}
	}
	// The version orders lists reveal hold between the halves that write:
	// state them, by each writer's last write (the one its half keeps).
	for _, o := range r.Orders {
		values := make([]history.Value, len(o.Writers))
		for i, w := range o.Writers {
			for _, op := range h.OpsOf(int(w)) {
				if op.Kind == history.Write && op.Key == o.Key {
					values[i] = op.Value
				}
			}
		}
		b.AddOrder(o.Key, values)
	}
	split := b.History()
	split.ValueNames = h.ValueNames
	split.SessionNames = h.SessionNames
	return split, nil
}
