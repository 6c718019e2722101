package run

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"sync"

	"github.com/isocheck/isocheck/db"
	"github.com/isocheck/isocheck/format/jsonl"
	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/workload"
)

// FenceSession is the name, in the history, of the session that runs the
// fences' middle transactions (Options.Fences).
const FenceSession = "fence"

// FenceKeys is how many keys past the plan's fences use: the fence's own
// key, then one for each session.
func FenceKeys(sessions int) int { return 1 + sessions }

// fences makes every session stop, each Options.Fences transactions,
// until all have come, so that what ran before is ordered before what
// runs after in every order a level allows (see Options.Fences):
//
//  1. each session writes its own key (the fence's key + 1 + its number)
//     with the round's number;
//  2. once all sessions have, a transaction of a session of its own,
//     FenceSession, reads those keys and every key written since the
//     last fence, and writes the round's number to the fence's key;
//  3. each session reads the fence's key, and goes on.
//
// A session that ends its plan writes its key and leaves: the fences go
// on without it.
type fences struct {
	r     *runner
	every int
	// key is the fence's key: the plan's keys end before it.
	key int64

	mu   sync.Mutex
	cond *sync.Cond
	conn db.Session
	// active counts the sessions still running, arrived those waiting at
	// the fence, round the fences done.
	active, arrived int
	round           int64
	// written holds the keys the sessions planned to write since the
	// last fence; in holds the sessions' keys, written and not yet read.
	written map[int64]struct{}
	in      []int64
	rec     jsonl.TxnRecord
	err     error
}

func newFences(r *runner, every, sessions int) *fences {
	f := &fences{r: r, every: every, key: int64(r.plan.Keys), active: sessions, written: map[int64]struct{}{}}
	f.cond = sync.NewCond(&f.mu)
	return f
}

// wrote notes the keys plan writes.
func (f *fences) wrote(plan workload.TxnPlan) {
	f.mu.Lock()
	for _, op := range plan.Ops {
		if op.Kind != workload.ReadOp {
			f.written[op.Key] = struct{}{}
		}
	}
	f.mu.Unlock()
}

// meet runs session s's part of a fence: its write, the wait for the
// others, and its read of the fence's key. leave says that s has ended its
// plan (or stops): it writes its key and leaves.
func (f *fences) meet(ctx context.Context, s *session, leave bool) error {
	f.mu.Lock()
	round := f.round + 1
	f.mu.Unlock()
	own := f.key + 1 + int64(s.id)
	in := workload.TxnPlan{Ops: []workload.OpPlan{{Kind: workload.WriteOp, Key: own, Value: round * fenceTries}}}
	if err := s.runFenceTxn(ctx, "in"+strconv.FormatInt(round, 10), in); err != nil {
		f.leave()
		return err
	}
	f.mu.Lock()
	f.in = append(f.in, own)
	if leave {
		f.active--
		if f.arrived > 0 && f.arrived == f.active {
			f.pass(ctx)
		}
		f.mu.Unlock()
		return nil
	}
	f.arrived++
	if f.arrived == f.active {
		f.pass(ctx)
	} else {
		for f.round < round && ctx.Err() == nil {
			f.cond.Wait()
		}
	}
	f.mu.Unlock()
	if ctx.Err() != nil {
		return nil // the run ends: the session's loop sees it
	}
	out := workload.TxnPlan{Ops: []workload.OpPlan{{Kind: workload.ReadOp, Key: f.key}}}
	return s.runFenceTxn(ctx, "out"+strconv.FormatInt(round, 10), out)
}

// leaveIf takes a session that stops out of the fences, if there are
// any.
func (f *fences) leaveIf() {
	if f != nil {
		f.leave()
	}
}

// leave takes a session out of the fences without its write (it stops).
func (f *fences) leave() {
	f.mu.Lock()
	f.active--
	if f.arrived > 0 && f.arrived == f.active {
		f.pass(context.Background())
	}
	f.mu.Unlock()
}

// wake wakes the sessions waiting at a fence, when the run's context
// ends.
func (f *fences) wake() {
	f.mu.Lock()
	f.cond.Broadcast()
	f.mu.Unlock()
}

// pass runs the fence's middle transaction and lets the sessions go on;
// f.mu is held. A middle transaction that fails is recorded as it ended,
// and the sessions go on all the same: the checker then finds no fence
// there.
func (f *fences) pass(ctx context.Context) {
	round := f.round + 1
	keys := append(slices.Sorted(maps.Keys(f.written)), f.in...)
	clear(f.written)
	f.in = f.in[:0]
	f.arrived = 0
	f.round = round
	defer f.cond.Broadcast()
	if f.err != nil {
		return
	}
	if f.conn == nil {
		c, cancel := context.WithTimeout(context.WithoutCancel(ctx), f.r.opts.TxnTimeout)
		conn, err := f.r.d.Session(c, len(f.r.plan.Sessions))
		cancel()
		if err != nil {
			f.err = err
			return
		}
		f.conn = conn
	}
	rec := &f.rec
	for try := range fenceTries {
		value := round * fenceTries
		id := "fence/" + strconv.FormatInt(round, 10)
		if try > 0 {
			id += "." + strconv.Itoa(try)
			value += int64(try)
		}
		*rec = jsonl.TxnRecord{Session: FenceSession, ID: id, Ops: rec.Ops[:0], End: history.NoTime}
		rec.Start = f.r.now()
		status := f.middle(ctx, keys, value, rec)
		rec.Status = status
		if status != history.Unknown {
			rec.End = f.r.now()
		} else {
			f.conn.Close()
			f.conn = nil
			f.err = fmt.Errorf("the fence's transaction got no answer to its commit")
		}
		f.r.record(rec, false)
		if status != history.Aborted {
			return
		}
	}
}

// middle reads keys and writes value to the fence's key.
func (f *fences) middle(ctx context.Context, keys []int64, value int64, rec *jsonl.TxnRecord) history.Status {
	c, cancel := context.WithTimeout(context.WithoutCancel(ctx), f.r.opts.TxnTimeout)
	defer cancel()
	tx, err := f.conn.Begin(c)
	if err != nil {
		return history.Aborted
	}
	for _, k := range keys {
		v, ok, err := tx.Read(c, k)
		if err != nil {
			tx.Rollback(context.WithoutCancel(c))
			return history.Aborted
		}
		rec.Ops = append(rec.Ops, jsonl.OpRecord{Kind: history.Read, Key: k, Value: v, Null: !ok})
	}
	if err := tx.Write(c, f.key, value); err != nil {
		tx.Rollback(context.WithoutCancel(c))
		return history.Aborted
	}
	rec.Ops = append(rec.Ops, jsonl.OpRecord{Kind: history.Write, Key: f.key, Value: value})
	outcome, _ := db.Classify(tx.Commit(c))
	return outcome
}

func (f *fences) close() {
	if f.conn != nil {
		f.conn.Close()
	}
}

// tryAgain is the fence transaction plan tried again, for the try-th
// time: its writes write values of their own, so that each value is
// written once per key.
func tryAgain(plan workload.TxnPlan, try int) workload.TxnPlan {
	again := workload.TxnPlan{Ops: slices.Clone(plan.Ops)}
	for i, op := range again.Ops {
		if op.Kind == workload.WriteOp {
			again.Ops[i].Value = op.Value - op.Value%fenceTries + int64(try)
		}
	}
	return again
}
