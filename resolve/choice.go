package resolve

import (
	"context"
	"slices"

	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/verdict"
)

// Choice is a read whose value several transactions wrote to its key, so
// that it may have read from any of them (Chen, Huang, Wei, Pan et al.,
// "VeriStrong: Verifying Strong Isolation Levels with Non-unique
// Values", the hyper-polygraph): a read of a key's initial value that
// some transaction also wrote, a counter that went back to an earlier
// value, a flag that flipped back.
//
// Writers are the candidates, in history order (T0, len(History.Txns),
// first when the value is the initial one): every transaction other than
// Reader that may have committed (committed or unknown) and whose last
// write of Key is Value. Candidates later than Reader in its own session
// are left out while others remain, since reading from them closes a
// cycle at every level.
type Choice struct {
	Op      int32 // index in History.Ops
	Reader  int32
	Key     history.Key
	Value   history.Value
	Writers []int32
}

// Pick says that the read at operation Op read from Writer (a
// transaction, or len(History.Txns) for the initial transaction).
type Pick struct {
	Op, Writer int32
}

// Choose resolves r's history again with the writer of each read of
// picks fixed; the reads of r.Choices that picks leave out are left out
// of the check, which only relaxes it (every order that satisfies a level
// with a read satisfies it without). The result has no Choices: every
// read it keeps has one writer, and the checks of every level take it as
// they take a history of unique values. Picks must name candidates of
// r.Choices.
func (r *Resolution) Choose(ctx context.Context, picks []Pick) (*Resolution, error) {
	chosen := make(map[int32]int32, len(picks))
	for _, p := range picks {
		chosen[p.Op] = p.Writer
	}
	return resolve(ctx, r.History, r.writes, chosen)
}

// Narrow resolves r's history again with the writers of picks fixed,
// and keeps the other reads of r.Choices as choices: for picks that hold
// in every valid choice (pruning by reachability finds them), so that
// their reads join the known dependencies (a read-modify-write then
// links its chain).
func (r *Resolution) Narrow(ctx context.Context, picks []Pick) (*Resolution, error) {
	chosen := make(map[int32]int32, len(picks))
	for _, p := range picks {
		chosen[p.Op] = p.Writer
	}
	n, err := resolve(ctx, r.History, r.writes, chosen)
	if err == nil {
		n.narrowed = true
		n.Choices = n.findChoices()
	}
	return n, err
}

// Picks returns the writers chosen for the reads of Choices, when r came
// from Choose, in the order of operations.
func (r *Resolution) Picks() []Pick {
	if len(r.picks) == 0 {
		return nil
	}
	out := make([]Pick, 0, len(r.picks))
	for op, w := range r.picks {
		out = append(out, Pick{op, w})
	}
	slices.SortFunc(out, func(a, b Pick) int { return int(a.Op) - int(b.Op) })
	return out
}

// repeats is what resolving the reads of a history whose values repeat
// needs besides the index of writes.
type repeats struct {
	// sessionPos is each transaction's position in its session.
	sessionPos []int32
}

func newRepeats(h *history.History) *repeats {
	pos := make([]int32, len(h.Txns))
	for _, sess := range h.Sessions {
		for i, t := range sess {
			pos[t] = int32(i)
		}
	}
	return &repeats{sessionPos: pos}
}

// source is what a read of a history whose values repeat read from: one
// writer (writer), several (many: a Choice, unless picked), or none (an
// anomaly of kind, about the write bad).
type source struct {
	writer int32
	many   bool
	kind   verdict.Anomaly
	bad    writeRef
}

// sourceOf finds the source of the external read at operation i of
// transaction t: its pick when Choose fixed it, else its candidates (see
// Choice), appended to cands (which it returns, for reuse), and ws is
// scratch.
func (r *Resolution) sourceOf(t, i int32, ws []writeRef, cands []int32) (source, []writeRef, []int32) {
	if w, ok := r.picks[i]; ok {
		return source{writer: w}, ws, cands
	}
	ws, cands, kind, bad := r.candidates(t, i, ws, cands[:0])
	switch len(cands) {
	case 0:
		return source{writer: -1, kind: kind, bad: bad}, ws, cands
	case 1:
		return source{writer: cands[0]}, ws, cands
	}
	return source{writer: -1, many: true}, ws, cands
}

// candidates appends to cands the writers the external read at operation
// i of transaction t may have read from (see Choice). With none, kind and
// bad give the anomaly to report: the reader's own later write
// (FutureRead), else a write that took no effect (AbortedRead), else one
// its transaction overwrote (IntermediateRead), else none (ThinAirRead).
func (r *Resolution) candidates(t, i int32, ws []writeRef, cands []int32) ([]writeRef, []int32, verdict.Anomaly, writeRef) {
	h := r.History
	op := h.Ops[i]
	if op.Value == h.Init {
		cands = append(cands, int32(len(h.Txns)))
	}
	ws = r.writes.all(op.Key, op.Value, ws[:0])
	kind, bad := verdict.ThinAirRead, writeRef{-1, -1}
	rank := func(k verdict.Anomaly) int {
		switch k {
		case verdict.FutureRead:
			return 3
		case verdict.AbortedRead:
			return 2
		case verdict.IntermediateRead:
			return 1
		}
		return 0
	}
	note := func(k verdict.Anomaly, w writeRef) {
		if rank(k) > rank(kind) {
			kind, bad = k, w
		}
	}
	for _, w := range ws {
		switch st := h.Txns[w.txn].Status; {
		case w.txn == t:
			note(verdict.FutureRead, w)
		case st != history.Committed && st != history.Unknown:
			note(verdict.AbortedRead, w)
		case !r.finalWrite.has(w.op):
			note(verdict.IntermediateRead, w)
		default:
			cands = append(cands, w.txn)
		}
	}
	if len(cands) > 1 {
		// Leave out writers later in the reader's session, unless all are.
		sess, pos := h.Txns[t].Session, r.repeats.sessionPos
		kept := cands[:0:0]
		for _, w := range cands {
			if int(w) == len(h.Txns) || h.Txns[w].Session != sess || pos[w] < pos[t] {
				kept = append(kept, w)
			}
		}
		if len(kept) > 0 && len(kept) < len(cands) {
			cands = append(cands[:0], kept...)
		}
	}
	return ws, cands, kind, bad
}

// externalReads calls f for each external read of transaction t: each
// read of a key t had not written before it.
func externalReads(h *history.History, t int, f func(i int32)) {
	tx := &h.Txns[t]
	for i := tx.OpStart; i < tx.OpEnd; i++ {
		op := h.Ops[i]
		if op.Kind != history.Read {
			continue
		}
		own := false
		for j := tx.OpStart; j < i; j++ {
			if w := h.Ops[j]; w.Kind == history.Write && w.Key == op.Key {
				own = true
				break
			}
		}
		if !own {
			f(i)
		}
	}
}

// findChoices lists the reads with several candidate writers, of every
// transaction whose reads a check may consider (all but the aborted).
func (r *Resolution) findChoices() []Choice {
	h := r.History
	var out []Choice
	var ws []writeRef
	var cands []int32
	for t := range h.Txns {
		if h.Txns[t].Status == history.Aborted {
			continue
		}
		externalReads(h, t, func(i int32) {
			var src source
			src, ws, cands = r.sourceOf(int32(t), i, ws, cands)
			if src.many {
				op := h.Ops[i]
				out = append(out, Choice{Op: i, Reader: int32(t), Key: op.Key, Value: op.Value, Writers: slices.Clone(cands)})
			}
		})
	}
	return out
}

// Chosen reports whether r came from Choose: its reads have one writer
// each, and the reads of the history's choices that Choose was not given
// are left out.
func (r *Resolution) Chosen() bool { return r.picks != nil && !r.narrowed }
