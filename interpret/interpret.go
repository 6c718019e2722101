// Package interpret turns the evidence of a violation into a report a
// database developer can read: the anomaly's name, the transactions
// involved, and each dependency with its reason in words (seed 002,
// Section 5.3).
package interpret

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/isocheck/isocheck/check"
	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/polygraph"
)

// Step is one dependency of a counterexample, explained.
type Step struct {
	From, To string // transaction names ("init" for the initial state)
	Kind     string // SO, WR, WW, RW or RT
	Key      string `json:",omitempty"`
	Reason   string
}

// Report explains a check's result.
type Report struct {
	Level     string
	Satisfied *bool // nil: no verdict
	// Anomaly names the violation: a non-cycle anomaly (ThinAirRead, ...)
	// or the shape of the cycle (LostUpdate, WriteSkew, LongFork, ...).
	Anomaly string `json:",omitempty"`
	Summary string `json:",omitempty"`
	// Txns lists the transactions of the counterexample, with their
	// places in the input.
	Txns []TxnInfo `json:",omitempty"`
	// Cycles are the dependency cycles that prove the violation: one, or
	// one per side of an undecidable constraint, or a core of several.
	Cycles [][]Step `json:",omitempty"`
	// Notes add what helps find the cause (such as dropped failed events).
	Notes []string `json:",omitempty"`
}

// TxnInfo shows a transaction as the user wrote it.
type TxnInfo struct {
	Name    string
	Session string
	Status  string
	Ops     string
	Where   string
}

// Explain builds the report of res.
func Explain(res *check.Result) *Report {
	rep := &Report{Level: res.Level.String()}
	switch res.Verdict {
	case check.Satisfied:
		t := true
		rep.Satisfied = &t
		return rep
	case check.NoVerdict:
		rep.Summary = "no verdict: " + res.Reason
		return rep
	}
	f := false
	rep.Satisfied = &f
	p := res.Polygraph
	x := explainer{p: p, h: p.History}
	txns := map[int32]bool{}
	switch {
	case len(res.Anomalies) > 0:
		a := res.Anomalies[0]
		rep.Anomaly = a.Kind.String()
		rep.Summary = x.anomaly(a)
		for _, t := range []int32{a.Txn, a.Writer, a.OtherTxn} {
			if p.IsTxn(t) && (t != a.OtherTxn || a.Kind == polygraph.LostUpdate) {
				txns[t] = true
			}
		}
		if n := len(res.Anomalies); n > 1 {
			rep.Notes = append(rep.Notes, fmt.Sprintf("%d more anomalies of this kind or others were found", n-1))
		}
	case res.Cycle != nil:
		rep.Anomaly = Name(res.Cycle)
		rep.Cycles = [][]Step{x.cycle(res.Cycle, txns)}
		rep.Summary = fmt.Sprintf("%s: a cycle of %d dependencies that every version order has", rep.Anomaly, len(res.Cycle))
	case res.Conflict != nil:
		c := res.Conflict
		rep.Anomaly = Name(c.EitherCycle)
		rep.Cycles = [][]Step{x.cycle(c.EitherCycle, txns), x.cycle(c.OrCycle, txns)}
		rep.Summary = fmt.Sprintf("%s: the writes of %s by %s and %s can be ordered neither way: each order closes a cycle",
			rep.Anomaly, x.h.FormatKey(c.Constraint.Key), p.NodeName(c.Constraint.A), p.NodeName(c.Constraint.B))
	default:
		rep.Anomaly = "G2"
		for _, c := range res.Core {
			rep.Cycles = append(rep.Cycles, x.cycle(c, txns))
		}
		rep.Summary = fmt.Sprintf("no version order avoids a cycle: each of the %d ways shown closes one", len(res.Core))
	}
	ids := make([]int32, 0, len(txns))
	for t := range txns {
		ids = append(ids, t)
	}
	slices.Sort(ids)
	for _, t := range ids {
		rep.Txns = append(rep.Txns, x.txnInfo(int(t)))
	}
	return rep
}

type explainer struct {
	p *polygraph.Polygraph
	h *history.History
}

func (x explainer) txnInfo(t int) TxnInfo {
	var ops []string
	for _, op := range x.h.OpsOf(t) {
		ops = append(ops, fmt.Sprintf("%s(%s,%s)", op.Kind, x.h.FormatKey(op.Key), x.h.FormatValue(op.Value)))
	}
	return TxnInfo{
		Name:    x.h.Name(t),
		Session: x.h.SessionName(int(x.h.Txns[t].Session)),
		Status:  x.h.Txns[t].Status.String(),
		Ops:     strings.Join(ops, " "),
		Where:   x.h.Where(t),
	}
}

func (x explainer) anomaly(a polygraph.Anomaly) string {
	h := x.h
	reader := h.Name(int(a.Txn))
	kv := fmt.Sprintf("%s=%s", h.FormatKey(a.Key), h.FormatValue(a.Value))
	writer := func() string {
		if x.p.IsTxn(a.Writer) {
			return h.Name(int(a.Writer))
		}
		return "the initial state"
	}
	switch a.Kind {
	case polygraph.ThinAirRead:
		return fmt.Sprintf("%s read %s, a value no transaction wrote", reader, kv)
	case polygraph.AbortedRead:
		return fmt.Sprintf("%s read %s, written by %s, which %s", reader, kv, writer(), h.Txns[a.Writer].Status)
	case polygraph.FutureRead:
		return fmt.Sprintf("%s read %s before writing that value itself", reader, kv)
	case polygraph.NotMyOwnWrite:
		return fmt.Sprintf("%s wrote %s and then read %s from someone else", reader, h.FormatKey(a.Key), kv)
	case polygraph.NotMyLastWrite:
		return fmt.Sprintf("%s read %s, its own earlier write, after overwriting it", reader, kv)
	case polygraph.IntermediateRead:
		return fmt.Sprintf("%s read %s, which %s overwrote before committing", reader, kv, writer())
	case polygraph.NonRepeatableRead:
		return fmt.Sprintf("%s read %s twice and got different values (the second %s)", reader, h.FormatKey(a.Key), kv)
	case polygraph.LostUpdate:
		return fmt.Sprintf("%s and %s both read %s from %s and both wrote it: one update is lost",
			h.Name(int(a.OtherTxn)), reader, h.FormatKey(a.Key), x.p.NodeName(a.Writer))
	}
	return a.Kind.String()
}

// cycle explains a cycle's edges, folding paths through time nodes into
// one real-time step, and records its transactions.
func (x explainer) cycle(edges []polygraph.Edge, txns map[int32]bool) []Step {
	isTime := func(u int32) bool { return !x.p.IsTxn(u) && u != x.p.T0 }
	// Start at an edge that leaves a transaction, so that every time path
	// is whole.
	start := 0
	for i, e := range edges {
		if !isTime(e.From) {
			start = i
			break
		}
	}
	rotated := append(slices.Clone(edges[start:]), edges[:start]...)
	var steps []Step
	for i := 0; i < len(rotated); i++ {
		e := rotated[i]
		for isTime(e.To) && i+1 < len(rotated) {
			i++
			e.To = rotated[i].To
		}
		for _, t := range []int32{e.From, e.To} {
			if x.p.IsTxn(t) {
				txns[t] = true
			}
		}
		steps = append(steps, x.step(e))
	}
	return steps
}

func (x explainer) step(e polygraph.Edge) Step {
	h, p := x.h, x.p
	from, to := p.NodeName(e.From), p.NodeName(e.To)
	s := Step{From: from, To: to, Kind: e.Kind.String()}
	if e.Key != polygraph.NoKey {
		s.Key = h.FormatKey(e.Key)
	}
	switch e.Kind {
	case polygraph.SO:
		if e.From == p.T0 {
			s.Reason = fmt.Sprintf("the initial state precedes %s", to)
		} else {
			s.Reason = fmt.Sprintf("%s precedes %s in session %s", from, to, h.SessionName(int(h.Txns[e.From].Session)))
		}
	case polygraph.WR:
		s.Reason = fmt.Sprintf("%s read %s=%s written by %s", to, s.Key, x.written(e.From, e.Key), from)
	case polygraph.WW:
		s.Reason = fmt.Sprintf("%s's %s=%s was overwritten by %s's %s=%s", from, s.Key, x.written(e.From, e.Key), to, s.Key, x.written(e.To, e.Key))
	case polygraph.RW:
		s.Reason = fmt.Sprintf("%s read %s=%s, which %s overwrote with %s", from, s.Key, x.read(e.From, e.Key), to, x.written(e.To, e.Key))
	case polygraph.RT:
		s.Reason = fmt.Sprintf("%s ended (at %d) before %s started (at %d)", from, h.Txns[e.From].End, to, h.Txns[e.To].Start)
	}
	return s
}

// written returns the value node u last wrote to key.
func (x explainer) written(u int32, key history.Key) string {
	if !x.p.IsTxn(u) {
		return x.h.FormatValue(x.h.Init)
	}
	ops := x.h.OpsOf(int(u))
	for i := len(ops) - 1; i >= 0; i-- {
		if ops[i].Kind == history.Write && ops[i].Key == key {
			return x.h.FormatValue(ops[i].Value)
		}
	}
	return "?"
}

// read returns the value transaction u first read of key.
func (x explainer) read(u int32, key history.Key) string {
	if !x.p.IsTxn(u) {
		return x.h.FormatValue(x.h.Init)
	}
	for _, op := range x.h.OpsOf(int(u)) {
		if op.Key == key {
			if op.Kind == history.Read {
				return x.h.FormatValue(op.Value)
			}
			break
		}
	}
	return "?"
}

// Name names a cycle by its shape, after Adya's phenomena and the usual
// names of SI anomalies.
func Name(cycle []polygraph.Edge) string {
	var ww, wr, rw, so, rt int
	nodes := map[int32]bool{}
	rwKeys := map[history.Key]bool{}
	for _, e := range cycle {
		nodes[e.From] = true
		switch e.Kind {
		case polygraph.WW:
			ww++
		case polygraph.WR:
			wr++
		case polygraph.RW:
			rw++
			rwKeys[e.Key] = true
		case polygraph.SO:
			so++
		case polygraph.RT:
			rt++
		}
	}
	switch {
	case rt > 0:
		return "RealTimeViolation"
	case rw == 0 && wr == 0 && so == 0:
		return "G0" // write cycle
	case rw == 0 && ww == 0 && wr == 0:
		return "SessionCycle"
	case rw == 0:
		if ww == 0 {
			return "CausalityViolation"
		}
		return "G1c"
	case rw == 1:
		if len(nodes) == 2 && ww == 1 && cycle[0].Key == cycle[len(cycle)-1].Key && sameKeys(cycle) {
			return "LostUpdate"
		}
		return "G-single"
	case rw == 2 && len(nodes) == 2 && len(rwKeys) == 2:
		return "WriteSkew"
	case rw == 2 && len(nodes) == 4 && !adjacentRW(cycle):
		return "LongFork"
	}
	return "G2"
}

func sameKeys(cycle []polygraph.Edge) bool {
	for _, e := range cycle {
		if e.Key != cycle[0].Key {
			return false
		}
	}
	return true
}

func adjacentRW(cycle []polygraph.Edge) bool {
	for i, e := range cycle {
		if e.Kind == polygraph.RW && cycle[(i+1)%len(cycle)].Kind == polygraph.RW {
			return true
		}
	}
	return false
}

// WriteText prints the report for a terminal.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	switch {
	case r.Satisfied == nil:
		fmt.Fprintf(&b, "%s: %s\n", r.Level, r.Summary)
	case *r.Satisfied:
		fmt.Fprintf(&b, "%s: satisfied\n", r.Level)
	default:
		fmt.Fprintf(&b, "%s: VIOLATED: %s\n  %s\n", r.Level, r.Anomaly, r.Summary)
		for i, c := range r.Cycles {
			if len(r.Cycles) > 1 {
				fmt.Fprintf(&b, "cycle %d:\n", i+1)
			} else {
				fmt.Fprintf(&b, "cycle:\n")
			}
			for _, s := range c {
				fmt.Fprintf(&b, "  %s -%s-> %s: %s\n", s.From, s.Kind, s.To, s.Reason)
			}
		}
		if len(r.Txns) > 0 {
			fmt.Fprintf(&b, "transactions:\n")
			for _, t := range r.Txns {
				fmt.Fprintf(&b, "  %s (session %s, %s) %s  [%s]\n", t.Name, t.Session, t.Status, t.Ops, t.Where)
			}
		}
		for _, n := range r.Notes {
			fmt.Fprintf(&b, "note: %s\n", n)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
