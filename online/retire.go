package online

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"

	"github.com/isocheck/isocheck/check"
	"github.com/isocheck/isocheck/format/jsonl"
	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/progress"
	"github.com/isocheck/isocheck/verdict"
)

// FenceSession is the session whose transactions are fences' middles
// (run.FenceSession): a line of it may end a piece of the input that can
// be checked, and then forgotten, on its own.
const FenceSession = "fence"

// Retires says whether a Checker at l checks a history with fences a
// piece at a time: at every level (see pieceLevel).
func Retires(l level.Level) bool { return pieceLevel(l) != 0 }

// pieceLevel is the level the pieces of a history checked at l are
// checked at, or 0 if none. The pieces decide a level whose axioms make a
// transaction read the last of the writes that the session order and the
// reads put before it: causal consistency and every level stronger. At
// read atomic and read committed, a transaction after a fence may still
// read a value that one before it overwrote, and the pieces are not apart
// at those levels; but a history that keeps causal consistency keeps
// them, so their pieces are checked at CC: a history the pieces find
// causal is decided, and one they do not is checked whole.
func pieceLevel(l level.Level) level.Level {
	switch l {
	case level.SSER, level.SER, level.SI, level.PC, level.CC:
		return l
	case level.RA, level.RC:
		return level.CC
	}
	return 0
}

// fenced is what a Checker knows of the pieces of a history with fences
// that it has checked and forgotten.
//
// A piece is the lines after one fence's middle transaction M (the line
// of session FenceSession) up to and including the next one's, M'. It is
// checked on its own, with one transaction before it, the state: a write
// of the value, as the middles so far read it, of each key the piece
// reads, and of what M wrote (its start the latest start of the
// transactions before, which keeps SSER's real-time order). The piece
// stands for everything before it, exactly, when:
//
//   - the first transaction of each of its sessions reads what M wrote,
//     which no other transaction writes: M comes before it in every order
//     a level allows (orders contain the session order and the reads), so
//     everything before M does too;
//   - M' reads what the last transaction of each session wrote (a value
//     no other transaction writes), and every key a committed transaction
//     of the piece wrote: every write of the piece then comes before M',
//     which reads, at causal consistency and above, the last of them in
//     the order;
//   - no transaction of the piece has an unknown outcome (it might commit
//     after M').
//
// Values that repeat elsewhere need no care: a piece's check decides
// which of their writers a read saw, as the check of the whole would.
//
// Then an order of the whole history that a level allows is one of each
// piece, one after the other: the transactions after M' read, of the
// keys written before it, only the values M' read (any other was
// overwritten by a write the session order and the reads put before
// them), and the pieces' checks decide the whole. Where a piece does not
// meet these conditions, the Checker stops forgetting: the verdict on
// the whole is then the check of the whole.
type fenced struct {
	// pending are the lines of FenceSession not yet taken, by line index
	// and the offset of their end.
	pending []fenceLine
	// pieces counts the pieces decided; line is the first line not yet
	// read into a piece, off its offset.
	pieces int
	line   int
	off    int64
	// state is each key's value after the last piece, by the key's name;
	// mine is what the last fence's middle wrote.
	state, mine map[string]int64
	// start is the latest start of a transaction forgotten (NoTime if
	// none had one), the state's time; fence is the last fence's middle
	// transaction, by its id.
	start int64
	fence string
	// stopped says why the pieces are no longer checked apart.
	stopped string
	// running is the check of the last piece read, nil once its
	// verdict is taken; settled is the end of the last piece decided.
	running *pieceCheck
	settled int
}

type fenceLine struct {
	line int
	end  int64
}

// mayCheckPieces says whether pieces between fences may still be checked
// early.
func (c *Checker) mayCheckPieces() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.opts.Source != nil && Retires(c.opts.Level) && c.fenced.stopped == "" && c.unreadable == nil
}

// fenceMarker begins the lines of FenceSession as isocheck run records
// them (jsonl.Recorder).
const fenceMarker = `{"session":"` + FenceSession + `",`

// noteFences notes the lines of FenceSession among the lines from index
// from on, just written; c.mu is held.
func (c *Checker) noteFences(from int) {
	if c.opts.Source == nil || !Retires(c.opts.Level) || c.fenced.stopped != "" {
		return
	}
	for i := from; i < c.numLines(); i++ {
		start, end := c.lines[i-c.first], c.lines[i+1-c.first]
		if bytes.HasPrefix(c.buf[start-c.base:end-c.base], []byte(fenceMarker)) {
			c.fenced.pending = append(c.fenced.pending, fenceLine{i, end})
		}
	}
}

// checkPieces checks the pieces that fences noted since the last call
// ended, and forgets them. It returns a piece that breaks the level.
//
// A piece is read, its fence's middle read gives the state after it, and
// its check runs on a goroutine of its own while the next piece is read:
// one check at a time, so that the Checker holds two pieces at most.
func (c *Checker) checkPieces(ctx context.Context) (*Violation, error) {
	f := &c.fenced
	for {
		if v, err := c.collect(ctx, false); v != nil || err != nil {
			return v, err
		}
		c.mu.Lock()
		if len(f.pending) == 0 || f.stopped != "" {
			c.mu.Unlock()
			return nil, nil
		}
		// The line is taken off the list once its piece is read: a
		// reading that ctx ended leaves it to the next call.
		fl := f.pending[0]
		c.mu.Unlock()
		taken := func() {
			c.mu.Lock()
			if len(f.pending) > 0 && f.pending[0] == fl {
				f.pending = f.pending[1:]
			}
			c.mu.Unlock()
		}
		h, err := c.readPiece(ctx, fl.end)
		if err != nil {
			if progress.Stopped(err) || ctx.Err() != nil {
				return nil, context.Cause(ctx)
			}
			c.stopFences(fmt.Sprintf("a line before line %d cannot be read", fl.line+2))
			return nil, nil
		}
		last := len(h.Txns) - 1
		if last < 0 || h.SessionName(int(h.Txns[last].Session)) != FenceSession || h.Txns[last].Status == history.Aborted {
			taken()
			continue // a line that names the session, of another; or a middle tried again
		}
		if why := c.apart(h, true); why != "" {
			c.stopFences(why)
			return nil, nil
		}
		// The check before this piece's ends first.
		if v, err := c.collect(ctx, true); v != nil || err != nil {
			return v, err
		}
		taken()
		c.mu.Lock()
		if f.stopped != "" {
			c.mu.Unlock()
			return nil, nil
		}
		pc := &pieceCheck{h: h, from: f.line, to: fl.line + 1}
		f.remember(h, fl)
		f.running = pc
		c.mu.Unlock()
		c.startCheck(ctx, pc)
	}
}

// A pieceCheck is the check of a piece, lines [from, to) of the input.
type pieceCheck struct {
	h        *history.History
	from, to int
	done     chan struct{}
	res      *check.Result
	err      error
}

// startCheck checks pc on a goroutine of its own.
func (c *Checker) startCheck(ctx context.Context, pc *pieceCheck) {
	pc.done = make(chan struct{})
	go func() {
		defer close(pc.done)
		pc.res, pc.err = check.CheckWith(ctx, pc.h, pieceLevel(c.opts.Level), c.opts.Check)
	}()
}

// collect takes the verdict of the check of a piece that runs, once it
// is done (wait says to wait for it), and returns the piece if it breaks
// the level. A check that its context stopped is started again, with
// ctx, and waited for when wait says so.
func (c *Checker) collect(ctx context.Context, wait bool) (*Violation, error) {
	f := &c.fenced
	for {
		c.mu.Lock()
		pc := f.running
		c.mu.Unlock()
		if pc == nil {
			return nil, nil
		}
		if !wait {
			select {
			case <-pc.done:
			default:
				return nil, nil
			}
		}
		select {
		case <-pc.done:
		case <-ctx.Done():
			return nil, context.Cause(ctx)
		}
		if pc.err == nil && pc.res.Stopped {
			// Stopped by the context of the call that began it: the
			// piece is checked again, in this call's.
			if ctx.Err() != nil {
				return nil, context.Cause(ctx)
			}
			c.startCheck(ctx, pc)
			continue
		}
		c.mu.Lock()
		f.running = nil
		c.mu.Unlock()
		switch res := pc.res; {
		case pc.err != nil:
			c.stopFences("a piece's check failed")
			return nil, fmt.Errorf("online: checking lines %d-%d of %s: %w", pc.from+1, pc.to, c.opts.Name, pc.err)
		case res.Verdict == verdict.Violated && res.Level != c.opts.Level:
			c.stopFences(fmt.Sprintf("lines %d-%d break %s, which %s allows", pc.from+1, pc.to, res.Level, c.opts.Level))
			return nil, nil
		case res.Verdict == verdict.Violated:
			c.stopFences("a piece violates the level")
			return &Violation{History: pc.h, Result: res, Lines: pc.to, FromLine: max(0, pc.from-1)}, nil
		case res.Verdict != verdict.Satisfied:
			c.stopFences(fmt.Sprintf("the check of lines %d-%d gave no verdict: %s", pc.from+1, pc.to, res.Reason))
			return nil, nil
		}
		c.mu.Lock()
		f.pieces++
		f.settled = pc.to
		c.mu.Unlock()
		return nil, nil
	}
}

// stopFences stops the checks of pieces, for why.
func (c *Checker) stopFences(why string) {
	c.mu.Lock()
	c.fenced.stopped = why
	c.fenced.pending = nil
	c.mu.Unlock()
}

// remember takes the piece h, which ends at fl, as read: the state
// after it is what its last transaction, the fence's middle, read and
// wrote.
func (f *fenced) remember(h *history.History, fl fenceLine) {
	if f.state == nil {
		f.state, f.start = map[string]int64{}, history.NoTime
	}
	for _, t := range h.Txns {
		if t.Start != history.NoTime {
			f.start = max(f.start, t.Start)
		}
	}
	m := h.Txns[len(h.Txns)-1]
	f.fence = m.ID
	f.mine = map[string]int64{}
	for _, op := range h.Ops[m.OpStart:m.OpEnd] {
		if op.Value == history.Null {
			continue // a key no write before the fence wrote
		}
		name := h.FormatKey(op.Key)
		f.state[name] = int64(op.Value)
		if op.Kind == history.Write {
			f.mine[name] = int64(op.Value)
		}
	}
	f.line, f.off = fl.line+1, fl.end
}

// readPiece reads the lines from c.fenced.line up to end (a byte offset)
// from the Source, with the state before them: the piece's history.
func (c *Checker) readPiece(ctx context.Context, end int64) (*history.History, error) {
	c.mu.Lock()
	f := &c.fenced
	from, off := f.line, f.off
	c.mu.Unlock()
	ctx = progress.WithTracker(ctx, nil)
	m := progress.Start(ctx, "parse", end-off, "bytes")
	h, err := jsonl.Read(m, bufio.NewReaderSize(io.NewSectionReader(c.opts.Source, off, end-off), 1<<16), c.opts.Name, end-off, from, off)
	if err != nil || f.state == nil {
		return h, err
	}
	return f.withState(h), nil
}

// withState returns h with the state before it as its first transaction,
// in FenceSession, at the line of the fence before: a write of the
// value of each key h reads (the keys it does not read need not be
// there: that the state's writes come before every write of h is known
// from the session order and the reads).
func (f *fenced) withState(h *history.History) *history.History {
	var ops []history.Op
	seen := make([]bool, h.NumKeys())
	for _, op := range h.Ops {
		if op.Kind != history.Read || seen[op.Key] {
			continue
		}
		seen[op.Key] = true
		if v, ok := f.state[h.FormatKey(op.Key)]; ok {
			ops = append(ops, history.Op{Kind: history.Write, Key: op.Key, Value: history.Value(v)})
		}
	}
	s := *h
	fs := int32(slices.Index(s.SessionNames, FenceSession))
	if fs < 0 {
		fs = int32(len(s.SessionNames))
		s.SessionNames = append(slices.Clip(s.SessionNames), FenceSession)
		s.Sessions = append(slices.Clip(s.Sessions), nil)
	}
	// Named for what it stands for: the values the fence's middle
	// transaction read, their writers forgotten.
	state := history.Txn{ID: "state read by " + f.fence, Session: fs, Status: history.Committed,
		OpStart: int32(len(s.Ops)), OpEnd: int32(len(s.Ops) + len(ops)), Start: f.start, End: f.start, Pos: int64(f.line)}
	s.Ops = append(slices.Clip(s.Ops), ops...)
	s.Txns = append([]history.Txn{state}, s.Txns...)
	sessions := make([][]int32, len(s.Sessions))
	for i, txns := range s.Sessions {
		if int32(i) == fs {
			sessions[i] = append(sessions[i], 0)
		}
		for _, t := range txns {
			sessions[i] = append(sessions[i], t+1)
		}
	}
	s.Sessions = sessions
	return &s
}

// apart says why the piece h (the state first, when there is one, and the
// fence's middle last) does not stand for everything before its end, or
// "" when it does (see fenced). ending says the piece ends at a fence;
// the last piece, at the end of the input, need not.
func (c *Checker) apart(h *history.History, ending bool) string {
	f := &c.fenced
	hasState := f.state != nil
	first, last := 0, len(h.Txns)
	if hasState {
		first = 1
	}
	if ending {
		last--
	}
	line := func(t history.Txn) string { return strconv.FormatInt(t.Pos, 10) }
	written := make([]bool, h.NumKeys())
	firstOf := make(map[int32]int, len(h.Sessions))
	lastOf := make(map[int32]int, len(h.Sessions))
	for i := first; i < last; i++ {
		t := h.Txns[i]
		switch t.Status {
		case history.Unknown:
			return "the outcome of the transaction at line " + line(t) + " is unknown"
		case history.Committed:
			for _, op := range h.Ops[t.OpStart:t.OpEnd] {
				if op.Kind == history.Write {
					written[op.Key] = true
				}
			}
		}
		if t.Status == history.Aborted {
			continue // in no order
		}
		if h.SessionName(int(t.Session)) == FenceSession {
			return "the fence's session has a transaction at line " + line(t) + " that is no fence's"
		}
		if _, ok := firstOf[t.Session]; !ok {
			firstOf[t.Session] = i
		}
		lastOf[t.Session] = i
	}
	if hasState {
		// The fence's writes are the state's alone: a read of them is
		// a read from it.
		for _, n := range countWrites(h, byKey(h, f.mine)) {
			if n > 1 {
				return "a transaction after the fence writes a value the fence wrote"
			}
		}
	}
	for _, i := range firstOf {
		t := h.Txns[i]
		if !hasState {
			break
		}
		if t.Status != history.Committed || !readsAny(h, t, f.mine) {
			return "the transaction at line " + line(t) + ", its session's first after the fence, does not read what the fence wrote"
		}
	}
	if !ending {
		return ""
	}
	m := h.Txns[len(h.Txns)-1]
	if m.Status != history.Committed {
		return "the fence's transaction at line " + line(m) + " did not commit"
	}
	read := map[history.Key]history.Value{}
	for _, op := range h.Ops[m.OpStart:m.OpEnd] {
		if op.Kind == history.Read {
			read[op.Key] = op.Value
		}
		if op.Value != history.Null && (op.Value <= -history.StringBase || op.Value >= history.StringBase) {
			return "the fence's transaction at line " + line(m) + " reads a value that is no integer"
		}
	}
	for k, w := range written {
		if _, ok := read[history.Key(k)]; w && !ok {
			return "the fence's transaction at line " + line(m) + " does not read key " + h.FormatKey(history.Key(k)) + ", written before it"
		}
	}
	counts := countWrites(h, read)
	for _, i := range lastOf {
		t := h.Txns[i]
		if !wroteRead(h, i, read, counts) {
			return "the fence's transaction at line " + line(m) + " reads nothing the transaction at line " + line(t) + " wrote, its session's last before the fence"
		}
	}
	return ""
}

// readsAny says whether t reads one of the values of vals, by key name.
func readsAny(h *history.History, t history.Txn, vals map[string]int64) bool {
	for _, op := range h.Ops[t.OpStart:t.OpEnd] {
		if v, ok := vals[h.FormatKey(op.Key)]; ok && op.Kind == history.Read && int64(op.Value) == v {
			return true
		}
	}
	return false
}

// wroteRead says whether the last write of some key by h.Txns[i] is the
// value of read, and no other transaction of h writes that value to the
// key (counts says how many do): then the reader read it from h.Txns[i].
func wroteRead(h *history.History, i int, read map[history.Key]history.Value, counts map[kv]int) bool {
	t := h.Txns[i]
	if t.Status != history.Committed {
		return false
	}
	lastWrite := map[history.Key]history.Value{}
	for _, op := range h.Ops[t.OpStart:t.OpEnd] {
		if op.Kind == history.Write {
			lastWrite[op.Key] = op.Value
		}
	}
	for k, v := range lastWrite {
		if r, ok := read[k]; ok && r == v && counts[kv{k, v}] == 1 {
			return true
		}
	}
	return false
}

// kv is a value of a key.
type kv struct {
	k history.Key
	v history.Value
}

// countWrites counts, for each value of vals, the transactions of h
// (aborted ones included) that write it.
func countWrites(h *history.History, vals map[history.Key]history.Value) map[kv]int {
	counts := make(map[kv]int, len(vals))
	for _, t := range h.Txns {
		for _, op := range h.Ops[t.OpStart:t.OpEnd] {
			if v, ok := vals[op.Key]; ok && op.Kind == history.Write && op.Value == v {
				counts[kv{op.Key, v}]++
			}
		}
	}
	return counts
}

// byKey returns vals, values by key name, by h's keys (those h has).
func byKey(h *history.History, vals map[string]int64) map[history.Key]history.Value {
	out := make(map[history.Key]history.Value, len(vals))
	for k, name := range h.KeyNames {
		if v, ok := vals[name]; ok {
			out[history.Key(k)] = history.Value(v)
		}
	}
	return out
}

// Final is the verdict on the whole input of a Checker that checked it a
// piece at a time, between fences.
type Final struct {
	// Result is the check of the last piece, after the last fence, with
	// the state before it; a violation there is one of the whole.
	Result *check.Result
	// Pieces counts the pieces checked, the last one included; Lines the
	// lines of the input.
	Pieces, Lines int
}

// Finish checks what came after the last fence, once the input has
// ended, and returns the verdict on the whole input, or nil when the
// Checker cannot give it: it checked no piece apart (the input has no
// fences, or is not checked so: see Stats.Pieces and Stats.NotApart), or
// the last piece does not stand for everything before it, or cannot be
// read (a line cut short). The caller then checks the whole input, as
// check does.
func (c *Checker) Finish(ctx context.Context) (*Final, error) {
	if v, err := c.checkPieces(ctx); v != nil || err != nil {
		return nil, err
	}
	if v, err := c.collect(ctx, true); v != nil || err != nil {
		return nil, err
	}
	c.mu.Lock()
	f := &c.fenced
	n := c.numLines()
	ok := f.pieces > 0 && f.stopped == "" && c.unreadable == nil
	// The input has ended: a last line without its newline is a line.
	end := c.base + int64(len(c.buf))
	if end > c.lines[len(c.lines)-1] {
		n++
	}
	c.mu.Unlock()
	if !ok {
		return nil, nil
	}
	h, err := c.readPiece(ctx, end)
	if err != nil {
		return nil, nil // the check of the whole says why
	}
	if why := c.apart(h, false); why != "" {
		c.stopFences(why)
		return nil, nil
	}
	res, err := check.CheckWith(ctx, h, pieceLevel(c.opts.Level), c.opts.Check)
	if err != nil {
		return nil, fmt.Errorf("online: checking lines %d-%d of %s: %w", f.line+1, n, c.opts.Name, err)
	}
	if res.Stopped {
		return nil, context.Cause(ctx)
	}
	if res.Verdict != verdict.Satisfied && (res.Verdict != verdict.Violated || res.Level != c.opts.Level) {
		return nil, nil
	}
	return &Final{Result: res, Pieces: f.pieces + 1, Lines: n}, nil
}
