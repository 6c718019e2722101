package check

import (
	"context"
	"slices"
	"strconv"
	"time"

	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/polygraph"
	"github.com/isocheck/isocheck/progress"
	"github.com/isocheck/isocheck/resolve"
	"github.com/isocheck/isocheck/saturate"
	"github.com/isocheck/isocheck/verdict"
)

// checkSaturated checks RC, RA and CC, which need no solver.
func checkSaturated(ctx context.Context, r *resolve.Resolution, l level.Level, sopts saturate.Options) (*Result, error) {
	res := &Result{Level: l, Polygraph: nodesOf(r)}
	res.Stats.Txns = count(r.Included)
	t := time.Now()
	sat, err := saturate.CheckWith(ctx, r, l, sopts)
	res.Stats.Construct = time.Since(t)
	if err != nil {
		return noVerdict(ctx, res, err)
	}
	res.Stats.KnownEdges = sat.Edges
	switch {
	case len(sat.Anomalies) > 0:
		res.Verdict = verdict.Violated
		res.Anomalies = sat.Anomalies
	case sat.Verdict != verdict.Satisfied && sat.Core != nil:
		res.Verdict = verdict.Violated
		res.Core = sat.Core
	case sat.Verdict != verdict.Satisfied && sat.Conflict != nil:
		res.Verdict = verdict.Violated
		res.Conflict = &Conflict{Constraint: sat.Conflict.Constraint, EitherCycle: sat.Conflict.EitherCycle, OrCycle: sat.Conflict.OrCycle}
	case sat.Verdict != verdict.Satisfied:
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
// The split is the checker's own business: the Result is over the
// original history (see unsplit), its evidence between the original
// transactions.
func checkPrefix(ctx context.Context, r *resolve.Resolution, opts Options) (*Result, error) {
	if len(r.Anomalies) > 0 {
		res := &Result{Level: level.PC, Polygraph: nodesOf(r), Outcome: verdict.Outcome{Verdict: verdict.Violated}, Anomalies: r.Anomalies}
		return res, nil
	}
	split, origin, err := splitReadsWrites(ctx, r)
	if err == nil {
		var sr *resolve.Resolution
		if sr, err = resolve.Resolve(ctx, split); err == nil && r.Chosen() && len(sr.Choices) > 0 {
			// Values repeat: each read of the split history reads from
			// the half that writes what its transaction's read chose.
			sr, err = sr.Choose(ctx, splitPicks(r, sr, origin))
		}
		if err == nil {
			res, err := checkCycles(ctx, sr, opts.polygraph(level.SER), opts)
			if res != nil {
				unsplit(res, r, origin)
			}
			return res, err
		}
	}
	res := &Result{Level: level.PC, Polygraph: nodesOf(r)}
	res.Stats.Txns = count(r.Included)
	return noVerdict(ctx, res, err)
}

// splitPicks returns the picks that make the reads of sr, the resolved
// split of r's history (see splitReadsWrites), read from the halves that
// write what r's reads read: the writes half of a transaction follows
// its reads half.
func splitPicks(r, sr *resolve.Resolution, origin []int32) []resolve.Pick {
	type read struct {
		txn int32
		key history.Key
	}
	writer := make(map[read]int32, len(r.Reads))
	for _, rd := range r.Reads {
		if !rd.Repeat {
			writer[read{rd.Reader, rd.Key}] = rd.Writer
		}
	}
	wHalf := make(map[int32]int32, len(origin)/2)
	for i := 1; i < len(origin); i += 2 {
		wHalf[origin[i]] = int32(i)
	}
	t0 := int32(len(r.History.Txns))
	var picks []resolve.Pick
	for _, c := range sr.Choices {
		w, ok := writer[read{origin[c.Reader], c.Key}]
		switch {
		case !ok:
			continue // left out of r: left out here
		case w == t0:
			w = int32(len(sr.History.Txns))
		default:
			w = wHalf[w]
		}
		picks = append(picks, resolve.Pick{Op: c.Op, Writer: w})
	}
	return picks
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
// reason (context.Cause) if ctx ends first. origin maps each transaction
// of the split history to the one of r's it is a half of.
func splitReadsWrites(ctx context.Context, r *resolve.Resolution) (split *history.History, origin []int32, err error) {
	h := r.History
	m := progress.Start(ctx, "split for PC", int64(len(h.Txns)), "transactions")
	b := history.NewBuilder(h.Init, h.Files...)
	b.SetPosIsOffset(h.PosIsOffset)
	for _, name := range h.KeyNames {
		b.Key(name)
	}
	// Resolve lists the external reads by transaction: r.Reads[
	// readStart[t]:readStart[t+1]] are t's.
	// The reads that may have read from several writers, of a
	// resolution whose check chooses them, by reader.
	var choiceOpsOf map[int32][]int32
	if !r.Chosen() {
		for _, c := range r.Choices {
			if r.Included[c.Reader] {
				if choiceOpsOf == nil {
					choiceOpsOf = make(map[int32][]int32)
				}
				choiceOpsOf[c.Reader] = append(choiceOpsOf[c.Reader], c.Op)
			}
		}
	}
	readStart := make([]int32, len(h.Txns)+1)
	for _, rd := range r.Reads {
		readStart[rd.Reader+1]++
	}
	for t := range h.Txns {
		readStart[t+1] += readStart[t]
	}
	if err := m.Err(); err != nil {
		return nil, nil, err
	}
	// Each operation goes to at most one half: room for all at once.
	b.Grow(2*count(r.Included), len(h.Ops))
	origin = make([]int32, 0, 2*count(r.Included))
	var reads, writes []history.Op
	done := 0
	for s, sess := range h.Sessions {
		sid := b.Session(h.SessionName(s) + "\x00" + strconv.Itoa(s))
		for _, t := range sess {
			if done++; done&(progress.Every-1) == 0 {
				if err := m.Add(progress.Every); err != nil {
					return nil, nil, err
				}
			}
			if !r.Included[t] {
				continue
			}
			tx := h.Txns[t]
			reads = reads[:0]
			if _, ok := choiceOpsOf[t]; !ok {
				for _, rd := range r.Reads[readStart[t]:readStart[t+1]] {
					if !rd.Repeat {
						reads = append(reads, h.Ops[rd.Op])
					}
				}
			} else {
				// The reads that may have read from several writers
				// stay too, in program order: the split history's
				// check chooses their writers.
				ops := slices.Clone(choiceOpsOf[t])
				for _, rd := range r.Reads[readStart[t]:readStart[t+1]] {
					if !rd.Repeat {
						ops = append(ops, rd.Op)
					}
				}
				slices.Sort(ops)
				for _, op := range ops {
					reads = append(reads, h.Ops[op])
				}
			}
			writes = writes[:0]
			for i := tx.OpStart; i < tx.OpEnd; i++ {
				if r.IsFinalWrite(i) {
					writes = append(writes, h.Ops[i])
				}
			}
			// The halves keep their transaction's times, which only the
			// solver's first guess of the order of writes reads (the
			// split history is checked at SER, without real time).
			half := history.Txn{Session: sid, Status: history.Committed, Start: tx.Start, End: tx.End, File: tx.File, Pos: tx.Pos}
			half.ID = h.Name(int(t)) + "/r"
			b.AddTxn(half, reads)
			half.ID = h.Name(int(t)) + "/w"
			b.AddTxn(half, writes)
			origin = append(origin, t, t)
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
	split = b.History()
	split.ValueNames = h.ValueNames
	split.SessionNames = h.SessionNames
	return split, origin, nil
}

// unsplit restates res, the result of checking the split history of r
// for PC (see splitReadsWrites, whose origin maps each half to its
// transaction), over r's history: its polygraph is r's, and each edge of
// its evidence joins the transactions the halves are halves of. The
// session order from a transaction's reads to its writes, within one
// transaction, disappears; a cycle through both halves of a transaction
// at different places keeps the transaction twice, which still reads as
// a cycle.
func unsplit(res *Result, r *resolve.Resolution, origin []int32) {
	n := int32(len(origin))
	t0 := int32(len(r.History.Txns))
	node := func(u int32) int32 {
		switch {
		case u == n:
			return t0
		case u >= 0 && u < n:
			return origin[u]
		}
		return u
	}
	edges := func(in []polygraph.Edge) []polygraph.Edge {
		if in == nil {
			return nil
		}
		out := make([]polygraph.Edge, 0, len(in))
		for _, e := range in {
			e.From, e.To = node(e.From), node(e.To)
			if e.From != e.To {
				out = append(out, e)
			}
		}
		return out
	}
	res.Level = level.PC
	res.Polygraph = nodesOf(r)
	res.Picks = nil // the split history's reads
	res.Stats.Txns = count(r.Included)
	res.Cycle = edges(res.Cycle)
	res.Known = edges(res.Known)
	for i, c := range res.Core {
		res.Core[i] = edges(c)
	}
	if c := res.Conflict; c != nil {
		c.Constraint.A, c.Constraint.B = node(c.Constraint.A), node(c.Constraint.B)
		c.Constraint.Either, c.Constraint.Or = edges(c.Constraint.Either), edges(c.Constraint.Or)
		c.EitherCycle, c.OrCycle = edges(c.EitherCycle), edges(c.OrCycle)
	}
	for i := range res.Anomalies {
		a := &res.Anomalies[i]
		a.Txn, a.Writer, a.OtherTxn = node(a.Txn), node(a.Writer), node(a.OtherTxn)
		// The operations are the split history's: none of r's.
		a.Op, a.OtherOp = -1, -1
	}
}
