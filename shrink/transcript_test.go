package shrink_test

// Transcripts of shrinking: testdata/*.txt hold histories that violate a
// level, with unrelated transactions around the violation, and the
// minimal counterexample shrinking leaves. The command
//
//	shrink level=SER|SI|SSER|PC|CC|RA|RC
//
// checks the case's history at the level and, if it is violated, shrinks
// it from the transactions and keys of the violation's evidence (as the
// reports do): it prints the kind of the violation, the transactions kept
// (by id, in history order), the counterexample as a sub-history (one
// transaction a line: session, id, status, [start,end], operations; the
// operations the violation does not need dropped) and whether it is
// minimal: without any one of its transactions, whole, the rest satisfies
// the level (or, where some can go, which reads keep them as writers they
// may have read from; see shrink.Minimality).
//
// Rewrite the expected outputs with
//
//	go test ./shrink -run TestTranscript -rewrite
//
// and read every changed line against its history (see package
// internal/stagetest).

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"

	"github.com/isocheck/isocheck/check"
	"github.com/isocheck/isocheck/histgen"
	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/internal/testkit/stagetest"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/polygraph"
	"github.com/isocheck/isocheck/shrink"
	"github.com/isocheck/isocheck/verdict"
)

func TestTranscript(t *testing.T) {
	stagetest.Run(t, func(t *testing.T, td *datadriven.TestData, h *history.History) string {
		if td.Cmd != "shrink" {
			return stagetest.Unknown(t, td)
		}
		ctx := context.Background()
		l := stagetest.Level(t, td, level.SER)
		res, err := check.Check(ctx, h, l)
		if err != nil {
			td.Fatalf(t, "check: %v", err)
		}
		if res.Verdict != verdict.Violated {
			return fmt.Sprintf("%v: nothing to shrink\n", res.Verdict)
		}
		seed, keys := evidence(res)
		sel, s, ok := shrink.Minimize(ctx, h, l, seed, keys)
		if !ok {
			return "no violating sub-history found\n"
		}
		n := stagetest.Namer{H: h}
		var b strings.Builder
		fmt.Fprintf(&b, "violation: %s\n", shrink.Kind(res))
		fmt.Fprintf(&b, "kept: %s\n", n.Nodes(sel.Txns))
		var dropped []int32
		for op, d := range sel.DropOps {
			if d {
				dropped = append(dropped, op)
			}
		}
		slices.Sort(dropped)
		for _, op := range dropped {
			fmt.Fprintf(&b, "dropped: %s\n", n.TxnOp(op))
		}
		b.WriteString(histgen.Describe(s.Sub(sel)))
		m, err := s.Minimality(ctx, sel.Txns, l)
		if err != nil {
			td.Fatalf(t, "minimality: %v", err)
		}
		switch {
		case m.Minimal():
			b.WriteString("minimal\n")
		case !m.Violates:
			b.WriteString("error: the transactions, whole, do not violate the level\n")
		case m.ForChoices():
			b.WriteString("minimal but for the writers kept for reads that may have read from them:\n")
		default:
			b.WriteString("not minimal:\n")
		}
		for _, r := range m.Removable {
			reads := make([]string, len(r.Reads))
			for i, op := range r.Reads {
				reads[i] = n.TxnOp(op)
			}
			fmt.Fprintf(&b, "  %s could go; it is a writer of %s\n", n.Node(r.Txn), strings.Join(reads, ", "))
		}
		return b.String()
	})
}

// evidence returns the transactions and keys of res's evidence: those of
// its first anomaly, or of the edges of its cycles.
func evidence(res *check.Result) ([]int32, []history.Key) {
	p := res.Polygraph
	txns := map[int32]bool{}
	keys := map[history.Key]bool{}
	addTxn := func(t int32) {
		if t >= 0 && p.IsTxn(t) {
			txns[t] = true
		}
	}
	if len(res.Anomalies) > 0 {
		a := res.Anomalies[0]
		addTxn(a.Txn)
		addTxn(a.Writer)
		if a.Kind == verdict.LostUpdate {
			addTxn(a.OtherTxn)
		}
		keys[a.Key] = true
	}
	cycles := res.Core
	if res.Cycle != nil {
		cycles = [][]polygraph.Edge{res.Cycle}
	}
	if c := res.Conflict; c != nil {
		cycles = [][]polygraph.Edge{c.EitherCycle, c.OrCycle}
	}
	for _, cycle := range cycles {
		for _, e := range cycle {
			addTxn(e.From)
			addTxn(e.To)
			if e.Key != polygraph.NoKey {
				keys[e.Key] = true
			}
		}
	}
	var ts []int32
	for t := range txns {
		ts = append(ts, t)
	}
	var ks []history.Key
	for k := range keys {
		ks = append(ks, k)
	}
	slices.Sort(ts)
	slices.Sort(ks)
	return ts, ks
}
