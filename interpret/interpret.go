// Package interpret turns the evidence of a violation into a report a
// database developer can read in a minute (Huang, Liu, Chen, Wei, Basin, Li
// and Pan, "Efficient Black-box Checking of Snapshot Isolation in
// Databases" (PolySI, PVLDB 16(6), 2023), Section 5.3): the anomaly's name,
// a minimal counterexample (the fewest transactions that still violate the
// level on their own), and each dependency with its reason in words,
// including why an inferred order of writes must hold.
//
// Explain reports the checker's evidence as it is, cheaply; Minimal first
// shrinks the violation to a minimal counterexample (see package shrink)
// and explains that. Reports print as text (WriteText), JSON (their
// fields) and Graphviz DOT (WriteDOT).
//
// The same in the terms of Jepsen's checker Elle: ElleModel names a
// level's consistency model, Anomaly.ElleType (ElleCycleType,
// ElleAnomalyType) a violation's anomaly, and ElleResult gives the
// checks' verdicts as Elle's result map. Histories of lists (Elle's
// list-append) are shown with their appends and whole lists.
package interpret

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/isocheck/isocheck/check"
	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/polygraph"
	"github.com/isocheck/isocheck/progress"
	"github.com/isocheck/isocheck/resolve"
	"github.com/isocheck/isocheck/shrink"
	"github.com/isocheck/isocheck/verdict"
)

// Report explains a check's result. Its JSON encoding is the output of
// isocheck's --json; the JSON names of the fields of Report, Anomaly,
// Step, ConstraintInfo, TxnInfo and Op are its schema. Values are typed
// (see Value), and so are the input's ids of sessions, keys and
// transactions (see ID).
//
// A report names each transaction the same way everywhere: in its text,
// its JSON and its picture. The name is the input's id, with a T in front
// of an id of digits (id 7 is T7, so that "T7 read key 0=4" mixes no
// transaction up with keys and values), or T<index> for a transaction
// without one. "init" names the initial state, which writes every key
// before any transaction and is not listed among the transactions. A
// name that would be "init", or would be shared by two transactions of
// the report, is followed by "#" and the transaction's index (init#0).
// Every Step's From and To, and Constraint's A and B, are the Name of a
// transaction in Anomaly.Txns, or "init".
type Report struct {
	// Report is the head every vertical's report shares: the level
	// checked (SER), the verdict, and the explanation of the violation
	// (Anomaly), when Satisfied is false.
	verdict.Report[Anomaly]
	// ImpliedBy, when set, is the weaker level the history breaks
	// already, the weakest it breaks (see check.Options.WeakestBroken):
	// Anomaly is the explanation of that level's violation, which breaks
	// Level too, and names the anomaly by the rule that broke there.
	ImpliedBy string `json:"implied_by,omitempty"`
	// Undecided, when set, is a weaker level the check found no verdict
	// for: the history may break it too.
	Undecided string `json:"undecided_weaker_level,omitempty"`
	// Anomalies lists every kind of anomaly found that the level forbids,
	// the main one (Anomaly) first, each with a count and an example
	// (see Every); only when Every was asked for.
	Anomalies []Found `json:"anomalies,omitempty"`
	// CutShort says that the explanation of the violation stopped before
	// it was done, as its context ended (a timeout, a memory limit): the
	// verdict stands, with the evidence at hand, but the counterexample
	// need not be minimal (Anomaly.Minimal says whether it is), and parts
	// of the explanation may be missing (such as the list of the other
	// anomalies, or the cases of the choices of writers).
	CutShort bool `json:"explanation_cut_short,omitempty"`
}

// Anomaly describes a violation.
type Anomaly struct {
	// Finding names the violation (a non-cycle anomaly, ThinAirRead, ...,
	// or the shape of the cycle, LostUpdate, WriteSkew, LongFork, ...),
	// says what happened, and whether Txns is a minimal counterexample:
	// its transactions, with all their operations (those not shown too),
	// violate the level on their own, and without any one of them (and
	// the reads left with no writer) the rest satisfy it. NotMinimal, for
	// a counterexample shrunk from the history that is not minimal, says
	// which of its transactions could go, and why each is kept (a writer
	// that a read kept may have read from).
	verdict.Finding
	// ElleType is Elle's name of the anomaly (see ElleCycleType and
	// ElleAnomalyType; a violation shown by several cycles takes the
	// least severe of their names), for output in Elle's terms. It is
	// not part of isocheck's JSON, which ElleResult's map complements.
	ElleType string `json:"-"`
	// Txns lists the transactions of the counterexample in input order,
	// with their places in the input.
	Txns []TxnInfo `json:"transactions"`
	// Cycles are the dependency cycles that prove the violation: one, or
	// one per order of the writes in Constraint, or one per choice the
	// solver had. Each cycle's last step leads back to its first.
	Cycles [][]Step `json:"cycles,omitempty"`
	// Constraint, when set, is the pair of writes that can be ordered
	// neither way: Cycles[0] is closed by one order and Cycles[1] by the
	// other.
	Constraint *ConstraintInfo `json:"constraint,omitempty"`
	// Edges are all the dependencies between the counterexample's
	// transactions that the explanation uses (the cycles' and the reads
	// behind them), once each.
	Edges []Step `json:"edges,omitempty"`
	// Notes add what helps find the cause (such as dropped failed events).
	Notes []string `json:"notes,omitempty"`
	// Choices, in a history whose values repeat, are the reads the
	// violation depends on that may have read from several writers, and
	// Cases what each choice of their writers leads to: every choice
	// takes the picks of one case, and each case's cycles hold with its
	// picks whatever the other reads read from. Cycles above are the
	// first case's.
	Choices []ChoiceInfo `json:"choices,omitempty"`
	Cases   []CaseInfo   `json:"cases,omitempty"`
	// Counterexample is the minimal sub-history (for Minimal reports):
	// write it with format.Write to reproduce the violation.
	Counterexample *history.History `json:"-"`
}

// Step is one dependency of a counterexample, explained: From must come
// before To.
type Step struct {
	// From and To name transactions of Anomaly.Txns, or "init".
	From string `json:"from"`
	To   string `json:"to"`
	// Kind is the dependency's kind: SO (session order), WR (To read
	// From's write), WW (To overwrote From's write), RW (To overwrote
	// the version From read) or RT (From ended before To started).
	Kind string `json:"kind"`
	// Key is the key of a WR, WW or RW dependency.
	Key verdict.ID `json:"key,omitempty"`
	// FromValue and ToValue are the values of From's and To's
	// operations on Key: for WR the value written and read (both), for
	// WW From's and To's writes, for RW the value From read and the
	// value To overwrote it with. They are left out for SO and RT.
	FromValue Value `json:"from_value,omitzero"`
	ToValue   Value `json:"to_value,omitzero"`
	// Reason says in a sentence why the dependency holds.
	Reason string `json:"reason"`
	// Inferred says the history does not show the edge directly: it
	// follows from an order of two writes, which Because justifies. In
	// the cycles of a Constraint, it marks the edges that the cycle's
	// order of the writes assumes.
	Inferred bool `json:"inferred,omitempty"`
	// Assumed says the edge holds only under the order of writes that
	// its cycle assumes: one side of Constraint, or one of the orders
	// the solver had to pick from. Pictures draw it dashed. Every other
	// edge is forced: it holds whatever the order of the writes.
	Assumed bool   `json:"assumed,omitempty"`
	Because string `json:"because,omitempty"`
	// BecauseCycle is the cycle the other order of the writes would close.
	BecauseCycle []Step `json:"because_cycle,omitempty"`
}

// ConstraintInfo is a pair of writes of one key that no order explains.
type ConstraintInfo struct {
	Key verdict.ID `json:"key"`
	// A and B name the transactions whose writes of Key are ordered:
	// Cycles[0] shows A's before B's, Cycles[1] B's before A's.
	A string `json:"a"`
	B string `json:"b"`
}

// TxnInfo shows a transaction as the user wrote it.
type TxnInfo struct {
	// Name is the transaction's name in the report (see Report).
	Name string `json:"name"`
	// ID is the input's id of the transaction, if it has one.
	ID verdict.ID `json:"id,omitempty"`
	// Session is the input's name of the transaction's session.
	Session verdict.ID `json:"session"`
	// Position is the transaction's place in its session, from 1.
	Position int `json:"session_position"`
	// Status is committed, aborted or unknown.
	Status string `json:"status"`
	// Ops are the operations that matter to the violation, in program
	// order (all of them for reports that are not Minimal).
	Ops []Op `json:"ops"`
	// OmittedOps counts the transaction's other operations.
	OmittedOps int `json:"omitted_ops,omitempty"`
	// Where is the transaction's place in the input: "file:line", or
	// "file@offset" in binary formats.
	Where string `json:"source"`
	// Index is the transaction's index in the history (input order,
	// from 0).
	Index int `json:"index"`
	// Start and End are the transaction's times, when recorded.
	Start *int64 `json:"start,omitempty"`
	End   *int64 `json:"end,omitempty"`
}

// opsText writes t's operations as the text reports do: r(x,1) w(x,2).
func (t *TxnInfo) opsText() string {
	ops := make([]string, len(t.Ops))
	for i, op := range t.Ops {
		ops[i] = op.String()
	}
	return strings.Join(ops, " ")
}

// Explain builds the report of res from its own evidence, without
// shrinking it: fast on any history, but the transactions are those of the
// checker's cycle, which need not be minimal. The evidence of a result
// implied by a weaker level's violation (check.Result.ImpliedBy) is that
// level's, and the report says so.
func Explain(res *check.Result) *Report {
	rep := explain(res.Evidence())
	rep.at(res)
	return rep
}

// at makes r, a report of the evidence of res, the report of res's level.
func (r *Report) at(res *check.Result) {
	r.Level = res.Level.String()
	if res.ImpliedBy != 0 && r.Anomaly != nil {
		r.ImpliedBy = res.ImpliedBy.String()
	}
	if res.Undecided != 0 && r.Anomaly != nil {
		r.Undecided = res.Undecided.String()
	}
}

func explain(res *check.Result) *Report {
	rep, ok := verdictReport(res)
	if !ok {
		return rep
	}
	p := res.Polygraph
	seed, _ := evidence(res)
	d0 := newDescriber(p, nil, false, nil)
	seed = withReadWriters(d0, seed, evidenceCycles(res))
	seed = append(seed, choiceTxns(res)...)
	slices.Sort(seed)
	seed = slices.Compact(seed)
	d := newDescriber(p, nil, false, nameTxns(p.History, seed, nil))
	d.shareWriters(d0)
	d.lists = newListSource(p.History, nil, nil)
	d.level, d.weakerKept = res.Level, res.WeakerChecked
	an := rep.Anomaly
	an.HistoryTxns = len(p.History.Txns)
	txns := map[int32]bool{}
	switch {
	case len(res.Anomalies) > 0:
		a := res.Anomalies[0]
		an.Name = a.Kind
		an.ElleType = ElleAnomalyType(p.History, a)
		an.Summary = d.anomaly(a)
		anomalyTxns(p, a, txns)
		if n := len(res.Anomalies); n > 1 {
			an.Notes = append(an.Notes, fmt.Sprintf("%d more anomalies of this kind or others were found", n-1))
		}
	case len(res.Cycle) == 0 && res.Conflict == nil && len(res.Core) == 0:
		// Evidence without a cycle (no edge to show).
		an.Name = verdict.Generic(res.Level)
		an.Summary = "the checker proved that no order of the transactions satisfies the level, but kept no cycle to show: the minimal counterexample, which isocheck explain shows, has one"
	case res.Cycle != nil:
		an.Name = d.nameOf(d.fold(res.Cycle, true))
		an.ElleType = elleType(res.Cycle)
		an.Cycles = [][]Step{d.cycle(res.Cycle, txns)}
		an.Summary = d.cycleClaim(d.fold(res.Cycle, true), an.Cycles[0])
	case res.Conflict != nil:
		conflict(d, an, res.Conflict, txns)
	default:
		core(d, an, res.Core, txns)
	}
	explainCases(d, an, res, txns)
	finish(an, d, p.History, txns, nil, nil)
	return rep
}

// verdictReport fills in the verdict; ok says there is a violation to explain.
func verdictReport(res *check.Result) (rep *Report, ok bool) {
	rep = &Report{Report: verdict.NewReport[Anomaly](res.Level.String(), res.Outcome)}
	if res.Verdict != verdict.Violated {
		return rep, false
	}
	rep.Anomaly = &Anomaly{}
	return rep, true
}

func anomalyTxns(p *polygraph.Polygraph, a resolve.Anomaly, txns map[int32]bool) {
	ts := []int32{a.Txn, a.Writer}
	if a.Kind == verdict.LostUpdate {
		ts = append(ts, a.OtherTxn)
	}
	for _, t := range ts {
		if p.IsTxn(t) {
			txns[t] = true
		}
	}
	switch a.Kind {
	case verdict.NonRepeatableRead:
		// The writers of the two values read: without them, neither read
		// would be of anything.
		h := p.History
		for _, op := range []int32{a.Op, a.OtherOp} {
			if op < 0 || int(op) >= len(h.Ops) || h.Ops[op].Value == h.Init {
				continue
			}
			if w := writerOfOp(h, h.Ops[op]); p.IsTxn(w) {
				txns[w] = true
			}
		}
	case verdict.IncompatibleOrder:
		if a.OtherOp >= 0 {
			if t := txnOfOp(p.History, a.OtherOp); p.IsTxn(t) {
				txns[t] = true
			}
		}
	case verdict.SplitAppends:
		// The transactions whose appends sit among the writer's.
		for _, s := range splitCycle(p.History, a, nil) {
			txns[s.From] = true
		}
	}
}

// writerOfOp returns the transaction of h that wrote the value read by
// op, or -1.
func writerOfOp(h *history.History, op history.Op) int32 {
	for t := range h.Txns {
		for _, w := range h.OpsOf(t) {
			if w.Kind == history.Write && w.Key == op.Key && w.Value == op.Value {
				return int32(t)
			}
		}
	}
	return -1
}

func conflict(d *describer, an *Anomaly, c *check.Conflict, txns map[int32]bool) {
	an.Name = nameCycles(d, [][]polygraph.Edge{c.EitherCycle, c.OrCycle})
	_, an.ElleType = leastSevere(d.h, d.level, [][]polygraph.Edge{c.EitherCycle, c.OrCycle})
	an.Cycles = [][]Step{d.cycle(c.EitherCycle, txns), d.cycle(c.OrCycle, txns)}
	x := d.keyName(c.Constraint.Key)
	an.Constraint = &ConstraintInfo{Key: verdict.ID(d.h.FormatKey(c.Constraint.Key)), A: d.name(c.Constraint.A), B: d.name(c.Constraint.B)}
	a, b := d.name(c.Constraint.A), d.name(c.Constraint.B)
	an.Summary = fmt.Sprintf("the writes of %s by %s and %s can be ordered neither way: %s's first closes the cycle %s, and %s's first closes %s",
		x, a, b, a, d.path(c.EitherCycle), b, d.path(c.OrCycle))
	// Mark the edges each order assumes.
	for i, side := range [][]polygraph.Edge{c.Constraint.Either, c.Constraint.Or} {
		first, second := a, b
		if i == 1 {
			first, second = b, a
		}
		assumed := map[string]bool{}
		for _, e := range side {
			s := d.step(e, false)
			assumed[stepKey(s)] = true
		}
		for j := range an.Cycles[i] {
			s := &an.Cycles[i][j]
			if assumed[stepKey(*s)] {
				s.Inferred, s.Assumed = true, true
				s.Because = fmt.Sprintf("assumed: %s's write of %s came before %s's", first, x, second)
			}
		}
	}
}

// nameCycles names a violation of d.level shown by cycles, one at least
// of which every order of the writes closes: the most specific of their
// names (see Name), or the level's generic name when there are none.
func nameCycles(d *describer, cycles [][]polygraph.Edge) verdict.Anomaly {
	var name verdict.Anomaly
	for _, c := range cycles {
		name = moreSpecific(name, d.nameOf(d.fold(c, true)))
	}
	if name == 0 {
		name = verdict.Generic(d.level)
	}
	return name
}

func stepKey(s Step) string { return s.From + "\x00" + s.To + "\x00" + s.Kind + "\x00" + string(s.Key) }

func core(d *describer, an *Anomaly, cycles [][]polygraph.Edge, txns map[int32]bool) {
	an.Name = nameCycles(d, cycles)
	for _, c := range cycles {
		steps := d.cycle(c, txns)
		f := d.fold(c, true)
		for i := range steps {
			// What the history does not show, and no reasoning forces,
			// is the order of the writes this cycle assumes.
			if s := &steps[i]; d.full && !s.Inferred && !d.direct(f[i]) {
				s.Inferred, s.Assumed = true, true
				s.Because = fmt.Sprintf("one order of the writes of %s, which the history leaves open: every order closes one of the cycles shown", d.keyName(f[i].Key))
			}
		}
		an.Cycles = append(an.Cycles, steps)
	}
	_, an.ElleType = leastSevere(d.h, d.level, cycles)
	an.Summary = fmt.Sprintf("no order of the writes avoids a cycle: every choice closes one of the %d cycles shown", len(cycles))
}

// finish adds the name's class and description, the transactions and the
// edges: the cycles' and, for each anti-dependency, the read it stands for
// with the transaction that wrote the version read, which joins the
// transactions shown (the evidence needs it: without that write the read
// would be of nothing). orig maps the report's transactions to the
// original history's (nil: the same); sel is the counterexample's
// selection, if any.
func finish(an *Anomaly, d *describer, h *history.History, txns map[int32]bool, orig *history.History, sel *shrink.Selection) {
	an.Class = an.Name.Class()
	an.Description = an.Name.Describe()
	seen := map[string]bool{}
	for _, s := range an.Edges {
		seen[stepKey(s)] = true
	}
	add := func(s Step) {
		if k := stepKey(s); !seen[k] {
			seen[k] = true
			an.Edges = append(an.Edges, s)
		}
	}
	for _, c := range an.Cycles {
		for _, s := range c {
			add(s)
		}
	}
	ids := sortedTxns(txns)
	for _, c := range an.Cycles {
		for _, s := range c {
			if s.Kind != "RW" {
				continue
			}
			reader, overwriter := named(d, ids, s.From), named(d, ids, s.To)
			if reader < 0 || overwriter < 0 {
				continue
			}
			for _, k := range keysNamed(d.h, s.Key) {
				if _, w, ok := d.overwrittenRead(reader, k, overwriter); ok && d.p.IsTxn(w) {
					txns[w] = true
					add(d.step(polygraph.Edge{From: w, To: reader, Kind: verdict.WR, Key: k}, false))
				}
			}
		}
	}
	// A transaction of unknown status counts as committed because
	// another read its write: show that read too.
	shown := map[string]bool{}
	for _, s := range an.Edges {
		shown[s.From], shown[s.To] = true, true
	}
	among := ids
	if !d.full {
		// The checker's evidence: look for the read in the whole history.
		among = nil
	}
	for _, t := range sortedTxns(txns) {
		if len(an.Edges) > 0 && !shown[d.name(t)] || h.Txns[t].Status != history.Unknown {
			continue
		}
		for _, e := range d.confirmation(t, among) {
			txns[e.To] = true
			if len(an.Edges) > 0 {
				add(d.step(e, false))
			}
		}
	}
	for _, t := range sortedTxns(txns) {
		an.Txns = append(an.Txns, txnInfo(h, int(t), d.name(t), orig, sel, d.lists))
	}
}

// confirmation returns the reads that show that w, a transaction of
// unknown status, committed: a shortest path of reads from w, through
// transactions of unknown status, to a committed transaction of among
// (nil: of the history), or nil.
func (d *describer) confirmation(w int32, among []int32) []polygraph.Edge {
	if among == nil {
		among = make([]int32, len(d.h.Txns))
		for t := range among {
			among[t] = int32(t)
		}
	}
	via := map[int32]polygraph.Edge{w: {From: -1}}
	queue := []int32{w}
	for len(queue) > 0 {
		u := queue[0]
		queue = queue[1:]
		for _, r := range among {
			if _, ok := via[r]; ok || d.h.Txns[r].Status == history.Aborted {
				continue
			}
			for _, op := range d.h.OpsOf(int(r)) {
				if t, ok := d.writerOf(r, op.Key, op.Value); op.Kind != history.Read || !ok || t != u {
					continue
				}
				via[r] = polygraph.Edge{From: u, To: r, Kind: verdict.WR, Key: op.Key}
				if d.h.Txns[r].Status == history.Committed {
					var path []polygraph.Edge
					for x := r; x != w; x = via[x].From {
						path = append(path, via[x])
					}
					slices.Reverse(path)
					return path
				}
				queue = append(queue, r)
				break
			}
		}
	}
	return nil
}

// withReadWriters adds to txns the writers of the versions the
// anti-dependencies of cycles stand for reads of (see finish), and
// returns them ascending.
func withReadWriters(d *describer, txns []int32, cycles [][]polygraph.Edge) []int32 {
	in := make(map[int32]bool, len(txns))
	for _, t := range txns {
		in[t] = true
	}
	for _, c := range cycles {
		for _, e := range c {
			if e.Kind != verdict.RW || !d.p.IsTxn(e.From) {
				continue
			}
			if _, w, ok := d.overwrittenRead(e.From, e.Key, e.To); ok && d.p.IsTxn(w) {
				in[w] = true
			}
		}
	}
	return sortedTxns(in)
}

// evidenceCycles returns the cycles of res's evidence.
func evidenceCycles(res *check.Result) [][]polygraph.Edge {
	switch {
	case res.Cycle != nil:
		return [][]polygraph.Edge{res.Cycle}
	case res.Conflict != nil:
		return [][]polygraph.Edge{res.Conflict.EitherCycle, res.Conflict.OrCycle}
	}
	return res.Core
}

// sortedTxns returns the transactions of txns in ascending order.
func sortedTxns(txns map[int32]bool) []int32 {
	ids := make([]int32, 0, len(txns))
	for t := range txns {
		ids = append(ids, t)
	}
	slices.Sort(ids)
	return ids
}

// named returns the transaction of ids that the report calls name, or -1.
func named(d *describer, ids []int32, name string) int32 {
	for _, t := range ids {
		if d.name(t) == name {
			return t
		}
	}
	return -1
}

func keysNamed(h *history.History, name verdict.ID) []history.Key {
	for k, n := range h.KeyNames {
		if verdict.ID(n) == name {
			return []history.Key{history.Key(k)}
		}
	}
	return nil
}

// txnInfo describes transaction t of h, named name. When orig is set, h
// is a sub-history of orig cut by sel and t's place is taken from orig.
func txnInfo(h *history.History, t int, name string, orig *history.History, sel *shrink.Selection, lists *listSource) TxnInfo {
	tx := &h.Txns[t]
	info := TxnInfo{
		Name:    name,
		Session: verdict.ID(h.SessionName(int(tx.Session))),
		Status:  tx.Status.String(),
		Where:   h.Where(t),
		Index:   t,
		// [] in JSON, not null, when none of its operations is shown.
		Ops: make([]Op, 0, tx.OpEnd-tx.OpStart),
	}
	for i := tx.OpStart; i < tx.OpEnd; i++ {
		if lists != nil {
			info.Ops = append(info.Ops, lists.op(i))
		} else {
			info.Ops = append(info.Ops, opOf(h, i))
		}
	}
	if tx.Start != history.NoTime {
		s := tx.Start
		info.Start = &s
	}
	if tx.End != history.NoTime {
		e := tx.End
		info.End = &e
	}
	src, idx := h, t
	if orig != nil && sel != nil {
		src, idx = orig, int(sel.Txns[t])
		info.Index = idx
		info.OmittedOps = len(orig.OpsOf(idx)) - len(info.Ops)
	}
	info.ID = verdict.ID(src.Txns[idx].ID)
	info.Position = slices.Index(src.Sessions[src.Txns[idx].Session], int32(idx)) + 1
	return info
}

// Checked is the report isocheck's check prints: on a history of at most
// MaxShrink transactions, that of Minimal, so that check and explain name
// the same anomaly (the checker's evidence may hold a smaller violation of
// another kind, which a minimal counterexample shows instead: a lost
// update whose writers read each other's writes is a G1c); on a larger
// history, the checker's evidence as it is (Explain), because shrinking
// it may cost more than the check.
func Checked(ctx context.Context, res *check.Result) (*Report, error) {
	if res.Verdict != verdict.Violated || res.Polygraph == nil || len(res.Polygraph.History.Txns) > MaxShrink {
		return Explain(res), nil
	}
	return Minimal(ctx, res)
}

// weakest returns the result that explains res: res itself when the
// levels weaker than its evidence's were checked, else what checking them
// finds (check.Weakest), or res when ctx ends first.
func weakest(ctx context.Context, res *check.Result) *check.Result {
	if res.Verdict != verdict.Violated || res.WeakerChecked || res.Polygraph == nil {
		return res
	}
	w, err := check.Weakest(progress.WithTracker(ctx, nil), res.Polygraph.History, res, check.Options{})
	if err != nil {
		return res
	}
	return w
}

// Minimal shrinks res's violation to a minimal counterexample and
// explains it: the smallest set of transactions found that still
// violates res.Level on its own (shown with the operations the violation
// needs), with a reason for every edge, including the cycle that rules
// out the other order of each inferred one. The report's Counterexample
// is that sub-history. Anomaly.Minimal says whether the transactions,
// whole, are a minimal counterexample, checked (see docs/checking.md,
// "Minimal counterexamples"); NotMinimal says why not, such as a writer
// kept because a read may have read from it.
//
// Shrinking starts from the transactions of res's evidence and the writes
// they read, and grows to the whole history only when those do not
// violate the level on their own, so it costs about as much as checking
// the few transactions involved.
//
// When ctx ends before the explanation is done, Minimal returns promptly
// the report of res's evidence as it is (Explain's, not Minimal: a
// shrinking cut short need not have reached a minimal counterexample)
// with CutShort set; the verdict stands.
//
// When the levels weaker than res's evidence were not checked (see
// check.Options.WeakestBroken), Minimal checks them first, and explains
// the violation of the weakest one broken, as Explain does res's.
func Minimal(ctx context.Context, res *check.Result) (*Report, error) {
	res = weakest(ctx, res)
	rep, err := minimal(ctx, res.Evidence())
	if rep == nil {
		return rep, err
	}
	rep.at(res)
	if an := rep.Anomaly; an != nil && an.Minimal && res.ImpliedBy != 0 {
		// Minimal for the weaker level, whose violation it shows; it is
		// called minimal only if it is for the level asked for too.
		h := res.Polygraph.History
		m, merr := shrink.NewSubject(h).Minimality(progress.WithTracker(ctx, nil), an.indices(), res.Level)
		switch {
		case merr != nil:
			an.Minimal = false
			an.NotMinimal = fmt.Sprintf("minimal for %s, whose violation they show; whether for %s too was not decided (%v)", res.ImpliedBy, res.Level, merr)
		case !m.Minimal():
			an.Minimal = false
			an.NotMinimal = fmt.Sprintf("minimal for %s, whose violation they show, but not for %s: %s", res.ImpliedBy, res.Level, notMinimal(an, h, m, res.Level.String()))
		}
	}
	return rep, err
}

func minimal(ctx context.Context, res *check.Result) (*Report, error) {
	rep, ok := verdictReport(res)
	if !ok {
		return rep, nil
	}
	// The report of the evidence as it is: Minimal's when it cannot do
	// better, and the name it keeps to where it can.
	evidenceReport := Explain(res)
	cutShort := func() (*Report, error) {
		evidenceReport.CutShort = true
		return evidenceReport, nil
	}
	if ctx.Err() != nil {
		return cutShort()
	}
	h := res.Polygraph.History
	seed, keys := evidence(res)
	// check names a violation by the checker's evidence (Explain);
	// explain must name it the same where it can, or a developer reading
	// both would be told of two anomalies. So when the minimal
	// counterexample found first shows another, explain looks for one
	// whose own evidence the checker names the same, and takes it if it
	// is minimal too (without any one transaction it passes). Only when
	// there is none (every sub-history that keeps check's cycle holds a
	// smaller violation of another shape) do the names differ.
	target := evidenceReport.Anomaly.Name
	quiet := progress.WithTracker(ctx, nil)
	sameName := func(sub *history.History) bool {
		r, err := check.Check(quiet, sub, res.Level)
		if err != nil || r.Verdict != verdict.Violated {
			return false
		}
		// A sub-history keeps every level the history keeps.
		r.WeakerChecked = res.WeakerChecked
		return Explain(r).Anomaly.Name == target
	}
	sel, subj, ok := shrink.Minimize(ctx, h, res.Level, seed, keys)
	if subj.CutShort() {
		return cutShort()
	}
	if !ok {
		// Not reproducible on any sub-history: report the evidence as
		// it is.
		return evidenceReport, nil
	}
	mm, err := subj.Minimality(quiet, sel.Txns, res.Level)
	if err != nil {
		if ctx.Err() != nil {
			return cutShort()
		}
		return nil, err
	}
	if !sameName(subj.Sub(sel)) {
		// Take the counterexample of check's name if it is as minimal:
		// minimal, or kept from it only by writers a read may have
		// read from when the other is too.
		if named, again, ok := shrink.MinimizeWith(ctx, h, res.Level, seed, keys, sameName); ok && !again.CutShort() {
			if nm, err := subj.Minimality(quiet, named.Txns, res.Level); err == nil && (nm.Minimal() || !mm.Minimal() && nm.ForChoices()) {
				sel, mm = named, nm
			}
		}
	}
	if ctx.Err() != nil {
		// A check the end of ctx stopped counted as passing: what
		// those checks decided cannot be trusted.
		return cutShort()
	}
	m := subj.Sub(sel)
	a, err := analyze(ctx, m, res.Level)
	if err != nil {
		if ctx.Err() != nil {
			return cutShort()
		}
		return nil, err
	}
	a.weakerKept = res.WeakerChecked
	if a.name() != target && sameName(m) {
		// The analysis found another cycle first: show the checker's,
		// with the analysis's reasons for the orders of writes it
		// decided too.
		chk, err := fromChecker(ctx, m, res.Level)
		if err != nil {
			if ctx.Err() != nil {
				return cutShort()
			}
			return nil, err
		}
		chk.weakerKept = res.WeakerChecked
		for id, inf := range a.why {
			if !inf.Solver {
				chk.why[id] = inf
			}
		}
		a = chk
	}
	an := rep.Anomaly
	an.HistoryTxns = len(h.Txns)
	an.Counterexample = m
	txns := map[int32]bool{}
	all := make([]int32, len(m.Txns))
	for t := range m.Txns {
		txns[int32(t)] = true
		all[t] = int32(t)
	}
	d := newDescriber(a.p, a.why, true, nameTxns(m, all, func(t int32) int { return int(sel.Txns[t]) }))
	d.lists = newListSource(m, h, &sel)
	d.level, d.weakerKept = res.Level, res.WeakerChecked
	switch {
	case len(a.anomalies) > 0:
		// The anomaly check names, where the counterexample shows it.
		x := a.anomalies[0]
		for _, y := range a.anomalies {
			if y.Kind == target {
				x = y
				break
			}
		}
		an.Name = x.Kind
		an.ElleType = ElleAnomalyType(m, x)
		an.Summary = d.anomaly(x)
		if x.Kind == verdict.LostUpdate {
			lostUpdate(d, an, x)
		}
	case a.cycle != nil:
		f := d.fold(a.cycle, true)
		an.Name = d.nameOf(f)
		an.ElleType = elleType(a.cycle)
		an.Cycles = [][]Step{d.cycle(a.cycle, nil)}
		an.Summary = cycleSummary(d, an.Name, f, an.Cycles[0])
	case a.conflict != nil:
		conflict(d, an, a.conflict, nil)
	default:
		core(d, an, a.core, nil)
	}
	if r, err := check.CheckWith(quiet, m, res.Level, check.Options{Cases: true}); err == nil && len(r.Cases) > 0 {
		// Reads of the counterexample could have read from several
		// writers: show what each choice leads to.
		explainCases(d, an, r, txns)
	} else if (err != nil || r.Verdict == verdict.Unknown) && ctx.Err() != nil {
		// The counterexample stands, but its cases, if any, are not
		// shown.
		rep.CutShort = true
	}
	finish(an, d, m, txns, h, &sel)
	setMinimality(an, h, mm, res.Level.String())
	return rep, nil
}

// lostUpdate shows a lost update as the two orders of its writes, each of
// which closes a cycle (Huang et al., PVLDB 2023, Figure 4(c)).
func lostUpdate(d *describer, an *Anomaly, x resolve.Anomaly) {
	a, b := x.OtherTxn, x.Txn
	k := x.Key
	ab := []polygraph.Edge{{From: a, To: b, Kind: verdict.WW, Key: k}, {From: b, To: a, Kind: verdict.RW, Key: k}}
	ba := []polygraph.Edge{{From: b, To: a, Kind: verdict.WW, Key: k}, {From: a, To: b, Kind: verdict.RW, Key: k}}
	an.Constraint = &ConstraintInfo{Key: verdict.ID(d.h.FormatKey(k)), A: d.name(a), B: d.name(b)}
	an.Cycles = [][]Step{d.cycle(ab, nil), d.cycle(ba, nil)}
	kx := d.keyName(k)
	// The WW edges are hypotheses. The RW edges are forced: each reader
	// read the version the other writer overwrote.
	for i := range an.Cycles {
		for j := range an.Cycles[i] {
			s := &an.Cycles[i][j]
			s.Inferred = true
			if s.Kind == "WW" {
				s.Assumed = true
				s.Reason = fmt.Sprintf("if %s's %s=%s was installed before %s's %s=%s", s.From, kx, s.FromValue, s.To, kx, s.ToValue)
				s.Because = "one of the two orders of the writes must hold"
			} else {
				s.Because = fmt.Sprintf("%s read %s's version, which %s then overwrote: %s never saw %s's update", s.From, d.name(x.Writer), s.To, s.From, s.To)
			}
		}
	}
	w := polygraph.Edge{From: x.Writer, To: a, Kind: verdict.WR, Key: k}
	w2 := polygraph.Edge{From: x.Writer, To: b, Kind: verdict.WR, Key: k}
	if d.p.IsTxn(x.Writer) {
		an.Edges = append(an.Edges, d.step(w, false), d.step(w2, false))
	}
}

// cycleSummary says in a sentence what a named cycle shows.
//
// steps are c's steps as the report shows them.
func cycleSummary(d *describer, name verdict.Anomaly, c []polygraph.Edge, steps []Step) string {
	p := d.path(c)
	switch name {
	case verdict.WriteSkew:
		return fmt.Sprintf("%s and %s each read a key the other overwrote, so neither can come first: %s", d.name(c[0].From), d.name(c[0].To), p)
	case verdict.LostUpdate:
		return fmt.Sprintf("%s and %s updated %s from the same version: %s", d.name(c[0].From), d.name(c[0].To), d.keyName(c[0].Key), p)
	case verdict.G1c:
		if len(c) == 2 && c[0].Kind != c[1].Kind {
			so, wr := c[0], c[1]
			if so.Kind == verdict.WR {
				so, wr = wr, so
			}
			if so.Kind == verdict.SO && wr.Kind == verdict.WR {
				return fmt.Sprintf("%s read %s's write of %s, which its session ran after it: %s", d.name(so.From), d.name(so.To), d.keyName(wr.Key), p)
			}
		}
		return fmt.Sprintf("information flowed in a circle, each transaction after the one before it: %s", p)
	}
	return d.cycleClaim(c, steps) + ": " + p
}

// evidence returns the transactions and keys of res's evidence.
func evidence(res *check.Result) ([]int32, []history.Key) {
	p := res.Polygraph
	txns := map[int32]bool{}
	keys := map[history.Key]bool{}
	addEdges := func(edges []polygraph.Edge) {
		for _, e := range edges {
			if e.Key != polygraph.NoKey {
				keys[e.Key] = true
			}
			for _, t := range []int32{e.From, e.To} {
				if p.IsTxn(t) {
					txns[t] = true
				}
			}
		}
	}
	switch {
	case len(res.Anomalies) > 0:
		anomalyTxns(p, res.Anomalies[0], txns)
		keys[res.Anomalies[0].Key] = true
	case res.Cycle != nil:
		addEdges(res.Cycle)
	case res.Conflict != nil:
		addEdges(res.Conflict.EitherCycle)
		addEdges(res.Conflict.OrCycle)
		keys[res.Conflict.Constraint.Key] = true
		for _, t := range []int32{res.Conflict.Constraint.A, res.Conflict.Constraint.B} {
			if p.IsTxn(t) {
				txns[t] = true
			}
		}
	default:
		for _, c := range res.Core {
			addEdges(c)
		}
	}
	out := make([]int32, 0, len(txns))
	for t := range txns {
		out = append(out, t)
	}
	slices.Sort(out)
	ks := make([]history.Key, 0, len(keys))
	for k := range keys {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return out, ks
}
