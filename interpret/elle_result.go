package interpret

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/isocheck/isocheck/check"
	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/internal/edn"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/polygraph"
	"github.com/isocheck/isocheck/resolve"
	"github.com/isocheck/isocheck/verdict"
)

// ElleMap is Elle's result map (elle.txn/result-map), for Jepsen checker
// wrappers that read it: its JSON keys are Elle's.
type ElleMap struct {
	// Valid is true (every level checked holds), false (some level is
	// violated) or "unknown" (no verdict, and no violation found).
	Valid any `json:"valid?"`
	// AnomalyTypes lists the keys of Anomalies, sorted.
	AnomalyTypes []string `json:"anomaly-types,omitempty"`
	// Anomalies holds the cases of each anomaly type found.
	Anomalies map[string][]ElleCase `json:"anomalies,omitempty"`
	// Not lists the weakest of the models ruled out (Elle's :not);
	// AlsoNot the others, stronger ones they imply are ruled out too
	// (Elle's :also-not), over the whole lattice of Elle's models (see
	// elle_models.go). A model is ruled out by a level the results
	// violate (its ElleModel), or by an anomaly type found that the model
	// forbids, as Elle's consistency-model/boundary does: the types of
	// non-cycle anomalies, and of the cycles the history shows directly
	// (see elleResult). isocheck's RC is stronger than Elle's
	// read-committed: its violation rules read-committed out only by an
	// anomaly Elle's read-committed forbids (G0, G1a, G1b, G1c, ...).
	Not     []string `json:"not,omitempty"`
	AlsoNot []string `json:"also-not,omitempty"`
}

// ElleCase is one case of an anomaly, in the shape Elle gives its type:
//
//   - cycles (G0, G1c, G-single, G-nonadjacent, G2-item and their
//     -process and -realtime variants): Cycle, Steps, Type.
//
//   - G1a and G1b: Op, Mop, Writer (left out when no transaction wrote
//     the element: a thin-air read), Element.
//
//   - internal: Op, Mop, Expected.
//
//   - future-read: Op, Mop, Element.
//
//   - lost-update: Key, Value, Txns.
//
//   - incompatible-order: Key, Values.
//
//   - duplicate-elements: Op, Mop, Duplicates.
//
//   - a violation the checker proved without a cycle to show (its
//     evidence empty): Elle's fallback when its cycle search gives up,
//     a cycle-exists type (strong-session-serializable-cycle-exists,
//     PL-SI-cycle-exists, ...; see elleCycleExists), with Type and Not.
//
// Operations are transactions (ElleOp).
type ElleCase struct {
	// Type is the cycle's anomaly type, as Elle gives it in each cycle.
	Type string `json:"type,omitempty"`
	// Cycle lists the cycle's transactions, the first again at the end:
	// Steps[i] leads from Cycle[i] to Cycle[i+1].
	Cycle []ElleOp    `json:"cycle,omitempty"`
	Steps []ElleStep  `json:"steps,omitempty"`
	Op    *ElleOp     `json:"op,omitempty"`
	Mop   []any       `json:"mop,omitempty"`
	Key   *verdict.ID `json:"key,omitempty"`
	Value Value       `json:"value,omitzero"`
	Txns  []ElleOp    `json:"txns,omitempty"`
	// Writer is the transaction that wrote Element.
	Writer  *ElleOp `json:"writer,omitempty"`
	Element Value   `json:"element,omitzero"`
	// Expected is what the transaction's own earlier operations say the
	// read should have returned: a value, or a list; a list whose state
	// before the transaction's appends is unknown starts with "..."
	// (Elle's unknown prefix).
	Expected Value `json:"expected,omitzero"`
	// Values are two lists of a key neither of which is a prefix of the
	// other (the shorter first), or for a stated version order, the
	// read's list and the order.
	Values []Value `json:"values,omitempty"`
	// Duplicates counts each element a list read holds more than once,
	// by the element's text.
	Duplicates map[string]int `json:"duplicates,omitempty"`
	// Not is the model a cycle-exists case rules out.
	Not string `json:"not,omitempty"`
	// Alternatives, isocheck's addition, are the violation's other
	// cycles when it has several, one of which every order of the writes
	// closes (the history leaves that order open): the case is named
	// after the least severe of them (elle.consistency-model's severity
	// order), the one claim that holds whichever order is the real one.
	Alternatives []ElleCase `json:"alternatives,omitempty"`
}

// ElleOp is a transaction, shaped as Elle's completion operation (a
// Jepsen op map), with isocheck's name and place of it.
type ElleOp struct {
	// Name is the transaction's name, as isocheck's reports give it.
	Name string `json:"name"`
	// Index is Elle's :index: the transaction's id when that is an
	// integer (the readers of Jepsen histories take the :index of the
	// completion for the id), else its place in the input, from 0.
	Index int64 `json:"index"`
	// Source is the transaction's place in the input: "file:line".
	Source string `json:"source"`
	// Process is the transaction's session (for a history checked
	// without session order, the session it had).
	Process verdict.ID `json:"process"`
	// Type is ok (committed), fail (aborted) or info (unknown).
	Type string `json:"type"`
	// Value lists the transaction's micro-operations: ["r", key, value],
	// ["w", key, value] or ["append", key, value]; a list read's value is
	// the whole list.
	Value [][]any `json:"value"`
}

// ElleStep is one dependency of a cycle.
type ElleStep struct {
	// Type is wr, ww, rw, process (session order) or realtime.
	Type string
	// Key, Value and Value2 (Elle's value') are those of a data
	// dependency: for wr the value read, for ww the two values written
	// (the earlier first), for rw the value read and the value that
	// overwrote it. For a list, the values are elements: the last
	// element read, or the appended ones.
	Key    verdict.ID
	Value  Value
	Value2 Value
}

// MarshalJSON writes the step with Elle's keys: type, key, value, value'.
func (s ElleStep) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(`{"type":`)
	b.WriteString(strconv.Quote(s.Type))
	if s.Key != "" {
		k, err := json.Marshal(s.Key)
		if err != nil {
			return nil, err
		}
		b.WriteString(`,"key":`)
		b.Write(k)
	}
	for _, f := range []struct {
		name string
		v    Value
	}{{"value", s.Value}, {"value'", s.Value2}} {
		if f.v.IsZero() {
			continue
		}
		v, err := json.Marshal(f.v)
		if err != nil {
			return nil, err
		}
		b.WriteString(`,"` + f.name + `":`)
		b.Write(v)
	}
	b.WriteString("}")
	return b.Bytes(), nil
}

// UnmarshalJSON reads a step written by MarshalJSON.
func (s *ElleStep) UnmarshalJSON(data []byte) error {
	// The key value' is not a tag encoding/json accepts: read the
	// object's fields one by one.
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	*s = ElleStep{}
	for name, dst := range map[string]any{"type": &s.Type, "key": &s.Key, "value": &s.Value, "value'": &s.Value2} {
		if r, ok := raw[name]; ok {
			if err := json.Unmarshal(r, dst); err != nil {
				return err
			}
		}
	}
	return nil
}

var elleStepTypes = map[verdict.EdgeKind]string{
	verdict.WR: "wr", verdict.WW: "ww", verdict.RW: "rw",
	verdict.SO: "process", verdict.RT: "realtime",
}

// ElleResult returns Elle's result map of the checks of history h at one
// or more levels (results, as check.Check or check.CheckAll return them;
// sessionOrder says whether h was checked with its session order, see
// ElleModel). Each violation's evidence is named as ElleCycleType and
// ElleAnomalyType say, without shrinking it; a violation several levels
// share (the same anomaly, or the same cycle) is listed once. The
// transactions of prefix consistency's evidence, which is over h split
// in halves (each transaction's reads, then its writes), are h's
// transactions; h may be nil when no result is of PC, or to show the
// halves as they are.
func ElleResult(h *history.History, results []*check.Result, sessionOrder bool) *ElleMap {
	m, _ := elleResult(context.Background(), h, results, sessionOrder, nil)
	return m
}

// ElleEvery is ElleResult with, beside each violation's evidence, every
// other anomaly it shows that its level forbids, one case of each (see
// Every): Elle's map lists every anomaly type it finds. When ctx ends
// first, it returns the map of the evidence alone with ctx's error.
func ElleEvery(ctx context.Context, h *history.History, results []*check.Result, sessionOrder bool) (*ElleMap, error) {
	var main *history.History
	return elleResult(ctx, h, results, sessionOrder, func(res *check.Result) ([]Found, error) {
		if main == nil {
			main = mainHistory(h, results)
		}
		return Every(ctx, main, res, nil)
	})
}

// ElleFound is ElleResult with, beside each violation's evidence, the
// anomalies listed for it: found[i] those of results[i] (Every's, as
// --level all lists them for every level it checks), one case of each.
// Its :not and :also-not thus rule out, over all the levels, every model
// that forbids an anomaly type found.
func ElleFound(h *history.History, results []*check.Result, found [][]Found, sessionOrder bool) *ElleMap {
	m, _ := elleResult(context.Background(), h, results, sessionOrder, func(res *check.Result) ([]Found, error) {
		if i := slices.Index(results, res); i >= 0 && i < len(found) {
			return found[i], nil
		}
		return nil, nil
	})
	return m
}

// mainHistory is the history the results checked: h, or, when h is nil,
// that of a violation's polygraph, one not of PC when there is one (PC's
// evidence is over h split in halves).
func mainHistory(h *history.History, results []*check.Result) *history.History {
	main := h
	for _, res := range results {
		if res.Verdict == verdict.Violated && h == nil && res.Polygraph != nil && (main == nil || res.Level != level.PC) {
			main = res.Polygraph.History
		}
	}
	return main
}

// elleResult is ElleResult and, with every, which lists the anomalies
// of a violation beside its evidence, ElleEvery and ElleFound.
//
// :not and :also-not name the models of Elle's lattice that the levels
// violated rule out (ElleModel; RC's only by rcRuledOut) and those the
// anomaly types found rule out (elleImpossible): the types of non-cycle
// anomalies, and of cycles whose every dependency the history shows
// directly (the polygraph's known edges before pruning, which are what
// Elle infers too). A cycle through an order of writes that pruning
// inferred for the level checked holds at that level, but not
// necessarily under a weaker model: it rules out the level's model alone.
func elleResult(ctx context.Context, h *history.History, results []*check.Result, sessionOrder bool, every func(*check.Result) ([]Found, error)) (*ElleMap, error) {
	m := &ElleMap{Valid: true}
	var latticeTypes []string
	direct := directEdges{}
	violated, unknown := false, false
	ruledOut := map[string]bool{}
	// main is the history checked: the evidence of PC is over a history
	// split in halves, whose transactions map back to main's.
	main := h
	for _, res := range results {
		switch res.Verdict {
		case verdict.Violated:
			violated = true
			if res.Level != level.RC {
				ruledOut[ElleModel(res.Level, sessionOrder)] = true
			}
			if h == nil && res.Polygraph != nil && (main == nil || res.Level != level.PC) {
				main = res.Polygraph.History
			}
		case verdict.Unknown:
			unknown = true
		}
	}
	switch {
	case violated:
		m.Valid = false
	case unknown:
		m.Valid = "unknown"
	}
	if main == nil {
		m.Not, m.AlsoNot = elleBoundary(ruledOut)
		return m, nil
	}

	// The evidence of each violation.
	type source struct {
		res *check.Result
	}
	var sources []source
	var writers writerIndex
	involved := map[*history.History]map[int32]bool{}
	for _, res := range results {
		if res.Verdict != verdict.Violated || res.Polygraph == nil {
			continue
		}
		src := source{res: res}
		nodes := map[int32]bool{}
		elleTxns(res, nodes, &writers)
		rh := res.Polygraph.History
		for u := range nodes {
			h, t := rh, u
			if involved[h] == nil {
				involved[h] = map[int32]bool{}
			}
			involved[h][t] = true
		}
		sources = append(sources, src)
	}
	// Name every transaction of the evidence once, for all the cases.
	builders := map[*history.History]*elleBuilder{}
	builder := func(h *history.History) *elleBuilder {
		if b, ok := builders[h]; ok {
			return b
		}
		ids := make([]int32, 0, len(involved[h]))
		for t := range involved[h] {
			ids = append(ids, t)
		}
		slices.Sort(ids)
		b := &elleBuilder{h: h, names: nameTxns(h, ids, nil), sessionOrder: sessionOrder, writers: writers}
		builders[h] = b
		return b
	}

	add := func(t string, c ElleCase) {
		if m.Anomalies == nil {
			m.Anomalies = map[string][]ElleCase{}
		}
		m.Anomalies[t] = append(m.Anomalies[t], c)
	}
	// Levels share evidence (CheckAll gives a level its weaker level's,
	// and every level the same non-cycle anomalies): list each once.
	type anomalyKey struct {
		h *history.History
		a resolve.Anomaly
	}
	seenAnomaly := map[anomalyKey]bool{}
	seenCycle := map[string]bool{}
	for _, src := range sources {
		res := src.res
		rh := res.Polygraph.History
		b := builder(rh)
		d := newDescriber(res.Polygraph, nil, false, b.names)
		if res.Level == level.RC {
			for _, m := range rcRuledOut(res, &writers) {
				ruledOut[m] = true
			}
		}
		for _, a := range res.Anomalies {
			if k := (anomalyKey{rh, a}); !seenAnomaly[k] {
				seenAnomaly[k] = true
				t, c := b.anomaly(d, a)
				add(t, c)
				latticeTypes = append(latticeTypes, t)
			}
		}
		var cycles [][]polygraph.Edge
		switch {
		case res.Cycle != nil:
			cycles = [][]polygraph.Edge{res.Cycle}
		case res.Conflict != nil:
			cycles = [][]polygraph.Edge{res.Conflict.EitherCycle, res.Conflict.OrCycle}
		default:
			cycles = res.Core
		}
		cycles = slices.DeleteFunc(slices.Clone(cycles), func(c []polygraph.Edge) bool { return len(c) == 0 })
		if len(cycles) == 0 {
			if len(res.Anomalies) == 0 {
				// A violation without evidence to show: Elle's name of
				// a cycle it knows exists but has not found.
				t := elleCycleExists(res.Level, sessionOrder)
				if k := "exists\x00" + t; !seenCycle[k] {
					seenCycle[k] = true
					add(t, ElleCase{Type: t, Not: ElleModel(res.Level, sessionOrder)})
				}
			}
			continue
		}
		op := b.op
		key := elleCycleKey(d, cycles)
		if seenCycle[key] {
			continue
		}
		seenCycle[key] = true
		i, t := leastSevere(rh, res.Level, cycles)
		c := elleCycle(d, cycles[i], op)
		for j, o := range cycles {
			if j != i {
				c.Alternatives = append(c.Alternatives, elleCycle(d, o, op))
			}
		}
		add(t, c)
		if len(cycles) == 1 && direct.shown(res.Polygraph, cycles[0]) {
			latticeTypes = append(latticeTypes, t)
		}
	}
	var err error
	for _, src := range sources {
		if every == nil || err != nil {
			break
		}
		res := src.res
		var found []Found
		if found, err = every(res); err != nil {
			break
		}
		rh := res.Polygraph.History
		b := builder(rh)
		for _, f := range found {
			switch {
			case f.anomaly != nil:
				if k := (anomalyKey{rh, *f.anomaly}); !seenAnomaly[k] {
					seenAnomaly[k] = true
					t, c := b.anomaly(newDescriber(f.p, nil, false, b.names), *f.anomaly)
					add(t, c)
					latticeTypes = append(latticeTypes, t)
				}
			case f.cycle != nil:
				d := newDescriber(f.p, nil, false, b.names)
				cycles := [][]polygraph.Edge{f.cycle}
				if key := elleCycleKey(d, cycles); !seenCycle[key] {
					seenCycle[key] = true
					c := elleCycle(d, f.cycle, b.op)
					add(c.Type, c)
					if direct.shown(f.p, f.cycle) {
						latticeTypes = append(latticeTypes, c.Type)
					}
				}
			}
		}
	}
	for t := range m.Anomalies {
		m.AnomalyTypes = append(m.AnomalyTypes, t)
	}
	slices.Sort(m.AnomalyTypes)
	for model := range elleImpossible(latticeTypes) {
		ruledOut[model] = true
	}
	m.Not, m.AlsoNot = elleBoundary(ruledOut)
	return m, err
}

// elleCycleKey identifies the cycles of a violation's evidence.
func elleCycleKey(d *describer, cycles [][]polygraph.Edge) string {
	var key strings.Builder
	for _, c := range cycles {
		key.WriteString(check.CycleKey(d.fold(c, true)))
		key.WriteString(";")
	}
	return key.String()
}

// directEdges caches, per polygraph, the edges the history shows
// directly: its known edges before pruning.
type directEdges map[*polygraph.Polygraph]map[polygraph.Edge]bool

// shown reports whether every edge of cycle, a cycle of p, is one the
// history shows directly. The polygraphs of the weak levels' checks have
// no known edges, and those of their lists of anomalies only those the
// history shows (see directDependencies).
func (d directEdges) shown(p *polygraph.Polygraph, cycle []polygraph.Edge) bool {
	if len(cycle) == 0 {
		return false
	}
	direct, ok := d[p]
	if !ok {
		direct = make(map[polygraph.Edge]bool, len(p.Known))
		for _, e := range p.Known {
			direct[e] = true
		}
		d[p] = direct
	}
	for _, e := range cycle {
		if !direct[e] {
			return false
		}
	}
	return true
}

// rcRuledOut returns the models of Elle that the evidence of a violation
// of RC rules out. isocheck's RC (Biswas and Enea's) is stronger than
// Adya's PL-2, Elle's read-committed: it also forbids a transaction's
// reads to go back in time (a fractured read, G-single, violates it). So
// its violation rules out read-committed only when the anomaly is one
// PL-2 forbids (elle.consistency-model: G1 and the anomalies that imply
// it, and PL-1's), and strong-session-read-committed when it is that or
// their -process variant.
func rcRuledOut(res *check.Result, w *writerIndex) []string {
	h := res.Polygraph.History
	var types []string
	for _, a := range res.Anomalies {
		types = append(types, elleAnomalyType(h, a, w))
	}
	var cycles [][]polygraph.Edge
	switch {
	case res.Cycle != nil:
		cycles = [][]polygraph.Edge{res.Cycle}
	case res.Conflict != nil:
		cycles = [][]polygraph.Edge{res.Conflict.EitherCycle, res.Conflict.OrCycle}
	default:
		cycles = res.Core
	}
	if len(cycles) > 0 {
		_, t := leastSevere(h, res.Level, cycles)
		types = append(types, t)
	}
	plain, session := false, false
	for _, t := range types {
		switch t {
		case "G0", "G1a", "G1b", "G1c", "duplicate-elements", "incompatible-order", "future-read":
			plain = true
		case "G0-process", "G1c-process":
			session = true
		}
	}
	switch {
	case plain:
		return []string{"read-committed"}
	case session:
		return []string{"strong-session-read-committed"}
	}
	return nil
}

// elleTxns adds the nodes of res's evidence that are transactions to
// txns.
func elleTxns(res *check.Result, txns map[int32]bool, w *writerIndex) {
	p := res.Polygraph
	h := p.History
	add := func(t int32) {
		if p.IsTxn(t) {
			txns[t] = true
		}
	}
	for _, a := range res.Anomalies {
		add(a.Txn)
		add(a.Writer)
		if a.Kind == verdict.LostUpdate {
			add(a.OtherTxn)
		}
		if a.Kind == verdict.IncompatibleOrder && a.OtherOp >= 0 {
			add(txnOfOp(h, a.OtherOp))
		}
		if a.Kind == verdict.SplitAppends {
			for _, s := range splitCycle(h, a, w) {
				add(s.From)
			}
		}
	}
	var cycles [][]polygraph.Edge
	if res.Cycle != nil {
		cycles = append(cycles, res.Cycle)
	}
	if c := res.Conflict; c != nil {
		cycles = append(cycles, c.EitherCycle, c.OrCycle)
	}
	cycles = append(cycles, res.Core...)
	for _, c := range cycles {
		for _, e := range c {
			add(e.From)
			add(e.To)
		}
	}
}

// elleType is ElleCycleType of a cycle of a violation's evidence.
func elleType(cycle []polygraph.Edge) string {
	kinds := make([]verdict.EdgeKind, len(cycle))
	for i, e := range cycle {
		kinds[i] = e.Kind
	}
	return elleCycleKinds(kinds)
}

// txnOfOp returns the transaction of operation op of h, or -1.
func txnOfOp(h *history.History, op int32) int32 {
	i, ok := slices.BinarySearchFunc(h.Txns, op, func(t history.Txn, op int32) int {
		switch {
		case op < t.OpStart:
			return 1
		case op >= t.OpEnd:
			return -1
		}
		return 0
	})
	if !ok {
		return -1
	}
	return int32(i)
}

// elleBuilder builds the cases of an ElleMap.
type elleBuilder struct {
	h            *history.History
	names        map[int32]string
	ops          map[int32]ElleOp
	sessionOrder bool
	writers      writerIndex
}

// op returns transaction t as an Elle operation.
func (b *elleBuilder) op(t int32) ElleOp {
	if o, ok := b.ops[t]; ok {
		return o
	}
	h := b.h
	tx := &h.Txns[t]
	name, ok := b.names[t]
	if !ok {
		name = baseName(h, int(t))
	}
	process := h.SessionName(int(tx.Session))
	if !b.sessionOrder {
		// A history without its session order puts each transaction in
		// a session of its own, "s/i" for the i-th of session s (see
		// history.History.WithoutSessionOrder): Elle's process is s.
		if i := strings.LastIndexByte(process, '/'); i > 0 && isDigits(process[i+1:]) {
			process = process[:i]
		}
	}
	index := int64(t)
	if isInt(tx.ID) {
		index, _ = strconv.ParseInt(tx.ID, 10, 64)
	}
	o := ElleOp{Name: name, Index: index, Source: h.Where(int(t)), Process: verdict.ID(process), Type: elleStatus(tx.Status)}
	for i := tx.OpStart; i < tx.OpEnd; i++ {
		o.Value = append(o.Value, b.mop(i))
	}
	if b.ops == nil {
		b.ops = map[int32]ElleOp{}
	}
	b.ops[t] = o
	return o
}

func elleStatus(s history.Status) string {
	switch s {
	case history.Aborted:
		return "fail"
	case history.Unknown:
		return "info"
	}
	return "ok"
}

// mop returns operation i as an Elle micro-operation.
func (b *elleBuilder) mop(i int32) []any {
	o := opOf(b.h, i)
	return []any{o.Kind, o.Key, o.Value}
}

// ptr returns a pointer to transaction t's Elle operation, or nil when t
// is not a transaction.
func (b *elleBuilder) ptr(t int32) *ElleOp {
	if t < 0 || int(t) >= len(b.h.Txns) {
		return nil
	}
	o := b.op(t)
	return &o
}

// elleCycle returns the case of a cycle of a violation's evidence,
// with op giving the Elle operation of a node.
func elleCycle(d *describer, edges []polygraph.Edge, op func(int32) ElleOp) ElleCase {
	c := ElleCase{Type: elleType(edges)}
	kept := d.fold(edges, true)
	for _, e := range kept {
		c.Cycle = append(c.Cycle, op(e.From))
		s := d.step(e, false)
		st := ElleStep{Type: elleStepTypes[e.Kind]}
		if e.Key != polygraph.NoKey {
			st.Key = s.Key
			st.Value = s.FromValue
			if e.Kind != verdict.WR {
				st.Value2 = s.ToValue
			}
		}
		c.Steps = append(c.Steps, st)
	}
	if len(kept) > 0 {
		c.Cycle = append(c.Cycle, op(kept[0].From))
	}
	return c
}

// anomaly returns the type and case of a non-cycle anomaly.
func (b *elleBuilder) anomaly(d *describer, a resolve.Anomaly) (string, ElleCase) {
	h := b.h
	t := elleAnomalyType(h, a, &b.writers)
	var c ElleCase
	key := verdict.ID(h.FormatKey(a.Key))
	reader := func() {
		c.Op = b.ptr(a.Txn)
		if a.Op >= 0 && int(a.Op) < len(h.Ops) {
			c.Mop = b.mop(a.Op)
		}
	}
	switch a.Kind {
	case verdict.ThinAirRead, verdict.AbortedRead, verdict.IntermediateRead:
		reader()
		c.Writer = b.ptr(a.Writer)
		c.Element = valueOf(h, a.Value)
	case verdict.FutureRead:
		reader()
		c.Element = valueOf(h, a.Value)
	case verdict.NotMyOwnWrite, verdict.NotMyLastWrite, verdict.NonRepeatableRead:
		reader()
		c.Expected = b.expected(a.Txn, a.Op)
	case verdict.LostUpdate:
		c.Key = &key
		c.Value = d.written(a.Writer, a.Key)
		for _, x := range []int32{a.OtherTxn, a.Txn} {
			if p := b.ptr(x); p != nil {
				c.Txns = append(c.Txns, *p)
			}
		}
	case verdict.IncompatibleOrder:
		c.Key = &key
		one := listOf(h, h.ListOf(a.Op))
		var other Value
		if a.OtherOp >= 0 {
			other = listOf(h, h.ListOf(a.OtherOp))
		} else {
			for _, o := range h.Orders {
				if o.Key == a.Key {
					other = listOf(h, o.Values)
				}
			}
		}
		if len(other.List()) < len(one.List()) {
			one, other = other, one
		}
		c.Values = []Value{one, other}
	case verdict.DuplicateElements:
		reader()
		count := map[history.Value]int{}
		for _, v := range h.ListOf(a.Op) {
			count[v]++
		}
		c.Duplicates = map[string]int{}
		for v, n := range count {
			if n > 1 {
				c.Duplicates[h.FormatValue(v)] = n
			}
		}
	case verdict.SplitAppends:
		if steps := splitCycle(h, a, &b.writers); steps != nil {
			c.Type = "G0"
			for _, s := range steps {
				c.Cycle = append(c.Cycle, b.op(s.From))
				c.Steps = append(c.Steps, ElleStep{Type: "ww", Key: key, Value: valueOf(h, s.Value), Value2: valueOf(h, s.Next)})
			}
			c.Cycle = append(c.Cycle, b.op(steps[0].From))
			break
		}
		// The element out of place.
		reader()
		c.Writer = b.ptr(a.Writer)
		c.Element = valueOf(h, a.Value)
	default:
		reader()
	}
	return t, c
}

// expected returns what transaction t's own operations before op say op
// should read (Elle's op-int-case): the value it last wrote or read of
// the key, or for a list, the list it last read with its appends since,
// or "..." followed by its appends when it read none before them.
func (b *elleBuilder) expected(t, op int32) Value {
	h := b.h
	if t < 0 || int(t) >= len(h.Txns) || op < 0 || int(op) >= len(h.Ops) {
		return Value{}
	}
	key := h.Ops[op].Key
	var state []Value
	known := false
	for i := h.Txns[t].OpStart; i < op; i++ {
		o := h.Ops[i]
		if o.Key != key {
			continue
		}
		switch {
		case !h.Lists:
			state, known = []Value{valueOf(h, o.Value)}, true
		case o.Kind == history.Read:
			state, known = listOf(h, h.ListOf(i)).List(), true
		default:
			if !known {
				state, known = []Value{StringValue("...")}, true
			}
			state = append(slices.Clone(state), valueOf(h, o.Value))
		}
	}
	switch {
	case !known:
		return Value{}
	case !h.Lists:
		return state[0]
	}
	return ListValue(state)
}

// elleCycleExists returns the type of Elle's cycle-exists anomaly of a
// violation of l (elle.txn/cycle-exists-specs: the canonical name of the
// model whose graph has a cycle, then -cycle-exists). Elle has none for
// prefix, causal and read atomic; isocheck names theirs the same way.
func elleCycleExists(l level.Level, sessionOrder bool) string {
	model := map[level.Level]string{level.SSER: "PL-SS", level.SER: "PL-3", level.SI: "PL-SI", level.RC: "PL-2"}[l]
	switch {
	case model == "":
		model = ElleModel(l, sessionOrder)
	case sessionOrder && l == level.SER:
		model = "strong-session-serializable"
	case sessionOrder && l == level.SI:
		model = "strong-session-snapshot-isolation"
	case sessionOrder && l == level.RC:
		model = "strong-session-PL-2"
	}
	return model + "-cycle-exists"
}

// MarshalEDN returns m as EDN, on one line, in the form Elle returns its
// result map to Jepsen, so that a Jepsen test can merge it into its own
// results: Elle's keys, anomaly types, models, micro-operation functions,
// operation types and step types are keywords (:valid? false,
// :anomaly-types [:G2-item], [:r :x 1], {:type :ww ...}); :valid? is true,
// false or :unknown; :not and :also-not are sets. The fields are those of
// the JSON form, under the same names, left out in the same cases, and an
// operation also has Elle's :f :txn. Keys, values and processes are
// integers when they are integers in canonical decimal form, keywords
// when they are keywords as the EDN readers keep them (":x"), and strings
// otherwise; Duplicates' elements are integers or their text.
func (m *ElleMap) MarshalEDN() ([]byte, error) {
	b, err := edn.Marshal(m.edn())
	if err != nil {
		return nil, fmt.Errorf("interpret: writing Elle's result map as EDN: %w", err)
	}
	return b, nil
}

// ednMap builds an edn.Map of the pairs whose value is not nil.
type ednMap edn.Map

func (e *ednMap) add(key string, v any) {
	if v != nil {
		*e = append(*e, edn.KV{Key: edn.Keyword(key), Value: v})
	}
}

func (m *ElleMap) edn() edn.Map {
	var e ednMap
	switch v := m.Valid.(type) {
	case string:
		e.add("valid?", edn.Keyword(v))
	default:
		e.add("valid?", v)
	}
	if len(m.AnomalyTypes) > 0 {
		e.add("anomaly-types", ednKeywords(m.AnomalyTypes))
	}
	if len(m.Anomalies) > 0 {
		var anomalies edn.Map
		for _, t := range slices.Sorted(maps.Keys(m.Anomalies)) {
			anomalies = append(anomalies, edn.KV{Key: edn.Keyword(t), Value: ednCases(m.Anomalies[t])})
		}
		e.add("anomalies", anomalies)
	}
	if len(m.Not) > 0 {
		e.add("not", edn.Set(ednKeywords(m.Not)))
	}
	if len(m.AlsoNot) > 0 {
		e.add("also-not", edn.Set(ednKeywords(m.AlsoNot)))
	}
	return edn.Map(e)
}

func ednKeywords(names []string) []any {
	out := make([]any, len(names))
	for i, n := range names {
		out[i] = edn.Keyword(n)
	}
	return out
}

func ednCases(cases []ElleCase) []any {
	out := make([]any, len(cases))
	for i := range cases {
		out[i] = cases[i].edn()
	}
	return out
}

func (c *ElleCase) edn() edn.Map {
	var e ednMap
	if c.Type != "" {
		e.add("type", edn.Keyword(c.Type))
	}
	if len(c.Cycle) > 0 {
		e.add("cycle", ednOps(c.Cycle))
	}
	if len(c.Steps) > 0 {
		steps := make([]any, len(c.Steps))
		for i, s := range c.Steps {
			steps[i] = s.edn()
		}
		e.add("steps", steps)
	}
	if c.Op != nil {
		e.add("op", c.Op.edn())
	}
	if len(c.Mop) > 0 {
		e.add("mop", ednMop(c.Mop))
	}
	if c.Key != nil {
		e.add("key", ednName(string(*c.Key)))
	}
	e.addValue("value", c.Value)
	if len(c.Txns) > 0 {
		e.add("txns", ednOps(c.Txns))
	}
	if c.Writer != nil {
		e.add("writer", c.Writer.edn())
	}
	e.addValue("element", c.Element)
	e.addValue("expected", c.Expected)
	if len(c.Values) > 0 {
		values := make([]any, len(c.Values))
		for i, v := range c.Values {
			values[i] = ednValue(v)
		}
		e.add("values", values)
	}
	if len(c.Duplicates) > 0 {
		var dups edn.Map
		for _, text := range slices.Sorted(maps.Keys(c.Duplicates)) {
			var k any = text
			if n, err := strconv.ParseInt(text, 10, 64); err == nil && isInt(text) {
				k = n
			}
			dups = append(dups, edn.KV{Key: k, Value: int64(c.Duplicates[text])})
		}
		e.add("duplicates", dups)
	}
	if c.Not != "" {
		e.add("not", edn.Keyword(c.Not))
	}
	if len(c.Alternatives) > 0 {
		e.add("alternatives", ednCases(c.Alternatives))
	}
	return edn.Map(e)
}

// addValue adds v unless it is the zero Value (no value); null is nil.
func (e *ednMap) addValue(key string, v Value) {
	if !v.IsZero() {
		*e = append(*e, edn.KV{Key: edn.Keyword(key), Value: ednValue(v)})
	}
}

func ednOps(ops []ElleOp) []any {
	out := make([]any, len(ops))
	for i := range ops {
		out[i] = ops[i].edn()
	}
	return out
}

func (o *ElleOp) edn() edn.Map {
	value := make([]any, len(o.Value))
	for i, m := range o.Value {
		value[i] = ednMop(m)
	}
	return edn.Map{
		{Key: edn.Keyword("type"), Value: edn.Keyword(o.Type)},
		{Key: edn.Keyword("f"), Value: edn.Keyword("txn")},
		{Key: edn.Keyword("value"), Value: value},
		{Key: edn.Keyword("process"), Value: ednName(string(o.Process))},
		{Key: edn.Keyword("index"), Value: o.Index},
		{Key: edn.Keyword("name"), Value: o.Name},
		{Key: edn.Keyword("source"), Value: o.Source},
	}
}

func (s *ElleStep) edn() edn.Map {
	var e ednMap
	e.add("type", edn.Keyword(s.Type))
	if s.Key != "" {
		e.add("key", ednName(string(s.Key)))
	}
	e.addValue("value", s.Value)
	e.addValue("value'", s.Value2)
	return edn.Map(e)
}

// ednMop returns a micro-operation, [f key value], as Elle writes it: the
// function a keyword.
func ednMop(m []any) []any {
	out := make([]any, len(m))
	for i, x := range m {
		switch x := x.(type) {
		case string:
			if i == 0 {
				out[i] = edn.Keyword(x)
			} else {
				out[i] = ednName(x)
			}
		case verdict.ID:
			out[i] = ednName(string(x))
		case Value:
			if x.IsZero() {
				out[i] = nil
			} else {
				out[i] = ednValue(x)
			}
		default:
			out[i] = x
		}
	}
	return out
}

// ednName returns a name (of a key, a process) as EDN: an integer when it
// is one in canonical decimal form, a keyword when it is one as the EDN
// readers keep keywords (":x"), else a string.
func ednName(s string) any {
	if isInt(s) {
		n, _ := strconv.ParseInt(s, 10, 64)
		return n
	}
	if v, ok := bigIntValue(s); ok {
		return edn.BigInt(v.s)
	}
	if k, ok := ednKeyword(s); ok {
		return k
	}
	return s
}

// ednKeyword returns the keyword that s, a keyword as the EDN readers
// keep keywords (":x"), names.
func ednKeyword(s string) (edn.Keyword, bool) {
	if keywordName(s) && edn.ValidKeyword(s[1:]) {
		return edn.Keyword(s[1:]), true
	}
	return "", false
}

// ednValue returns v as EDN: nil for null, an integer, a keyword for a
// string that is one (":x"), a string, or a vector for a list.
func ednValue(v Value) any {
	switch v.kind {
	case KindInt:
		if n, ok := v.Any().(int64); ok {
			return n
		}
		return edn.BigInt(v.s)
	case KindString:
		if k, ok := ednKeyword(v.s); ok {
			return k
		}
		return v.s
	case KindList:
		out := make([]any, len(v.list))
		for i, e := range v.list {
			out[i] = ednValue(e)
		}
		return out
	}
	return nil
}
