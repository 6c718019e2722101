package interpret

import (
	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/polygraph"
	"github.com/isocheck/isocheck/resolve"
	"github.com/isocheck/isocheck/verdict"
)

// Elle's names (jepsen-io/elle; Kingsbury and Alvaro, "Elle: Inferring
// Isolation Anomalies from Experimental Observations", VLDB 2020), beside
// isocheck's own. The rules below follow elle.txn's cycle explainer and
// elle.list-append's checks; the model names follow
// elle.consistency-model.

// ElleModel returns Elle's name of the consistency model that isocheck's
// level l checks, with session order (sessionOrder: each session's
// transactions in the order it ran them, as isocheck checks by default)
// or without it (every transaction its own session: the check of the
// session-free model).
//
//	level  with session order                  without
//	SSER   strict-serializable                 strict-serializable
//	SER    strong-session-serializable         serializable
//	SI     strong-session-snapshot-isolation   snapshot-isolation
//	PC     prefix                              prefix
//	CC     causal-cerone                       causal-cerone
//	RA     read-atomic                         read-atomic
//	RC     strong-session-read-committed       read-committed
//
// Strict serializability orders transactions in real time, which
// includes the order of each (single-threaded) Jepsen process: it has no
// session variant. Cerone, Bernardi and Gotsman's prefix, causal and read
// atomic models, which Elle names prefix, causal-cerone and read-atomic,
// include session order in their definitions (axiom SESSION); checked
// without it, isocheck checks a weaker model Elle has no name for, whose
// violation still rules Elle's model out, so the name stays. isocheck's
// RC with session order forbids a transaction to read a write its own
// session makes later (a G1c-process cycle), which Elle's
// strong-session-read-committed (strong-session-PL-2) forbids and its
// read-committed (PL-2) allows; it does not forbid a transaction to miss
// its session's earlier write (G-single-process), which neither does.
// isocheck's RC (Biswas and Enea's) is stronger than Adya's PL-2 all the
// same: it also forbids a transaction's reads to go back in time (a
// fractured read), which PL-2 allows, so read-committed is the nearest
// name, not the same model (ElleResult rules it out only by an anomaly
// it forbids).
func ElleModel(l level.Level, sessionOrder bool) string {
	switch l {
	case level.SSER:
		return "strict-serializable"
	case level.SER:
		if sessionOrder {
			return "strong-session-serializable"
		}
		return "serializable"
	case level.SI:
		if sessionOrder {
			return "strong-session-snapshot-isolation"
		}
		return "snapshot-isolation"
	case level.PC:
		return "prefix"
	case level.CC:
		return "causal-cerone"
	case level.RA:
		return "read-atomic"
	case level.RC:
		if sessionOrder {
			return "strong-session-read-committed"
		}
		return "read-committed"
	}
	return ""
}

// The suffixes of Elle's cycle anomalies that need edges beside the data
// dependencies (elle.txn/cycle-explainer).
const (
	elleProcess  = "-process"
	elleRealtime = "-realtime"
)

// ElleCycleType returns Elle's name of a cycle of dependencies ("" for
// none), by the
// rules of elle.txn's cycle explainer: by its anti-dependencies (RW) and
// reads (WR), G-single with exactly one RW; with several, G2-item when
// two RW edges are adjacent in the cycle (the last edge is adjacent to
// the first) and G-nonadjacent when none are; with none, G1c when it has
// a WR edge, else G0. Then the suffix -realtime when the cycle has a
// real-time edge (RT), else -process when it has a session-order edge
// (SO): G1c-process, G-single-realtime, ... Paths through the time nodes
// of a polygraph count as real time.
//
// A cycle of session order and real time alone, with no data dependency
// (the times a history gives contradicting its session order), is one
// Elle cannot classify (its explainer throws); it is named G0 with its
// suffix, Elle's name for the cycles with the fewest data dependencies.
//
// The evidence of PC is over the history split into halves (each
// transaction T into T/r and T/w, see check's checkPrefix), where the
// session order from T/r to T/w is no dependency between transactions:
// Anomaly.ElleType and ElleResult leave it out; ElleCycleType counts every
// edge it is given.
func ElleCycleType(cycle []polygraph.Edge) string {
	kinds := make([]verdict.EdgeKind, len(cycle))
	for i, e := range cycle {
		kinds[i] = e.Kind
	}
	return elleCycleKinds(kinds)
}

func elleCycleKinds(kinds []verdict.EdgeKind) string {
	if len(kinds) == 0 {
		return "" // no cycle to name
	}
	var ww, wr, rw, so, rt int
	adjacent := false
	for i, k := range kinds {
		switch k {
		case verdict.WW:
			ww++
		case verdict.WR:
			wr++
		case verdict.RW:
			rw++
			if kinds[(i+1)%len(kinds)] == verdict.RW && len(kinds) > 1 {
				adjacent = true
			}
		case verdict.SO:
			so++
		case verdict.RT:
			rt++
		}
	}
	var t string
	switch {
	case rw == 1:
		t = "G-single"
	case rw > 1 && adjacent:
		t = "G2-item"
	case rw > 1:
		t = "G-nonadjacent"
	case wr > 0:
		t = "G1c"
	default:
		t = "G0"
	}
	switch {
	case rt > 0:
		t += elleRealtime
	case so > 0:
		t += elleProcess
	}
	return t
}

// elleCycleRank orders Elle's cycle anomalies from the least severe, as
// elle.consistency-model's severity graph does: real-time anomalies
// before session (process) ones before pure data ones, and within each,
// G2-item, G-nonadjacent, G-single, G1c, G0. A violation shown by several
// cycles, one of which the history must have whatever order of the writes
// holds, is named after the least severe: the one claim that holds
// whichever it is.
func elleCycleRank(t string) int {
	suffix := 2
	switch {
	case len(t) > len(elleRealtime) && t[len(t)-len(elleRealtime):] == elleRealtime:
		suffix, t = 0, t[:len(t)-len(elleRealtime)]
	case len(t) > len(elleProcess) && t[len(t)-len(elleProcess):] == elleProcess:
		suffix, t = 1, t[:len(t)-len(elleProcess)]
	}
	base := map[string]int{"G2-item": 0, "G-nonadjacent": 1, "G-single": 2, "G1c": 3, "G0": 4}[t]
	return suffix*5 + base
}

// leastSevere returns the index of the cycle (of the evidence of a check
// of l on h) whose Elle type is the least severe, and that type; -1 and
// "" when no cycle has an edge.
func leastSevere(h *history.History, l level.Level, cycles [][]polygraph.Edge) (int, string) {
	best, bt := -1, ""
	for i, c := range cycles {
		t := elleType(c)
		if t != "" && (best < 0 || elleCycleRank(t) < elleCycleRank(bt)) {
			best, bt = i, t
		}
	}
	return best, bt
}

// ElleAnomalyType returns Elle's name of a non-cycle anomaly of history h:
//
//   - AbortedRead: G1a (elle.list-append/g1a-cases: a read of an element
//     a failed transaction appended; the same for registers).
//   - ThinAirRead: G1a. A value (or list element) no transaction wrote
//     could only come from a write the history does not show committed,
//     and Elle's nearest case is the read of a failed write: its
//     list-append checker has no name of its own for an element nobody
//     appended (it assumes every element has a writer), so isocheck
//     reports thin air as G1a, the aborted-read family.
//   - IntermediateRead: G1b (g1b-cases: the read's last element is an
//     append its transaction followed with another to the same key).
//   - FutureRead: future-read (op-future-read-case: a transaction read
//     what it writes later).
//   - NotMyOwnWrite, NotMyLastWrite and NonRepeatableRead: internal
//     (op-int-case, Cerone et al.'s axiom INT: a read that disagrees with
//     its own transaction's latest read or write of the key).
//   - LostUpdate: lost-update (elle.txn/lost-update-cases).
//   - IncompatibleOrder: incompatible-order; DuplicateElements:
//     duplicate-elements (elle.list-append).
//   - SplitAppends: G0 when another transaction's append sits between the
//     writer's appends in the list read (or follows the first of them
//     while a later one is missing): Elle orders each append after the
//     element before it, which gives write-write edges both ways between
//     the two transactions (elle.list-append/ww-graph). Otherwise (the
//     writer's appends are the list's last elements but incomplete or out
//     of program order) G1b: the list's state is not the one the writer
//     committed, the state after its final append, which is what G1b is
//     (Elle's g1b-cases flag such a read when its last element is one of
//     the writer's non-final appends; an out-of-order run followed by
//     other appends Elle does not flag at all, and G1b is the nearest
//     name).
func ElleAnomalyType(h *history.History, a resolve.Anomaly) string {
	return elleAnomalyType(h, a, nil)
}

func elleAnomalyType(h *history.History, a resolve.Anomaly, w *writerIndex) string {
	switch a.Kind {
	case verdict.ThinAirRead, verdict.AbortedRead:
		return "G1a"
	case verdict.IntermediateRead:
		return "G1b"
	case verdict.FutureRead:
		return "future-read"
	case verdict.NotMyOwnWrite, verdict.NotMyLastWrite, verdict.NonRepeatableRead:
		return "internal"
	case verdict.LostUpdate:
		return "lost-update"
	case verdict.IncompatibleOrder:
		return "incompatible-order"
	case verdict.DuplicateElements:
		return "duplicate-elements"
	case verdict.SplitAppends:
		if splitCycle(h, a, w) != nil {
			return "G0"
		}
		return "G1b"
	}
	return a.Kind.String()
}

// splitStep is a write-write dependency of a list: From's append of
// Value was followed by To's append of Next.
type splitStep struct {
	From, To    int32
	Value, Next history.Value
}

// splitCycle returns the cycle of write-write dependencies a SplitAppends
// anomaly shows when another transaction's append sits between the
// writer's appends in the list read (or after the first of them while a
// later one is missing), or nil. The cycle starts and ends at the writer.
// w caches the writers of keys (nil: none).
func splitCycle(h *history.History, a resolve.Anomaly, w *writerIndex) []splitStep {
	if a.Op < 0 || int(a.Op) >= len(h.Ops) || a.Writer < 0 || int(a.Writer) >= len(h.Txns) {
		return nil
	}
	list := h.ListOf(a.Op)
	key := h.Ops[a.Op].Key
	var own []history.Value // the writer's appends to key, in program order
	for _, op := range h.OpsOf(int(a.Writer)) {
		if op.Kind == history.Write && op.Key == key {
			own = append(own, op.Value)
		}
	}
	if w == nil {
		w = &writerIndex{}
	}
	writers := w.of(h, key)
	writer := func(v history.Value) int32 {
		if w, ok := writers[v]; ok {
			return w
		}
		return -1
	}
	first := -1
	inList := map[history.Value]bool{}
	for i, v := range list {
		inList[v] = true
		if first < 0 && writer(v) == a.Writer {
			first = i
		}
	}
	if first < 0 {
		return nil
	}
	var missing history.Value
	hasMissing := false
	for _, v := range own {
		if !inList[v] {
			missing, hasMissing = v, true
			break
		}
	}
	p := first + 1
	for p < len(list) && writer(list[p]) == a.Writer {
		p++
	}
	if p == len(list) {
		return nil // the writer's appends end the list
	}
	q := p + 1
	for q < len(list) && writer(list[q]) != a.Writer {
		q++
	}
	if q == len(list) && !hasMissing {
		return nil // one run, whole, followed by others' appends
	}
	// The version order from the writer's last append before p to its
	// next one (or, when it is missing, to the end of the list and then
	// the missing append, which came after every element read).
	var path []splitStep
	at := map[int32]int{a.Writer: 0} // node -> index of the step leaving it
	from := a.Writer
	for i := p; i <= q; i++ {
		var to int32
		var next history.Value
		if i < len(list) {
			to, next = writer(list[i]), list[i]
		} else {
			to, next = a.Writer, missing
		}
		if to < 0 {
			return nil // an element nobody wrote: no dependency
		}
		if to == from {
			continue
		}
		step := splitStep{From: from, To: to, Value: list[i-1], Next: next}
		if to == a.Writer {
			return append(path, step)
		}
		if j, ok := at[to]; ok {
			// Back at a transaction of the path: cut the loop out.
			for _, s := range path[j:] {
				delete(at, s.To)
			}
			path = path[:j]
			at[to] = j
			from = to
			continue
		}
		path = append(path, step)
		at[to] = len(path)
		from = to
	}
	return nil
}

// writerIndex caches, per key of a history, the transaction that wrote
// each value.
type writerIndex struct {
	h    *history.History
	keys map[history.Key]map[history.Value]int32
}

// of returns the writers of key in h.
func (ix *writerIndex) of(h *history.History, key history.Key) map[history.Value]int32 {
	if ix.h != h {
		ix.h, ix.keys = h, map[history.Key]map[history.Value]int32{}
	}
	if w, ok := ix.keys[key]; ok {
		return w
	}
	w := writersOf(h, key)
	ix.keys[key] = w
	return w
}

// writersOf maps each value written to key in h to the transaction that
// wrote it.
func writersOf(h *history.History, key history.Key) map[history.Value]int32 {
	w := make(map[history.Value]int32)
	for t := range h.Txns {
		for _, op := range h.OpsOf(t) {
			if op.Kind == history.Write && op.Key == key {
				if _, ok := w[op.Value]; !ok {
					w[op.Value] = int32(t)
				}
			}
		}
	}
	return w
}

// ElleRow returns the report's verdict in Elle's terms, for a table: the
// model (ElleModel of the report's level), isocheck's verdict as Elle and
// elle-cli print valid? (true, false or unknown), and for a violation
// Elle's name of the anomaly (Anomaly.ElleType), separated by tabs (for
// RC, whose Elle name is the nearest and not the same model, see
// ElleModel, the verdict is isocheck's RC's):
//
//	strong-session-snapshot-isolation	false	G-single-process
func (r *Report) ElleRow(sessionOrder bool) string {
	model := r.Level
	if l, err := level.Parse(r.Level); err == nil {
		model = ElleModel(l, sessionOrder)
	}
	switch {
	case r.Satisfied == nil:
		return model + "\tunknown"
	case *r.Satisfied:
		return model + "\ttrue"
	case r.Anomaly != nil && r.Anomaly.ElleType != "":
		return model + "\tfalse\t" + r.Anomaly.ElleType
	}
	return model + "\tfalse"
}
